//! The simulator's clock: monotonic instants drive lifecycles, and the wall clock at start anchors
//! them so that answers can print RFC 3339 timestamps (`timeCreated`, `updated_at`) that agree.

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

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`, for
/// dates after the epoch only).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let days = days + 719_468;
    let era = days / 146_097;
    let day_of_era = days % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
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
