//! `--format github`: GitHub Actions workflow commands, one annotation per finding, shown on the
//! state file in a pull request.

use std::fmt::Write;

use crate::cli::findings::{Report, Tool};
use crate::scan::Severity;

pub(crate) fn render(tool: &Tool, reports: &[Report]) -> String {
    let mut out = String::new();
    for report in reports {
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
