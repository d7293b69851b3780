//! Bringing the new side of a changed object into the old side's member order and number spellings,
//! so that the text diff of the two shows only what changed semantically, not how it was written.

use serde_json::{Map, Value};

use crate::diff::number::same_number;

/// Reorders `new`'s object members to follow `old`'s (members only `new` has come after), and
/// spells each number that equals its old counterpart the old way, all the way down.
pub fn align(old: &Value, new: &mut Value) {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            // Members only `new` has stay after the shared member they follow in `new` (or first,
            // when none precedes them), so an added `status` shows where the file has it.
            let mut front = Vec::new();
            let mut after_shared: Vec<(String, Vec<(String, Value)>)> = Vec::new();
            let mut shared = Map::with_capacity(new.len());
            for (key, value) in std::mem::take(new) {
                if old.contains_key(&key) {
                    after_shared.push((key.clone(), Vec::new()));
                    shared.insert(key, value);
                } else if let Some((_, following)) = after_shared.last_mut() {
                    following.push((key, value));
                } else {
                    front.push((key, value));
                }
            }
            let mut following: std::collections::HashMap<String, Vec<(String, Value)>> =
                after_shared.into_iter().collect();
            new.extend(front);
            for (key, before) in old {
                if let Some(mut after) = shared.remove(key) {
                    align(before, &mut after);
                    new.insert(key.clone(), after);
                    new.extend(following.remove(key).unwrap_or_default());
                }
            }
        }
        (Value::Array(old), Value::Array(new)) => {
            for (before, after) in old.iter().zip(new.iter_mut()) {
                align(before, after);
            }
        }
        (Value::Number(before), Value::Number(after))
            if after.as_str() != before.as_str()
                && same_number(before.as_str(), after.as_str()) =>
        {
            *after = before.clone();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::align;

    #[test]
    fn follows_the_old_order_and_spelling() {
        let old: serde_json::Value =
            serde_json::from_str(r#"{"a": 1.0, "b": {"x": 1e3, "y": 2}, "c": [0.50]}"#).unwrap();
        let mut new: serde_json::Value = serde_json::from_str(
            r#"{"first": 0, "c": [0.5], "b": {"y": 3, "z": 4, "x": 1000}, "a": 1, "last": 5}"#,
        )
        .unwrap();
        align(&old, &mut new);
        // serde_json writes an exponent with its sign.
        assert_eq!(
            serde_json::to_string(&new).unwrap(),
            r#"{"first":0,"a":1.0,"last":5,"b":{"x":1e+3,"y":3,"z":4},"c":[0.50]}"#
        );
    }
}
