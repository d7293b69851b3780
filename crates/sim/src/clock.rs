//! The simulator's clock: monotonic instants drive lifecycles, and the wall clock at start anchors
//! them so that answers can print RFC 3339 timestamps (`timeCreated`, `updated_at`) that agree.

use statectl_state::state::store::lock_info::civil_from_days;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    started: Instant,
    started_at: SystemTime,
}

impl Clock {
    pub(crate) fn start() -> Clock {
        Clock {
            started: Instant::now(),
            started_at: SystemTime::now(),
        }
    }

    /// The wall-clock time of `instant`.
    pub(crate) fn wall(&self, instant: Instant) -> SystemTime {
        self.started_at + instant.saturating_duration_since(self.started)
    }

    /// When the simulator started, as RFC 3339: the creation time of every object.
    pub(crate) fn started_rfc3339(&self, millis: bool) -> String {
        rfc3339(self.started_at, millis)
    }
}

/// `2026-11-22T08:00:00Z`, or `2026-11-22T08:00:00.000Z` with `millis` (OCI writes milliseconds,
/// Cloud Foundry does not).
pub(crate) fn rfc3339(time: SystemTime, millis: bool) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let seconds = since_epoch.as_secs();
    let (year, month, day) = civil_from_days(seconds / 86_400);
    let second_of_day = seconds % 86_400;
    let (hour, minute, second) = (
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60,
    );
    let fraction = if millis {
        format!(".{:03}", since_epoch.subsec_millis())
    } else {
        String::new()
    };
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_apis() {
        let at = |text| httpdate::parse_http_date(text).unwrap();
        assert_eq!(
            rfc3339(at("Thu, 01 Jan 1970 00:00:00 GMT"), false),
            "1970-01-01T00:00:00Z"
        );
        assert_eq!(
            rfc3339(at("Sun, 22 Nov 2026 08:09:10 GMT"), false),
            "2026-11-22T08:09:10Z"
        );
        assert_eq!(
            rfc3339(at("Thu, 29 Feb 2024 23:59:59 GMT"), true),
            "2024-02-29T23:59:59.000Z"
        );
        assert_eq!(
            rfc3339(
                at("Fri, 31 Dec 2027 12:00:00 GMT") + Duration::from_millis(7),
                true
            ),
            "2027-12-31T12:00:00.007Z"
        );
    }
}
