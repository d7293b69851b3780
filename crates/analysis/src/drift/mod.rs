//! Drift: what a provider's read of an instance says changed outside Terraform. The read is
//! compared with the stored object (as the provider upgraded it, which is what Terraform compares)
//! attribute by attribute, and the known noise is taken out: the changes an ignore rule covers, and
//! by default two noise rules:
//! - `computed-only`: changes in attributes only the provider sets (computed, neither optional nor
//!   required in the schema), which no configuration can hold and no plan would undo;
//! - `null-empty`: a null that became an empty list, set or map (or the reverse), which providers
//!   on the legacy SDK do not tell apart and no plan proposes to change.
//!
//! Each rule's count of what it took out is kept so muting stays visible.

mod ignore;
mod rules;

use serde_json::Value;
use statectl_state::state::sensitive::CtyStep;

use crate::diff::{AttributeChange, Path, Step, attribute_changes, mask_change};
pub(crate) use ignore::IgnoreFile;
pub use ignore::{Ignore, IgnoreError};
pub use rules::DriftRule;

/// The rule id under which computed-only changes are counted.
pub const COMPUTED_ONLY: &str = "computed-only";
/// The rule id under which null <-> empty collection changes are counted.
pub const NULL_EMPTY: &str = "null-empty";

/// A step of a computed-only attribute's path: a name, or any element (`None`).
pub type PatternStep = Option<String>;

/// What decides which changes are drift.
#[derive(Debug, Clone, Default)]
pub struct DriftRules {
    /// `--ignore` patterns, then the settings file's `[[drift.ignore]]`.
    pub ignores: Vec<Ignore>,
    /// Report every change, as Terraform's refresh-only plan does: no noise rules (`--all-changes`).
    pub all_changes: bool,
}

/// How many attribute changes each rule took out of the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Muted {
    /// By the computed-only rule.
    pub computed_only: usize,
    /// By the null-empty rule.
    pub null_empty: usize,
    /// By each ignore, in [`DriftRules::ignores`] order.
    pub by_ignore: Vec<usize>,
}

impl Muted {
    pub fn new(rules: &DriftRules) -> Muted {
        Muted {
            computed_only: 0,
            null_empty: 0,
            by_ignore: vec![0; rules.ignores.len()],
        }
    }

    /// Adds another state's counts (same rules).
    pub fn add(&mut self, other: &Muted) {
        self.computed_only += other.computed_only;
        self.null_empty += other.null_empty;
        for (mine, theirs) in self.by_ignore.iter_mut().zip(&other.by_ignore) {
            *mine += theirs;
        }
    }
}

/// The drifted attributes of one instance of `type_name`: every change from `prior` (the stored
/// object, upgraded) to `read` (the provider's answer) that no rule takes out, values masked where
/// a `sensitive` path covers them (unless `reveal`). What the rules take out is counted in `muted`.
pub fn changed_attributes(
    type_name: &str,
    (prior, read): (&Value, &Value),
    computed_only: &[Vec<PatternStep>],
    sensitive: &[Vec<CtyStep>],
    rules: &DriftRules,
    muted: &mut Muted,
) -> Vec<AttributeChange> {
    let mut kept = Vec::new();
    for mut change in attribute_changes(prior, read) {
        if let Some(rule) = rules
            .ignores
            .iter()
            .position(|ignore| ignore.matches(type_name, &change.path))
        {
            muted.by_ignore[rule] += 1;
            continue;
        }
        if !rules.all_changes {
            if computed_only
                .iter()
                .any(|pattern| covers(pattern, &change.path))
            {
                muted.computed_only += 1;
                continue;
            }
            if null_or_empty(change.old.as_ref()) && null_or_empty(change.new.as_ref()) {
                muted.null_empty += 1;
                continue;
            }
        }
        mask_change(&mut change, sensitive);
        kept.push(change);
    }
    kept
}

/// Whether an ignore rule covers the deletion of an object of `type_name` (counted when one does).
pub fn gone_ignored(type_name: &str, rules: &DriftRules, muted: &mut Muted) -> bool {
    let rule = rules
        .ignores
        .iter()
        .position(|ignore| ignore.covers_object(type_name));
    if let Some(rule) = rule {
        muted.by_ignore[rule] += 1;
    }
    rule.is_some()
}

