//! `--format github`: GitHub Actions workflow commands, one annotation per finding, shown on the
//! state file in a pull request.

use std::fmt::Write;

use crate::cli::error::CliError;
use crate::cli::findings::{Out, Report, ReportWriter, Tool};
use crate::scan::Severity;

pub(crate) fn render(tool: &Tool, reports: &[Report]) -> Result<String, CliError> {
    super::render_all(Box::new(Writer { tool }), reports)
}

/// Annotations need nothing of the states before or after: each state's are written at once.
#[derive(Debug)]
pub(crate) struct Writer<'t> {
    pub(crate) tool: &'t Tool,
}

impl ReportWriter for Writer<'_> {
    fn state(&mut self, report: &Report, out: &mut dyn Out) -> Result<(), CliError> {
        out.text(&annotations(self.tool, report))
    }

    fn finish(self: Box<Self>, _out: &mut dyn Out) -> Result<(), CliError> {
        Ok(())
    }
}

fn annotations(tool: &Tool, report: &Report) -> String {
    let mut out = String::new();
    if let Some(error) = &report.error {
        let _ = writeln!(
            out,
            "::error file={},title={}::{}",
            property(&report.name),
            property(&format!("statectl {}: unreadable state", tool.command)),
            data(&error.message)
        );
    }
    for finding in &report.findings {
        let command = match finding.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let place = finding
            .location
            .map(|location| format!(",line={},col={}", location.line, location.column))
            .unwrap_or_default();
        let title = format!("statectl {}: {}", finding.rule.id, finding.address);
        let message = format!(
            "{}: {}\nhint: {}",
            finding.address, finding.message, finding.hint
        );
        let _ = writeln!(
            out,
            "::{command} file={}{place},title={}::{}",
            property(&report.name),
            property(&title),
            data(&message)
        );
    }
    out
}

/// Escapes a command's message as the Actions runner expects.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property (`file`, `title`), which also may not hold `:` or `,`.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}
