//! The slices of Go behaviour a format-3 upgrade depends on, reproduced byte for byte: values decoded
//! into `interface{}` and marshalled back (`encoding/json`), cty's implied types and number text for
//! output values, `strconv.ParseInt(s, 0, 0)` for legacy index keys, `%q` for provider sources, and
//! `json.MarshalIndent(v, "", "  ")` for the version-4 document Terraform would write.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::json::{Cursor, write_go_string};
use crate::state::error::StateError;

/// Nesting allowed inside `meta` and output values. Go allows 10,000 levels; a state never has more
/// than a handful, and a bound keeps the recursive readers and writers well inside a thread's stack.
const MAX_VALUE_DEPTH: usize = 500;

/// A JSON value as Go decodes it into `interface{}`: numbers become `float64`, objects become maps
/// (the last duplicate key wins; `BTreeMap` iterates in the byte order Go's encoder sorts keys in).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(BTreeMap<String, Value>),
}

/// Reads one value at the cursor into a [`Value`].
pub(super) fn read_value(cursor: &mut Cursor<'_>) -> Result<Value, StateError> {
    read_nested(cursor, 0)
}

fn read_nested(cursor: &mut Cursor<'_>, depth: usize) -> Result<Value, StateError> {
    cursor.skip_whitespace();
    let at = cursor.position();
    if depth > MAX_VALUE_DEPTH {
        return Err(StateError::at(
            at,
            format!("a value is nested more than {MAX_VALUE_DEPTH} levels deep"),
        ));
    }
    Ok(match cursor.peek() {
        Some(b'{') => {
            let mut members = BTreeMap::new();
            cursor.object(|cursor, key: Cow<'_, str>, _| {
                let value = read_nested(cursor, depth + 1)?;
                members.insert(key.into_owned(), value);
                Ok::<_, StateError>(())
            })?;
            Value::Object(members)
        }
        Some(b'[') => {
            let mut elements = Vec::new();
            cursor.array(|cursor| {
                elements.push(read_nested(cursor, depth + 1)?);
                Ok::<_, StateError>(())
            })?;
            Value::Array(elements)
        }
        Some(b'"') => Value::String(cursor.string()?.0.into_owned()),
        Some(b'-' | b'0'..=b'9') => {
            let span = cursor.number()?;
            let text = cursor.text(span)?;
            match text.parse::<f64>() {
                Ok(number) if number.is_finite() => Value::Number(number),
                _ => {
                    return Err(StateError::at(
                        at,
                        format!(
                            "the number {text} does not fit a 64-bit float, as Terraform reads it"
                        ),
                    ));
                }
            }
        }
        _ if cursor.null() => Value::Null,
        _ => {
            let span = cursor.skip_value()?;
            match cursor.text(span)? {
                "true" => Value::Bool(true),
                _ => Value::Bool(false),
            }
        }
    })
}

/// `json.Marshal` of a decoded value: compact, keys sorted, Go's string escaping and float text.
pub(super) fn marshal(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&go_float(*number)),
        Value::String(text) => write_go_string(text, out),
        Value::Array(elements) => {
            out.push('[');
            for (index, element) in elements.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                marshal(element, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (index, (key, member)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_go_string(key, out);
                out.push(':');
                marshal(member, out);
            }
            out.push('}');
        }
    }
}

/// How `encoding/json` writes a `float64`: the shortest text that reads back the same, in plain
/// notation from 1e-6 up to 1e21 and in exponent notation (`1e+21`, `1e-7`) outside.
pub(super) fn go_float(number: f64) -> String {
    let magnitude = number.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        // Rust writes `1e21` and `1.5e-7`; Go writes a sign on positive exponents.
        let text = format!("{number:e}");
        match text.split_once('e') {
            Some((mantissa, exponent)) if !exponent.starts_with('-') => {
                format!("{mantissa}e+{exponent}")
            }
            _ => text,
        }
    } else {
        format!("{number}")
    }
}

