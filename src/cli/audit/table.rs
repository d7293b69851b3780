//! The audit's default output: one row per object the destroy (or the plan) removes or drops, with
//! the reason and the rules it breaks or risks, then a summary line. Also the outcome table that heads
//! the Markdown report.

use std::fmt::Write;

use crate::audit::{Audit, Outcome};
use crate::cli::error::sanitize;
use crate::cli::findings::new_table;

pub(super) fn render(result: &Audit, with_plan: bool) -> String {
    let mut out = String::new();
    if !result.entries.is_empty() {
        let mut table = new_table();
        let heading = if with_plan { "plan" } else { "on destroy" };
        table.set_header(vec![heading, "address", "why", "rules"]);
        for entry in &result.entries {
            let rules: Vec<&str> = entry.rules.iter().map(|rule| rule.id()).collect();
            table.add_row(vec![
                entry.outcome.as_str().to_owned(),
                sanitize(&entry.address.to_string()),
                sanitize(entry.why.as_deref().unwrap_or("")),
                rules.join("\n"),
            ]);
        }
        out.push_str(&table.to_string());
        out.push('\n');
    }
    out.push_str(&summary(result, with_plan));
    out.push('\n');
    out
}

/// `12 objects: 10 destroy, 1 forget, 1 blocked; 2 violations`.
pub(super) fn summary(result: &Audit, with_plan: bool) -> String {
    let mut parts = Vec::new();
    for (label, outcome) in [
        ("destroy", Outcome::Destroy),
        ("forget", Outcome::Forget),
        ("blocked", Outcome::Blocked),
    ] {
        let count = result.count(|candidate| candidate == outcome);
        if count > 0 {
            parts.push(format!("{count} {label}"));
        }
    }
    let replaced = result.count(|outcome| matches!(outcome, Outcome::Replace(_)));
    if replaced > 0 {
        parts.push(format!("{replaced} replace"));
    }
    if with_plan {
        parts.push(format!("{} unchanged or created", result.kept));
    }
    let objects = result.entries.len();
    let mut text = format!(
        "{objects} object{}{}{}",
        if objects == 1 { "" } else { "s" },
        if parts.is_empty() { "" } else { ": " },
        parts.join(", ")
    );
    let violations = result.violations();
    let _ = write!(
        text,
        "; {violations} violation{}",
        if violations == 1 { "" } else { "s" }
    );
    text
}

/// The outcome table for the Markdown report, before the findings.
pub(super) fn markdown_outcomes(result: &Audit, with_plan: bool) -> String {
    let mut out = format!(
        "## statectl audit: {}\n\n",
        if with_plan {
            "the plan"
        } else {
            "a destroy of this state"
        }
    );
    if !result.entries.is_empty() {
        out.push_str("| outcome | address | why | rules |\n|---|---|---|---|\n");
        for entry in &result.entries {
            let rules: Vec<String> = entry
                .rules
                .iter()
                .map(|rule| format!("`{}`", rule.id()))
                .collect();
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} |",
                entry.outcome.as_str(),
                cell(&entry.address.to_string()),
                cell(entry.why.as_deref().unwrap_or("")),
                rules.join(" ")
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}\n", summary(result, with_plan));
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}
