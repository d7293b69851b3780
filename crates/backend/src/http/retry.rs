//! go-retryablehttp's rules, as Terraform's http backend uses them: which answers are tried again
//! (a broken connection, 429, and every 5xx but 501), and how long to pause before each retry
//! (`retry_wait_min` doubled each time, at most `retry_wait_max`, or the server's `Retry-After` on a
//! 429 or 503).

use std::time::{Duration, SystemTime};

use statectl_net::http::retry_after;

use super::settings::Retry;

/// Whether an answer with `status` is tried again.
pub(super) fn retries_status(status: u16) -> bool {
    status == 429 || (status >= 500 && status != 501)
}

/// The pause before the retry that follows attempt `attempt` (0 for the first request).
///
/// One deliberate difference: go-retryablehttp waits as long as a `Retry-After` says, even hours;
/// statectl waits at most `retry_wait_max`, so that every request stays bounded.
pub(super) fn pause(
    retry: &Retry,
    attempt: u32,
    status: Option<u16>,
    retry_after: Option<&str>,
    now: SystemTime,
) -> Duration {
    if matches!(status, Some(429 | 503))
        && let Some(asked) = retry_after.and_then(|value| retry_after::parse_as_go(value, now))
    {
        return asked.min(retry.wait_max);
    }
    2u32.checked_pow(attempt)
        .and_then(|factor| retry.wait_min.checked_mul(factor))
        .map_or(retry.wait_max, |wait| wait.min(retry.wait_max))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RETRY: Retry = Retry {
        max: 5,
        wait_min: Duration::from_secs(1),
        wait_max: Duration::from_secs(30),
    };

    #[test]
    fn server_errors_and_throttling_are_retried_but_not_501_or_client_errors() {
        for status in [429, 500, 502, 503, 504, 599] {
            assert!(retries_status(status), "{status}");
        }
        for status in [200, 204, 400, 401, 403, 404, 409, 423, 501] {
            assert!(!retries_status(status), "{status}");
        }
    }

    #[test]
    fn pauses_double_from_the_minimum_up_to_the_maximum() {
        let now = SystemTime::UNIX_EPOCH;
        let pauses: Vec<u64> = (0..7)
            .map(|attempt| pause(&RETRY, attempt, Some(500), None, now).as_secs())
            .collect();
        assert_eq!(pauses, [1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(pause(&RETRY, 200, None, None, now), RETRY.wait_max);
        let zero = Retry {
            wait_min: Duration::ZERO,
            ..RETRY
        };
        assert_eq!(pause(&zero, 3, None, None, now), Duration::ZERO);
    }

    #[test]
    fn retry_after_is_honoured_on_429_and_503_only_and_capped() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(
            pause(&RETRY, 0, Some(429), Some("7"), now),
            Duration::from_secs(7)
        );
        assert_eq!(
            pause(&RETRY, 0, Some(503), Some("3600"), now),
            RETRY.wait_max
        );
        assert_eq!(
            pause(&RETRY, 0, Some(500), Some("7"), now),
            Duration::from_secs(1)
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(12));
        assert_eq!(
            pause(&RETRY, 0, Some(429), Some(&date), now),
            Duration::from_secs(12)
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(12));
        assert_eq!(
            pause(&RETRY, 3, Some(429), Some(&past), now),
            Duration::ZERO
        );
        // Unreadable: the ordinary backoff.
        assert_eq!(
            pause(&RETRY, 2, Some(429), Some("soon"), now),
            Duration::from_secs(4)
        );
    }

    /// A server's absurd `Retry-After` (past the clock's end, negative, not a number, the last
    /// date HTTP can write) is capped or ignored, never a panic; so are absurd settings.
    #[test]
    fn any_retry_after_a_server_gives_is_capped_or_ignored() {
        let now = SystemTime::now();
        for value in [
            "18446744073709551615",
            "9223372036854775807",
            "99999999999999999999999",
            "-1",
            "NaN",
            "1e999",
            "Fri, 31 Dec 9999 23:59:59 GMT",
            "Thu, 01 Jan 1970 00:00:00 GMT",
        ] {
            for status in [429, 503] {
                assert!(pause(&RETRY, 0, Some(status), Some(value), now) <= RETRY.wait_max);
            }
        }
        let huge = Retry {
            max: u32::MAX,
            wait_min: Duration::MAX,
            wait_max: Duration::MAX,
        };
        for attempt in [0, 1, 63, u32::MAX] {
            assert_eq!(pause(&huge, attempt, Some(500), None, now), Duration::MAX);
        }
    }
}