/// How cty writes a number that came from such a float: `big.Float.Text('f', -1)`, the shortest
/// plain decimal, never an exponent (`1e+21` becomes `1000000000000000000000`).
pub(super) fn cty_number(number: f64) -> String {
    format!("{number}")
}

/// A cty type, as `ctyjson.ImpliedType` infers it from JSON and `MarshalType` writes it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Type {
    String,
    Number,
    Bool,
    Dynamic,
    List(Box<Type>),
    Map(Box<Type>),
    Tuple(Vec<Type>),
    Object(BTreeMap<String, Type>),
}

/// The type cty infers for a JSON value: arrays are tuples, objects are object types, null is dynamic.
pub(super) fn implied_type(value: &Value) -> Type {
    match value {
        Value::Null => Type::Dynamic,
        Value::Bool(_) => Type::Bool,
        Value::Number(_) => Type::Number,
        Value::String(_) => Type::String,
        Value::Array(elements) => Type::Tuple(elements.iter().map(implied_type).collect()),
        Value::Object(members) => Type::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), implied_type(member)))
                .collect(),
        ),
    }
}

/// Terraform's `simplifyImpliedValueType`: a tuple whose elements all have one type becomes a list,
/// an object whose attributes all have one type becomes a map (the first element's type, simplified),
/// since Terraform before 0.12 had only collections. Empty tuples and objects stay as they are.
pub(super) fn simplify(implied: Type) -> Type {
    match implied {
        Type::Tuple(elements) if !elements.is_empty() => {
            if elements.iter().all(|element| *element == elements[0]) {
                let first = elements.into_iter().next().unwrap_or(Type::Dynamic);
                Type::List(Box::new(simplify(first)))
            } else {
                Type::Tuple(elements)
            }
        }
        Type::Object(attributes) if !attributes.is_empty() => {
            let mut types = attributes.values();
            let first = types.next().cloned().unwrap_or(Type::Dynamic);
            if types.all(|other| *other == first) {
                Type::Map(Box::new(simplify(first)))
            } else {
                Type::Object(attributes)
            }
        }
        other => other,
    }
}

/// `ctyjson.MarshalType`: `"string"`, `["list","string"]`, `["object",{"a":"number"}]`...
pub(super) fn type_json(of: &Type) -> Out {
    let named = |name: &str| Out::String(name.to_owned());
    match of {
        Type::String => named("string"),
        Type::Number => named("number"),
        Type::Bool => named("bool"),
        Type::Dynamic => named("dynamic"),
        Type::List(element) => Out::Array(vec![named("list"), type_json(element)]),
        Type::Map(element) => Out::Array(vec![named("map"), type_json(element)]),
        Type::Tuple(elements) => Out::Array(vec![
            named("tuple"),
            Out::Array(elements.iter().map(type_json).collect()),
        ]),
        Type::Object(attributes) => Out::Array(vec![
            named("object"),
            Out::Object(
                attributes
                    .iter()
                    .map(|(name, attribute)| (name.clone(), type_json(attribute)))
                    .collect(),
            ),
        ]),
    }
}

/// An output value as Terraform 1.x writes it after reading it back with its implied type: the same
/// structure, keys sorted, numbers in cty's plain decimal text.
pub(super) fn cty_value(value: &Value) -> Out {
    match value {
        Value::Null => Out::Null,
        Value::Bool(flag) => Out::Bool(*flag),
        Value::Number(number) => Out::Number(cty_number(*number)),
        Value::String(text) => Out::String(text.clone()),
        Value::Array(elements) => Out::Array(elements.iter().map(cty_value).collect()),
        Value::Object(members) => Out::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), cty_value(member)))
                .collect(),
        ),
    }
}

