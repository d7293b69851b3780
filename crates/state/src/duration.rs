//! Durations as Terraform users and Go write them (`-lock-timeout=10s`, `timeouts` blocks, poll
//! policies): `500ms`, `2s`, `10m`, `1h30m`, `1.5s`, or a bare `0`. The one parser for every duration
//! statectl reads (the CLI's flags, refresh profiles, poll policies, backend settings, the simulator's
//! scenarios). The arithmetic is in whole nanoseconds, so `0.1s` is exactly 100 ms.
//!
//! And the one way to turn a duration into a point in time: [`Deadline`]. `Instant + Duration` panics
//! when the sum lies past what the clock can hold (a `--lock-timeout 3000000000000000h`, a token that
//! a server says lives `u64::MAX` seconds); a deadline that far away is, for this process, never.

use std::time::{Duration, Instant};

const NANOS_PER_SECOND: u128 = 1_000_000_000;

/// What is wrong with a duration that does not parse; the caller names the value and where it was.
pub const EXPECTED: &str =
    "use a number and a unit (`ms`, `s`, `m`, `h`), e.g. `2s`, `500ms`, `10m`";

/// A duration that does not parse; it displays as [`EXPECTED`], and the caller names the value and
/// where it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{EXPECTED}")]
pub struct DurationError;

/// A duration as the flags take it: `2s` for whole seconds, `1500ms` otherwise.
pub fn humanize(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{millis}ms")
    }
}

/// Parses `2s`, `500ms`, `10m`, `1h30m`, `1.5s` or a bare `0`; the error is [`DurationError`].
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let invalid = || DurationError;
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return Err(invalid());
    }
    let mut rest = text;
    let mut nanos: u128 = 0;
    while !rest.is_empty() {
        // A number without a unit (`10`) is refused: seconds or milliseconds would be a guess.
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(invalid)?;
        let (whole, fraction) = rest[..number_end]
            .split_once('.')
            .unwrap_or((&rest[..number_end], ""));
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
            return Err(invalid());
        }
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit: u128 = match &rest[..unit_end] {
            // Go's smaller units too, as Terraform's `-lock-timeout=1ns` takes them.
            "ns" => 1,
            "us" | "µs" | "μs" => NANOS_PER_SECOND / 1_000_000,
            "ms" => NANOS_PER_SECOND / 1000,
            "s" => NANOS_PER_SECOND,
            "m" => 60 * NANOS_PER_SECOND,
            "h" => 3600 * NANOS_PER_SECOND,
            _ => return Err(invalid()),
        };
        rest = &rest[unit_end..];
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| invalid())?
        };
        // Digits past the nanosecond are dropped, as Go does.
        let fraction = &fraction[..fraction.len().min(18)];
        let fraction_nanos = if fraction.is_empty() {
            0
        } else {
            let digits: u128 = fraction.parse().map_err(|_| invalid())?;
            digits * unit / 10_u128.pow(fraction.len() as u32)
        };
        nanos = whole
            .checked_mul(unit)
            .and_then(|part| part.checked_add(fraction_nanos))
            .and_then(|part| part.checked_add(nanos))
            .ok_or_else(invalid)?;
    }
    let seconds = u64::try_from(nanos / NANOS_PER_SECOND).map_err(|_| invalid())?;
    Ok(Duration::new(seconds, (nanos % NANOS_PER_SECOND) as u32))
}

/// A point in time a wait ends, or [`Deadline::NEVER`] when it lies past what the clock can hold:
/// a wait that long lasts as long as the process does. Made only by the checked additions below,
/// so no duration, however large, panics or wraps around.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deadline {
    at: Option<Instant>,
}

impl Deadline {
    /// A deadline that never comes.
    pub const NEVER: Deadline = Deadline { at: None };

    /// `wait` from now.
    pub fn after(wait: Duration) -> Deadline {
        Deadline::from(Instant::now(), wait)
    }

    /// `wait` from `start`.
    pub fn from(start: Instant, wait: Duration) -> Deadline {
        Deadline {
            at: start.checked_add(wait),
        }
    }

    /// The instant it comes, `None` for never.
    pub fn instant(self) -> Option<Instant> {
        self.at
    }

    pub fn is_never(self) -> bool {
        self.at.is_none()
    }

    /// Whether it has come by `now`.
    pub fn has_passed(self, now: Instant) -> bool {
        self.at.is_some_and(|at| now >= at)
    }

