//! Durations as Terraform users and Go write them (`-lock-timeout=10s`, `timeouts` blocks, poll
//! policies): `500ms`, `2s`, `10m`, `1h30m`, `1.5s`, or a bare `0`. The one parser for every duration
//! statectl reads (the CLI's flags, refresh profiles, poll policies, the simulator's scenarios). The
//! arithmetic is in whole nanoseconds, so `0.1s` is exactly 100 ms.

use std::time::Duration;

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
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn refuses_what_go_refuses_and_bare_numbers() {
        for bad in [
            "", "10", "s", "10x", "-1s", "1..5s", "1.2.3s", " 2s", "2s ", ".s", "2 s", "1d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_overflow_is_an_error_not_a_panic() {
        let error = parse_duration("99999999999999999999999999999h").unwrap_err();
        assert_eq!(error.to_string(), EXPECTED);
    }
}
