//! `--format junit`: JUnit XML for CI test reports: a test suite per state, a test case per finding
//! (failed when it reaches `--fail-on`), and one passing case for a state with no findings.

use std::fmt::Write;

use crate::cli::findings::{FailOn, Report, Tool};

pub(crate) fn render(tool: &Tool, reports: &[Report], fail_on: FailOn) -> String {
    let command = tool.command;
    let class = format!("statectl.{command}");
    let mut suites = String::new();
    let (mut total_tests, mut total_failures, mut total_errors) = (0, 0, 0);
    for report in reports {
        let mut cases = String::new();
        let (mut tests, mut failures, mut errors) = (0, 0, 0);
        if let Some(error) = &report.error {
            tests += 1;
            errors += 1;
            let _ = writeln!(
                cases,
                "    <testcase name=\"read state\" classname=\"{class}\">\n      <error message=\"{}\"/>\n    </testcase>",
                escape(&error.message)
            );
        }
        for finding in &report.findings {
            tests += 1;
            let _ = writeln!(
                cases,
                "    <testcase name=\"{}\" classname=\"statectl.{}\">",
                escape(&finding.address),
                escape(finding.rule.id)
            );
            let body = finding
                .evidence
                .iter()
                .map(ToString::to_string)
                .chain(std::iter::once(format!("hint: {}", finding.hint)))
                .collect::<Vec<_>>()
                .join("\n");
            if fail_on.reached_by(finding.severity) {
                failures += 1;
                let _ = writeln!(
                    cases,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    finding.severity,
                    escape(&finding.message),
                    escape(&body)
                );
            } else {
                let _ = writeln!(
                    cases,
                    "      <system-out>{}: {}\n{}</system-out>",
                    finding.severity,
                    escape(&finding.message),
                    escape(&body)
                );
            }
            cases.push_str("    </testcase>\n");
        }
        if report.error.is_none() && report.findings.is_empty() {
            tests += 1;
            let _ = writeln!(
                cases,
                "    <testcase name=\"no findings\" classname=\"{class}\"/>"
            );
        }
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n{cases}  </testsuite>",
            escape(&report.name)
        );
        total_tests += tests;
        total_failures += failures;
        total_errors += errors;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"statectl {command}\" tests=\"{total_tests}\" failures=\"{total_failures}\" errors=\"{total_errors}\">\n{suites}</testsuites>\n"
    )
}

/// Escapes XML text and attribute values; control characters XML 1.0 cannot hold become U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(character),
            control if u32::from(control) < 0x20 => out.push('\u{FFFD}'),
            other => out.push(other),
        }
    }
    out
}
