//! The totals of a report, counted a state at a time, and the line that says them:
//! `21 findings: 2 errors, 18 warnings, 1 note, in 12 of 16 states (4 clean, 1 unreadable)`.

use std::fmt::Write;

use statectl_analysis::scan::Severity;

use crate::cli::findings::Report;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub states: usize,
    pub unreadable: usize,
    pub with_findings: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl Totals {
    pub(crate) fn add(&mut self, report: &Report) {
        self.states += 1;
        if report.error.is_some() {
            self.unreadable += 1;
        }
        if !report.findings.is_empty() {
            self.with_findings += 1;
        }
        self.errors += report.count(Severity::Error);
        self.warnings += report.count(Severity::Warning);
        self.notes += report.count(Severity::Note);
    }

    pub(crate) fn findings(&self) -> usize {
        self.errors + self.warnings + self.notes
    }

    /// States read whole with no finding.
    pub(crate) fn clean(&self) -> usize {
        self.states - self.unreadable - self.with_findings
    }

    /// The totals line.
    pub(crate) fn line(&self) -> String {
        let findings = self.findings();
        let mut extras = Vec::new();
        let mut line = if findings == 0 {
            format!(
                "no findings in {}",
                plural(self.states - self.unreadable, "state")
            )
        } else {
            let severities: Vec<String> = [
                (self.errors, "error"),
                (self.warnings, "warning"),
                (self.notes, "note"),
            ]
            .into_iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, word)| plural(count, word))
            .collect();
            let mut line = format!("{}: {}", plural(findings, "finding"), severities.join(", "));
            if self.states > 1 {
                let _ = write!(
                    line,
                    ", in {} of {} states",
                    self.with_findings, self.states
                );
                if self.clean() > 0 {
                    extras.push(format!("{} clean", self.clean()));
                }
            }
            line
        };
        if self.unreadable > 0 {
            extras.push(format!("{} unreadable", self.unreadable));
        }
        if !extras.is_empty() {
            let _ = write!(line, " ({})", extras.join(", "));
        }
        line
    }
}

/// `1 state`, `2 states`.
pub(crate) fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        format!("{count} {word}")
    } else {
        format!("{count} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(
        states: usize,
        unreadable: usize,
        with_findings: usize,
        counts: [usize; 3],
    ) -> String {
        Totals {
            states,
            unreadable,
            with_findings,
            errors: counts[0],
            warnings: counts[1],
            notes: counts[2],
        }
        .line()
    }

    #[test]
    fn says_what_was_found_where() {
        assert_eq!(
            totals(16, 1, 12, [2, 18, 1]),
            "21 findings: 2 errors, 18 warnings, 1 note, in 12 of 16 states (3 clean, 1 unreadable)"
        );
        assert_eq!(totals(1, 0, 1, [0, 2, 0]), "2 findings: 2 warnings");
        assert_eq!(totals(1, 0, 1, [1, 0, 0]), "1 finding: 1 error");
        assert_eq!(totals(1, 0, 0, [0, 0, 0]), "no findings in 1 state");
        assert_eq!(
            totals(5, 2, 0, [0, 0, 0]),
            "no findings in 3 states (2 unreadable)"
        );
    }
}
