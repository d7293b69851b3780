//! The JSON reports of `scan` and `audit` as types: serde writes them (in the fields' order, which
//! is the documented one) and schemars describes them. The JSON Schemas checked in under `schema/`
//! are generated from these types by `statectl generate`, so the schema and the output cannot drift
//! apart; the integration tests validate real reports against them. A finding has one shape in both
//! reports ([`FindingRecord`]).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::cli::findings::{FailOn, Report};
use statectl_analysis::scan::{Finding, Severity};

/// The version of both documents' shape: raised when a field changes meaning or goes away.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// Who wrote the report.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ToolRecord {
    /// Always `statectl`.
    pub name: &'static str,
    pub version: &'static str,
}

impl ToolRecord {
    pub(crate) fn statectl() -> ToolRecord {
        ToolRecord {
            name: "statectl",
            version: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// How much a finding matters; `--fail-on` compares with it.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SeverityRecord {
    Error,
    Warning,
    Note,
}

impl From<Severity> for SeverityRecord {
    fn from(severity: Severity) -> SeverityRecord {
        match severity {
            Severity::Error => SeverityRecord::Error,
            Severity::Warning => SeverityRecord::Warning,
            Severity::Note => SeverityRecord::Note,
        }
    }
}

/// One finding, in scan's and audit's reports alike.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FindingRecord<'a> {
    /// The rule's id (`transitional-state`, `skip-destroy`...).
    pub rule: &'a str,
    pub severity: SeverityRecord,
    /// The instance address (with ` (deposed object KEY)`), or a check's address.
    pub address: &'a str,
    pub resource_type: Option<&'a str>,
    pub message: &'a str,
    /// The attributes that show it, with their values as the state holds them.
    pub evidence: Vec<EvidenceRecord<'a>>,
    /// What to do about it.
    pub hint: &'a str,
    /// Where the instance's object starts in the state file.
    pub location: Option<LocationRecord>,
}

/// An attribute that shows a finding.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct EvidenceRecord<'a> {
    /// The attribute's path (`state`, `tags.Name`).
    pub path: &'a str,
    /// The value as the state holds it, decoded (a string, number, null...).
    pub value: Value,
}

/// A place in the state file, both 1-based.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub(crate) struct LocationRecord {
    pub line: usize,
    pub column: usize,
}

