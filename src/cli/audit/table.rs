//! The audit's default output, for people: one line per object the destroy (or the plan) removes or
//! drops (what happens to it, its address, never split), below it each rule it breaks or risks with
//! the reason in full (the configuration's line, the policy's own `reason`), then the summary line.
//! Also the Markdown report, within GitHub's comment limit.

use std::collections::BTreeSet;
use std::fmt::Write;

use statectl_analysis::audit::{Audit, Entry, Outcome};
use statectl_analysis::scan::{Finding, RuleInfo};

use crate::cli::error::sanitize;
use crate::cli::escape::{markdown_code, markdown_text};
use crate::cli::findings::markdown::{BODY_LIMIT, LeftOut, Names, cap, what_to_do};
use crate::cli::layout::{line, widths, wrap};

pub(super) fn render(result: &Audit, with_plan: bool, width: Option<usize>) -> String {
    let mut out = String::new();
    if !result.entries.is_empty() {
        let heading = if with_plan { "plan" } else { "on destroy" };
        let mut rows = vec![vec![heading.to_owned(), "address".to_owned()]];
        rows.extend(result.entries.iter().map(|entry| {
            vec![
                entry.outcome.as_str().to_owned(),
                sanitize(&entry.address.to_string()),
            ]
        }));
        let widths = widths(&rows);
        let indent = widths[0] + 4;
        let plain = |_: usize, cell: &str| cell.to_owned();
        out.push_str(&line(&rows[0], &widths, "", &plain));
        for (entry, row) in result.entries.iter().zip(&rows[1..]) {
            out.push_str(&line(row, &widths, "", &plain));
            for (rule, reason) in reasons(result, entry) {
                let text = match rule {
                    Some(rule) => format!("{rule}: {reason}"),
                    None => reason,
                };
                out.push_str(&wrap(&sanitize(&text), indent, width));
            }
        }
        out.push('\n');
    }
    out.push_str(&summary(result, with_plan));
    out.push('\n');
    out
}

/// Why an object is in the table: each finding on it (its rule id, and the message that says why in
/// full), and the plan's or the state's reason when no message says it already.
fn reasons<'a>(result: &'a Audit, entry: &Entry) -> Vec<(Option<&'a str>, String)> {
    let found = findings_of(result, entry);
    let mut reasons: Vec<(Option<&str>, String)> = found
        .iter()
        .map(|finding| (Some(finding.rule.id), finding.message.clone()))
        .collect();
    if let Some(why) = &entry.why
        && !found
            .iter()
            .any(|finding| finding.message.contains(why.as_str()))
    {
        reasons.insert(0, (None, why.clone()));
    }
    reasons
}

/// The findings the audit made on `entry`'s object.
fn findings_of<'a>(result: &'a Audit, entry: &Entry) -> Vec<&'a Finding> {
    let address = entry.address.to_string();
    let rules: Vec<&str> = entry.rules.iter().map(|rule| rule.id()).collect();
    result
        .findings
        .iter()
        .filter(|finding| finding.address == address && rules.contains(&finding.rule.id))
        .collect()
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

/// `--format markdown`: the summary, the objects with a finding or a reason (the reasons in full),
/// the other objects on one line, and what to do; within GitHub's comment limit.
pub(super) fn markdown(result: &Audit, with_plan: bool) -> String {
    let mut out = format!(
        "## statectl audit: {}\n\n**{}**\n",
        if with_plan {
            "the plan"
        } else {
            "a destroy of this state"
        },
        summary(result, with_plan)
    );
    let mut body = String::new();
    let mut left_out = LeftOut::default();
    let mut plain = Names::new(2_000);
    let mut rules: BTreeSet<RuleInfo> = BTreeSet::new();
    let mut table_started = false;
    for entry in &result.entries {
        let reasons = reasons(result, entry);
        if reasons.is_empty() {
            plain.push(&entry.address.to_string());
            continue;
        }
        let found = findings_of(result, entry);
        rules.extend(found.iter().map(|finding| finding.rule));
        if !table_started {
            body.push_str("\n| outcome | address | rules | why |\n|---|---|---|---|\n");
            table_started = true;
        }
        let ids: Vec<String> = found
            .iter()
            .map(|finding| markdown_code(finding.rule.id))
            .collect();
        let why: Vec<String> = reasons
            .iter()
            .map(|(_, reason)| markdown_text(&cap(reason)))
            .collect();
        let row = format!(
            "| {} | {} | {} | {} |\n",
            entry.outcome.as_str(),
            markdown_code(&cap(&entry.address.to_string())),
            ids.join(" "),
            why.join("<br>")
        );
        if body.len() + row.len() > BODY_LIMIT {
            left_out.partly = 1;
            left_out.findings += found.len().max(1);
            continue;
        }
        body.push_str(&row);
    }
    out.push_str(&body);
    if !plain.is_empty() {
        let what = if with_plan { "changed" } else { "destroyed" };
        let _ = writeln!(
            out,
            "\n**{} {what} with no finding**: {}",
            crate::cli::findings::totals::plural(plain.count, "object"),
            plain.line()
        );
    }
    if let Some(line) = left_out.line("audit") {
        let _ = writeln!(out, "\n{line}");
    }
    what_to_do(&rules, &mut out);
    out
}
