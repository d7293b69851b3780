//! cty types in the JSON form schemas carry them: `"string"`, `"number"`, `"bool"`, `"dynamic"`,
//! `["list", T]`, `["set", T]`, `["map", T]`, `["object", {NAME: T}]` (with an optional third
//! element naming optional attributes, which changes nothing for values), `["tuple", [T...]]`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// A cty type. Object attributes are kept sorted, the order cty writes them in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Bool,
    Number,
    String,
    Dynamic,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Object(BTreeMap<String, Type>),
    Tuple(Vec<Type>),
}

/// A cty type (a schema attribute's `type` JSON) that statectl cannot read.
#[derive(Debug, thiserror::Error)]
pub enum TypeError {
    #[error("a type is not JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The primitive type name as written.
    #[error("`{0}` is not a cty type")]
    Primitive(String),
    /// The type's JSON, compact.
    #[error("{0} is not a cty type")]
    NotAType(Value),
    /// `list`, `set` or `map` with more than one element type.
    #[error("a `{0}` type takes one element type")]
    ElementCount(String),
    #[error("an object type's attributes must be a JSON object")]
    ObjectAttributes,
    #[error("a tuple type's elements must be a JSON array")]
    TupleElements,
}

impl Type {
    /// Parses a type's JSON (a schema attribute's `type` bytes).
    pub fn from_json(bytes: &[u8]) -> Result<Type, TypeError> {
        let value: Value = serde_json::from_slice(bytes).map_err(TypeError::Json)?;
        Type::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<Type, TypeError> {
        match value {
            Value::String(name) => match name.as_str() {
                "bool" => Ok(Type::Bool),
                "number" => Ok(Type::Number),
                "string" => Ok(Type::String),
                "dynamic" => Ok(Type::Dynamic),
                other => Err(TypeError::Primitive(other.to_owned())),
            },
            Value::Array(parts) if parts.len() >= 2 => {
                let kind = parts[0].as_str().unwrap_or_default();
                let element = &parts[1];
                let collection = |make: fn(Box<Type>) -> Type| -> Result<Type, TypeError> {
                    if parts.len() != 2 {
                        return Err(TypeError::ElementCount(kind.to_owned()));
                    }
                    Ok(make(Box::new(Type::from_value(element)?)))
                };
                match kind {
                    "list" => collection(Type::List),
                    "set" => collection(Type::Set),
                    "map" => collection(Type::Map),
                    "object" if parts.len() <= 3 => {
                        let Value::Object(fields) = element else {
                            return Err(TypeError::ObjectAttributes);
                        };
                        let mut out = BTreeMap::new();
                        for (name, field) in fields {
                            out.insert(name.clone(), Type::from_value(field)?);
                        }
                        Ok(Type::Object(out))
                    }
                    "tuple" if parts.len() == 2 => {
                        let Value::Array(items) = element else {
                            return Err(TypeError::TupleElements);
                        };
                        Ok(Type::Tuple(
                            items
                                .iter()
                                .map(Type::from_value)
                                .collect::<Result<_, _>>()?,
                        ))
                    }
                    _ => Err(TypeError::NotAType(value.clone())),
                }
            }
            _ => Err(TypeError::NotAType(value.clone())),
        }
    }

    pub fn to_json(&self) -> Value {
        match self {
            Type::Bool => "bool".into(),
            Type::Number => "number".into(),
            Type::String => "string".into(),
            Type::Dynamic => "dynamic".into(),
            Type::List(element) => Value::Array(vec!["list".into(), element.to_json()]),
            Type::Set(element) => Value::Array(vec!["set".into(), element.to_json()]),
            Type::Map(element) => Value::Array(vec!["map".into(), element.to_json()]),
            Type::Object(fields) => {
                let fields: Map<String, Value> = fields
                    .iter()
                    .map(|(name, field)| (name.clone(), field.to_json()))
                    .collect();
                Value::Array(vec!["object".into(), Value::Object(fields)])
            }
            Type::Tuple(items) => Value::Array(vec![
                "tuple".into(),
                Value::Array(items.iter().map(Type::to_json).collect()),
            ]),
        }
    }

    /// Whether a dynamic type appears anywhere in it.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::Bool | Type::Number | Type::String => false,
            Type::List(element) | Type::Set(element) | Type::Map(element) => element.has_dynamic(),
            Type::Object(fields) => fields.values().any(Type::has_dynamic),
            Type::Tuple(items) => items.iter().any(Type::has_dynamic),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn round_trips_every_kind_and_reads_optional_attributes() {
        let text = r#"["object",{"a":["list","string"],"b":["map",["set","number"]],"c":["tuple",["bool","dynamic"]]},["b"]]"#;
        let ty = Type::from_json(text.as_bytes()).unwrap();
        let Type::Object(fields) = &ty else { panic!() };
        assert_eq!(fields["a"], Type::List(Box::new(Type::String)));
        assert_eq!(
            ty.to_json(),
            json!(["object", {"a": ["list", "string"], "b": ["map", ["set", "number"]], "c": ["tuple", ["bool", "dynamic"]]}])
        );
        assert!(ty.has_dynamic());
        assert!(!Type::List(Box::new(Type::String)).has_dynamic());
    }

    #[test]
    fn bad_types_are_one_line_errors() {
        assert_eq!(
            Type::from_json(b"\"float\"").unwrap_err().to_string(),
            "`float` is not a cty type"
        );
        assert!(
            Type::from_json(b"[\"list\"]")
                .unwrap_err()
                .to_string()
                .contains("is not a cty type")
        );
        assert!(
            Type::from_json(b"[\"object\", []]")
                .unwrap_err()
                .to_string()
                .contains("JSON object")
        );
        assert!(
            Type::from_json(b"{")
                .unwrap_err()
                .to_string()
                .starts_with("a type is not JSON")
        );
    }
}
