//! What Terraform reports as drift, for `statectl drift`'s oracle tests: the `resource_drift` of a
//! refresh-only plan (`terraform plan -refresh-only -out` then `terraform show -json`), each
//! drifted address with its action and the attribute paths whose values differ between its
//! `before` and `after`, spelled as statectl spells them (`tags.Name`, `steps[0].state`). statectl's
//! JSON report reduces to the same shape.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Address -> (action, changed paths).
pub(crate) type Drift = BTreeMap<String, (String, BTreeSet<String>)>;

/// Terraform's drift: `terraform plan -refresh-only -out=drift.tfplan` then `show -json`, run by
/// `command` (which sets the folder and environment) with these arguments.
pub(crate) fn terraform_drift(command: impl FnMut(&[&str]) -> Command, folder: &Path) -> Drift {
    drift_of(&refresh_only_plan(command, folder), false)
}

/// `terraform plan -refresh-only -out=drift.tfplan` then `terraform show -json` of it.
pub(crate) fn refresh_only_plan(
    mut command: impl FnMut(&[&str]) -> Command,
    folder: &Path,
) -> Value {
    crate::oracle::run(&mut command(&[
        "plan",
        "-refresh-only",
        "-input=false",
        "-no-color",
        "-lock=false",
        "-out=drift.tfplan",
    ]));
    let shown = crate::oracle::run(&mut command(&["show", "-json", "drift.tfplan"]));
    std::fs::remove_file(folder.join("drift.tfplan")).unwrap();
    serde_json::from_str(&shown).unwrap()
}

/// The drift in a refresh-only plan's JSON; with `without_null_empty`, less the changes statectl's
/// `null-empty` noise rule takes out (a null, or nothing, became an empty collection, or the
/// reverse); an address left with no path is left out.
pub(crate) fn drift_of(plan: &Value, without_null_empty: bool) -> Drift {
    let mut drift = Drift::new();
    for entry in plan["resource_drift"].as_array().into_iter().flatten() {
        let action = entry["change"]["actions"][0].as_str().unwrap().to_owned();
        let mut paths = BTreeSet::new();
        if action == "update" {
            changed_paths(
                &mut String::new(),
                (&entry["change"]["before"], &entry["change"]["after"]),
                without_null_empty,
                &mut paths,
            );
            if paths.is_empty() {
                continue;
            }
        }
        drift.insert(
            entry["address"].as_str().unwrap().to_owned(),
            (action, paths),
        );
    }
    drift
}

/// statectl's drift, from its `--format json` report.
pub(crate) fn statectl_drift(report: &Value) -> Drift {
    report["resource_drift"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let paths = entry["drifted_attributes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|change| change["path"].as_str().unwrap().to_owned())
                .collect();
            (
                entry["address"].as_str().unwrap().to_owned(),
                (
                    entry["change"]["actions"][0].as_str().unwrap().to_owned(),
                    paths,
                ),
            )
        })
        .collect()
}

/// Absent, null, or an empty array or object.
fn null_or_empty(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::Array(items)) => items.is_empty(),
        Some(Value::Object(fields)) => fields.is_empty(),
        Some(_) => false,
    }
}

/// The leaves that differ, with every path spelled as Terraform writes references.
fn changed_paths(
    path: &mut String,
    (before, after): (&Value, &Value),
    without_null_empty: bool,
    out: &mut BTreeSet<String>,
) {
    let differ =
        |path: &String, old: Option<&Value>, new: Option<&Value>, out: &mut BTreeSet<String>| {
            if !(without_null_empty && null_or_empty(old) && null_or_empty(new)) {
                out.insert(path.clone());
            }
        };
    match (before, after) {
        (Value::Object(old), Value::Object(new)) => {
            let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
            for key in keys {
                let length = path.len();
                if key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    && key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                } else {
                    let _ = write!(path, "[{}]", serde_json::to_string(key).unwrap());
                }
                match (old.get(key), new.get(key)) {
                    (Some(old), Some(new)) => {
                        changed_paths(path, (old, new), without_null_empty, out);
                    }
                    (old, new) => differ(path, old, new, out),
                }
                path.truncate(length);
            }
        }
        (Value::Array(old), Value::Array(new)) => {
            for index in 0..old.len().max(new.len()) {
                let length = path.len();
                let _ = write!(path, "[{index}]");
                match (old.get(index), new.get(index)) {
                    (Some(old), Some(new)) => {
                        changed_paths(path, (old, new), without_null_empty, out);
                    }
                    (old, new) => differ(path, old, new, out),
                }
                path.truncate(length);
            }
        }
        (old, new) if old != new => differ(path, Some(old), Some(new), out),
        _ => {}
    }
}
