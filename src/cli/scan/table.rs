//! The default output, for people: findings grouped under a heading per state (as ripgrep and ESLint
//! group by file), the state's path relative to the folder or prefix scanned, each finding's severity,
//! rule id and address on one line (never split, so they copy whole) and its message below, then the
//! clean states and a totals line. Written a state at a time. No width limit in a pipe or a CI log; on
//! a terminal only the messages wrap.

use std::fmt::Write;

use statectl_analysis::scan::Severity;

use crate::cli::error::sanitize;
use crate::cli::findings::totals::{Totals, plural};
use crate::cli::findings::{Render, Report};
use crate::cli::layout::{line, widths, wrap};
use crate::cli::style::{Style, paint};

/// How many clean states the closing line names.
const CLEAN_NAMED: usize = 10;

#[derive(Debug)]
pub(super) struct Table {
    /// What was scanned, when it was one folder or one prefix URL: headings are relative to it.
    root: Option<String>,
    color: bool,
    width: Option<usize>,
    totals: Totals,
    /// The first clean states, by name, and the instances of the first.
    clean: Vec<String>,
    clean_instances: usize,
}

impl Table {
    pub(super) fn new(root: Option<String>, color: bool, width: Option<usize>) -> Table {
        Table {
            root,
            color,
            width,
            totals: Totals::default(),
            clean: Vec::new(),
            clean_instances: 0,
        }
    }

    /// The state's name under the scanned folder or prefix, escaped for a terminal.
    fn shown(&self, name: &str) -> String {
        let relative = self
            .root
            .as_deref()
            .and_then(|root| relative_to(name, root));
        sanitize(relative.unwrap_or(name))
    }

    fn paint(&self, style: Style, text: &str) -> String {
        paint(style, text, self.color)
    }
}

/// `name` below `root` (a folder or a prefix URL), if it is below it.
fn relative_to<'n>(name: &'n str, root: &str) -> Option<&'n str> {
    let root = root.trim_end_matches('/');
    let rest = name.strip_prefix(root)?.strip_prefix('/')?;
    let rest = rest.trim_start_matches('/');
    (!rest.is_empty()).then_some(rest)
}

impl Render for Table {
    fn state(&mut self, report: &Report, out: &mut String) {
        self.totals.add(report);
        if report.findings.is_empty() {
            if report.error.is_none() && self.clean.len() < CLEAN_NAMED {
                if self.clean.is_empty() {
                    self.clean_instances = report.instances;
                }
                let name = self.shown(&report.name);
                self.clean.push(name);
            }
            return;
        }
        let heading = format!(
            "{} ({})",
            self.shown(&report.name),
            plural(report.instances, "instance")
        );
        let _ = writeln!(out, "{}", self.paint(Style::Strong, &heading));
        // Aligned within the state: severity, rule id, address.
        let rows: Vec<Vec<String>> = report
            .findings
            .iter()
            .map(|finding| {
                vec![
                    finding.severity.to_string(),
                    finding.rule.id.to_owned(),
                    sanitize(&finding.address),
                ]
            })
            .collect();
        let widths = widths(&rows);
        let message_indent = 2 + widths[0] + 2;
        for (finding, row) in report.findings.iter().zip(&rows) {
            let color = match finding.severity {
                Severity::Error => Style::Removed,
                Severity::Warning => Style::Changed,
                Severity::Note => Style::Info,
            };
            out.push_str(&line(row, &widths, "  ", &|column, cell| {
                if column == 0 {
                    self.paint(color, cell)
                } else {
                    cell.to_owned()
                }
            }));
            out.push_str(&wrap(
                &sanitize(&finding.message),
                message_indent,
                self.width,
            ));
        }
        out.push('\n');
    }

    fn finish(&mut self, out: &mut String) {
        let clean = self.totals.clean();
        if self.totals.states == 1 && clean == 1 {
            // One state, nothing found: say which, and how much was looked at.
            let _ = writeln!(
                out,
                "no findings in {} ({})",
                self.clean.join(""),
                plural(self.clean_instances, "instance")
            );
            return;
        }
        if clean > 0 && self.totals.findings() > 0 {
            let more = clean - self.clean.len();
            let _ = writeln!(
                out,
                "clean: {}{}",
                self.clean.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        let _ = writeln!(out, "{}", self.totals.line());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_relative_to_what_was_scanned() {
        assert_eq!(
            relative_to("states/prod/a.tfstate", "states"),
            Some("prod/a.tfstate")
        );
        assert_eq!(
            relative_to("states/prod/a.tfstate", "states/"),
            Some("prod/a.tfstate")
        );
        assert_eq!(
            relative_to("s3://bucket/envs/prod.tfstate", "s3://bucket/envs/"),
            Some("prod.tfstate")
        );
        assert_eq!(relative_to("statesX/a.tfstate", "states"), None);
        assert_eq!(relative_to("other/a.tfstate", "states"), None);
    }
}
