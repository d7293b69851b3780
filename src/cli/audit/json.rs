//! `--format json`: the audit's documented, versioned schema (README, "audit JSON").

use statectl_analysis::audit::Audit;

use crate::cli::audit::exit_code;
use crate::cli::findings::document::{
    AuditDocument, AuditMode, AuditObjectRecord, AuditTotals, FindingRecord, SCHEMA_VERSION,
    ToolRecord,
};
use crate::cli::settings::AuditSettings;

pub(super) fn render(
    result: &Audit,
    state: &str,
    settings: &AuditSettings<'_>,
    with_plan: bool,
) -> String {
    let count = |wanted: &str| {
        result
            .entries
            .iter()
            .filter(|entry| entry.outcome.as_str().starts_with(wanted))
            .count()
    };
    let document = AuditDocument {
        schema_version: SCHEMA_VERSION,
        tool: ToolRecord::statectl(),
        state,
        plan: settings.plan.map(|path| path.display().to_string()),
        mode: if with_plan {
            AuditMode::Plan
        } else {
            AuditMode::Destroy
        },
        fail_on: settings.fail_on,
        exit_code: exit_code(result, settings.fail_on).code(),
        summary: AuditTotals {
            objects: result.entries.len(),
            destroy: count("destroy"),
            forget: count("forget"),
            blocked: count("blocked"),
            replace: count("replace"),
            unchanged: result.kept,
            violations: result.violations(),
        },
        objects: result
            .entries
            .iter()
            .map(|entry| AuditObjectRecord {
                address: entry.address.instance.to_string(),
                deposed: entry.address.deposed.as_deref(),
                type_name: &entry.type_name,
                outcome: entry.outcome.as_str(),
                why: entry.why.as_deref(),
                rules: entry.rules.iter().map(|rule| rule.id()).collect(),
            })
            .collect(),
        findings: result.findings.iter().map(FindingRecord::of).collect(),
    };
    let mut text = serde_json::to_string_pretty(&document).expect("the report always serializes");
    text.push('\n');
    text
}
