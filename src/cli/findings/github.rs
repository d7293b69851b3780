//! `--format github`: GitHub Actions workflow commands, one annotation per finding, shown on the
//! state file in a pull request. Every name, address and message is escaped as the runner decodes
//! it (a line break in a state's key cannot start a second command, an ESC cannot reach the log).

use std::fmt::Write;
use std::path::PathBuf;

use statectl_analysis::scan::Severity;

use crate::cli::error::sanitize;
use crate::cli::escape::{github_data, github_property};
use crate::cli::findings::paths::repository_path;
use crate::cli::findings::{Render, Report, Tool};

#[derive(Debug)]
pub(crate) struct Github {
    command: &'static str,
    cwd: Option<PathBuf>,
}

impl Github {
    pub(crate) fn new(tool: &Tool) -> Github {
        Github {
            command: tool.command,
            cwd: std::env::current_dir().ok(),
        }
    }
}

impl Render for Github {
    fn state(&mut self, report: &Report, out: &mut String) {
        let file = github_property(&repository_path(&report.name, self.cwd.as_deref()));
        if let Some(error) = &report.error {
            let _ = writeln!(
                out,
                "::error file={file},title={}::{}",
                github_property(&format!("statectl {}: unreadable state", self.command)),
                github_data(&sanitize(&error.message))
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
            let address = sanitize(&finding.address);
            let title = format!("statectl {}: {address}", finding.rule.id);
            // The line break before the hint is the report's own; those inside the pieces are not.
            let message = format!(
                "{address}: {}\nhint: {}",
                sanitize(&finding.message),
                sanitize(&finding.hint)
            );
            let _ = writeln!(
                out,
                "::{command} file={file}{place},title={}::{}",
                github_property(&title),
                github_data(&message)
            );
        }
    }
}
