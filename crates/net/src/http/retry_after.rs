//! `Retry-After`: the wait a server asks for, as delta-seconds or an HTTP-date (a date in the past
//! means now). Two readings of the seconds, because the clients statectl follows differ:
//! RFC 9110's (digits only), and Go's `strconv.Atoi` (a sign allowed; a negative wait ignored), which
//! go-retryablehttp applies for Terraform's http backend.

use std::time::{Duration, SystemTime};

/// RFC 9110: `1*DIGIT` seconds or an HTTP-date; anything else is ignored, as if absent.
pub fn parse(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Some(seconds) = delta_seconds(value) {
        return Some(Duration::from_secs(seconds));
    }
    date(value, now)
}

/// As go-retryablehttp reads it: an integer (`+5` too; a negative one ignored) or an HTTP-date.
pub fn parse_as_go(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<i64>() {
        return u64::try_from(seconds).ok().map(Duration::from_secs);
    }
    date(value, now)
}

/// `1*DIGIT`, nothing else: no sign, no fraction (RFC 9110 delta-seconds).
pub fn delta_seconds(value: &str) -> Option<u64> {
    if value.is_empty() || !value.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

/// The wait until an HTTP-date (any of the three forms RFC 9110 accepts); zero when it is past.
fn date(value: &str, now: SystemTime) -> Option<Duration> {
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_dates_in_both_readings() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(parse(" 120 ", now), Some(Duration::from_secs(120)));
        assert_eq!(
            parse("Sun, 06 Nov 1994 08:50:37 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse("+5", now), None);
        assert_eq!(parse_as_go("+5", now), Some(Duration::from_secs(5)));
        assert_eq!(parse("-5", now), None);
        assert_eq!(parse_as_go("-5", now), None);
        assert_eq!(parse_as_go("soon", now), None);
    }
}
