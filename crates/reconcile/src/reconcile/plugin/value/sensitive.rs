//! The `sensitive_attributes` paths Terraform stores for an object, from its schema: every
//! attribute the schema marks sensitive (even when null), and the sensitive attributes inside
//! nested blocks and nested attribute types, with an index step per element of a list (a number),
//! a map (a string) or a set (the element itself, with its type, as cty paths into sets are). Terraform
//! puts these marks on the value and writes them out in the order a walk of the value meets them
//! (depth first, attributes by name), which is the order returned here.

use std::cmp::Ordering;

use serde_json::{Value, json};

use super::schema::{AttributeKind, Block, NestedAttributes, Nesting};
use super::ty::Type;

/// The paths of sensitive values in `value`, an object of `block`'s type.
pub fn sensitive_paths(value: &Value, block: &Block) -> Vec<Value> {
    let mut paths = Vec::new();
    block_paths(block, value, &[], &mut paths);
    paths.sort_by(|left, right| walk_order(left, right));
    paths.dedup();
    paths.into_iter().map(Value::Array).collect()
}

fn get_attr(name: &str) -> Value {
    json!({"type": "get_attr", "value": name})
}

fn index(key: &Value, ty: &Value) -> Value {
    json!({"type": "index", "value": {"value": key, "type": ty}})
}

fn with(base: &[Value], step: Value) -> Vec<Value> {
    let mut path = base.to_vec();
    path.push(step);
    path
}

fn block_contains_sensitive(block: &Block) -> bool {
    block.attributes.iter().any(|attribute| {
        attribute.sensitive
            || matches!(&attribute.kind, AttributeKind::Nested(nested) if nested_contains_sensitive(nested))
    }) || block
        .blocks
        .iter()
        .any(|nested| block_contains_sensitive(&nested.block))
}

fn nested_contains_sensitive(nested: &NestedAttributes) -> bool {
    nested.attributes.iter().any(|attribute| {
        attribute.sensitive
            || matches!(&attribute.kind, AttributeKind::Nested(inner) if nested_contains_sensitive(inner))
    })
}

fn block_paths(block: &Block, value: &Value, base: &[Value], out: &mut Vec<Vec<Value>>) {
    // Marked even when null.
    for attribute in block
        .attributes
        .iter()
        .filter(|attribute| attribute.sensitive)
    {
        out.push(with(base, get_attr(&attribute.name)));
    }
    let Value::Object(members) = value else {
        return;
    };
    for attribute in &block.attributes {
        if let AttributeKind::Nested(nested) = &attribute.kind
            && !attribute.sensitive
            && nested_contains_sensitive(nested)
        {
            let path = with(base, get_attr(&attribute.name));
            let inner = members.get(&attribute.name).unwrap_or(&Value::Null);
            each_element(
                nested.nesting,
                inner,
                &nested.object_type(),
                &path,
                &mut |element, path| {
                    nested_paths(nested, element, path, out);
                },
            );
        }
    }
    for nested in &block.blocks {
        if !block_contains_sensitive(&nested.block) {
            continue;
        }
        let inner = members.get(&nested.name).unwrap_or(&Value::Null);
        if inner.is_null() {
            continue;
        }
        let path = with(base, get_attr(&nested.name));
        let element_type = nested.block.implied_type();
        each_element(
            nested.nesting,
            inner,
            &element_type,
            &path,
            &mut |element, path| {
                block_paths(&nested.block, element, path, out);
            },
        );
    }
}

/// The sensitive paths inside one object of a nested attribute type.
fn nested_paths(
    nested: &NestedAttributes,
    object: &Value,
    base: &[Value],
    out: &mut Vec<Vec<Value>>,
) {
    let Value::Object(members) = object else {
        return;
    };
    for attribute in &nested.attributes {
        let path = with(base, get_attr(&attribute.name));
        if attribute.sensitive {
            out.push(path);
        } else if let AttributeKind::Nested(inner) = &attribute.kind
            && nested_contains_sensitive(inner)
        {
            let value = members.get(&attribute.name).unwrap_or(&Value::Null);
            each_element(
                inner.nesting,
                value,
                &inner.object_type(),
                &path,
                &mut |element, path| {
                    nested_paths(inner, element, path, out);
                },
            );
        }
    }
}

