//! `statectl drift`'s report: per drifted instance the attributes that changed (old -> new) or
//! that its object is gone, the instances that could not be read, and what each ignore rule took
//! out. The table is for people; `--format json` holds Terraform's `resource_drift` entries (as
//! `terraform show -json` writes a refresh-only plan's), so tooling that reads those reads these;
//! SARIF, GitHub, GitLab, JUnit and Markdown are scan's and audit's report, one finding per
//! drifted, deleted or unread instance.

use std::fmt::Write as _;

use serde_json::{Value, json};
use statectl_analysis::diff::AttributeChange;
use statectl_analysis::drift::{COMPUTED_ONLY, DriftRule, DriftRules, Muted, NULL_EMPTY};
use statectl_analysis::scan::select::Selected;
use statectl_analysis::scan::{Evidence, Finding};

use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::findings::{self, FailOn, ReportFormat, Tool, render_all, renderer};
use crate::cli::settings::DriftSettings;
use crate::state::address::InstanceKey;
use crate::state::sensitive::CtyStep;

/// The version of the JSON report's shape.
const SCHEMA_VERSION: u32 = 1;

/// One instance in the report: drifted, gone, or not read.
#[derive(Debug)]
pub(super) struct Entry {
    pub address: String,
    pub module: String,
    pub type_name: String,
    pub name: String,
    pub key: Option<InstanceKey>,
    /// The provider's source address (`registry.terraform.io/hashicorp/aws`).
    pub provider: Option<String>,
    pub kind: EntryKind,
}

#[derive(Debug)]
pub(super) enum EntryKind {
    /// The provider's read differs in these attributes (after the rules), values masked;
    /// `before`/`after` are the whole objects, masked.
    Changed {
        changes: Vec<AttributeChange>,
        before: Value,
        after: Value,
        sensitive: Vec<Vec<CtyStep>>,
    },
    /// ReadResource returned no object: deleted outside Terraform.
    Gone {
        before: Value,
        sensitive: Vec<Vec<CtyStep>>,
    },
    /// Not read: whether it drifted is unknown.
    Error(String),
}

impl Entry {
    pub(super) fn new(one: &Selected, kind: EntryKind) -> Entry {
        let resource = &one.address.resource;
        Entry {
            address: one.address.to_string(),
            module: resource.module.to_string(),
            type_name: resource.type_name.clone(),
            name: resource.name.clone(),
            key: one.address.key.clone(),
            provider: one
                .provider
                .as_ref()
                .map(|provider| provider.source.clone()),
            kind,
        }
    }

    pub(super) fn error(one: &Selected, message: String) -> Entry {
        Entry::new(one, EntryKind::Error(message))
    }
}

/// What checking one state gave.
#[derive(Debug)]
pub(super) struct Report {
    /// The state as named to the user.
    pub name: String,
    /// The workspace `--workspace GLOB` listed it as, for `--format json` to name apart.
    pub workspace: Option<String>,
    /// How many instances were chosen to be read.
    pub instances: usize,
    /// How many of them belong to Terraform's built-in provider (`terraform_data`): not read.
    pub builtin: usize,
    pub entries: Vec<Entry>,
    pub muted: Muted,
    /// The ignore rules (pattern, reason), in the order of `muted.by_ignore`.
    pub ignores: Vec<(String, Option<String>)>,
    /// Why the state itself could not be checked (many states: the others still are).
    pub error: Option<String>,
}

impl Report {
    pub(super) fn new(name: String, instances: usize, rules: &DriftRules) -> Report {
        Report {
            name,
            workspace: None,
            instances,
            builtin: 0,
            error: None,
            entries: Vec::new(),
            muted: Muted::new(rules),
            ignores: rules
                .ignores
                .iter()
                .map(|ignore| (ignore.pattern.clone(), ignore.reason.clone()))
                .collect(),
        }
    }

    /// The instances not read, with why.
    pub(super) fn errors(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().filter_map(|entry| match &entry.kind {
            EntryKind::Error(message) => Some((entry.address.as_str(), message.as_str())),
            _ => None,
        })
    }

