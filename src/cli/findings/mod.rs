//! What the reports of scan and audit share: the `--format` choice, a finding's JSON, and the SARIF,
//! GitHub annotations, GitLab Code Quality, JUnit XML and Markdown formats, over findings with a rule
//! id, a severity, an address, evidence and a hint, one report per state. Each format is written a
//! state at a time ([`Render`]), so a many-state command prints a state's part once it is read and
//! drops the state's report.

pub(super) mod document;
pub(super) mod github;
pub(super) mod gitlab;
pub(super) mod junit;
pub(super) mod markdown;
pub(super) mod out;
pub(super) mod paths;
pub(super) mod sarif;
pub(super) mod totals;

use clap::ValueEnum;
use statectl_analysis::scan::{Finding, RuleInfo, Severity};

use crate::cli::error::CliError;
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

/// The `hint:` lines, gathered a finding at a time (a scan drops each state's findings once they
/// are reported): the distinct lines while there are few enough to print, and the rules seen.
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
    /// For people: findings grouped per state, hints on stderr (`table` is the same)
    #[value(name = "text", alias = "table")]
    Table,
    /// One JSON document with a `schema_version`, for scripts
    Json,
    /// SARIF 2.1.0, for code scanning
    Sarif,
    /// GitHub Actions annotations
    Github,
    /// GitLab Code Quality, for findings in merge requests
    Gitlab,
    /// JUnit XML, for a CI's test report
    Junit,
    /// Markdown, for a pull-request comment or a job summary (within GitHub's 65,536 characters)
    Markdown,
}

/// A report format written a state at a time: its head, each state's part in the order the states
/// were named, and what closes it (totals, the rules' help). A renderer keeps only what its closing
/// part needs, never the states themselves.
pub(super) trait Render {
    /// What comes before the first state.
    fn start(&mut self, _out: &mut String) {}
    /// One state's part.
    fn state(&mut self, report: &Report, out: &mut String);
    /// What closes the report. A format that overrides [`Render::finish_into`] (it spools the states'
    /// parts) writes its closing there and leaves this alone.
    fn finish(&mut self, _out: &mut String) {}
    /// Writes what closes the report to `out`. A format that sets the states' parts aside until
    /// its totals are known (JUnit) copies them from its spool here rather than into one string.
    fn finish_into(&mut self, out: &mut dyn Out) -> Result<(), CliError> {
        let mut text = String::new();
        self.finish(&mut text);
        out.text(&text)
    }
}

/// The whole report of `reports` in one string (audit's one state; the tests).
pub(super) fn render_all(
    renderer: &mut dyn Render,
    reports: &[Report],
) -> Result<String, CliError> {
    let mut out = String::new();
    renderer.start(&mut out);
    for report in reports {
        renderer.state(report, &mut out);
    }
    let mut closing = Vec::new();
    renderer.finish_into(&mut closing)?;
    out.push_str(&String::from_utf8_lossy(&closing));
    Ok(out)
}

impl ReportFormat {
    /// Whether the format shows each finding's line and column (which cost a pass over the state).
    pub(super) fn shows_locations(self) -> bool {
        matches!(
            self,
            ReportFormat::Json | ReportFormat::Sarif | ReportFormat::Github | ReportFormat::Gitlab
        )
    }
}

/// The renderer of a shared report format; `None` for `table` and `json`, which each command has
/// its own of.
pub(super) fn renderer(
    format: ReportFormat,
    tool: &Tool,
    fail_on: FailOn,
) -> Option<Box<dyn Render>> {
    let renderer: Box<dyn Render> = match format {
        ReportFormat::Sarif => Box::new(sarif::Sarif::new(tool)),
        ReportFormat::Github => Box::new(github::Github::new(tool)),
        ReportFormat::Gitlab => Box::new(gitlab::Gitlab::new(tool)),
        ReportFormat::Junit => Box::new(junit::Junit::new(tool, fail_on)),
        ReportFormat::Markdown => Box::new(markdown::Markdown::new(tool)),
        ReportFormat::Table | ReportFormat::Json => return None,
    };
    Some(renderer)
}

/// The lowest severity that fails the run (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
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
