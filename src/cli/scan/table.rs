//! The default output: one table of findings (fitted to the terminal width) and a summary per state.
//! Its columns are sized over every row, so the rows (a few short strings each, not the states'
//! reports) are kept until every state is in.

use crate::cli::error::{CliError, sanitize};
use crate::cli::findings::{Out, Report, ReportWriter, new_table};
use crate::scan::Severity;

#[derive(Debug, Default)]
pub(super) struct Writer {
    /// State, severity, rule, address, evidence.
    findings: Vec<[String; 5]>,
    /// State, instances, errors, warnings, notes.
    summary: Vec<[String; 5]>,
}

impl ReportWriter for Writer {
    fn state(&mut self, report: &Report, _out: &mut dyn Out) -> Result<(), CliError> {
        let name = sanitize(&report.name);
        for finding in &report.findings {
            let evidence = finding
                .evidence
                .iter()
                .map(|item| sanitize(&item.to_string()))
                .collect::<Vec<_>>()
                .join("\n");
            self.findings.push([
                name.clone(),
                finding.severity.to_string(),
                finding.rule.id.to_owned(),
                sanitize(&finding.address),
                evidence,
            ]);
        }
        self.summary.push(match &report.error {
            Some(_) => [
                name,
                "unreadable".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ],
            None => [
                name,
                report.instances.to_string(),
                report.count(Severity::Error).to_string(),
                report.count(Severity::Warning).to_string(),
                report.count(Severity::Note).to_string(),
            ],
        });
        Ok(())
    }

    fn finish(self: Box<Self>, out: &mut dyn Out) -> Result<(), CliError> {
        let Writer { findings, summary } = *self;
        if !findings.is_empty() {
            let mut table = new_table();
            // The state column only when there are several states.
            let many = summary.len() > 1;
            let mut header = vec!["severity", "rule", "address", "evidence"];
            if many {
                header.insert(0, "state");
            }
            table.set_header(header);
            for row in findings {
                let [state, severity, rule, address, evidence] = row;
                let mut cells = vec![severity, rule, address, evidence];
                if many {
                    cells.insert(0, state);
                }
                table.add_row(cells);
            }
            out.text(&table.to_string())?;
            out.text("\n")?;
        }
        let mut table = new_table();
        table.set_header(vec!["state", "instances", "errors", "warnings", "notes"]);
        for row in summary {
            table.add_row(Vec::from(row));
        }
        out.text(&table.to_string())?;
        out.text("\n")
    }
}
