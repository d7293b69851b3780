//! TEMPORARY stand-in for the cty type and msgpack codec built on another branch: the same API, with
//! just enough of the encoding (no unknowns, no dynamic values) for the transport's own tests. This
//! file is dropped when the real codec is merged.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

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

impl Type {
    pub fn from_json(bytes: &[u8]) -> Result<Type, String> {
        let value: Value = serde_json::from_slice(bytes).map_err(|error| error.to_string())?;
        Type::from_value(&value)
    }

    fn from_value(value: &Value) -> Result<Type, String> {
        match value {
            Value::String(name) => match name.as_str() {
                "bool" => Ok(Type::Bool),
                "number" => Ok(Type::Number),
                "string" => Ok(Type::String),
                "dynamic" => Ok(Type::Dynamic),
                other => Err(format!("unknown type `{other}`")),
            },
            Value::Array(parts) if parts.len() == 2 => {
                let element = &parts[1];
                match parts[0].as_str() {
                    Some("list") => Ok(Type::List(Box::new(Type::from_value(element)?))),
                    Some("set") => Ok(Type::Set(Box::new(Type::from_value(element)?))),
                    Some("map") => Ok(Type::Map(Box::new(Type::from_value(element)?))),
                    Some("object") => {
                        let fields = element.as_object().ok_or("bad object type")?;
                        let mut out = BTreeMap::new();
                        for (name, field) in fields {
                            out.insert(name.clone(), Type::from_value(field)?);
                        }
                        Ok(Type::Object(out))
                    }
                    Some("tuple") => {
                        let items = element.as_array().ok_or("bad tuple type")?;
                        Ok(Type::Tuple(
                            items
                                .iter()
                                .map(Type::from_value)
                                .collect::<Result<_, _>>()?,
                        ))
                    }
                    _ => Err("unknown type".into()),
                }
            }
            _ => Err("unknown type".into()),
        }
    }

    pub fn to_json(&self) -> Value {
        match self {
            Type::Bool => "bool".into(),
            Type::Number => "number".into(),
            Type::String => "string".into(),
            Type::Dynamic => "dynamic".into(),
            Type::List(element) => serde_json::json!(["list", element.to_json()]),
            Type::Set(element) => serde_json::json!(["set", element.to_json()]),
            Type::Map(element) => serde_json::json!(["map", element.to_json()]),
            Type::Object(fields) => {
                let fields: Map<String, Value> = fields
                    .iter()
                    .map(|(name, field)| (name.clone(), field.to_json()))
                    .collect();
                serde_json::json!(["object", fields])
            }
            Type::Tuple(items) => {
                serde_json::json!(["tuple", items.iter().map(Type::to_json).collect::<Vec<_>>()])
            }
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<NestedBlock>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub kind: AttributeKind,
    pub sensitive: bool,
    pub optional: bool,
    pub computed: bool,
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AttributeKind {
    Typed(Type),
    Nested(NestedAttributes),
}

#[derive(Debug, Clone, PartialEq)]
pub struct NestedAttributes {
    pub attributes: Vec<Attribute>,
    pub nesting: Nesting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    Single,
    Group,
    List,
    Set,
    Map,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NestedBlock {
    pub name: String,
    pub nesting: Nesting,
    pub block: Block,
    pub min_items: i64,
    pub max_items: i64,
}

fn attributes_type(attributes: &[Attribute]) -> BTreeMap<String, Type> {
    attributes
        .iter()
        .map(|attribute| {
            let ty = match &attribute.kind {
                AttributeKind::Typed(ty) => ty.clone(),
                AttributeKind::Nested(nested) => nest(
                    nested.nesting,
                    Type::Object(attributes_type(&nested.attributes)),
                ),
            };
            (attribute.name.clone(), ty)
        })
        .collect()
}

fn nest(nesting: Nesting, ty: Type) -> Type {
    match nesting {
        Nesting::Single | Nesting::Group => ty,
        Nesting::List => Type::List(Box::new(ty)),
        Nesting::Set => Type::Set(Box::new(ty)),
        Nesting::Map => Type::Map(Box::new(ty)),
    }
}

impl Block {
    pub fn implied_type(&self) -> Type {
        let mut fields = attributes_type(&self.attributes);
        for nested in &self.blocks {
            fields.insert(
                nested.name.clone(),
                nest(nested.nesting, nested.block.implied_type()),
            );
        }
        Type::Object(fields)
    }
}

pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    write(&mut out, value, ty)?;
    Ok(out)
}

fn write_length(out: &mut Vec<u8>, length: usize, small: u8, big: u8) {
    if length < 16 {
        out.push(small | length as u8);
    } else {
        out.push(big);
        out.extend_from_slice(&(length as u32).to_be_bytes());
    }
}

fn write(out: &mut Vec<u8>, value: &Value, ty: &Type) -> Result<(), String> {
    match (value, ty) {
        (Value::Null, _) => out.push(0xc0),
        (Value::Bool(flag), Type::Bool) => out.push(if *flag { 0xc3 } else { 0xc2 }),
        (Value::Number(number), Type::Number) => {
            if let Some(integer) = number.as_i64() {
                out.push(0xd3);
                out.extend_from_slice(&integer.to_be_bytes());
            } else {
                let float: f64 = number.to_string().parse().map_err(|_| "bad number")?;
                out.push(0xcb);
                out.extend_from_slice(&float.to_be_bytes());
            }
        }
        (Value::String(text), Type::String) => {
            out.push(0xdb);
            out.extend_from_slice(&(text.len() as u32).to_be_bytes());
            out.extend_from_slice(text.as_bytes());
        }
        (Value::Array(items), Type::List(element) | Type::Set(element)) => {
            write_length(out, items.len(), 0x90, 0xdd);
            for item in items {
                write(out, item, element)?;
            }
        }
        (Value::Object(entries), Type::Map(element)) => {
            write_length(out, entries.len(), 0x80, 0xdf);
            for (key, item) in entries {
                write(out, &Value::String(key.clone()), &Type::String)?;
                write(out, item, element)?;
            }
        }
        (Value::Object(entries), Type::Object(fields)) => {
            write_length(out, fields.len(), 0x80, 0xdf);
            for (name, field) in fields {
                write(out, &Value::String(name.clone()), &Type::String)?;
                write(out, entries.get(name).unwrap_or(&Value::Null), field)?;
            }
        }
        _ => {
            return Err(format!(
                "the stand-in codec cannot encode {value} as {ty:?}"
            ));
        }
    }
    Ok(())
}

pub fn decode(_bytes: &[u8], _ty: &Type) -> Result<Value, String> {
    Err("the stand-in codec cannot decode yet".into())
}

pub fn sensitive_paths(_value: &Value, _block: &Block) -> Vec<Value> {
    Vec::new()
}
