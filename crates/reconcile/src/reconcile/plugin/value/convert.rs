//! State JSON to and from cty's msgpack, guided by the type. What cty does and this follows:
//! - a null is msgpack nil at any type; an unknown is an extension, which a refreshed object must
//!   not hold, so decoding one is an error naming its path;
//! - numbers arrive as ints, floats or decimal strings (cty's form for what neither holds exactly);
//!   they are written as Terraform writes them: integers plainly, floats as the shortest decimal
//!   that reads back the same, strings as they are. Encoding sends integers as ints and every other
//!   number as its decimal string, which cty reads back exactly;
//! - objects and maps are msgpack maps, written to JSON in sorted key order as Terraform's state
//!   writer does; lists, sets and tuples are arrays, kept in the order the provider sent;
//! - a dynamic value is a 2-array of its type's JSON (as bytes) and the value, and the state holds it
//!   as `{"value": ..., "type": ...}`.
//!
//! Error messages name paths and kinds, never values: a provider configuration holds credentials.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};
use statectl_state::json::Decimal;

use super::msgpack::{Msg, MsgpackError, Writer, read};
use super::ty::{Type, TypeError};

/// A value that does not fit its cty type, in either direction, or msgpack that does not decode.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// The msgpack decoder's reason.
    #[error(transparent)]
    Msgpack(#[from] MsgpackError),
    /// `at` names the attribute path (`the value` at the top), never the value.
    #[error("{at}: {problem}")]
    At { at: String, problem: ValueProblem },
}

/// What is wrong at one path of a value.
#[derive(Debug, thiserror::Error)]
pub enum ValueProblem {
    #[error("expected {wanted}, found {found}")]
    Kind {
        wanted: &'static str,
        found: &'static str,
    },
    #[error("a tuple of {wanted} elements, found {found}")]
    TupleLength { wanted: usize, found: usize },
    /// Encoding: the state holds an attribute the type lacks.
    #[error("no attribute `{0}` in its type")]
    ExtraAttribute(String),
    /// Decoding: the provider answered an attribute the schema lacks.
    #[error("no attribute `{0}` in the schema")]
    UnknownAttribute(String),
    #[error(transparent)]
    Type(#[from] TypeError),
    #[error("the provider answered an unknown value, which a refreshed object cannot hold")]
    Unknown,
    #[error("a number that is not finite")]
    NotFinite,
    #[error("not a decimal number")]
    NotDecimal,
    #[error("a map key is not a string")]
    MapKey,
    #[error("an attribute name is not a string")]
    AttributeName,
}

/// The error for `problem` at `path`.
/// A tuple value holds one item for each of the tuple type's elements.
fn tuple_length(path: &[String], elements: usize, items: usize) -> Result<(), ValueError> {
    if elements == items {
        return Ok(());
    }
    Err(fail(
        path,
        ValueProblem::TupleLength {
            wanted: elements,
            found: items,
        },
    ))
}

fn fail(path: &[String], problem: ValueProblem) -> ValueError {
    ValueError::At {
        at: at(path),
        problem,
    }
}

/// A value at `path` of the wrong kind: `found` where the type wants `wanted`.
fn mismatch(path: &[String], wanted: &'static str, found: &'static str) -> ValueError {
    fail(path, ValueProblem::Kind { wanted, found })
}

/// What a value of `ty` must be, as a mismatch names it; `dynamic` and `map` word what the dynamic
/// type and maps and objects want, which JSON and msgpack spell differently.
fn wanted(ty: &Type, dynamic: &'static str, map: &'static str) -> &'static str {
    match ty {
        Type::Dynamic => dynamic,
        Type::Bool => "a bool",
        Type::Number => "a number",
        Type::String => "a string",
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => "an array",
        Type::Map(_) | Type::Object(_) => map,
    }
}

/// State JSON to msgpack, by type.
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, ValueError> {
    let mut writer = Writer::default();
    write(&mut writer, value, ty, &mut Vec::new())?;
    Ok(writer.bytes)
}

/// msgpack to state JSON, by type.
pub fn decode(bytes: &[u8], ty: &Type) -> Result<Value, ValueError> {
    let message = read(bytes).map_err(ValueError::Msgpack)?;
    to_json(&message, ty, &mut Vec::new())
}

