//! Semantic comparison of JSON text: layout, object key order and number spelling never count. Raw text
//! is compared first (equal tokens mean equal values, with no parsing at all), and only what differs
//! is parsed and walked, attribute by attribute.

use serde_json::Value;

use crate::diff::number::same_number;
use crate::diff::path::{Path, Step};
use crate::diff::{Action, AttributeChange};

/// Whether two JSON texts hold the same tokens, ignoring whitespace between them: a compact and an
/// indented rendering of one value. A byte walk, so comparing a 50 MB state with its reformatted copy
/// parses nothing.
pub(super) fn same_tokens(left: &str, right: &str) -> bool {
    if left == right {
        return true;
    }
    let (left, right) = (left.as_bytes(), right.as_bytes());
    let (mut at_left, mut at_right) = (0, 0);
    let mut in_string = false;
    let mut escaped = false;
    loop {
        if !in_string {
            while left.get(at_left).is_some_and(|byte| is_space(*byte)) {
                at_left += 1;
            }
            while right.get(at_right).is_some_and(|byte| is_space(*byte)) {
                at_right += 1;
            }
        }
        match (left.get(at_left), right.get(at_right)) {
            (None, None) => return true,
            (Some(&byte), Some(&other)) if byte == other => {
                if escaped {
                    escaped = false;
                } else if in_string && byte == b'\\' {
                    escaped = true;
                } else if byte == b'"' {
                    in_string = !in_string;
                }
                at_left += 1;
                at_right += 1;
            }
            _ => return false,
        }
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether two JSON values are the same: numbers by value, objects whatever their key order.
pub(super) fn equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => same_number(left.as_str(), right.as_str()),
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .zip(right)
                    .all(|(left, right)| equal(left, right))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .all(|(key, value)| right.get(key).is_some_and(|other| equal(value, other)))
        }
        _ => left == right,
    }
}

/// Whether two optional JSON texts hold the same value; absent and `null` are the same, as Go's reader
/// reads them.
pub(super) fn same_json(left: Option<&str>, right: Option<&str>) -> bool {
    let left = left.filter(|text| text.trim() != "null");
    let right = right.filter(|text| text.trim() != "null");
    match (left, right) {
        (None, None) => true,
        (Some(left), Some(right)) => {
            same_tokens(left, right)
                || match (parse(left), parse(right)) {
                    (Some(left), Some(right)) => equal(&left, &right),
                    _ => false,
                }
        }
        _ => false,
    }
}

/// Parses text the state parser has already validated, as Go reads it and as deep as the state
/// parser allows ([`statectl_state::json::parse_value`]); `None` never happens for such text.
pub(super) fn parse(text: &str) -> Option<Value> {
    statectl_state::json::parse_value(text).ok()
}

/// Every difference between two attribute trees, by path, in the old tree's order with additions after.
pub(crate) fn attribute_changes(old: &Value, new: &Value) -> Vec<AttributeChange> {
    let mut changes = Vec::new();
    walk(&mut Vec::new(), old, new, &mut changes);
    changes
}

fn walk(path: &mut Vec<Step>, old: &Value, new: &Value, changes: &mut Vec<AttributeChange>) {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            for (key, before) in old {
                path.push(Step::Member(key.clone()));
                match new.get(key) {
                    Some(after) => walk(path, before, after, changes),
                    None => changes.push(change(path, Action::Removed, Some(before), None)),
                }
                path.pop();
            }
            for (key, after) in new {
                if !old.contains_key(key) {
                    path.push(Step::Member(key.clone()));
                    changes.push(change(path, Action::Added, None, Some(after)));
                    path.pop();
                }
            }
        }
        (Value::Array(old), Value::Array(new)) => {
            // By position, as Terraform plans lists: an element taken from the front shows as every
            // later element changed, which is what happened to those indexes.
            for index in 0..old.len().max(new.len()) {
                path.push(Step::Index(index));
                match (old.get(index), new.get(index)) {
                    (Some(before), Some(after)) => walk(path, before, after, changes),
                    (Some(before), None) => {
                        changes.push(change(path, Action::Removed, Some(before), None));
                    }
                    (None, after) => changes.push(change(path, Action::Added, None, after)),
                }
                path.pop();
            }
        }
        _ if equal(old, new) => {}
        _ => changes.push(change(path, Action::Changed, Some(old), Some(new))),
    }
}

