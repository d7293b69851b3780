//! `--format json`: the documented, versioned schema (README, "scan JSON"). The totals come before
//! the states, so each state's record is set aside as it is reported, and the document is written
//! once every state is in.

use crate::cli::error::CliError;
use crate::cli::findings::document::{
    SCHEMA_VERSION, ScanDocument, ScanStateRecord, ScanTotals, ToolRecord,
};
use crate::cli::findings::out::PrettyArray;
use crate::cli::findings::{FailOn, Out, Render, Report};
use statectl_analysis::scan::Severity;

#[derive(Debug)]
pub(super) struct Writer {
    fail_on: FailOn,
    states: PrettyArray,
    count: usize,
    unreadable: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    reached: bool,
    /// The first failure to set a state's record aside, reported when the document closes.
    spool_error: Option<CliError>,
}

impl Writer {
    pub(super) fn new(fail_on: FailOn) -> Writer {
        Writer {
            fail_on,
            // `states`: a key of the document.
            states: PrettyArray::new(1),
            count: 0,
            unreadable: 0,
            errors: 0,
            warnings: 0,
            notes: 0,
            reached: false,
            spool_error: None,
        }
    }
}

impl Render for Writer {
    fn state(&mut self, report: &Report, _out: &mut String) {
        self.count += 1;
        self.unreadable += usize::from(report.error.is_some());
        self.errors += report.count(Severity::Error);
        self.warnings += report.count(Severity::Warning);
        self.notes += report.count(Severity::Note);
        self.reached |= report
            .findings
            .iter()
            .any(|finding| self.fail_on.reached_by(finding.severity));
        if self.spool_error.is_none()
            && let Err(error) = self.states.push(&ScanStateRecord::of(report))
        {
            self.spool_error = Some(error);
        }
    }

    fn finish_into(&mut self, out: &mut dyn Out) -> Result<(), CliError> {
        if let Some(error) = self.spool_error.take() {
            return Err(error);
        }
        let document = ScanDocument {
            schema_version: SCHEMA_VERSION,
            tool: ToolRecord::statectl(),
            fail_on: self.fail_on,
            // As the exit code: a finding reached `--fail-on`, or a state could not be read.
            failed: self.reached || self.unreadable > 0,
            summary: ScanTotals {
                states: self.count,
                unreadable: self.unreadable,
                errors: self.errors,
                warnings: self.warnings,
                notes: self.notes,
            },
            states: PrettyArray::place(),
        };
        std::mem::replace(&mut self.states, PrettyArray::new(1)).write_in(&document, out)
    }
}
