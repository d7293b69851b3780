//! A profile's poll settings, as plain values: how long to wait before the first look, how the wait
//! grows, how much jitter spreads many instances apart, when to give up, and how many answers in a row
//! count. The poller owns the loop; this file only parses and checks the numbers, so a typo in a
//! profile fails at load and not an hour into a refresh.

use std::time::Duration;

/// How often and how long to ask about one instance. Field names follow the profile format.
#[derive(Debug, Clone, PartialEq)]
pub struct PollSettings {
    /// Before the first request (terraform-plugin-sdk's `Delay`).
    pub initial_delay: Duration,
    /// The first wait between two polls.
    pub interval: Duration,
    /// The wait never grows past this.
    pub max_interval: Duration,
    /// Each wait is the previous one times this (1 keeps the interval fixed).
    pub multiplier: f64,
    pub jitter: JitterAmount,
    /// The overall deadline for one instance, from the first request.
    pub timeout: Duration,
    /// Target answers in a row before the instance counts as reconciled (`ContinuousTargetOccurence`).
    pub consecutive_targets: u32,
    /// "Not found" answers in a row that a `retry` gone rule tolerates (`NotFoundChecks`).
    pub not_found_checks: u32,
    /// The protocol's own cap (OSB's `maximum_polling_duration`): past it a still-pending operation
    /// counts as failed, not merely timed out.
    pub max_polling_duration: Option<Duration>,
    /// Honour a `Retry-After` header (delta-seconds or HTTP-date) over the computed wait.
    pub retry_after: bool,
}

impl Default for PollSettings {
    /// terraform-plugin-sdk's waiter, tamed: 2 s doubling to 30 s, 20 minutes (the usual create
    /// timeout), 20 not-found checks.
    fn default() -> PollSettings {
        PollSettings {
            initial_delay: Duration::ZERO,
            interval: Duration::from_secs(2),
            max_interval: Duration::from_secs(30),
            multiplier: 2.0,
            jitter: JitterAmount::Fraction(0.1),
            timeout: Duration::from_secs(20 * 60),
            consecutive_targets: 1,
            not_found_checks: 20,
            max_polling_duration: None,
            retry_after: true,
        }
    }
}

/// Randomness added to each wait so that many instances polled together spread apart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JitterAmount {
    /// Up to this fraction of the wait (`"10%"` is 0.1).
    Fraction(f64),
    /// Up to this much, whatever the wait (the OCI SDK adds 0-1 s: `"1s"`).
    UpTo(Duration),
}

/// A profile's duration or jitter that does not parse, with the value as written; the caller names
/// the file and place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PollValueError {
    #[error("invalid duration `{text}`: {source}")]
    Duration {
        text: String,
        source: crate::duration::DurationError,
    },
    #[error("invalid jitter `{0}`: a percentage from 0% to 100%, or a duration such as `1s`")]
    JitterPercent(String),
    #[error("invalid jitter `{0}`: a percentage such as `10%`, or a duration such as `1s`")]
    Jitter(String),
}

/// A profile's duration: the shared parser, with the value named in the error.
pub fn parse_duration(text: &str) -> Result<Duration, PollValueError> {
    crate::duration::parse_duration(text.trim()).map_err(|source| PollValueError::Duration {
        text: text.to_owned(),
        source,
    })
}

/// Parses a jitter: a percentage of the wait (`"10%"`) or a duration (`"1s"`).
pub fn parse_jitter(text: &str) -> Result<JitterAmount, PollValueError> {
    let trimmed = text.trim();
    if let Some(percent) = trimmed.strip_suffix('%') {
        return match percent.trim().parse::<f64>() {
            Ok(value) if (0.0..=100.0).contains(&value) => {
                Ok(JitterAmount::Fraction(value / 100.0))
            }
            _ => Err(PollValueError::JitterPercent(text.to_owned())),
        };
    }
    parse_duration(trimmed)
        .map(JitterAmount::UpTo)
        .map_err(|_| PollValueError::Jitter(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_durations_as_terraform_users_write_them() {
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
    }

    #[test]
    fn refuses_durations_without_units_or_with_unknown_ones() {
        for bad in ["", "10", "s", "2 s", "10x", "-1s", "1..5s", "2d"] {
            let error = parse_duration(bad).unwrap_err();
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("invalid duration `{bad}`: ")),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn parses_jitter_as_a_share_or_a_duration() {
        assert_eq!(parse_jitter("10%"), Ok(JitterAmount::Fraction(0.1)));
        assert_eq!(
            parse_jitter("1s"),
            Ok(JitterAmount::UpTo(Duration::from_secs(1)))
        );
        assert!(parse_jitter("150%").is_err());
        assert!(parse_jitter("lots").is_err());
    }
}
