//! `--format markdown`: a report to post as a pull-request comment. The totals first, then the
//! findings under a heading per state, the clean states on one line, and what to do per rule; within
//! GitHub's limit for a comment (65,536 characters) however many states there are: past it, a line
//! says how many findings were left out and where to see them all. Every name, address and message is
//! escaped (code spans for names, escaped prose for messages), so a state cannot inject Markdown,
//! HTML or mentions.

use std::collections::BTreeSet;
use std::fmt::Write;

use statectl_analysis::scan::RuleInfo;

use crate::cli::escape::{markdown_code, markdown_text};
use crate::cli::findings::totals::{Totals, plural};
use crate::cli::findings::{Render, Report, Tool};

/// GitHub's limit for a comment's body, in characters (a byte count is never less).
pub(crate) const COMMENT_LIMIT: usize = 65_536;
/// What the per-state sections may fill: the rest is kept for the totals, the clean states, the
/// left-out line and the rules' help, which are written last.
pub(crate) const BODY_LIMIT: usize = COMMENT_LIMIT - 12_000;
/// The longest text of one cell: a real address or message is far shorter; a hostile one is cut.
pub(crate) const CELL_LIMIT: usize = 400;
/// How much of the clean states' line names them.
const CLEAN_NAMES_LIMIT: usize = 2_000;

#[derive(Debug)]
pub(crate) struct Markdown {
    tool: Tool,
    totals: Totals,
    body: String,
    clean: Names,
    rules: BTreeSet<RuleInfo>,
    left_out: LeftOut,
}

impl Markdown {
    pub(crate) fn new(tool: &Tool) -> Markdown {
        Markdown {
            tool: tool.clone(),
            totals: Totals::default(),
            body: String::new(),
            clean: Names::new(CLEAN_NAMES_LIMIT),
            rules: BTreeSet::new(),
            left_out: LeftOut::default(),
        }
    }

    /// Appends `section` when it fits.
    fn fits(&mut self, section: &str) -> bool {
        if self.body.len() + section.len() <= BODY_LIMIT {
            self.body.push_str(section);
            true
        } else {
            false
        }
    }
}

impl Render for Markdown {
    fn state(&mut self, report: &Report, _out: &mut String) {
        self.totals.add(report);
        self.rules
            .extend(report.findings.iter().map(|finding| finding.rule));
        let heading = format!("\n### {}\n\n", markdown_code(&cap(&report.name)));
        if let Some(error) = &report.error {
            let section = format!(
                "{heading}**unreadable**: {}\n",
                markdown_text(&cap(&error.message))
            );
            if !self.fits(&section) {
                self.left_out.states += 1;
            }
        }
        if report.findings.is_empty() {
            if report.error.is_none() {
                self.clean.push(&report.name);
            }
            return;
        }
        let head = format!("{heading}| severity | rule | address | message |\n|---|---|---|---|\n");
        if !self.fits(&head) {
            self.left_out.states += 1;
            self.left_out.findings += report.findings.len();
            return;
        }
        for (shown, finding) in report.findings.iter().enumerate() {
            let row = format!(
                "| {} | {} | {} | {} |\n",
                finding.severity,
                markdown_code(finding.rule.id),
                markdown_code(&cap(&finding.address)),
                markdown_text(&cap(&finding.message)),
            );
            if !self.fits(&row) {
                self.left_out.findings += report.findings.len() - shown;
                self.left_out.partly += 1;
                break;
            }
        }
    }

    fn finish(&mut self, out: &mut String) {
        let _ = writeln!(
            out,
            "## statectl {}\n\n**{}**",
            self.tool.command,
            self.totals.line()
        );
        out.push_str(&self.body);
        if self.totals.states > 1 && !self.clean.is_empty() {
            let _ = writeln!(
                out,
                "\n**{} with no findings**: {}",
                plural(self.clean.count, "state"),
                self.clean.line()
            );
        }
        if let Some(line) = self.left_out.line(self.tool.command) {
            let _ = writeln!(out, "\n{line}");
        }
        what_to_do(&self.rules, out);
    }
}

/// The rules' help, one line each, for the rules the findings shown broke.
pub(crate) fn what_to_do(rules: &BTreeSet<RuleInfo>, out: &mut String) {
    if rules.is_empty() {
        return;
    }
    out.push_str("\n**What to do**\n\n");
    for rule in rules {
        // The help is statectl's own text, written as Markdown.
        let _ = writeln!(out, "- {}: {}", markdown_code(rule.id), rule.help);
    }
}

/// What did not fit in the comment.
#[derive(Debug, Default)]
pub(crate) struct LeftOut {
    /// States whose section was left out whole.
    pub states: usize,
    /// States shown with only their first findings.
    pub partly: usize,
    pub findings: usize,
}

impl LeftOut {
    /// The line that says what was left out and how to see it, if anything was.
    pub(crate) fn line(&self, command: &str) -> Option<String> {
        let states = self.states + self.partly;
        if states == 0 {
            return None;
        }
        let what = if self.findings == 0 {
            plural(states, "state")
        } else {
            format!(
                "{} of {}",
                plural(self.findings, "finding"),
                plural(states, "state")
            )
        };
        Some(format!(
            "_Left out to stay within GitHub's comment limit: {what}. `statectl {command} --format json` (or `--format sarif`) reports them all._"
        ))
    }
}

/// Names in code spans on one line, as many as `limit` characters hold, then how many more.
#[derive(Debug)]
pub(crate) struct Names {
    text: String,
    limit: usize,
    pub count: usize,
    more: usize,
}

impl Names {
    pub(crate) fn new(limit: usize) -> Names {
        Names {
            text: String::new(),
            limit,
            count: 0,
            more: 0,
        }
    }

    pub(crate) fn push(&mut self, name: &str) {
        self.count += 1;
        let code = markdown_code(&cap(name));
        if self.more == 0 && self.text.len() + code.len() + 2 <= self.limit {
            if !self.text.is_empty() {
                self.text.push_str(", ");
            }
            self.text.push_str(&code);
        } else {
            self.more += 1;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub(crate) fn line(&self) -> String {
        if self.more == 0 {
            self.text.clone()
        } else {
            format!("{} and {} more", self.text, self.more)
        }
    }
}

/// At most [`CELL_LIMIT`] characters of `text`, then `…`; masked against the run's secrets before
/// the cut, since a cut through a secret leaves a piece the printer's masks no longer know.
pub(crate) fn cap(text: &str) -> std::borrow::Cow<'_, str> {
    let cut = |text: &str| {
        text.char_indices()
            .nth(CELL_LIMIT)
            .map(|(end, _)| format!("{}…", &text[..end]))
    };
    match statectl_state::secrets::mask(text) {
        std::borrow::Cow::Borrowed(text) => {
            cut(text).map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned)
        }
        std::borrow::Cow::Owned(masked) => std::borrow::Cow::Owned(cut(&masked).unwrap_or(masked)),
    }
}