/// Calls `visit` with each object a nested value holds and the path to it.
fn each_element(
    nesting: Nesting,
    value: &Value,
    element_type: &Type,
    path: &[Value],
    visit: &mut dyn FnMut(&Value, &[Value]),
) {
    match (nesting, value) {
        (Nesting::Single | Nesting::Group, Value::Object(_)) => visit(value, path),
        (Nesting::List, Value::Array(items)) => {
            for (position, item) in items.iter().enumerate() {
                visit(item, &with(path, index(&json!(position), &json!("number"))));
            }
        }
        (Nesting::Set, Value::Array(items)) => {
            for item in items {
                visit(item, &with(path, index(item, &element_type.to_json())));
            }
        }
        (Nesting::Map, Value::Object(members)) => {
            for (key, item) in members {
                visit(item, &with(path, index(&json!(key), &json!("string"))));
            }
        }
        _ => {}
    }
}

/// Depth-first order: a path before the paths inside it, attributes by name, indices by key.
fn walk_order(left: &[Value], right: &[Value]) -> Ordering {
    for (a, b) in left.iter().zip(right) {
        let order = step_order(a, b);
        if order != Ordering::Equal {
            return order;
        }
    }
    left.len().cmp(&right.len())
}

fn step_order(left: &Value, right: &Value) -> Ordering {
    let key = |step: &Value| step["value"].clone();
    match (key(left), key(right)) {
        (Value::String(a), Value::String(b)) => a.cmp(&b),
        (a, b) => match (&a["value"], &b["value"]) {
            (Value::Number(x), Value::Number(y)) => {
                let x = x.as_f64().unwrap_or_default();
                let y = y.as_f64().unwrap_or_default();
                x.partial_cmp(&y).unwrap_or(Ordering::Equal)
            }
            (Value::String(x), Value::String(y)) => x.cmp(y),
            (x, y) => x.to_string().cmp(&y.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema::tests::{attribute, nested};
    use super::super::schema::{Attribute, NestedAttributes};
    use super::*;

    #[test]
    fn top_level_sensitive_attributes_even_when_null_in_walk_order() {
        let block = Block {
            attributes: vec![
                attribute("password", Type::String, true),
                attribute("id", Type::String, false),
                attribute("auth_token", Type::String, true),
            ],
            blocks: Vec::new(),
        };
        let paths = sensitive_paths(
            &json!({"id": "db-1", "password": null, "auth_token": "x"}),
            &block,
        );
        assert_eq!(
            Value::Array(paths),
            json!([
                [{"type": "get_attr", "value": "auth_token"}],
                [{"type": "get_attr", "value": "password"}]
            ])
        );
    }

    #[test]
    fn inside_nested_blocks_lists_maps_and_sets() {
        let secret = Block {
            attributes: vec![
                attribute("name", Type::String, false),
                attribute("value", Type::String, true),
            ],
            blocks: Vec::new(),
        };
        let block = Block {
            attributes: vec![
                attribute("id", Type::String, false),
                Attribute {
                    name: "users".into(),
                    kind: AttributeKind::Nested(NestedAttributes {
                        attributes: vec![attribute("key", Type::String, true)],
                        nesting: Nesting::Map,
                    }),
                    sensitive: false,
                    optional: true,
                    computed: false,
                    required: false,
                },
            ],
            blocks: vec![
                nested("env", Nesting::List, secret.clone()),
                nested("one", Nesting::Single, secret.clone()),
                nested("tagged", Nesting::Set, secret),
                nested(
                    "plain",
                    Nesting::List,
                    Block {
                        attributes: vec![attribute("x", Type::String, false)],
                        blocks: Vec::new(),
                    },
                ),
            ],
        };
        let value = json!({
            "id": "a",
            "users": {"bob": {"key": "k"}},
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "one": null,
            "tagged": [{"name": "t", "value": "v"}],
            "plain": [{"x": "y"}]
        });
        let paths = sensitive_paths(&value, &block);
        assert_eq!(
            Value::Array(paths),
            json!([
                [{"type": "get_attr", "value": "env"}, {"type": "index", "value": {"value": 0, "type": "number"}}, {"type": "get_attr", "value": "value"}],
                [{"type": "get_attr", "value": "env"}, {"type": "index", "value": {"value": 1, "type": "number"}}, {"type": "get_attr", "value": "value"}],
                [{"type": "get_attr", "value": "tagged"}, {"type": "index", "value": {"value": {"name": "t", "value": "v"}, "type": ["object", {"name": "string", "value": "string"}]}}, {"type": "get_attr", "value": "value"}],
                [{"type": "get_attr", "value": "users"}, {"type": "index", "value": {"value": "bob", "type": "string"}}, {"type": "get_attr", "value": "key"}]
            ])
        );
    }

    #[test]
    fn nothing_sensitive_gives_no_paths() {
        let block = Block {
            attributes: vec![attribute("id", Type::String, false)],
            blocks: vec![nested("b", Nesting::List, Block::default())],
        };
        assert!(sensitive_paths(&json!({"id": "x", "b": []}), &block).is_empty());
    }
}