/// `strconv.ParseInt(text, 0, 0)` on a 64-bit machine: an optional sign, a `0x`/`0o`/`0b` prefix or a
/// leading `0` for octal, and `_` between digits.
pub(super) fn parse_int(text: &str) -> Option<i64> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = parse_uint(unsigned)?;
    if negative {
        if magnitude > 1 << 63 {
            return None;
        }
        Some(magnitude.cast_signed().wrapping_neg())
    } else {
        i64::try_from(magnitude).ok()
    }
}

fn parse_uint(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let (base, digits) = if bytes[0] == b'0' {
        match bytes.get(1).map(u8::to_ascii_lowercase) {
            Some(b'b') if bytes.len() >= 3 => (2, &text[2..]),
            Some(b'o') if bytes.len() >= 3 => (8, &text[2..]),
            Some(b'x') if bytes.len() >= 3 => (16, &text[2..]),
            _ => (8, &text[1..]),
        }
    } else {
        (10, text)
    };
    let mut value: u64 = 0;
    let mut underscores = false;
    for byte in digits.bytes() {
        let digit = match byte {
            b'_' => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => byte - b'0',
            b'a'..=b'z' => byte - b'a' + 10,
            b'A'..=b'Z' => byte - b'A' + 10,
            _ => return None,
        };
        if u32::from(digit) >= base {
            return None;
        }
        value = value
            .checked_mul(u64::from(base))?
            .checked_add(u64::from(digit))?;
    }
    if underscores && !underscores_ok(text) {
        return None;
    }
    Some(value)
}

/// Go's rule for `_` in a number: only between digits, or between a base prefix and a digit.
fn underscores_ok(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    // What came last: '^' the start, '0' a digit or base prefix, '_' an underscore, '!' other.
    let mut saw = b'^';
    let mut hex = false;
    if bytes.len() >= 2
        && bytes[0] == b'0'
        && matches!(bytes[1].to_ascii_lowercase(), b'b' | b'o' | b'x')
    {
        at = 2;
        saw = b'0';
        hex = bytes[1].eq_ignore_ascii_case(&b'x');
    }
    for &byte in &bytes[at..] {
        if byte.is_ascii_digit() || (hex && byte.is_ascii_hexdigit()) {
            saw = b'0';
        } else if byte == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
    }
    saw != b'_'
}

pub(super) use crate::state::go_text::quote;

/// A document to write as `json.MarshalIndent(v, "", "  ")` writes it; objects keep the order given
/// (struct fields in declaration order, maps already sorted).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Out {
    Null,
    Bool(bool),
    /// A number's text, written as is.
    Number(String),
    String(String),
    Array(Vec<Out>),
    Object(Vec<(String, Out)>),
}

impl Out {
    /// The whole document, with the one newline Terraform's writer ends a state with.
    pub(super) fn to_document(&self) -> String {
        let mut out = String::new();
        self.write(0, &mut out);
        out.push('\n');
        out
    }