fn at(path: &[String]) -> String {
    if path.is_empty() {
        "the value".to_owned()
    } else {
        format!("`{}`", path.concat().trim_start_matches('.'))
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn write(
    out: &mut Writer,
    value: &Value,
    ty: &Type,
    path: &mut Vec<String>,
) -> Result<(), ValueError> {
    match (ty, value) {
        (_, Value::Null) => out.nil(),
        (Type::Bool, Value::Bool(flag)) => out.bool(*flag),
        (Type::String, Value::String(text)) => out.str(text),
        (Type::Number, Value::Number(number)) => match number.as_i64() {
            Some(integer) => out.int(integer),
            None => out.str(&number.to_string()),
        },
        (Type::List(element) | Type::Set(element), Value::Array(items)) => {
            out.array(items.len());
            for (index, item) in items.iter().enumerate() {
                path.push(format!("[{index}]"));
                write(out, item, element, path)?;
                path.pop();
            }
        }
        (Type::Tuple(elements), Value::Array(items)) => {
            tuple_length(path, elements.len(), items.len())?;
            out.array(items.len());
            for (index, (item, element)) in items.iter().zip(elements).enumerate() {
                path.push(format!("[{index}]"));
                write(out, item, element, path)?;
                path.pop();
            }
        }
        (Type::Map(element), Value::Object(members)) => {
            let sorted: BTreeMap<&String, &Value> = members.iter().collect();
            out.map(sorted.len());
            for (key, item) in sorted {
                out.str(key);
                path.push(format!("[{key:?}]"));
                write(out, item, element, path)?;
                path.pop();
            }
        }
        (Type::Object(fields), Value::Object(members)) => {
            if let Some(extra) = members.keys().find(|name| !fields.contains_key(*name)) {
                return Err(fail(path, ValueProblem::ExtraAttribute(extra.clone())));
            }
            out.map(fields.len());
            for (name, field) in fields {
                out.str(name);
                path.push(format!(".{name}"));
                write(out, members.get(name).unwrap_or(&Value::Null), field, path)?;
                path.pop();
            }
        }
        (Type::Dynamic, Value::Object(members)) if members.contains_key("type") => {
            let inner = Type::from_value(&members["type"])
                .map_err(|error| fail(path, ValueProblem::Type(error)))?;
            out.array(2);
            out.bin(inner.to_json().to_string().as_bytes());
            write(
                out,
                members.get("value").unwrap_or(&Value::Null),
                &inner,
                path,
            )?;
        }
        _ => {
            let wanted = wanted(
                ty,
                "a {\"value\", \"type\"} object for a dynamic value",
                "an object",
            );
            return Err(mismatch(path, wanted, kind(value)));
        }
    }
    Ok(())
}

fn message_kind(message: &Msg) -> &'static str {
    match message {
        Msg::Nil => "nil",
        Msg::Bool(_) => "a bool",
        Msg::Int(_) => "an integer",
        Msg::Float(_) => "a float",
        Msg::Str(_) => "a string",
        Msg::Bin(_) => "bytes",
        Msg::Array(_) => "an array",
        Msg::Map(_) => "a map",
        Msg::Ext(_) => "an extension",
    }
}

fn to_json(message: &Msg, ty: &Type, path: &mut Vec<String>) -> Result<Value, ValueError> {
    Ok(match (ty, message) {
        (_, Msg::Nil) => Value::Null,
        (_, Msg::Ext(_)) => {
            return Err(fail(path, ValueProblem::Unknown));
        }
        (Type::Bool, Msg::Bool(flag)) => Value::Bool(*flag),
        (Type::String, Msg::Str(text)) => Value::String(text.clone()),
        (Type::Number, Msg::Int(integer)) => number(&integer.to_string(), path)?,
        (Type::Number, Msg::Float(float)) => {
            if !float.is_finite() {
                return Err(fail(path, ValueProblem::NotFinite));
            }
            // Rust's shortest round-trip form, like Go's big.Float Text('f', -1) of a float64: no
            // exponent, no trailing `.0`.
            number(&format!("{float}"), path)?
        }
        (Type::Number, Msg::Str(text)) => number(
            &plain_decimal(text).ok_or_else(|| fail(path, ValueProblem::NotDecimal))?,
            path,
        )?,
        (Type::List(element) | Type::Set(element), Msg::Array(items)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    path.push(format!("[{index}]"));
                    let value = to_json(item, element, path);
                    path.pop();
                    value
                })
                .collect::<Result<_, _>>()?,
        ),
        (Type::Tuple(elements), Msg::Array(items)) => {
            tuple_length(path, elements.len(), items.len())?;
            let mut out = Vec::with_capacity(items.len());
            for (index, (item, element)) in items.iter().zip(elements).enumerate() {
                path.push(format!("[{index}]"));
                out.push(to_json(item, element, path)?);
                path.pop();
            }
            Value::Array(out)
        }
        (Type::Map(element), Msg::Map(entries)) => {
            let mut sorted = BTreeMap::new();
            for (key, item) in entries {
                let Msg::Str(key) = key else {
                    return Err(fail(path, ValueProblem::MapKey));
                };
                path.push(format!("[{key:?}]"));
                sorted.insert(key.clone(), to_json(item, element, path)?);
                path.pop();
            }
            Value::Object(sorted.into_iter().collect())
        }
        (Type::Object(fields), Msg::Map(entries)) => object_to_json(fields, entries, path)?,
        (Type::Dynamic, Msg::Array(pair)) if pair.len() == 2 => {
            let type_json = match &pair[0] {
                Msg::Bin(bytes) => bytes.as_slice(),
                Msg::Str(text) => text.as_bytes(),
                _ => {
                    return Err(mismatch(
                        path,
                        "a dynamic value's type",
                        message_kind(message),
                    ));
                }
            };
            let inner = Type::from_json(type_json)
                .map_err(|error| fail(path, ValueProblem::Type(error)))?;
            let value = to_json(&pair[1], &inner, path)?;
            let mut out = Map::new();
            out.insert("value".to_owned(), value);
            out.insert("type".to_owned(), inner.to_json());
            Value::Object(out)
        }
        _ => {
            let wanted = wanted(ty, "a [type, value] pair", "a map");
            return Err(mismatch(path, wanted, message_kind(message)));
        }
    })
}