fn change(
    path: &[Step],
    action: Action,
    old: Option<&Value>,
    new: Option<&Value>,
) -> AttributeChange {
    AttributeChange {
        path: Path(path.to_vec()),
        action,
        old: old.cloned(),
        new: new.cloned(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn layout_is_not_a_difference() {
        assert!(same_tokens(
            "{\"a\": [1, 2],\n  \"b\": \"x y\"}",
            r#"{"a":[1,2],"b":"x y"}"#
        ));
        // Whitespace inside strings counts, escaped quotes included.
        assert!(!same_tokens(r#"{"a":"x y"}"#, r#"{"a":"xy"}"#));
        assert!(!same_tokens(r#"{"a":"\" x"}"#, r#"{"a":"\"x"}"#));
        assert!(same_tokens(r#"{"a":"\\", "b":1}"#, r#"{"a":"\\","b":1}"#));
        assert!(!same_tokens(r#"{"a":1}"#, r#"{"a":1,"b":2}"#));
    }

    #[test]
    fn key_order_escapes_and_number_spelling_are_not_differences() {
        assert!(equal(
            &value(r#"{"a": 1.0, "b": {"c": [1e3, "\u0041"]}}"#),
            &value(r#"{"b": {"c": [1000, "A"]}, "a": 1}"#)
        ));
        assert!(!equal(&value(r#"{"a": 1}"#), &value(r#"{"a": "1"}"#)));
        assert!(!equal(&value("[1, 2]"), &value("[2, 1]")));
        assert!(!equal(&value(r#"{"a": null}"#), &value("{}")));
        assert!(same_json(Some("null"), None));
        assert!(same_json(Some(r#"{"x": 1.50}"#), Some(r#"{"x":1.5}"#)));
        assert!(!same_json(Some("{}"), None));
    }

    #[test]
    fn walks_to_the_changed_leaves() {
        let old = value(
            r#"{"id": "i-1", "tags": {"Name": "a", "has space": "x", "gone": "g"},
                "ebs_block_device": [{"size": 8}, {"size": 10}], "count": 1}"#,
        );
        let new = value(
            r#"{"count": 1.0, "id": "i-1", "tags": {"Name": "b", "has space": "y", "new": "n"},
                "ebs_block_device": [{"size": 16}]}"#,
        );
        let changes: Vec<(String, Action, Option<Value>, Option<Value>)> =
            attribute_changes(&old, &new)
                .into_iter()
                .map(|change| {
                    (
                        change.path.to_string(),
                        change.action,
                        change.old,
                        change.new,
                    )
                })
                .collect();
        assert_eq!(
            changes,
            vec![
                (
                    "tags.Name".into(),
                    Action::Changed,
                    Some(json!("a")),
                    Some(json!("b"))
                ),
                (
                    r#"tags["has space"]"#.into(),
                    Action::Changed,
                    Some(json!("x")),
                    Some(json!("y"))
                ),
                ("tags.gone".into(), Action::Removed, Some(json!("g")), None),
                ("tags.new".into(), Action::Added, None, Some(json!("n"))),
                (
                    "ebs_block_device[0].size".into(),
                    Action::Changed,
                    Some(json!(8)),
                    Some(json!(16))
                ),
                (
                    "ebs_block_device[1]".into(),
                    Action::Removed,
                    Some(json!({"size": 10})),
                    None
                ),
            ]
        );
    }

    #[test]
    fn a_changed_type_is_one_change_at_its_path() {
        let changes = attribute_changes(&value(r#"{"a": {"b": 1}}"#), &value(r#"{"a": [1]}"#));
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].path.to_string(), "a");
        assert_eq!(changes[0].action, Action::Changed);
    }
}
