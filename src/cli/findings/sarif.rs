//! `--format sarif`: SARIF 2.1.0 for code-scanning tools (GitHub, GitLab, Azure DevOps). Checked
//! against the official schema by a test.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::cli::error::CliError;
use crate::cli::findings::out::PrettyArray;
use crate::cli::findings::{Out, Report, ReportWriter, Tool};
use crate::scan::Severity;

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub(crate) fn render(tool: &Tool, reports: &[Report]) -> Result<String, CliError> {
    super::render_all(Box::new(Writer::new(tool)), reports)
}

/// The invocation (did every state read, and the errors of those that did not) comes before the
/// results, so the results are set aside until every state is in; the notifications, one per
/// state not read, are kept.
#[derive(Debug)]
pub(crate) struct Writer<'t> {
    tool: &'t Tool,
    notifications: Vec<Value>,
    results: PrettyArray,
}

impl<'t> Writer<'t> {
    pub(crate) fn new(tool: &'t Tool) -> Writer<'t> {
        Writer {
            tool,
            notifications: Vec::new(),
            // `runs[0].results`: three levels in.
            results: PrettyArray::new(3),
        }
    }
}

impl ReportWriter for Writer<'_> {
    fn state(&mut self, report: &Report, _out: &mut dyn Out) -> Result<(), CliError> {
        if let Some(error) = &report.error {
            self.notifications
                .push(json!({ "level": "error", "message": { "text": error.message } }));
        }
        for finding in &report.findings {
            let rule_index = self
                .tool
                .rules
                .iter()
                .position(|rule| rule.id == finding.rule.id)
                .unwrap_or(0);
            let mut physical = json!({ "artifactLocation": { "uri": uri(&report.name) } });
            if let Some(location) = finding.location {
                physical["region"] =
                    json!({ "startLine": location.line, "startColumn": location.column });
            }
            self.results.push(&json!({
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
            }))?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>, out: &mut dyn Out) -> Result<(), CliError> {
        let rules: Vec<Value> = self
            .tool
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
                "invocations": [{ "executionSuccessful": self.notifications.is_empty(), "toolExecutionNotifications": self.notifications }],
                "results": PrettyArray::place(),
            }],
        });
        self.results.write_in(&document, out)
    }
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
