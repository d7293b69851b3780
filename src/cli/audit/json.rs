//! `--format json`: the audit's documented, versioned schema (README, "audit JSON").

use serde_json::{Value, json};
use statectl_analysis::audit::Audit;

use crate::cli::audit::{Args, exit_code};
use crate::cli::findings::finding_json;

pub(super) fn render(result: &Audit, state: &str, args: &Args, with_plan: bool) -> String {
    let objects: Vec<Value> = result
        .entries
        .iter()
        .map(|entry| {
            json!({
                "address": entry.address.instance.to_string(),
                "deposed": entry.address.deposed,
                "type": entry.type_name,
                "outcome": entry.outcome.as_str(),
                "why": entry.why,
                "rules": entry.rules.iter().map(|rule| rule.id()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let findings: Vec<Value> = result.findings.iter().map(finding_json).collect();
    let count = |wanted: &str| {
        result
            .entries
            .iter()
            .filter(|entry| entry.outcome.as_str().starts_with(wanted))
            .count()
    };
    let document = json!({
        "schema_version": 1,
        "tool": { "name": "statectl", "version": env!("CARGO_PKG_VERSION") },
        "state": state,
        "plan": args.plan.as_ref().map(|path| path.display().to_string()),
        "mode": if with_plan { "plan" } else { "destroy" },
        "fail_on": args.fail_on.as_str(),
        "exit_code": exit_code(result, args.fail_on),
        "summary": {
            "objects": result.entries.len(),
            "destroy": count("destroy"),
            "forget": count("forget"),
            "blocked": count("blocked"),
            "replace": count("replace"),
            "unchanged": result.kept,
            "violations": result.violations(),
        },
        "objects": objects,
        "findings": findings,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values always serialize");
    text.push('\n');
    text
}
