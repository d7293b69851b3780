//! The knobs of one wait: how soon and how often to poll, how long to keep at it, how many transient
//! failures to forgive, and what counts as settled. Profiles write them as TOML or JSON with
//! durations as strings (`interval = "2s"`); the file form is checked when it is read, so a poller
//! never starts with a policy that would spin (a zero interval) or never settle (zero target hits).

use std::time::Duration;

use serde::{Deserialize, Deserializer, de::Error as _};

use crate::duration::parse_duration;

/// How much randomness spreads the waits, so that many instances polled at once do not hit a
/// provider in lockstep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Jitter {
    /// The wait is the exponential ceiling itself.
    None,
    /// Anywhere in `[0, ceiling)`: AWS's "full jitter", the best spread.
    #[default]
    Full,
    /// Half the ceiling, plus anywhere in the other half: never polls right away again.
    Equal,
}

/// The policy of one wait (per instance).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "PolicyFile")]
pub struct PollPolicy {
    /// Before the first poll (terraform-plugin-sdk's `Delay`).
    pub initial_delay: Duration,
    /// The first wait between polls, and the base of the exponential backoff.
    pub interval: Duration,
    /// The longest wait between polls (before jitter).
    pub max_interval: Duration,
    /// How much the wait grows from one poll to the next (at least 1).
    pub multiplier: f64,
    pub jitter: Jitter,
    /// Bounds one request, body included. Not cut by the deadline: the poll scheduled at the deadline
    /// still gets its full answer time, like the SDK's grace for the in-flight refresh.
    pub request_timeout: Duration,
    /// The overall limit for this instance, from the moment its wait starts (delay included).
    pub deadline: Duration,
    /// OSB's `maximum_polling_duration`: counted from the first poll; reaching it means the operation
    /// failed, which is not the same as our own deadline running out.
    pub max_polling_duration: Option<Duration>,
    /// How many target answers in a row settle it (`ContinuousTargetOccurence`).
    pub target_hits: u32,
    /// How many "not found" answers in a row are forgiven while the object may not be visible yet
    /// (right after a create: eventual consistency); `NotFoundChecks`.
    pub not_found_checks: u32,
    /// How many transient failures (429, 5xx but 501, 408, connect errors, resets, timeouts) are
    /// retried for this instance in all.
    pub retry_budget: u32,
}

impl Default for PollPolicy {
    fn default() -> PollPolicy {
        PollPolicy {
            initial_delay: Duration::ZERO,
            interval: Duration::from_secs(2),
            max_interval: Duration::from_secs(30),
            multiplier: 2.0,
            jitter: Jitter::Full,
            request_timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(600),
            max_polling_duration: None,
            target_hits: 1,
            not_found_checks: 20,
            retry_budget: 8,
        }
    }
}

/// A poll policy that cannot work; the message names the field as the file spells it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PollPolicyError {
    #[error("`interval` must be more than 0: a poller without a pause floods the API")]
    ZeroInterval,
    #[error("`max_interval` must be at least `interval`")]
    MaxBelowInterval,
    #[error("`multiplier` must be a number of at least 1, not {0}")]
    Multiplier(f64),
    #[error("`request_timeout` must be more than 0")]
    ZeroRequestTimeout,
    #[error("`deadline` must be more than 0")]
    ZeroDeadline,
    #[error("`max_polling_duration` must be more than 0 (leave it out for no limit)")]
    ZeroMaxPollingDuration,
    #[error("`target_hits` must be at least 1")]
    ZeroTargetHits,
}

impl PollPolicy {
    /// Refuses the policies that cannot work.
    pub fn validate(&self) -> Result<(), PollPolicyError> {
        if self.interval.is_zero() {
            return Err(PollPolicyError::ZeroInterval);
        }
        if self.max_interval < self.interval {
            return Err(PollPolicyError::MaxBelowInterval);
        }
        if !(self.multiplier.is_finite() && self.multiplier >= 1.0) {
            return Err(PollPolicyError::Multiplier(self.multiplier));
        }
        if self.request_timeout.is_zero() {
            return Err(PollPolicyError::ZeroRequestTimeout);
        }
        if self.deadline.is_zero() {
            return Err(PollPolicyError::ZeroDeadline);
        }
        if self.max_polling_duration == Some(Duration::ZERO) {
            return Err(PollPolicyError::ZeroMaxPollingDuration);
        }
        if self.target_hits == 0 {
            return Err(PollPolicyError::ZeroTargetHits);
        }
        Ok(())
    }
}

/// The file form: every field optional (the default fills in), durations as strings, unknown keys
/// refused so that a typo (`intreval`) is an error rather than a silent default.
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct PolicyFile {
    #[serde(deserialize_with = "duration")]
    initial_delay: Duration,
    #[serde(deserialize_with = "duration")]
    interval: Duration,
    #[serde(deserialize_with = "duration")]
    max_interval: Duration,
    multiplier: f64,
    jitter: Jitter,
    #[serde(deserialize_with = "duration")]
    request_timeout: Duration,
    #[serde(deserialize_with = "duration")]
    deadline: Duration,
    #[serde(deserialize_with = "optional_duration")]
    max_polling_duration: Option<Duration>,
    target_hits: u32,
    not_found_checks: u32,
    retry_budget: u32,
}

