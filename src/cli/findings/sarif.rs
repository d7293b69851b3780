//! `--format sarif`: SARIF 2.1.0 for code-scanning tools (GitHub, GitLab, Azure DevOps). Checked
//! against the official schema by a test.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::cli::findings::{Report, Tool};
use crate::scan::Severity;

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub(crate) fn render(tool: &Tool, reports: &[Report]) -> String {
    let rules: Vec<Value> = tool
        .rules
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "name": rule.id,
                "shortDescription": { "text": rule.title },
                "fullDescription": { "text": rule.title },
                "help": { "text": rule.help },
                "defaultConfiguration": { "level": level(rule.default_severity) },
            })
        })
        .collect();
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for report in reports {
        if let Some(error) = &report.error {
            notifications.push(json!({ "level": "error", "message": { "text": error.message } }));
        }
        for finding in &report.findings {
            let rule_index = tool
                .rules
                .iter()
                .position(|rule| rule.id == finding.rule.id)
                .unwrap_or(0);
            let mut physical = json!({ "artifactLocation": { "uri": uri(&report.name) } });
            if let Some(location) = finding.location {
                physical["region"] =
                    json!({ "startLine": location.line, "startColumn": location.column });
            }
            results.push(json!({
                "ruleId": finding.rule.id,
                "ruleIndex": rule_index,
                "level": level(finding.severity),
                "message": { "text": format!("{}: {}", finding.address, finding.message) },
                "locations": [{
                    "physicalLocation": physical,
                    "logicalLocations": [{ "fullyQualifiedName": finding.address, "kind": "resource" }],
                }],
                // Stable across runs and line moves, so code scanning tracks a finding over time.
                "partialFingerprints": { "statectlFinding/v1": format!("{}|{}|{}", finding.rule.id, report.name, finding.address) },
                "properties": {
                    "evidence": finding.evidence.iter().map(|item| json!({ "path": item.path, "value": item.value })).collect::<Vec<_>>(),
                    "hint": finding.hint,
                },
            }));
        }
    }
    let document = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "statectl",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/statectl/statectl",
                "rules": rules,
            }},
            "invocations": [{ "executionSuccessful": notifications.is_empty(), "toolExecutionNotifications": notifications }],
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values always serialize");
    text.push('\n');
    text
}

fn level(severity: Severity) -> &'static str {
    severity.as_str()
}

/// A relative URI reference for a state path: forward slashes, reserved characters escaped.
fn uri(name: &str) -> String {
    let path = name.replace('\\', "/");
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}
