//! What the poller says after each observation: poll again after a wait, done (the remote object
//! settled one way or another), or give up (we stopped waiting; the remote object may still settle).
//! The split between `Done` and `GiveUp` is the split between an answer and the lack of one.

use std::fmt;
use std::time::Duration;

/// The next step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Poll again after this wait; never past the deadline.
    PollAfter(Duration),
    Done(Terminal),
    GiveUp(Reason),
}

/// How the remote object settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Terminal {
    /// A target state, seen `target_hits` times in a row; the state as the provider spelled it.
    Target(String),
    /// A failed state, as the provider spelled it.
    Failed(String),
    /// It no longer exists: a finished delete, or a 404 for an object known to exist.
    Gone,
    /// It never showed up: "not found" `not_found_checks` times in a row after a create.
    NotFound,
}

/// Why the poller stopped without an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Our deadline came; `last` is the last thing seen (a state, `HTTP 503`, ...).
    Deadline { last: String },
    /// The plan's maximum polling duration passed: per OSB, the operation counts as failed.
    MaxPollingDuration,
    /// Too many transient failures; `last` is the last one.
    RetryBudget { last: String },
    /// A state in none of the configured sets.
    UnexpectedState(String),
    /// Something polling cannot fix.
    Error(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Deadline { last } => write!(formatter, "deadline reached (last seen: {last})"),
            Reason::MaxPollingDuration => {
                formatter.write_str("the maximum polling duration passed")
            }
            Reason::RetryBudget { last } => {
                write!(formatter, "too many transient failures (last: {last})")
            }
            Reason::UnexpectedState(state) => write!(formatter, "unexpected state `{state}`"),
            Reason::Error(message) => formatter.write_str(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_as_one_line() {
        assert_eq!(
            Reason::Deadline {
                last: "PROVISIONING".into()
            }
            .to_string(),
            "deadline reached (last seen: PROVISIONING)"
        );
        assert_eq!(
            Reason::MaxPollingDuration.to_string(),
            "the maximum polling duration passed"
        );
        assert_eq!(
            Reason::RetryBudget {
                last: "HTTP 503".into()
            }
            .to_string(),
            "too many transient failures (last: HTTP 503)"
        );
        assert_eq!(
            Reason::UnexpectedState("STOPPED".into()).to_string(),
            "unexpected state `STOPPED`"
        );
        assert_eq!(
            Reason::Error("cannot sign".into()).to_string(),
            "cannot sign"
        );
    }
}