impl Default for PolicyFile {
    fn default() -> PolicyFile {
        let policy = PollPolicy::default();
        PolicyFile {
            initial_delay: policy.initial_delay,
            interval: policy.interval,
            max_interval: policy.max_interval,
            multiplier: policy.multiplier,
            jitter: policy.jitter,
            request_timeout: policy.request_timeout,
            deadline: policy.deadline,
            max_polling_duration: policy.max_polling_duration,
            target_hits: policy.target_hits,
            not_found_checks: policy.not_found_checks,
            retry_budget: policy.retry_budget,
        }
    }
}

impl TryFrom<PolicyFile> for PollPolicy {
    type Error = PollPolicyError;

    fn try_from(file: PolicyFile) -> Result<PollPolicy, PollPolicyError> {
        let policy = PollPolicy {
            initial_delay: file.initial_delay,
            interval: file.interval,
            max_interval: file.max_interval,
            multiplier: file.multiplier,
            jitter: file.jitter,
            request_timeout: file.request_timeout,
            deadline: file.deadline,
            max_polling_duration: file.max_polling_duration,
            target_hits: file.target_hits,
            not_found_checks: file.not_found_checks,
            retry_budget: file.retry_budget,
        };
        policy.validate()?;
        Ok(policy)
    }
}

fn duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_duration(&text)
        .map_err(|problem| D::Error::custom(format!("invalid duration `{text}`: {problem}")))
}

fn optional_duration<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Duration>, D::Error> {
    duration(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_toml(text: &str) -> Result<PollPolicy, String> {
        toml::from_str(text).map_err(|error| error.to_string())
    }

    #[test]
    fn the_default_is_the_documented_one_and_valid() {
        let policy = PollPolicy::default();
        assert_eq!(policy.initial_delay, Duration::ZERO);
        assert_eq!(policy.interval, Duration::from_secs(2));
        assert_eq!(policy.max_interval, Duration::from_secs(30));
        assert!((policy.multiplier - 2.0).abs() < f64::EPSILON);
        assert_eq!(policy.jitter, Jitter::Full);
        assert_eq!(policy.request_timeout, Duration::from_secs(30));
        assert_eq!(policy.deadline, Duration::from_secs(600));
        assert_eq!(policy.max_polling_duration, None);
        assert_eq!(policy.target_hits, 1);
        assert_eq!(policy.not_found_checks, 20);
        assert_eq!(policy.retry_budget, 8);
        assert_eq!(policy.validate(), Ok(()));
    }

    #[test]
    fn an_empty_file_is_the_default() {
        assert_eq!(from_toml(""), Ok(PollPolicy::default()));
        assert_eq!(
            serde_json::from_str::<PollPolicy>("{}").unwrap(),
            PollPolicy::default()
        );
    }

    #[test]
    fn a_file_sets_durations_as_strings() {
        let policy = from_toml(
            r#"
            initial_delay = "500ms"
            interval = "5s"
            max_interval = "1m"
            multiplier = 1.5
            jitter = "equal"
            request_timeout = "10s"
            deadline = "40m"
            max_polling_duration = "1h"
            target_hits = 2
            not_found_checks = 3
            retry_budget = 4
            "#,
        )
        .unwrap();
        assert_eq!(
            policy,
            PollPolicy {
                initial_delay: Duration::from_millis(500),
                interval: Duration::from_secs(5),
                max_interval: Duration::from_secs(60),
                multiplier: 1.5,
                jitter: Jitter::Equal,
                request_timeout: Duration::from_secs(10),
                deadline: Duration::from_secs(2400),
                max_polling_duration: Some(Duration::from_secs(3600)),
                target_hits: 2,
                not_found_checks: 3,
                retry_budget: 4,
            }
        );
        let json: PollPolicy =
            serde_json::from_str(r#"{"interval": "1s", "jitter": "none"}"#).unwrap();
        assert_eq!(json.interval, Duration::from_secs(1));
        assert_eq!(json.jitter, Jitter::None);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let cases = [
            (r#"interval = "2""#, "invalid duration `2`"),
            ("interval = 2", "invalid type"),
            (r#"intreval = "2s""#, "unknown field `intreval`"),
            (r#"jitter = "some""#, "unknown variant `some`"),
            (r#"interval = "0s""#, "`interval` must be more than 0"),
            (
                r#"interval = "1m"
                max_interval = "30s""#,
                "`max_interval` must be at least `interval`",
            ),
            (
                "multiplier = 0.5",
                "`multiplier` must be a number of at least 1",
            ),
            ("target_hits = 0", "`target_hits` must be at least 1"),
            (r#"deadline = "0""#, "`deadline` must be more than 0"),
            (
                r#"request_timeout = "0""#,
                "`request_timeout` must be more than 0",
            ),
            (
                r#"max_polling_duration = "0s""#,
                "`max_polling_duration` must be more than 0",
            ),
            ("retry_budget = -1", "invalid value"),
        ];
        for (text, expected) in cases {
            let error = from_toml(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn not_a_number_multiplier_is_refused() {
        let policy = PollPolicy {
            multiplier: f64::NAN,
            ..PollPolicy::default()
        };
        assert!(matches!(
            policy.validate(),
            Err(PollPolicyError::Multiplier(_))
        ));
    }
}
