//! `--format markdown`: a report to post as a pull-request comment.

use std::fmt::Write;

use crate::cli::findings::{Report, Tool};
use crate::scan::{RuleInfo, Severity};

pub(crate) fn render(tool: &Tool, reports: &[Report]) -> String {
    let mut out = format!(
        "## statectl {}\n\n| state | instances | errors | warnings | notes |\n|---|---:|---:|---:|---:|\n",
        tool.command
    );
    for report in reports {
        if report.error.is_some() {
            let _ = writeln!(out, "| `{}` | unreadable | - | - | - |", cell(&report.name));
        } else {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                cell(&report.name),
                report.instances,
                report.count(Severity::Error),
                report.count(Severity::Warning),
                report.count(Severity::Note)
            );
        }
    }
    let findings: Vec<_> = reports
        .iter()
        .flat_map(|report| report.findings.iter().map(move |finding| (report, finding)))
        .collect();
    if findings.is_empty() {
        out.push_str("\nNo findings.\n");
    } else {
        out.push_str("\n| severity | rule | address | evidence | state |\n|---|---|---|---|---|\n");
        for (report, finding) in &findings {
            let evidence = finding
                .evidence
                .iter()
                .map(|item| format!("`{} = {}`", cell(&item.path), cell(&item.value)))
                .collect::<Vec<_>>()
                .join("<br>");
            let _ = writeln!(
                out,
                "| {} | `{}` | `{}` | {} | `{}` |",
                finding.severity,
                finding.rule.id,
                cell(&finding.address),
                evidence,
                cell(&report.name)
            );
        }
        let mut rules: Vec<RuleInfo> = findings.iter().map(|(_, finding)| finding.rule).collect();
        rules.sort();
        rules.dedup();
        out.push_str("\n**What to do**\n\n");
        for rule in rules {
            let _ = writeln!(out, "- `{}`: {}", rule.id, rule.help);
        }
    }
    for report in reports {
        if let Some(error) = &report.error {
            let _ = writeln!(out, "\n> **error**: {}", cell(&error.message));
        }
    }
    out
}

/// Makes text safe inside a table cell and inline code: no pipes, backticks or line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}
