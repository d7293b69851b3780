//! Attribute paths over decoded attributes (`id`, `last_operation.state`,
//! `create_vnic_details[0].subnet_id`): read by templates, written by mappings. The steps are the ones
//! scan parses; a name applied to a list looks into its first element, because SDKv2 providers store a
//! nested block as a one-element list and framework providers as an object, and a profile should read
//! and write either with one path.

use serde_json::Value;

use crate::state::attr_path::{AttrPath, AttrPathError, Step};

/// An attribute path a template or mapping cannot use.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error(transparent)]
    Syntax(#[from] AttrPathError),
    /// The path as written: it holds wildcards or a query.
    #[error(
        "`{0}` is not a plain attribute path: write names and indices, e.g. `last_operation.state` or `create_vnic_details[0].subnet_id`"
    )]
    NotPlain(String),
}

/// Parses a simple attribute path (names and indices; no wildcards, since a template reads one value
/// and a mapping writes one place).
pub(super) fn parse(text: &str) -> Result<Vec<Step>, PathError> {
    match AttrPath::parse(text)? {
        AttrPath::Steps(steps) => Ok(steps),
        AttrPath::Query(_) => Err(PathError::NotPlain(text.to_owned())),
    }
}

/// The value at `steps`, if there is one.
pub(super) fn get<'v>(mut value: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    for step in steps {
        if let (Step::Member(_), Value::Array(items)) = (step, value) {
            value = items.first()?;
        }
        value = match (step, value) {
            (Step::Member(name), Value::Object(members)) => members.get(name)?,
            (Step::Index(index), Value::Array(items)) => items.get(*index)?,
            _ => return None,
        };
    }
    Some(value)
}

/// The place at `steps`, if it exists: a mapping replaces what is there and never adds a member,
/// since an attribute the provider's schema lacks makes Terraform refuse the state.
pub(super) fn get_mut<'v>(mut value: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    for step in steps {
        if matches!(step, Step::Member(_)) && value.is_array() {
            value = value.as_array_mut()?.first_mut()?;
        }
        value = match (step, value) {
            (Step::Member(name), Value::Object(members)) => members.get_mut(name)?,
            (Step::Index(index), Value::Array(items)) => items.get_mut(*index)?,
            _ => return None,
        };
    }
    Some(value)
}

/// `last_operation.state`, `create_vnic_details[0].subnet_id`: the path as users write it.
pub(super) fn display(steps: &[Step]) -> String {
    let mut text = String::new();
    for step in steps {
        match step {
            Step::Member(name) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(name);
            }
            Step::Index(index) => {
                text.push('[');
                text.push_str(&index.to_string());
                text.push(']');
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_and_writes_blocks_stored_as_lists_or_objects() {
        let steps = parse("last_operation.state").unwrap();
        let sdk = json!({"last_operation": [{"state": "in progress"}]});
        let framework = json!({"last_operation": {"state": "in progress"}});
        assert_eq!(get(&sdk, &steps), Some(&json!("in progress")));
        assert_eq!(get(&framework, &steps), Some(&json!("in progress")));
        let mut changed = sdk.clone();
        *get_mut(&mut changed, &steps).unwrap() = json!("succeeded");
        assert_eq!(changed, json!({"last_operation": [{"state": "succeeded"}]}));
        assert_eq!(display(&parse("a[0].b").unwrap()), "a[0].b");
    }

    #[test]
    fn never_adds_a_member_or_reads_through_a_scalar() {
        let mut attributes = json!({"id": "x", "last_operation": null});
        assert!(get_mut(&mut attributes, &parse("missing").unwrap()).is_none());
        assert!(get_mut(&mut attributes, &parse("last_operation.state").unwrap()).is_none());
        assert!(get(&attributes, &parse("id.more").unwrap()).is_none());
        assert!(parse("$..state").is_err());
    }
}
