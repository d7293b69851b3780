//! What one poll saw, in the poller's terms, and which operation the poll waits on. The mapping from
//! HTTP lives in `retry`; a plugin reader builds these directly.

use std::time::Duration;

use super::status::StatusClass;

/// The operation whose end is awaited: the one the state shows in flight. Only a delete reads "not
/// found" and 410 as success; the others differ only in what the caller does with the result.
pub use crate::state::operation::Operation;

/// The result of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// An answer with a state: `state` as the provider spelled it, `class` what it means.
    /// `retry_after` is the server's own pacing (OSB brokers may send `Retry-After` with an
    /// `in progress` answer).
    Status {
        state: String,
        class: StatusClass,
        retry_after: Option<Duration>,
    },
    /// 404, or a plugin's empty result.
    NotFound,
    /// 410: OSB's "the delete is done".
    Gone,
    /// No usable answer, worth a retry: 429, 5xx but 501, 408, a connect error, a reset, a timeout.
    Transient {
        retry_after: Option<Duration>,
        /// What happened, for the give-up message (`HTTP 503`, `cannot connect`).
        detail: String,
    },
    /// An answer the protocol does not allow here (OSB: any other code): keep polling until the
    /// deadline, without spending the retry budget.
    Invalid { status: u16 },
    /// Polling cannot fix this (the request cannot even be built or sent): stop at once, as the SDK's
    /// waiter does on a refresh error.
    Error(String),
}

impl Observation {
    /// An answer with a state and no pacing header.
    pub fn status(state: impl Into<String>, class: StatusClass) -> Observation {
        Observation::Status {
            state: state.into(),
            class,
            retry_after: None,
        }
    }

    /// A transient failure without `Retry-After`.
    pub fn transient(detail: impl Into<String>) -> Observation {
        Observation::Transient {
            retry_after: None,
            detail: detail.into(),
        }
    }

    /// The server's pacing (`Retry-After`), where the observation carries one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Observation::Status { retry_after, .. }
            | Observation::Transient { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Sets the server's pacing on the observations that can use it, unless one is set already.
    #[must_use]
    pub fn with_retry_after(mut self, wait: Option<Duration>) -> Observation {
        if let Observation::Status { retry_after, .. } | Observation::Transient { retry_after, .. } =
            &mut self
            && retry_after.is_none()
        {
            *retry_after = wait;
        }
        self
    }

    /// A short description, for "the last thing seen" in give-up messages.
    pub fn describe(&self) -> String {
        match self {
            Observation::Status { state, .. } => state.clone(),
            Observation::NotFound => "not found".to_owned(),
            Observation::Gone => "gone (HTTP 410)".to_owned(),
            Observation::Transient { detail, .. } => detail.clone(),
            Observation::Invalid { status } => format!("unexpected HTTP {status}"),
            Observation::Error(message) => message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_lands_only_where_it_means_something() {
        let wait = Some(Duration::from_secs(5));
        let pending =
            Observation::status("in progress", StatusClass::Pending).with_retry_after(wait);
        assert!(matches!(pending, Observation::Status { retry_after, .. } if retry_after == wait));
        let busy = Observation::transient("HTTP 503").with_retry_after(wait);
        assert!(matches!(busy, Observation::Transient { retry_after, .. } if retry_after == wait));
        assert_eq!(
            Observation::NotFound.with_retry_after(wait),
            Observation::NotFound
        );
    }

    #[test]
    fn a_retry_after_set_by_the_reader_is_kept() {
        let own = Some(Duration::from_secs(1));
        let observation = Observation::Transient {
            retry_after: own,
            detail: "HTTP 429".into(),
        }
        .with_retry_after(Some(Duration::from_secs(9)));
        assert!(
            matches!(observation, Observation::Transient { retry_after, .. } if retry_after == own)
        );
    }

    #[test]
    fn descriptions_are_short() {
        assert_eq!(
            Observation::status("PROVISIONING", StatusClass::Pending).describe(),
            "PROVISIONING"
        );
        assert_eq!(Observation::NotFound.describe(), "not found");
        assert_eq!(Observation::Gone.describe(), "gone (HTTP 410)");
        assert_eq!(Observation::transient("HTTP 503").describe(), "HTTP 503");
        assert_eq!(
            Observation::Invalid { status: 412 }.describe(),
            "unexpected HTTP 412"
        );
        assert_eq!(Observation::Error("no key".into()).describe(), "no key");
    }
}
