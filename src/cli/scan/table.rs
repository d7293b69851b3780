//! The default output: one table of findings (fitted to the terminal width) and a summary per state.

use crate::cli::error::sanitize;
use crate::cli::findings::{Report, new_table};
use crate::scan::Severity;

pub(super) fn render(reports: &[Report]) -> String {
    let mut out = String::new();
    let findings: Vec<_> = reports
        .iter()
        .flat_map(|report| report.findings.iter().map(move |finding| (report, finding)))
        .collect();
    if !findings.is_empty() {
        let mut table = new_table();
        let many = reports.len() > 1;
        let mut header = vec!["severity", "rule", "address", "evidence"];
        if many {
            header.insert(0, "state");
        }
        table.set_header(header);
        for (report, finding) in findings {
            let evidence = finding
                .evidence
                .iter()
                .map(|item| sanitize(&item.to_string()))
                .collect::<Vec<_>>()
                .join("\n");
            let mut row = vec![
                finding.severity.to_string(),
                finding.rule.id.to_owned(),
                sanitize(&finding.address),
                evidence,
            ];
            if many {
                row.insert(0, sanitize(&report.name));
            }
            table.add_row(row);
        }
        out.push_str(&table.to_string());
        out.push('\n');
    }
    let mut summary = new_table();
    summary.set_header(vec!["state", "instances", "errors", "warnings", "notes"]);
    for report in reports {
        let cells = match &report.error {
            Some(_) => vec![
                sanitize(&report.name),
                "unreadable".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ],
            None => vec![
                sanitize(&report.name),
                report.instances.to_string(),
                report.count(Severity::Error).to_string(),
                report.count(Severity::Warning).to_string(),
                report.count(Severity::Note).to_string(),
            ],
        };
        summary.add_row(cells);
    }
    out.push_str(&summary.to_string());
    out.push('\n');
    out
}

/// The `hint:` lines for people (stderr).
pub(super) fn hints(reports: &[Report]) -> Vec<String> {
    crate::cli::findings::hints(reports.iter().flat_map(|report| &report.findings))
}