    fn count(&self, pick: fn(&EntryKind) -> bool) -> usize {
        self.entries
            .iter()
            .filter(|entry| pick(&entry.kind))
            .count()
    }

    /// How many instances were read through a provider.
    fn read(&self) -> usize {
        self.instances - self.failed() - self.builtin
    }

    fn changed(&self) -> usize {
        self.count(|kind| matches!(kind, EntryKind::Changed { .. }))
    }

    fn gone(&self) -> usize {
        self.count(|kind| matches!(kind, EntryKind::Gone { .. }))
    }

    fn failed(&self) -> usize {
        self.count(|kind| matches!(kind, EntryKind::Error(_)))
    }

    /// 2 when an instance was not read (its drift is unknown), else 1 on drift, else 0.
    pub(super) fn exit_status(&self) -> ExitStatus {
        if self.failed() > 0 || self.error.is_some() {
            ExitStatus::Error
        } else if self.changed() + self.gone() > 0 {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }

    /// Each rule that took something out, with its count: the computed-only rule first.
    fn muting(&self) -> Vec<(String, Option<&str>, usize)> {
        let mut rules = Vec::new();
        if self.muted.computed_only > 0 {
            rules.push((COMPUTED_ONLY.to_owned(), None, self.muted.computed_only));
        }
        if self.muted.null_empty > 0 {
            rules.push((NULL_EMPTY.to_owned(), None, self.muted.null_empty));
        }
        for ((pattern, reason), count) in self.ignores.iter().zip(&self.muted.by_ignore) {
            rules.push((pattern.clone(), reason.as_deref(), *count));
        }
        rules
    }
}

/// The report in the settings' format: the table, the JSON, or one of the formats scan and audit
/// share (each drifted, deleted or unread instance a finding).
pub(super) fn render(reports: &[Report], settings: &DriftSettings) -> Result<String, CliError> {
    match settings.format {
        ReportFormat::Json => Ok(json_report(reports)),
        ReportFormat::Table => Ok(reports.iter().map(table).collect::<Vec<_>>().join("\n")),
        format => {
            let tool = Tool {
                command: "drift",
                rules: DriftRule::ALL.iter().map(|rule| rule.info()).collect(),
            };
            let mut renderer =
                renderer(format, &tool, FailOn::Warning).expect("a shared format has a renderer");
            let reports: Vec<findings::Report> = reports.iter().map(as_findings).collect();
            render_all(renderer.as_mut(), &reports)
        }
    }
}

/// The report as scan's and audit's: one finding per drifted, deleted or unread instance.
fn as_findings(report: &Report) -> findings::Report {
    let findings = report
        .entries
        .iter()
        .map(|entry| {
            let address = &entry.address;
            let (rule, message, evidence, hint) = match &entry.kind {
                EntryKind::Changed { changes, .. } => (
                    DriftRule::Changed,
                    format!(
                        "changed outside Terraform: {}",
                        changes
                            .iter()
                            .map(|change| change.path.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    changes
                        .iter()
                        .map(|change| Evidence {
                            path: change.path.to_string(),
                            value: change.new.as_ref().unwrap_or(&Value::Null).to_string(),
                        })
                        .collect(),
                    format!(
                        "`terraform apply -target='{address}'` restores it; `terraform apply -refresh-only -target='{address}'` accepts the change; `--ignore {}.PATH` if it is known noise",
                        entry.type_name
                    ),
                ),
                EntryKind::Gone { .. } => (
                    DriftRule::Gone,
                    "deleted outside Terraform".to_owned(),
                    Vec::new(),
                    format!(
                        "`terraform apply -target='{address}'` creates it again; `terraform apply -refresh-only -target='{address}'` forgets it"
                    ),
                ),
                EntryKind::Error(message) => (
                    DriftRule::NotRead,
                    format!("not read: {message}"),
                    Vec::new(),
                    DriftRule::NotRead.info().help.to_owned(),
                ),
            };
            Finding {
                rule: rule.info(),
                severity: rule.severity(),
                address: address.clone(),
                resource_type: Some(entry.type_name.clone()),
                message,
                evidence,
                hint,
                location: None,
            }
        })
        .collect();
    findings::Report {
        name: report.name.clone(),
        instances: report.instances,
        findings,
        error: report
            .error
            .as_ref()
            .map(|message| CliError::new(message.clone())),
    }
}

/// A value as one line of JSON, escaped for the terminal.
fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "(none)".to_owned(), |value| sanitize(&value.to_string()))
}

fn table(report: &Report) -> String {
    let mut out = String::new();
    if report.error.is_some() {
        let _ = writeln!(
            out,
            "{}: not checked (see the error below)",
            sanitize(&report.name)
        );
        return out;
    }
    for entry in &report.entries {
        let address = sanitize(&entry.address);
        match &entry.kind {
            EntryKind::Changed { changes, .. } => {
                let _ = writeln!(out, "~ {address}");
                for change in changes {
                    let _ = writeln!(
                        out,
                        "    {}: {} -> {}",
                        sanitize(&change.path.to_string()),
                        shown(change.old.as_ref()),
                        shown(change.new.as_ref())
                    );
                }
            }
            EntryKind::Gone { .. } => {
                let _ = writeln!(out, "- {address}: gone (deleted outside Terraform)");
            }
            EntryKind::Error(_) => {
                let _ = writeln!(out, "! {address}: not read (see the error below)");
            }
        }
    }
    let (changed, gone, failed) = (report.changed(), report.gone(), report.failed());
    let read = report.read();
    let _ = write!(
        out,
        "{}: {read} instance{} read; ",
        sanitize(&report.name),
        if read == 1 { "" } else { "s" },
    );
    if changed + gone == 0 {
        out.push_str("no drift");
    } else {
        let _ = write!(out, "{changed} changed, {gone} gone");
    }
    if failed > 0 {
        let _ = write!(out, "; {failed} not read");
    }
    if report.builtin > 0 {
        let _ = write!(
            out,
            "; {} built into Terraform (no remote object) not read",
            report.builtin
        );
    }
    out.push('\n');
    for (rule, reason, count) in report.muting() {
        let _ = write!(
            out,
            "ignored by `{}`: {count} change{}",
            sanitize(&rule),
            if count == 1 { "" } else { "s" }
        );
        if let Some(reason) = reason {
            let _ = write!(out, " ({})", sanitize(reason));
        }
        out.push('\n');
    }
    out
}

fn json_report(reports: &[Report]) -> String {
    let mut drift = Vec::new();
    let mut errors = Vec::new();
    let mut states = Vec::new();
    for report in reports {
        states.push(json!({
            "state": report.name,
            "workspace": report.workspace,
            "instances": report.instances,
            "read": report.read(),
            "builtin": report.builtin,
            "changed": report.changed(),
            "gone": report.gone(),
            "errors": report.failed(),
            "error": report.error,
        }));
        for entry in &report.entries {
            match entry_json(entry) {
                Ok(mut item) => {
                    item.insert("state".into(), json!(report.name));
                    item.insert("workspace".into(), json!(report.workspace));
                    drift.push(Value::Object(item));
                }
                Err(message) => errors.push(json!({
                    "state": report.name,
                    "workspace": report.workspace,
                    "address": entry.address,
                    "message": message,
                })),
            }
        }
    }
    let sum = |count: fn(&Report) -> usize| reports.iter().map(count).sum::<usize>();
    let document = json!({
        "schema_version": SCHEMA_VERSION,
        "summary": {
            "states": reports.len(),
            "instances": sum(|report| report.instances),
            "read": sum(Report::read),
            "builtin": sum(|report| report.builtin),
            "changed": sum(Report::changed),
            "gone": sum(Report::gone),
            "errors": sum(Report::failed) + sum(|report| usize::from(report.error.is_some())),
        },
        "resource_drift": drift,
        "errors": errors,
        "ignored": ignored_json(reports),
        "states": states,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values serialize");
    text.push('\n');
    text
}

/// What each rule took out, over every state (they share the rules).
fn ignored_json(reports: &[Report]) -> Vec<Value> {
    let Some(first) = reports.first() else {
        return Vec::new();
    };
    let mut total = Report {
        name: String::new(),
        workspace: None,
        instances: 0,
        builtin: 0,
        entries: Vec::new(),
        muted: first.muted.clone(),
        ignores: first.ignores.clone(),
        error: None,
    };
    for report in &reports[1..] {
        total.muted.add(&report.muted);
    }
    total
        .muting()
        .into_iter()
        .map(|(rule, reason, count)| json!({"rule": rule, "reason": reason, "count": count}))
        .collect()
}

/// One `resource_drift` entry, or the message of an instance not read.
fn entry_json(entry: &Entry) -> Result<serde_json::Map<String, Value>, &str> {
    let (actions, before, after, sensitive, attributes) = match &entry.kind {
        EntryKind::Changed {
            changes,
            before,
            after,
            sensitive,
        } => (
            "update",
            before.clone(),
            after.clone(),
            sensitive,
            changes.iter().map(change_json).collect(),
        ),
        EntryKind::Gone { before, sensitive } => {
            ("delete", before.clone(), Value::Null, sensitive, Vec::new())
        }
        EntryKind::Error(message) => return Err(message),
    };
    let marks = sensitive_marks(sensitive);
    let mut item = serde_json::Map::new();
    item.insert("address".into(), json!(entry.address));
    if !entry.module.is_empty() {
        item.insert("module_address".into(), json!(entry.module));
    }
    item.insert("mode".into(), json!("managed"));
    item.insert("type".into(), json!(entry.type_name));
    item.insert("name".into(), json!(entry.name));
    match &entry.key {
        Some(InstanceKey::Int(index)) => {
            item.insert("index".into(), json!(index));
        }
        Some(InstanceKey::Str(key)) => {
            item.insert("index".into(), json!(key));
        }
        None => {}
    }
    item.insert("provider_name".into(), json!(entry.provider));
    let after_sensitive = if after.is_null() {
        json!(false)
    } else {
        marks.clone()
    };
    item.insert(
        "change".into(),
        json!({
            "actions": [actions],
            "before": before,
            "after": after,
            "after_unknown": {},
            "before_sensitive": marks,
            "after_sensitive": after_sensitive,
        }),
    );
    item.insert("drifted_attributes".into(), Value::Array(attributes));
    Ok(item)
}

/// One drifted attribute: its path as Terraform writes references, and its values (masked).
fn change_json(change: &AttributeChange) -> Value {
    json!({
        "path": change.path.to_string(),
        "before": change.old,
        "after": change.new,
    })
}

/// `before_sensitive` as Terraform writes it: the object's shape with `true` where a value is
/// sensitive (objects for attributes and keys, arrays for indexes); `{}` when nothing is.
fn sensitive_marks(paths: &[Vec<CtyStep>]) -> Value {
    let mut marks = json!({});
    for path in paths {
        mark(&mut marks, path);
    }
    marks
}

fn mark(at: &mut Value, path: &[CtyStep]) {
    let Some((step, rest)) = path.split_first() else {
        *at = Value::Bool(true);
        return;
    };
    let next = match step {
        CtyStep::Attribute(name) | CtyStep::Key(name) => {
            if !at.is_object() {
                *at = json!({});
            }
            at.as_object_mut()
                .expect("made an object")
                .entry(name.clone())
                .or_insert(Value::Bool(false))
        }
        CtyStep::Index(index) => {
            if !at.is_array() {
                *at = json!([]);
            }
            let items = at.as_array_mut().expect("made an array");
            let index = usize::try_from(*index).unwrap_or(usize::MAX).min(1 << 16);
            while items.len() <= index {
                items.push(Value::Bool(false));
            }
            &mut items[index]
        }
    };
    if next == &Value::Bool(true) {
        return;
    }
    mark(next, rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensitive_marks_follow_the_paths() {
        assert_eq!(sensitive_marks(&[]), json!({}));
        assert_eq!(
            sensitive_marks(&[
                vec![CtyStep::Attribute("password".into())],
                vec![
                    CtyStep::Attribute("disk".into()),
                    CtyStep::Index(1),
                    CtyStep::Attribute("key".into())
                ],
            ]),
            json!({"password": true, "disk": [false, {"key": true}]})
        );
    }
}
