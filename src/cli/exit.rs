//! The exit status, the same for every command (see README, "Exit codes"), and which of two outcomes
//! a run reports when it has both.
//!
//! A run can end with more than one outcome: a write a lifecycle rule blocked, and then a remote lock
//! that could not be released; a refresh that wrote its changes while one instance is still pending.
//! The code a script sees is the most specific of them, by [`ExitStatus::rank`]: a signal over
//! everything (the run did not end by itself), a lifecycle block over an error (what was refused is
//! what the caller must act on; the error is said on stderr too), an error over findings, findings
//! over success. The status of the command `statectl lock -- COMMAND` ran is passed on as it is.

/// How a run ended. [`ExitStatus::code`] is what the process exits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Done; nothing found, nothing to change (0).
    Success,
    /// Findings, differences or pending changes (1).
    Findings,
    /// Bad input, unreadable state, network failure, usage error; clap uses 2 too (2).
    Error,
    /// A lifecycle rule refused the change; nothing was written (3).
    Blocked,
    /// Ended by SIGINT; nothing half-written (130, as a shell reports it).
    Interrupted,
    /// Ended by SIGTERM; nothing half-written (143).
    Terminated,
    /// The exit code of the command `statectl lock -- COMMAND` ran (128 and the signal's number
    /// when a signal ended it).
    Passed(i32),
}

impl ExitStatus {
    /// The process's exit code.
    #[must_use]
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
            ExitStatus::Blocked => 3,
            ExitStatus::Interrupted => 130,
            ExitStatus::Terminated => 143,
            ExitStatus::Passed(code) => code,
        }
    }

    /// How specific the outcome is: the higher one is reported when a run has two. A command that
    /// `lock` ran and that failed ranks with a block: it is the outcome the caller asked about.
    fn rank(self) -> u8 {
        match self {
            ExitStatus::Success | ExitStatus::Passed(0) => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
            ExitStatus::Blocked | ExitStatus::Passed(_) => 3,
            ExitStatus::Interrupted | ExitStatus::Terminated => 4,
        }
    }

    /// The outcome to report of `self` and `other` (the first when they rank alike).
    #[must_use]
    pub fn and(self, other: ExitStatus) -> ExitStatus {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }

    /// `Success` when the run found nothing, else `Findings`.
    #[must_use]
    pub fn findings_if(found: bool) -> ExitStatus {
        if found {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ExitStatus::*;

    #[test]
    fn the_codes_are_the_documented_ones() {
        let documented = [(Success, 0), (Findings, 1), (Error, 2), (Blocked, 3)]
            .into_iter()
            .chain([(Interrupted, 130), (Terminated, 143), (Passed(7), 7)]);
        for (status, code) in documented {
            assert_eq!(status.code(), code, "{status:?}");
        }
    }

    /// The bug this type fixed: a remote lock that could not be released turned a block (3) or an
    /// interrupt (130) into 2.
    #[test]
    fn an_unreleased_lock_does_not_hide_a_block_or_a_signal() {
        assert_eq!(Blocked.and(Error), Blocked);
        assert_eq!(Interrupted.and(Error), Interrupted);
        assert_eq!(Terminated.and(Error), Terminated);
        assert_eq!(Success.and(Error), Error);
        assert_eq!(Findings.and(Error), Error);
    }

    #[test]
    fn precedence_is_signal_then_block_then_error_then_findings() {
        let order = [Success, Findings, Error, Blocked, Interrupted];
        for (low, high) in order.iter().zip(order.iter().skip(1)) {
            assert_eq!(low.and(*high), *high);
            assert_eq!(high.and(*low), *high);
        }
    }

    #[test]
    fn a_locked_command_s_status_is_passed_on_unless_a_lock_error_follows_success() {
        assert_eq!(Passed(0).and(Error), Error);
        assert_eq!(Passed(5).and(Error), Passed(5));
        assert_eq!(Passed(5).code(), 5);
    }
}