impl<'a> FindingRecord<'a> {
    pub(crate) fn of(finding: &'a Finding) -> FindingRecord<'a> {
        FindingRecord {
            rule: finding.rule.id,
            severity: finding.severity.into(),
            address: &finding.address,
            resource_type: finding.resource_type.as_deref(),
            message: &finding.message,
            evidence: finding
                .evidence
                .iter()
                .map(|item| EvidenceRecord {
                    path: &item.path,
                    value: serde_json::from_str::<Value>(&item.value)
                        .unwrap_or_else(|_| Value::String(item.value.clone())),
                })
                .collect(),
            hint: &finding.hint,
            location: finding.location.map(|location| LocationRecord {
                line: location.line,
                column: location.column,
            }),
        }
    }
}

/// Counts of findings by severity.
#[derive(Debug, Default, Clone, Copy, Serialize, JsonSchema)]
pub(crate) struct SeverityCounts {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl SeverityCounts {
    pub(crate) fn of(report: &Report) -> SeverityCounts {
        SeverityCounts {
            errors: report.count(Severity::Error),
            warnings: report.count(Severity::Warning),
            notes: report.count(Severity::Note),
        }
    }
}

/// `statectl scan --format json`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "statectl scan report", rename = "ScanReport")]
pub(crate) struct ScanDocument {
    pub schema_version: u32,
    pub tool: ToolRecord,
    /// The `--fail-on` level.
    pub fail_on: FailOn,
    /// As the exit code: a finding reached `--fail-on`, or a state could not be read.
    pub failed: bool,
    pub summary: ScanTotals,
    /// One record per state scanned, in the order they were named or listed.
    // Written a state at a time as each is done (`PrettyArray`): the document holds its
    // placeholder.
    #[schemars(with = "Vec<ScanStateRecord<'static>>")]
    pub states: Value,
}

/// The counts of a whole scan.
#[derive(Debug, Default, Clone, Copy, Serialize, JsonSchema)]
pub(crate) struct ScanTotals {
    pub states: usize,
    /// States that could not be read (their `error` says why).
    pub unreadable: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

/// One state of a scan.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ScanStateRecord<'a> {
    /// The state as named: a path, `<stdin>`, or a URL (credentials masked).
    pub path: &'a str,
    /// Resource instances, deposed objects not counted.
    pub instances: usize,
    /// Why the state could not be read, if it could not.
    pub error: Option<ErrorRecord<'a>>,
    pub summary: SeverityCounts,
    pub findings: Vec<FindingRecord<'a>>,
}

/// A problem, as the CLI says it: the line and its hint.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ErrorRecord<'a> {
    pub message: &'a str,
    pub hint: Option<&'a str>,
}

impl<'a> ScanStateRecord<'a> {
    pub(crate) fn of(report: &'a Report) -> ScanStateRecord<'a> {
        ScanStateRecord {
            path: &report.name,
            instances: report.instances,
            error: report.error.as_ref().map(|error| ErrorRecord {
                message: &error.message,
                hint: error.hint.as_deref(),
            }),
            summary: SeverityCounts::of(report),
            findings: report.findings.iter().map(FindingRecord::of).collect(),
        }
    }
}

/// `statectl audit --format json`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "statectl audit report", rename = "AuditReport")]
pub(crate) struct AuditDocument<'a> {
    pub schema_version: u32,
    pub tool: ToolRecord,
    /// The state audited, as named.
    pub state: &'a str,
    /// The plan file read (`--plan`), if any.
    pub plan: Option<String>,
    /// `plan` when a plan says what happens to each object, else `destroy` (all of them).
    pub mode: AuditMode,
    /// The `--fail-on` level.
    pub fail_on: FailOn,
    /// The exit code the run ends with: 0, 1 (a finding reached `--fail-on`) or 3 (a violation).
    pub exit_code: i32,
    pub summary: AuditTotals,
    pub objects: Vec<AuditObjectRecord<'a>>,
    pub findings: Vec<FindingRecord<'a>>,
}

/// What the audit assumed happens.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AuditMode {
    Plan,
    Destroy,
}

/// The counts of an audit, objects by outcome.
#[derive(Debug, Default, Clone, Copy, Serialize, JsonSchema)]
pub(crate) struct AuditTotals {
    pub objects: usize,
    pub destroy: usize,
    pub forget: usize,
    pub blocked: usize,
    pub replace: usize,
    /// Objects the plan leaves as they are.
    pub unchanged: usize,
    pub violations: usize,
}

/// One object and what the destroy or the plan would do to it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AuditObjectRecord<'a> {
    pub address: String,
    /// The deposed object's key, for a deposed object.
    pub deposed: Option<&'a str>,
    #[serde(rename = "type")]
    pub type_name: &'a str,
    /// `destroy`, `forget`, `blocked`, `replace`, `replace (create first)`, `replace (forget old)`.
    pub outcome: &'static str,
    /// Why, in words, when it is not a plain destroy (`skip_destroy`, `prevent_destroy` at
    /// main.tf:4...).
    pub why: Option<&'a str>,
    /// The ids of the rules that decided it.
    pub rules: Vec<&'static str>,
}

/// The JSON Schemas of the reports, as checked in under `schema/`: file name and content.
pub(crate) fn schemas() -> Vec<(&'static str, String)> {
    let pretty = |schema: schemars::Schema| {
        let mut text = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
        text.push('\n');
        text
    };
    vec![
        (
            "scan.schema.json",
            pretty(schemars::schema_for!(ScanDocument)),
        ),
        (
            "audit.schema.json",
            pretty(schemars::schema_for!(AuditDocument<'static>)),
        ),
    ]
}
