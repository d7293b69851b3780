//! The `sensitive_attributes` paths Terraform stores for an object, from its schema: every
//! attribute the schema marks sensitive (even when null), and the sensitive attributes inside
//! nested blocks and nested attribute types, with an index step per element of a list (a number),
//! a map (a string) or a set (the element itself, with its type, as cty paths into sets are). Terraform
//! puts these marks on the value and writes them out in the order a walk of the value meets them
//! (depth first, attributes by name), which is the order returned here.
//!
//! A refresh never un-masks: Terraform puts the prior object's marks (those that came from the
//! configuration, a sensitive variable say, as well as the schema's) back on the new value before
//! the schema's, wherever their paths still lead to a value; [`sensitive_paths_after_refresh`] does
//! the same.

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

/// The paths of sensitive values in `value` after a refresh: the schema's, and every path in
/// `prior` (the old object's `sensitive_attributes`) that still exists in `value`, in walk order.
pub fn sensitive_paths_after_refresh(value: &Value, block: &Block, prior: &[Value]) -> Vec<Value> {
    let mut paths = Vec::new();
    block_paths(block, value, &[], &mut paths);
    for path in prior {
        if let Value::Array(steps) = path
            && !steps.is_empty()
            && leads_somewhere(value, steps)
        {
            paths.push(steps.clone());
        }
    }
    paths.sort_by(|left, right| walk_order(left, right));
    paths.dedup();
    paths.into_iter().map(Value::Array).collect()
}

/// Whether `steps` lead to a value (null included) inside `value`, as a mark on them would land
/// somewhere. A number index into an array may be a list position or a set element (sets of numbers
/// spell both alike); either counts, as keeping a mark too many never shows a secret.
fn leads_somewhere(value: &Value, steps: &[Value]) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return true;
    };
    let next = match (step["type"].as_str(), value) {
        (Some("get_attr"), Value::Object(members)) => {
            step["value"].as_str().and_then(|name| members.get(name))
        }
        (Some("index"), Value::Object(members)) => step["value"]["value"]
            .as_str()
            .and_then(|key| members.get(key)),
        (Some("index"), Value::Array(items)) => {
            let key = &step["value"]["value"];
            let position = key
                .as_u64()
                .and_then(|position| usize::try_from(position).ok())
                .and_then(|position| items.get(position));
            position
                .filter(|_| step["value"]["type"] == "number")
                .or_else(|| items.iter().find(|item| *item == key))
        }
        _ => None,
    };
    next.is_some_and(|next| leads_somewhere(next, rest))
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
    use super::super::schema::tests::{attribute, nested, nested_attribute};
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
                nested_attribute(
                    "users",
                    Nesting::Map,
                    vec![attribute("key", Type::String, true)],
                ),
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
    fn keeps_the_prior_marks_that_still_lead_somewhere() {
        // The schema marks only `token`; the old object also had `name` (from a sensitive variable in
        // the configuration), `tags["owner"]` and the second of two steps, marked.
        let block = Block {
            attributes: vec![
                attribute("id", Type::String, false),
                attribute("name", Type::String, false),
                attribute("token", Type::String, true),
                attribute("steps", Type::List(Box::new(Type::String)), false),
                attribute("tags", Type::Map(Box::new(Type::String)), false),
            ],
            blocks: Vec::new(),
        };
        let step = |position: u64| json!({"type": "index", "value": {"value": position, "type": "number"}});
        let prior = [
            json!([{"type": "get_attr", "value": "name"}]),
            json!([{"type": "get_attr", "value": "steps"}, step(1)]),
            json!([{"type": "get_attr", "value": "tags"}, {"type": "index", "value": {"value": "owner", "type": "string"}}]),
            json!([{"type": "get_attr", "value": "gone"}]),
            json!([{"type": "get_attr", "value": "token"}]),
        ];
        let value = json!({"id": "a", "name": "secret-name", "token": null, "steps": ["x", "y"], "tags": {}});
        assert_eq!(
            Value::Array(sensitive_paths_after_refresh(&value, &block, &prior)),
            json!([
                [{"type": "get_attr", "value": "name"}],
                [{"type": "get_attr", "value": "steps"}, step(1)],
                [{"type": "get_attr", "value": "token"}]
            ])
        );
        // A list grown shorter loses the mark on the element that is no more; without prior marks
        // only the schema's remain.
        let shorter =
            json!({"id": "a", "name": "n", "token": "t", "steps": ["x"], "tags": {"owner": "me"}});
        assert_eq!(
            Value::Array(sensitive_paths_after_refresh(&shorter, &block, &prior)),
            json!([
                [{"type": "get_attr", "value": "name"}],
                [{"type": "get_attr", "value": "tags"}, {"type": "index", "value": {"value": "owner", "type": "string"}}],
                [{"type": "get_attr", "value": "token"}]
            ])
        );
        assert_eq!(
            sensitive_paths_after_refresh(&shorter, &block, &[]),
            sensitive_paths(&shorter, &block)
        );
    }

    #[test]
    fn a_prior_mark_on_a_set_element_stays_while_the_element_does() {
        let prior = [
            json!([{"type": "get_attr", "value": "ports"}, {"type": "index", "value": {"value": 443, "type": "number"}}]),
        ];
        let block = Block {
            attributes: vec![attribute("ports", Type::Set(Box::new(Type::Number)), false)],
            blocks: Vec::new(),
        };
        assert_eq!(
            sensitive_paths_after_refresh(&json!({"ports": [80, 443]}), &block, &prior).len(),
            1
        );
        assert!(sensitive_paths_after_refresh(&json!({"ports": [80]}), &block, &prior).is_empty());
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