    fn write(&self, depth: usize, out: &mut String) {
        let newline = |depth: usize, out: &mut String| {
            out.push('\n');
            for _ in 0..depth {
                out.push_str("  ");
            }
        };
        match self {
            Out::Null => out.push_str("null"),
            Out::Bool(true) => out.push_str("true"),
            Out::Bool(false) => out.push_str("false"),
            Out::Number(text) => out.push_str(text),
            Out::String(text) => write_go_string(text, out),
            Out::Array(elements) if elements.is_empty() => out.push_str("[]"),
            Out::Object(members) if members.is_empty() => out.push_str("{}"),
            Out::Array(elements) => {
                out.push('[');
                for (index, element) in elements.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    newline(depth + 1, out);
                    element.write(depth + 1, out);
                }
                newline(depth, out);
                out.push(']');
            }
            Out::Object(members) => {
                out.push('{');
                for (index, (key, member)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    newline(depth + 1, out);
                    write_go_string(key, out);
                    out.push_str(": ");
                    member.write(depth + 1, out);
                }
                newline(depth, out);
                out.push('}');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(json: &str) -> Value {
        read_value(&mut Cursor::new(json)).unwrap()
    }

    #[test]
    fn floats_are_written_as_go_writes_them() {
        for (number, go) in [
            (600_000_000_000.0, "600000000000"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (0.000_001, "0.000001"),
            (-2.5e-9, "-2.5e-9"),
            (0.0, "0"),
            (10_669_755_453_527_594_976.0, "10669755453527595000"),
        ] {
            assert_eq!(go_float(number), go, "{number}");
        }
        assert_eq!(cty_number(1e21), "1000000000000000000000");
        assert_eq!(cty_number(1e-7), "0.0000001");
    }

    #[test]
    fn marshal_sorts_keys_and_keeps_the_last_duplicate() {
        let mut out = String::new();
        marshal(
            &value(r#"{"b": 1, "a": [true, null, "<x>"], "b": 2.50}"#),
            &mut out,
        );
        assert_eq!(out, r#"{"a":[true,null,"\u003cx\u003e"],"b":2.5}"#);
    }

    #[test]
    fn numbers_beyond_a_float_are_an_error() {
        assert!(read_value(&mut Cursor::new("1e400")).is_err());
    }

    #[test]
    fn implied_types_are_simplified_to_collections_where_uniform() {
        let simplified = |json: &str| {
            type_json(&simplify(implied_type(&value(json))))
                .to_document()
                .split_whitespace()
                .collect::<String>()
        };
        assert_eq!(simplified(r#""a""#), r#""string""#);
        assert_eq!(simplified(r#"["a","b"]"#), r#"["list","string"]"#);
        assert_eq!(simplified(r#"{"a":"x","b":"y"}"#), r#"["map","string"]"#);
        assert_eq!(
            simplified(r#"[{"a":"x"},{"a":"y"}]"#),
            r#"["list",["map","string"]]"#
        );
        assert_eq!(
            simplified(r#"[{"a":"x"},{"b":"y"}]"#),
            r#"["tuple",[["object",{"a":"string"}],["object",{"b":"string"}]]]"#
        );
        assert_eq!(simplified("[]"), r#"["tuple",[]]"#);
        assert_eq!(simplified("{}"), r#"["object",{}]"#);
        assert_eq!(simplified(r#"["a",1]"#), r#"["tuple",["string","number"]]"#);
        assert_eq!(simplified("null"), r#""dynamic""#);
    }

    #[test]
    fn parse_int_follows_go_base_zero() {
        assert_eq!(parse_int("0"), Some(0));
        assert_eq!(parse_int("12"), Some(12));
        assert_eq!(parse_int("010"), Some(8));
        assert_eq!(parse_int("0x1f"), Some(31));
        assert_eq!(parse_int("0b101"), Some(5));
        assert_eq!(parse_int("0o17"), Some(15));
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(parse_int("+3"), Some(3));
        assert_eq!(parse_int("1_000"), Some(1000));
        assert_eq!(parse_int("-9223372036854775808"), Some(i64::MIN));
        for bad in [
            "",
            "x",
            "1_",
            "_1",
            "1__0",
            "08",
            "0x",
            "9223372036854775808",
            "1.5",
            "-",
        ] {
            assert_eq!(parse_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn quote_escapes_as_go_percent_q_does() {
        assert_eq!(
            quote("registry.terraform.io/-/null"),
            r#""registry.terraform.io/-/null""#
        );
        assert_eq!(quote("a\"b\\c\n\u{1}"), r#""a\"b\\c\n\x01""#);
    }

    #[test]
    fn documents_are_indented_as_marshal_indent_does() {
        let document = Out::Object(vec![
            ("a".to_owned(), Out::Array(vec![])),
            (
                "b".to_owned(),
                Out::Array(vec![Out::Number("1".to_owned()), Out::Object(vec![])]),
            ),
        ]);
        assert_eq!(
            document.to_document(),
            "{\n  \"a\": [],\n  \"b\": [\n    1,\n    {}\n  ]\n}\n"
        );
    }
}
