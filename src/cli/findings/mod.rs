//! The report formats scan and audit share: SARIF, GitHub annotations, JUnit XML and Markdown, over
//! findings with a rule id, a severity, an address, evidence and a hint, one report per state.

pub mod github;
pub mod junit;
pub mod markdown;
pub mod sarif;

use clap::ValueEnum;
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

use crate::cli::error::CliError;
use crate::scan::{Finding, RuleInfo, Severity};

/// The command the findings come from, and every rule it has (SARIF lists them all).
#[derive(Debug, Clone)]
pub struct Tool {
    /// `scan` or `audit`: in titles, JUnit class names and the SARIF fingerprint.
    pub command: &'static str,
    pub rules: Vec<RuleInfo>,
}

/// What checking one state gave.
#[derive(Debug)]
pub struct Report {
    /// The state as named to the user (a path, or `<stdin>`).
    pub name: String,
    pub instances: usize,
    pub findings: Vec<Finding>,
    pub error: Option<CliError>,
}

impl Report {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Note,
    Never,
}

impl FailOn {
    pub fn reached_by(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity >= Severity::Error,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Note => true,
            FailOn::Never => false,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::Note => "note",
            FailOn::Never => "never",
        }
    }
}

/// A table for findings: fitted to the terminal, or in a pipe to `COLUMNS` (or 120) columns.
pub fn new_table() -> Table {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    // On a terminal comfy-table reads its width; in a pipe, COLUMNS (or 120) keeps lines readable.
    if !table.is_tty() {
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|columns| columns.parse().ok())
            .unwrap_or(120);
        table.set_width(width);
    }
    table
}