/// Whether a side of a change is absent, null, or an empty list, set or map.
fn null_or_empty(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::Array(items)) => items.is_empty(),
        Some(Value::Object(fields)) => fields.is_empty(),
        Some(_) => false,
    }
}

/// Whether `pattern` (a computed-only attribute) is `path` or one of its ancestors.
fn covers(pattern: &[PatternStep], path: &Path) -> bool {
    pattern.len() <= path.0.len()
        && pattern
            .iter()
            .zip(&path.0)
            .all(|(want, step)| match (want, step) {
                (None, _) => true,
                (Some(name), Step::Member(key)) => name == key,
                (Some(_), Step::Index(_)) => false,
            })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use statectl_state::state::sensitive::MASK;

    use super::*;

    fn name(text: &str) -> String {
        text.to_owned()
    }

    fn paths(changes: &[AttributeChange]) -> Vec<String> {
        changes
            .iter()
            .map(|change| change.path.to_string())
            .collect()
    }

    #[test]
    fn computed_only_changes_are_noise_unless_asked_for() {
        let prior =
            json!({"arn": "a1", "tags": {"Env": "prod"}, "disk": [{"id": "v1", "size": 8}]});
        let read = json!({"arn": "a2", "tags": {"Env": "dev"}, "disk": [{"id": "v2", "size": 8}]});
        let computed = [
            vec![Some(name("arn"))],
            vec![Some(name("disk")), None, Some(name("id"))],
        ];
        let mut rules = DriftRules::default();
        let mut muted = Muted::new(&rules);
        let kept = changed_attributes("t", (&prior, &read), &computed, &[], &rules, &mut muted);
        assert_eq!(paths(&kept), ["tags.Env"]);
        assert_eq!(muted.computed_only, 2);
        rules.all_changes = true;
        let mut muted = Muted::new(&rules);
        let kept = changed_attributes("t", (&prior, &read), &computed, &[], &rules, &mut muted);
        assert_eq!(paths(&kept), ["arn", "tags.Env", "disk[0].id"]);
        assert_eq!(muted, Muted::new(&rules));
    }

    #[test]
    fn null_and_an_empty_collection_are_the_same_unless_every_change_is_asked_for() {
        let prior = json!({"tags": null, "rules": [], "name": ""});
        let read = json!({"tags": {}, "rules": null, "name": null});
        let mut rules = DriftRules::default();
        let mut muted = Muted::new(&rules);
        let kept = changed_attributes("t", (&prior, &read), &[], &[], &rules, &mut muted);
        assert_eq!(paths(&kept), ["name"], "an empty string is a value");
        assert_eq!(muted.null_empty, 2);
        rules.all_changes = true;
        let mut muted = Muted::new(&rules);
        let kept = changed_attributes("t", (&prior, &read), &[], &[], &rules, &mut muted);
        assert_eq!(paths(&kept), ["tags", "rules", "name"]);
    }

    #[test]
    fn ignores_take_out_what_they_cover_and_count_it() {
        let prior =
            json!({"tags": {"Env": "prod", "LastScanned": "1"}, "tags_all": {"LastScanned": "1"}});
        let read =
            json!({"tags": {"Env": "dev", "LastScanned": "2"}, "tags_all": {"LastScanned": "2"}});
        let rules = DriftRules {
            ignores: vec![
                Ignore::parse("aws_instance.tags.LastScanned", None).unwrap(),
                Ignore::parse("*.tags_all.*", Some("mirrors tags".into())).unwrap(),
            ],
            all_changes: false,
        };
        let mut muted = Muted::new(&rules);
        let kept = changed_attributes(
            "aws_instance",
            (&prior, &read),
            &[],
            &[],
            &rules,
            &mut muted,
        );
        assert_eq!(paths(&kept), ["tags.Env"]);
        assert_eq!(muted.by_ignore, [1, 1]);
    }

    #[test]
    fn sensitive_values_are_masked_on_both_sides() {
        let prior = json!({"password": "old-secret", "name": "a"});
        let read = json!({"password": "new-secret", "name": "a"});
        let secret = vec![vec![CtyStep::Attribute("password".into())]];
        let rules = DriftRules::default();
        let mut muted = Muted::new(&rules);
        let kept = changed_attributes("t", (&prior, &read), &[], &secret, &rules, &mut muted);
        assert_eq!(paths(&kept), ["password"]);
        assert_eq!(kept[0].old, Some(json!(MASK)));
        assert_eq!(kept[0].new, Some(json!(MASK)));
    }
}