/// An object: every attribute of the schema, null when the provider left it out; an attribute the
/// schema does not know is an error.
fn object_to_json(
    fields: &BTreeMap<String, Type>,
    entries: &[(Msg, Msg)],
    path: &mut Vec<String>,
) -> Result<Value, ValueError> {
    let mut given: BTreeMap<&str, &Msg> = BTreeMap::new();
    for (key, item) in entries {
        let Msg::Str(key) = key else {
            return Err(fail(path, ValueProblem::AttributeName));
        };
        if !fields.contains_key(key) {
            return Err(fail(path, ValueProblem::UnknownAttribute(key.clone())));
        }
        given.insert(key, item);
    }
    let mut out = Map::new();
    for (name, field) in fields {
        path.push(format!(".{name}"));
        let value = match given.get(name.as_str()) {
            Some(item) => to_json(item, field, path)?,
            None => Value::Null,
        };
        path.pop();
        out.insert(name.clone(), value);
    }
    Ok(Value::Object(out))
}

/// A decimal string as Terraform writes a number in state (Go's big.Float `Text('f', -1)`): no
/// exponent, no leading zeros, no trailing fractional zeros, no sign on zero. `None` for text that is
/// not a number. Beyond JSON's spelling, a leading `+` and a bare fraction (`.5`, `-.5`) are numbers.
fn plain_decimal(text: &str) -> Option<String> {
    let (sign, unsigned) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => (
            "",
            text.strip_prefix('+')
                .filter(|rest| !rest.starts_with('-'))
                .unwrap_or(text),
        ),
    };
    let bare_fraction = unsigned
        .strip_prefix('.')
        .is_some_and(|fraction| fraction.starts_with(|digit: char| digit.is_ascii_digit()));
    let whole = if bare_fraction { "0" } else { "" };
    let number = Decimal::parse(&format!("{sign}{whole}{unsigned}"))?;
    if number.is_zero() {
        return Some("0".to_owned());
    }
    number.plain(10_000)
}

