//! `--format sarif`: SARIF 2.1.0 for code-scanning tools (GitHub, GitLab, Azure DevOps). Checked
//! against the official schema by a test. Written a result at a time: the run's head with every rule,
//! each state's results, then the invocation (its notifications name the states that could not be
//! read). Text for people (messages) has control characters escaped; names and addresses are data,
//! kept whole in JSON's own escaping.

use std::fmt::Write;
use std::path::PathBuf;

use serde_json::{Value, json};
use statectl_analysis::scan::Severity;

use crate::cli::error::sanitize;
use crate::cli::findings::paths::{fingerprint_path, repository_path};
use crate::cli::findings::{Render, Report, Tool};

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

#[derive(Debug)]
pub(crate) struct Sarif {
    tool: Tool,
    cwd: Option<PathBuf>,
    results: usize,
    notifications: Vec<Value>,
}

impl Sarif {
    pub(crate) fn new(tool: &Tool) -> Sarif {
        Sarif {
            tool: tool.clone(),
            cwd: std::env::current_dir().ok(),
            results: 0,
            notifications: Vec::new(),
        }
    }
}

impl Render for Sarif {
    fn start(&mut self, out: &mut String) {
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
        let driver = json!({
            "name": "statectl",
            "version": env!("CARGO_PKG_VERSION"),
            "informationUri": "https://github.com/statectl/statectl",
            "rules": rules,
        });
        let _ = write!(
            out,
            "{{\n  \"$schema\": {},\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {{\n      \"tool\": {{\n        \"driver\": {}\n      }},\n      \"results\": [",
            json!(SCHEMA),
            indented(&driver, 8)
        );
    }

    fn state(&mut self, report: &Report, out: &mut String) {
        let path = repository_path(&report.name, self.cwd.as_deref());
        if let Some(error) = &report.error {
            self.notifications.push(json!({
                "level": "error",
                "message": { "text": sanitize(&error.message) },
                "locations": [{ "physicalLocation": { "artifactLocation": { "uri": uri(&path) } } }],
            }));
        }
        for finding in &report.findings {
            let rule_index = self
                .tool
                .rules
                .iter()
                .position(|rule| rule.id == finding.rule.id)
                .unwrap_or(0);
            let mut physical = json!({ "artifactLocation": { "uri": uri(&path) } });
            if let Some(location) = finding.location {
                physical["region"] =
                    json!({ "startLine": location.line, "startColumn": location.column });
            }
            let result = json!({
                "ruleId": finding.rule.id,
                "ruleIndex": rule_index,
                "level": level(finding.severity),
                "message": { "text": format!("{}: {}", sanitize(&finding.address), sanitize(&finding.message)) },
                "locations": [{
                    "physicalLocation": physical,
                    "logicalLocations": [{ "fullyQualifiedName": finding.address, "kind": "resource" }],
                }],
                // Stable across runs, line moves and machines, so code scanning tracks a finding
                // over time.
                "partialFingerprints": { "statectlFinding/v1": format!("{}|{}|{}", finding.rule.id, fingerprint_path(&path), finding.address) },
                "properties": {
                    "evidence": finding.evidence.iter().map(|item| json!({ "path": item.path, "value": item.value })).collect::<Vec<_>>(),
                    "hint": finding.hint,
                },
            });
            out.push_str(if self.results == 0 { "\n" } else { ",\n" });
            out.push_str(&" ".repeat(8));
            out.push_str(&indented(&result, 8));
            self.results += 1;
        }
    }

    fn finish(&mut self, out: &mut String) {
        if self.results > 0 {
            out.push_str("\n      ");
        }
        let invocations = json!([{
            "executionSuccessful": self.notifications.is_empty(),
            "toolExecutionNotifications": self.notifications,
        }]);
        let _ = write!(
            out,
            "],\n      \"invocations\": {}\n    }}\n  ]\n}}\n",
            indented(&invocations, 6)
        );
    }
}

/// `value` pretty-printed, its lines after the first indented by `depth` spaces (it starts where the
/// caller's text left off).
fn indented(value: &Value, depth: usize) -> String {
    let text = serde_json::to_string_pretty(value).expect("JSON values always serialize");
    text.replace('\n', &format!("\n{}", " ".repeat(depth)))
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
