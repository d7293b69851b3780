//! Masking what is secret in a diff before it is shown: attribute values under a
//! `sensitive_attributes` path of either state (so a value that stopped being sensitive does not show
//! its old secret), and the values of outputs marked sensitive on either side.

use serde_json::Value;
use statectl_state::state::sensitive::{self, MASK};

use crate::diff::path::Sensitivity;
use crate::diff::{AttributeChange, ObjectKind, StateDiff};

impl StateDiff {
    /// Replaces every secret value with `(sensitive value)`, as `show` and Terraform print them.
    pub fn mask_sensitive(&mut self) {
        for output in &mut self.outputs {
            if output.sensitive() {
                for side in [&mut output.old, &mut output.new].into_iter().flatten() {
                    side.value = Value::String(MASK.to_owned());
                }
            }
        }
        for object in &mut self.objects {
            if let ObjectKind::Changed(changes) = &mut object.kind {
                for change in &mut changes.attributes {
                    mask(change, &changes.sensitive);
                }
            }
        }
    }
}

/// Masks the values of one change that any of `secrets` covers, wholly or inside.
pub(crate) fn mask(change: &mut AttributeChange, secrets: &[Vec<sensitive::CtyStep>]) {
    for secret in secrets {
        match change.path.sensitivity(secret) {
            Sensitivity::None => {}
            Sensitivity::Whole => {
                for value in [&mut change.old, &mut change.new].into_iter().flatten() {
                    *value = Value::String(MASK.to_owned());
                }
            }
            Sensitivity::Inside(below) => {
                for value in [&mut change.old, &mut change.new].into_iter().flatten() {
                    mask_paths(value, &below);
                }
            }
        }
    }
}

/// Replaces every value `paths` point at with `(sensitive value)` (through dynamic-value wrappers).
pub fn mask_paths(value: &mut Value, paths: &[Vec<sensitive::CtyStep>]) {
    sensitive::mask(value, paths);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::diff::path::{Path, Step};
    use crate::diff::{Action, AttributeChange};
    use statectl_state::state::sensitive::{self, MASK};

    #[test]
    fn masks_the_value_at_below_and_inside_a_sensitive_path() {
        let secrets = sensitive::parse_paths(
            r#"[[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"password"}]]"#,
        )
        .unwrap();
        let key = |text: &str| Step::Member(text.to_owned());
        // The change at `path`, masked.
        let masked = |path: &[&str], action, old, new| {
            let mut change = AttributeChange {
                path: Path(path.iter().map(|step| key(step)).collect()),
                action,
                old,
                new,
            };
            super::mask(&mut change, &secrets);
            change
        };
        let at = masked(
            &["input", "password"],
            Action::Changed,
            Some(json!("hunter2")),
            Some(json!("hunter3")),
        );
        assert_eq!((at.old, at.new), (Some(json!(MASK)), Some(json!(MASK))));
        let above = masked(
            &["input"],
            Action::Added,
            None,
            Some(json!({"user": "admin", "password": "hunter2"})),
        );
        assert_eq!(above.new, Some(json!({"user": "admin", "password": MASK})));
        let beside = masked(
            &["input", "user"],
            Action::Changed,
            Some(json!("admin")),
            Some(json!("root")),
        );
        assert_eq!(beside.new, Some(json!("root")));
    }

    #[test]
    fn masks_through_dynamic_value_wrappers() {
        let mut attributes = json!({
            "input": {"value": {"password": "p", "hosts": ["a", "b"]}, "type": ["object", {}]},
            "plain": {"password": "q"},
        });
        let secrets = sensitive::parse_paths(
            r#"[[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"password"}],
                [{"type":"get_attr","value":"input"},{"type":"get_attr","value":"hosts"},
                 {"type":"index","value":{"value":1,"type":"number"}}],
                [{"type":"get_attr","value":"plain"},{"type":"get_attr","value":"password"}]]"#,
        )
        .unwrap();
        super::mask_paths(&mut attributes, &secrets);
        assert_eq!(
            attributes,
            json!({
                "input": {"value": {"password": MASK, "hosts": ["a", MASK]}, "type": ["object", {}]},
                "plain": {"password": MASK},
            })
        );
    }
}
