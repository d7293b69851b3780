//! `--format markdown`: a report to post as a pull-request comment.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::cli::error::CliError;
use crate::cli::findings::out::Spool;
use crate::cli::findings::{Out, Report, ReportWriter, Tool};
use crate::scan::{RuleInfo, Severity};

pub(crate) fn render(tool: &Tool, reports: &[Report]) -> Result<String, CliError> {
    super::render_all(Box::new(Writer::new(tool)), reports)
}

/// The table of states comes first, a row as each state is reported; the findings' table after
/// it, so its rows are set aside; the rules to explain and the errors are kept for the end.
#[derive(Debug)]
pub(crate) struct Writer<'t> {
    tool: &'t Tool,
    started: bool,
    findings: Spool,
    rules: BTreeSet<RuleInfo>,
    errors: Vec<String>,
}

impl<'t> Writer<'t> {
    pub(crate) fn new(tool: &'t Tool) -> Writer<'t> {
        Writer {
            tool,
            started: false,
            findings: Spool::new(),
            rules: BTreeSet::new(),
            errors: Vec::new(),
        }
    }

    fn start(&mut self, out: &mut dyn Out) -> Result<(), CliError> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        out.text(&format!(
            "## statectl {}\n\n| state | instances | errors | warnings | notes |\n|---|---:|---:|---:|---:|\n",
            self.tool.command
        ))
    }
}

impl ReportWriter for Writer<'_> {
    fn state(&mut self, report: &Report, out: &mut dyn Out) -> Result<(), CliError> {
        self.start(out)?;
        if let Some(error) = &report.error {
            out.text(&format!(
                "| `{}` | unreadable | - | - | - |\n",
                cell(&report.name)
            ))?;
            self.errors.push(cell(&error.message));
        } else {
            out.text(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                cell(&report.name),
                report.instances,
                report.count(Severity::Error),
                report.count(Severity::Warning),
                report.count(Severity::Note)
            ))?;
        }
        let mut rows = String::new();
        for finding in &report.findings {
            let evidence = finding
                .evidence
                .iter()
                .map(|item| format!("`{} = {}`", cell(&item.path), cell(&item.value)))
                .collect::<Vec<_>>()
                .join("<br>");
            let _ = writeln!(
                rows,
                "| {} | `{}` | `{}` | {} | `{}` |",
                finding.severity,
                finding.rule.id,
                cell(&finding.address),
                evidence,
                cell(&report.name)
            );
            self.rules.insert(finding.rule);
        }
        self.findings.text(&rows)
    }

    fn finish(mut self: Box<Self>, out: &mut dyn Out) -> Result<(), CliError> {
        self.start(out)?;
        if self.findings.is_empty() {
            out.text("\nNo findings.\n")?;
        } else {
            out.text(
                "\n| severity | rule | address | evidence | state |\n|---|---|---|---|---|\n",
            )?;
            self.findings.copy_to(out)?;
            let mut help = String::from("\n**What to do**\n\n");
            for rule in &self.rules {
                let _ = writeln!(help, "- `{}`: {}", rule.id, rule.help);
            }
            out.text(&help)?;
        }
        for error in &self.errors {
            out.text(&format!("\n> **error**: {error}\n"))?;
        }
        Ok(())
    }
}

/// Makes text safe inside a table cell and inline code: no pipes, backticks or line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}