/// A JSON number with exactly this text.
fn number(text: &str, path: &[String]) -> Result<Value, ValueError> {
    serde_json::from_str::<Number>(text)
        .map(Value::Number)
        .map_err(|_| fail(path, ValueProblem::NotDecimal))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ty(text: &str) -> Type {
        Type::from_json(text.as_bytes()).unwrap()
    }

    fn exact(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn round_trips_every_type_in_sorted_key_order() {
        let object = ty(
            r#"["object",{"tags":["map","string"],"id":"string","ports":["list","number"],"ok":"bool","pair":["tuple",["string","number"]],"ids":["set","string"],"gone":"string"}]"#,
        );
        let value = exact(
            r#"{"tags":{"z":"1","a":"2"},"id":"i-1","ports":[22,443],"ok":true,"pair":["x",1.5],"ids":["a","b"]}"#,
        );
        let back = decode(&encode(&value, &object).unwrap(), &object).unwrap();
        assert_eq!(
            back.to_string(),
            r#"{"gone":null,"id":"i-1","ids":["a","b"],"ok":true,"pair":["x",1.5],"ports":[22,443],"tags":{"a":"2","z":"1"}}"#
        );
    }

    #[test]
    fn numbers_stay_exact_in_every_form() {
        let number = Type::Number;
        // Integers as ints, anything else as cty's decimal string.
        assert_eq!(encode(&exact("42"), &number).unwrap(), [42]);
        assert_eq!(encode(&exact("-1"), &number).unwrap(), [0xff]);
        let mut expected = vec![0xa3];
        expected.extend_from_slice(b"0.1");
        assert_eq!(encode(&exact("0.1"), &number).unwrap(), expected);
        for text in [
            "9007199254740993",
            "123456789012345678901234567890",
            "0.1",
            "-2.5",
        ] {
            let back = decode(&encode(&exact(text), &number).unwrap(), &number).unwrap();
            assert_eq!(back.to_string(), exact(text).to_string(), "{text}");
        }
        // What providers send: uint64, floats of both widths, decimal strings.
        let decoded = |bytes: &[u8]| decode(bytes, &number).unwrap().to_string();
        assert_eq!(
            decoded(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            "18446744073709551615"
        );
        assert_eq!(
            decoded(&[0xcb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a]),
            "0.1"
        );
        assert_eq!(decoded(&[0xcb, 0x40, 0x08, 0, 0, 0, 0, 0, 0]), "3");
        assert_eq!(
            decoded(&[0xcb, 0x44, 0x4b, 0x1a, 0xe4, 0xd6, 0xe2, 0xef, 0x50]),
            "1000000000000000000000"
        );
        assert_eq!(decoded(&[0xca, 0x3f, 0xc0, 0, 0]), "1.5");
        assert_eq!(
            decoded(&[0xa4, b'1', b'e', b'2', b'1']),
            "1000000000000000000000"
        );
        for (text, plain) in [
            ("2.50", "2.5"),
            ("-0.0100", "-0.01"),
            ("1.5e-3", "0.0015"),
            ("12.5E2", "1250"),
            ("007", "7"),
            ("0", "0"),
            ("0.000", "0"),
            ("123", "123"),
            ("1e400", ""),
        ] {
            let plain = if plain.is_empty() {
                format!("1{}", "0".repeat(400))
            } else {
                plain.to_owned()
            };
            assert_eq!(
                plain_decimal(text).as_deref(),
                Some(plain.as_str()),
                "{text}"
            );
        }
        for (text, plain) in [
            ("+5", "5"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("+.5", "0.5"),
            ("5.", "5"),
        ] {
            assert_eq!(plain_decimal(text).as_deref(), Some(plain), "{text}");
        }
        for text in [
            ".",
            ".e5",
            "+",
            "",
            "+-5",
            "-+5",
            "1e10000",
            "1e9223372036854775807",
        ] {
            assert_eq!(plain_decimal(text), None, "{text}");
        }
        assert_eq!(plain_decimal("1.2.3"), None);
        assert_eq!(plain_decimal("e5"), None);
        assert!(
            decode(&[0xa3, b'a', b'b', b'c'], &number)
                .unwrap_err()
                .to_string()
                .contains("not a decimal number")
        );
    }

    #[test]
    fn dynamic_values_carry_their_type_as_the_state_stores_them() {
        let value = json!({"value": {"name": "x", "n": 2}, "type": ["object", {"n": "number", "name": "string"}]});
        let bytes = encode(&value, &Type::Dynamic).unwrap();
        assert_eq!(bytes[0], 0x92);
        assert_eq!(bytes[1], 0xc4, "the type travels as bytes");
        let back = decode(&bytes, &Type::Dynamic).unwrap();
        assert_eq!(
            back.to_string(),
            r#"{"value":{"n":2,"name":"x"},"type":["object",{"n":"number","name":"string"}]}"#
        );
        assert_eq!(decode(&[0xc0], &Type::Dynamic).unwrap(), Value::Null);
        assert!(
            encode(&json!("x"), &Type::Dynamic)
                .unwrap_err()
                .to_string()
                .contains("dynamic value")
        );
    }

    #[test]
    fn a_mismatch_names_what_each_type_wants_in_either_direction() {
        let encoded = [
            (
                "\"dynamic\"",
                json!(7),
                "a {\"value\", \"type\"} object for a dynamic value, found a number",
            ),
            ("\"bool\"", json!("yes"), "a bool, found a string"),
            ("\"number\"", json!(true), "a number, found a bool"),
            ("\"string\"", json!([]), "a string, found an array"),
            (
                r#"["list","string"]"#,
                json!({}),
                "an array, found an object",
            ),
            (r#"["map","string"]"#, json!(1), "an object, found a number"),
        ];
        for (type_json, value, expected) in encoded {
            let error = encode(&value, &ty(type_json)).unwrap_err().to_string();
            assert_eq!(
                error,
                format!("the value: expected {expected}"),
                "{type_json}"
            );
        }
        // msgpack: 0x07 an integer, 0xc3 true, 0x90 an empty array, 0x80 an empty map.
        let decoded: [(&str, &[u8], &str); 7] = [
            (
                "\"dynamic\"",
                &[0x07],
                "a [type, value] pair, found an integer",
            ),
            (
                "\"dynamic\"",
                &[0x92, 0xc3, 0xc3],
                "a dynamic value's type, found an array",
            ),
            ("\"bool\"", &[0x07], "a bool, found an integer"),
            ("\"number\"", &[0xc3], "a number, found a bool"),
            ("\"string\"", &[0x90], "a string, found an array"),
            (r#"["set","string"]"#, &[0x80], "an array, found a map"),
            (r#"["object",{}]"#, &[0x90], "a map, found an array"),
        ];
        for (type_json, bytes, expected) in decoded {
            let error = decode(bytes, &ty(type_json)).unwrap_err().to_string();
            assert_eq!(
                error,
                format!("the value: expected {expected}"),
                "{type_json}"
            );
        }
    }

    #[test]
    fn unknowns_and_mismatches_are_errors_naming_the_path_not_the_value() {
        let object = ty(r#"["object",{"net":["list",["object",{"ip":"string"}]]}]"#);
        // {"net": [{"ip": <unknown>}]}
        let bytes = [
            0x81, 0xa3, b'n', b'e', b't', 0x91, 0x81, 0xa2, b'i', b'p', 0xd4, 0x00, 0x00,
        ];
        let error = decode(&bytes, &object).unwrap_err().to_string();
        assert!(
            error.starts_with("`net[0].ip`: the provider answered an unknown value"),
            "{error}"
        );
        let error = encode(&json!({"net": [{"ip": 7}]}), &object)
            .unwrap_err()
            .to_string();
        assert_eq!(error, "`net[0].ip`: expected a string, found a number");
        let error = encode(&json!({"secret_key": "hunter2"}), &object)
            .unwrap_err()
            .to_string();
        assert!(
            !error.contains("hunter2") && error.contains("no attribute `secret_key`"),
            "{error}"
        );
        let error = decode(&[0x81, 0xa1, b'x', 0xc0], &object)
            .unwrap_err()
            .to_string();
        assert!(error.contains("no attribute `x` in the schema"), "{error}");
    }
}
