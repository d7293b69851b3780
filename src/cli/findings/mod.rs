//! What the reports of scan and audit share: the `--format` choice, a finding's JSON, and the SARIF,
//! GitHub annotations, JUnit XML and Markdown formats, over findings with a rule id, a severity, an
//! address, evidence and a hint, one report per state. Each format is a [`ReportWriter`], given
//! one state's report at a time, so a scan of any number of states holds one report per worker.

pub(super) mod github;
pub(super) mod junit;
pub(super) mod markdown;
pub(super) mod out;
pub(super) mod sarif;

use clap::ValueEnum;
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use serde_json::{Value, json};

use crate::cli::error::CliError;
use crate::scan::{Finding, RuleInfo, Severity};
pub(super) use out::Out;

/// How many findings get their own `hint:` line on stderr; past that, one line per rule.
const HINTS_PER_FINDING: usize = 10;

/// The `hint:` lines for people (stderr): each finding's own hint, with its address and the commands
/// to paste, when there are few; one generic line per rule when there are many.
pub(super) fn hints<'f>(findings: impl Iterator<Item = &'f Finding>) -> Vec<String> {
    let mut hints = Hints::default();
    for finding in findings {
        hints.add(finding);
    }
    hints.lines()
}

/// The `hint:` lines, gathered a finding at a time: the distinct lines while there are few enough
/// to print, and the rules seen.
#[derive(Debug, Default)]
pub(super) struct Hints {
    lines: Vec<String>,
    rules: std::collections::BTreeSet<RuleInfo>,
}

impl Hints {
    pub(super) fn add(&mut self, finding: &Finding) {
        self.rules.insert(finding.rule);
        if self.lines.len() <= HINTS_PER_FINDING {
            let line = format!("{}: {}", finding.rule.id, finding.hint);
            if !self.lines.contains(&line) {
                self.lines.push(line);
            }
        }
    }

    pub(super) fn lines(self) -> Vec<String> {
        if self.lines.len() <= HINTS_PER_FINDING {
            return self.lines;
        }
        self.rules
            .into_iter()
            .map(|rule| format!("{}: {}", rule.id, rule.help))
            .chain(std::iter::once(
                "each finding's own hint, with its address, is in `--format json`".to_owned(),
            ))
            .collect()
    }
}

/// A report format, written one state at a time: what a state adds is written, or set aside when
/// the format opens with totals, as soon as the state is reported, and the report is dropped.
pub(super) trait ReportWriter {
    /// Writes (or sets aside) what `report` adds.
    fn state(&mut self, report: &Report, out: &mut dyn Out) -> Result<(), CliError>;

    /// Writes the rest, once every state is in.
    fn finish(self: Box<Self>, out: &mut dyn Out) -> Result<(), CliError>;
}

/// The whole report of `reports` in one string (audit's one state; the tests).
pub(super) fn render_all(
    mut writer: Box<dyn ReportWriter + '_>,
    reports: &[Report],
) -> Result<String, CliError> {
    let mut out = Vec::new();
    for report in reports {
        writer.state(report, &mut out)?;
    }
    writer.finish(&mut out)?;
    Ok(String::from_utf8(out).expect("reports are UTF-8"))
}

/// The command the findings come from, and every rule it has (SARIF lists them all).
#[derive(Debug, Clone)]
pub(super) struct Tool {
    /// `scan` or `audit`: in titles, JUnit class names and the SARIF fingerprint.
    pub command: &'static str,
    pub rules: Vec<RuleInfo>,
}

/// What checking one state gave.
#[derive(Debug)]
pub(super) struct Report {
    /// The state as named to the user (a path, or `<stdin>`).
    pub name: String,
    pub instances: usize,
    pub findings: Vec<Finding>,
    pub error: Option<CliError>,
}

impl Report {
    pub(super) fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    }
}

/// `--format` of scan and audit: the table for people, or one of the shared report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Sarif,
    Github,
    Junit,
    Markdown,
}

/// One finding in the JSON schemas of scan and audit (README, "scan JSON", "audit JSON").
pub(super) fn finding_json(finding: &Finding) -> Value {
    json!({
        "rule": finding.rule.id,
        "severity": finding.severity.as_str(),
        "address": finding.address,
        "resource_type": finding.resource_type,
        "message": finding.message,
        "evidence": finding.evidence.iter().map(|item| json!({
            "path": item.path,
            // The value as the state holds it, decoded (a string, number, null...).
            "value": serde_json::from_str::<Value>(&item.value).unwrap_or(Value::String(item.value.clone())),
        })).collect::<Vec<_>>(),
        "hint": finding.hint,
        "location": finding.location.map(|location| json!({ "line": location.line, "column": location.column })),
    })
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
pub(super) fn new_table() -> Table {
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
