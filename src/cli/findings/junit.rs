//! `--format junit`: JUnit XML for CI test reports: a test suite per state, a test case per finding
//! (failed when it reaches `--fail-on`), and one passing case for a state with no findings.

use std::fmt::Write;

use crate::cli::error::CliError;
use crate::cli::findings::out::Spool;
use crate::cli::findings::{FailOn, Out, Report, ReportWriter, Tool};

pub(crate) fn render(tool: &Tool, reports: &[Report], fail_on: FailOn) -> Result<String, CliError> {
    super::render_all(Box::new(Writer::new(tool, fail_on)), reports)
}

/// The totals open the document, so each state's suite is set aside until every state is in.
#[derive(Debug)]
pub(crate) struct Writer<'t> {
    tool: &'t Tool,
    fail_on: FailOn,
    suites: Spool,
    totals: Counts,
}

/// Test cases, failed ones, and errors (states not read).
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
}

impl<'t> Writer<'t> {
    pub(crate) fn new(tool: &'t Tool, fail_on: FailOn) -> Writer<'t> {
        Writer {
            tool,
            fail_on,
            suites: Spool::new(),
            totals: Counts::default(),
        }
    }
}

impl ReportWriter for Writer<'_> {
    fn state(&mut self, report: &Report, _out: &mut dyn Out) -> Result<(), CliError> {
        let (suite, counts) = suite(self.tool, report, self.fail_on);
        self.totals.tests += counts.tests;
        self.totals.failures += counts.failures;
        self.totals.errors += counts.errors;
        self.suites.text(&suite)
    }

    fn finish(self: Box<Self>, out: &mut dyn Out) -> Result<(), CliError> {
        let Counts {
            tests,
            failures,
            errors,
        } = self.totals;
        out.text(&format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"statectl {}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n",
            self.tool.command
        ))?;
        self.suites.copy_to(out)?;
        out.text("</testsuites>\n")
    }
}

/// One state's test suite, and what it counts.
fn suite(tool: &Tool, report: &Report, fail_on: FailOn) -> (String, Counts) {
    let class = format!("statectl.{}", tool.command);
    let mut cases = String::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    if let Some(error) = &report.error {
        tests += 1;
        errors += 1;
        let _ = writeln!(
            cases,
            "    <testcase name=\"read state\" classname=\"{class}\">\n      <error message=\"{}\"/>\n    </testcase>",
            escape(&error.message)
        );
    }
    for finding in &report.findings {
        tests += 1;
        let _ = writeln!(
            cases,
            "    <testcase name=\"{}\" classname=\"statectl.{}\">",
            escape(&finding.address),
            escape(finding.rule.id)
        );
        let body = finding
            .evidence
            .iter()
            .map(ToString::to_string)
            .chain(std::iter::once(format!("hint: {}", finding.hint)))
            .collect::<Vec<_>>()
            .join("\n");
        if fail_on.reached_by(finding.severity) {
            failures += 1;
            let _ = writeln!(
                cases,
                "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                finding.severity,
                escape(&finding.message),
                escape(&body)
            );
        } else {
            let _ = writeln!(
                cases,
                "      <system-out>{}: {}\n{}</system-out>",
                finding.severity,
                escape(&finding.message),
                escape(&body)
            );
        }
        cases.push_str("    </testcase>\n");
    }
    if report.error.is_none() && report.findings.is_empty() {
        tests += 1;
        let _ = writeln!(
            cases,
            "    <testcase name=\"no findings\" classname=\"{class}\"/>"
        );
    }
    let suite = format!(
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n{cases}  </testsuite>\n",
        escape(&report.name)
    );
    (
        suite,
        Counts {
            tests,
            failures,
            errors,
        },
    )
}

/// Escapes XML text and attribute values; control characters XML 1.0 cannot hold become U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(character),
            control if u32::from(control) < 0x20 => out.push('\u{FFFD}'),
            other => out.push(other),
        }
    }
    out
}