    /// How long is left at `now`: zero once it has come, [`Duration::MAX`] for never.
    pub fn left(self, now: Instant) -> Duration {
        self.at
            .map_or(Duration::MAX, |at| at.saturating_duration_since(now))
    }

    /// This deadline moved `by` later (still never when it was never).
    #[must_use]
    pub fn later_by(self, by: Duration) -> Deadline {
        Deadline {
            at: self.at.and_then(|at| at.checked_add(by)),
        }
    }

    /// This deadline moved `by` earlier: a token renewed a margin before it expires. A deadline
    /// that was never stays never; one that cannot move that far back is due at once.
    #[must_use]
    pub fn earlier_by(self, by: Duration) -> Deadline {
        match self.at {
            None => Deadline::NEVER,
            Some(at) => Deadline {
                at: Some(at.checked_sub(by).unwrap_or(at.min(Instant::now()))),
            },
        }
    }

    /// The earlier of the two.
    #[must_use]
    pub fn min(self, other: Deadline) -> Deadline {
        match (self.at, other.at) {
            (Some(a), Some(b)) => Deadline { at: Some(a.min(b)) },
            (Some(_), None) => self,
            _ => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_durations() {
        let cases = [
            ("0", Duration::ZERO),
            ("0s", Duration::ZERO),
            ("2s", Duration::from_secs(2)),
            ("500ms", Duration::from_millis(500)),
            ("10m", Duration::from_secs(600)),
            ("1h30m", Duration::from_secs(5400)),
            ("1m30s", Duration::from_secs(90)),
            ("1.5s", Duration::from_millis(1500)),
            ("0.1s", Duration::from_millis(100)),
            (".5s", Duration::from_millis(500)),
            ("2h", Duration::from_secs(7200)),
            ("1s500ms", Duration::from_millis(1500)),
            ("1ns", Duration::from_nanos(1)),
            ("1.5us", Duration::from_nanos(1500)),
            ("2µs", Duration::from_micros(2)),
            ("18446744073709551615s", Duration::from_secs(u64::MAX)),
            (
                "3000000000000000h",
                Duration::from_secs(3_000_000_000_000_000 * 3600),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn refuses_what_go_refuses_and_bare_numbers() {
        for bad in [
            "", "10", "s", "10x", "-1s", "1..5s", "1.2.3s", " 2s", "2s ", ".s", "2 s", "1d", "NaN",
            "nans", "infh", "1e9s", "+1s", "-0s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_overflow_is_an_error_not_a_panic() {
        for huge in [
            "99999999999999999999999999999h",
            "18446744073709551616s",
            "5124095576030432h",
        ] {
            let error = parse_duration(huge).unwrap_err();
            assert_eq!(error.to_string(), EXPECTED);
        }
    }

    #[test]
    fn a_deadline_past_the_clocks_end_is_never_and_never_panics() {
        let now = Instant::now();
        for wait in [
            Duration::MAX,
            Duration::from_secs(u64::MAX),
            parse_duration("3000000000000000h").unwrap(),
        ] {
            let deadline = Deadline::from(now, wait);
            assert!(deadline.is_never(), "{wait:?}");
            assert!(!deadline.has_passed(now));
            assert_eq!(deadline.left(now), Duration::MAX);
            assert!(deadline.later_by(Duration::MAX).is_never());
            assert!(deadline.earlier_by(Duration::MAX).is_never());
        }
    }

    #[test]
    fn a_deadline_counts_down_to_zero() {
        let now = Instant::now();
        let deadline = Deadline::from(now, Duration::from_secs(10));
        assert_eq!(deadline.left(now), Duration::from_secs(10));
        assert!(!deadline.has_passed(now));
        let later = now + Duration::from_secs(11);
        assert!(deadline.has_passed(later));
        assert_eq!(deadline.left(later), Duration::ZERO);
        assert_eq!(
            deadline.later_by(Duration::from_secs(5)).left(now),
            Duration::from_secs(15)
        );
        assert_eq!(
            deadline.earlier_by(Duration::from_secs(4)).left(now),
            Duration::from_secs(6)
        );
        assert!(Deadline::from(now, Duration::ZERO).has_passed(now));
        assert_eq!(deadline.min(Deadline::NEVER), deadline);
        assert_eq!(Deadline::NEVER.min(deadline), deadline);
        assert!(Deadline::NEVER.min(Deadline::NEVER).is_never());
    }
}
