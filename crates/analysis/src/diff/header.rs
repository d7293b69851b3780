//! The state-level differences: the header fields (`version`, `terraform_version`, `serial`,
//! `lineage`) and the root-module outputs, matched by name.

use std::collections::BTreeMap;

use serde_json::Value;
use statectl_state::json::Span;
use statectl_state::state::model::{Output, State};

use crate::diff::compare::{parse, same_json};
use crate::diff::{Action, Header, OutputChange, OutputValue};

pub(super) fn header(old: &State<'_>, new: &State<'_>) -> Header {
    fn changed<T: PartialEq>(old: T, new: T) -> Option<(T, T)> {
        (old != new).then_some((old, new))
    }
    Header {
        version: changed(old.version, new.version),
        terraform_version: changed(
            old.terraform_version.as_deref().map(str::to_owned),
            new.terraform_version.as_deref().map(str::to_owned),
        ),
        serial: changed(old.serial, new.serial),
        lineage: changed(old.lineage.to_string(), new.lineage.to_string()),
    }
}

/// The outputs that differ, sorted by name (as Terraform writes them). Outputs are few; the name maps
/// are cheap.
pub(super) fn outputs(old: &State<'_>, new: &State<'_>) -> Vec<OutputChange> {
    let old_outputs = named(old);
    let new_outputs = named(new);
    let mut names: Vec<&str> = old_outputs
        .keys()
        .chain(new_outputs.keys())
        .copied()
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut changes = Vec::new();
    for name in names {
        let before = old_outputs.get(name).map(|output| (old.source, *output));
        let after = new_outputs.get(name).map(|output| (new.source, *output));
        let change = match (before, after) {
            (Some(before), None) => OutputChange {
                name: name.to_owned(),
                action: Action::Removed,
                old: Some(value_of(before)),
                new: None,
                what: Vec::new(),
            },
            (None, Some(after)) => OutputChange {
                name: name.to_owned(),
                action: Action::Added,
                old: None,
                new: Some(value_of(after)),
                what: Vec::new(),
            },
            (Some(before), Some(after)) => {
                let what = differences(before, after);
                if what.is_empty() {
                    continue;
                }
                OutputChange {
                    name: name.to_owned(),
                    action: Action::Changed,
                    old: Some(value_of(before)),
                    new: Some(value_of(after)),
                    what,
                }
            }
            (None, None) => continue,
        };
        changes.push(change);
    }
    changes
}

/// Which parts of an output that both states hold differ.
fn differences(
    (old_source, old): (&str, &Output<'_>),
    (new_source, new): (&str, &Output<'_>),
) -> Vec<&'static str> {
    let mut what = Vec::new();
    let raw = |source, span: Option<Span>| span.map(|span| span.of(source));
    if !same_json(raw(old_source, old.value), raw(new_source, new.value)) {
        what.push("value");
    }
    if !same_json(
        raw(old_source, old.value_type),
        raw(new_source, new.value_type),
    ) {
        what.push("type");
    }
    if old.sensitive != new.sensitive {
        what.push("sensitive");
    }
    what
}

/// Outputs by name; the last of duplicate names wins, as Go's reader decides.
fn named<'s, 'a>(state: &'s State<'a>) -> BTreeMap<&'s str, &'s Output<'a>> {
    state
        .outputs
        .iter()
        .map(|output| (output.name.as_ref(), output))
        .collect()
}

fn value_of((source, output): (&str, &Output<'_>)) -> OutputValue {
    OutputValue {
        value: output
            .value
            .and_then(|span| parse(span.of(source)))
            .unwrap_or(Value::Null),
        sensitive: output.sensitive,
    }
}
