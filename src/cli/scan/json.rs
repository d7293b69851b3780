//! `--format json`: the documented, versioned schema (README, "scan JSON").

use serde_json::{Value, json};

use crate::cli::findings::{FailOn, Report, finding_json};
use crate::scan::Severity;

pub(super) fn render(reports: &[Report], fail_on: FailOn) -> String {
    let states: Vec<Value> = reports.iter().map(state).collect();
    let total = |severity| {
        reports
            .iter()
            .map(|report| report.count(severity))
            .sum::<usize>()
    };
    let failed = reports
        .iter()
        .flat_map(|report| &report.findings)
        .any(|finding| fail_on.reached_by(finding.severity));
    let document = json!({
        "schema_version": 1,
        "tool": { "name": "statectl", "version": env!("CARGO_PKG_VERSION") },
        "fail_on": fail_on.as_str(),
        "failed": failed,
        "summary": { "states": reports.len(), "errors": total(Severity::Error), "warnings": total(Severity::Warning), "notes": total(Severity::Note) },
        "states": states,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values always serialize");
    text.push('\n');
    text
}

fn state(report: &Report) -> Value {
    json!({
        "path": report.name,
        "instances": report.instances,
        "error": report.error.as_ref().map(|error| json!({ "message": error.message, "hint": error.hint })),
        "summary": { "errors": report.count(Severity::Error), "warnings": report.count(Severity::Warning), "notes": report.count(Severity::Note) },
        "findings": report.findings.iter().map(finding_json).collect::<Vec<_>>(),
    })
}
