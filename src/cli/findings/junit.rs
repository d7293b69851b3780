//! `--format junit`: JUnit XML for CI test reports: a test suite per state, a test case per finding
//! (failed when it reaches `--fail-on`), and one passing case for a state with no findings. The root
//! element carries the totals, so the suites are set aside (in a [`Spool`]: memory, then a
//! temporary file) until the end. Every name and message is
//! escaped as XML 1.0 requires (control characters it cannot hold shown as escapes).

use std::fmt::Write;

use crate::cli::error::CliError;
use crate::cli::error::sanitize;
use crate::cli::escape::{xml_attribute, xml_text};
use crate::cli::findings::out::Spool;
use crate::cli::findings::{FailOn, Out, Render, Report, Tool};

#[derive(Debug)]
pub(crate) struct Junit {
    command: &'static str,
    fail_on: FailOn,
    suites: Spool,
    /// The first failure to set a suite aside, reported when the report closes.
    spool_error: Option<CliError>,
    tests: usize,
    failures: usize,
    errors: usize,
}

impl Junit {
    pub(crate) fn new(tool: &Tool, fail_on: FailOn) -> Junit {
        Junit {
            command: tool.command,
            fail_on,
            suites: Spool::new(),
            spool_error: None,
            tests: 0,
            failures: 0,
            errors: 0,
        }
    }
}

impl Render for Junit {
    fn state(&mut self, report: &Report, _out: &mut String) {
        let class = format!("statectl.{}", self.command);
        let mut cases = String::new();
        let (mut tests, mut failures, mut errors) = (0, 0, 0);
        if let Some(error) = &report.error {
            tests += 1;
            errors += 1;
            let _ = writeln!(
                cases,
                "    <testcase name=\"read state\" classname=\"{class}\">\n      <error message=\"{}\"/>\n    </testcase>",
                xml_attribute(&sanitize(&error.message))
            );
        }
        for finding in &report.findings {
            tests += 1;
            let _ = writeln!(
                cases,
                "    <testcase name=\"{}\" classname=\"statectl.{}\">",
                xml_attribute(&sanitize(&finding.address)),
                xml_attribute(finding.rule.id)
            );
            let body = finding
                .evidence
                .iter()
                .map(|item| sanitize(&item.to_string()))
                .chain(std::iter::once(format!(
                    "hint: {}",
                    sanitize(&finding.hint)
                )))
                .collect::<Vec<_>>()
                .join("\n");
            let message = sanitize(&finding.message);
            if self.fail_on.reached_by(finding.severity) {
                failures += 1;
                let _ = writeln!(
                    cases,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    finding.severity,
                    xml_attribute(&message),
                    xml_text(&body)
                );
            } else {
                let _ = writeln!(
                    cases,
                    "      <system-out>{}: {}\n{}</system-out>",
                    finding.severity,
                    xml_text(&message),
                    xml_text(&body)
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
            xml_attribute(&sanitize(&report.name))
        );
        if self.spool_error.is_none()
            && let Err(error) = self.suites.text(&suite)
        {
            self.spool_error = Some(error);
        }
        self.tests += tests;
        self.failures += failures;
        self.errors += errors;
    }

    fn finish_into(&mut self, out: &mut dyn Out) -> Result<(), CliError> {
        if let Some(error) = self.spool_error.take() {
            return Err(error);
        }
        out.text(&format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"statectl {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
            self.command, self.tests, self.failures, self.errors
        ))?;
        std::mem::replace(&mut self.suites, Spool::new()).copy_to(out)?;
        out.text("</testsuites>\n")
    }
}
