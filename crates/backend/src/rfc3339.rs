//! RFC 3339 UTC times as the cloud APIs write them (`2030-01-01T00:00:00Z`, fractions allowed),
//! read without a date crate: a token's expiry, a version's creation time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The seconds since 1970 of `time`, an RFC 3339 UTC time as Google and HCP Terraform
/// write it (fractions dropped); `None` when it is not one.
pub(crate) fn unix_seconds(time: &str) -> Option<i64> {
    let time = time
        .strip_suffix('Z')
        .or_else(|| time.strip_suffix("+00:00"))?;
    let (date, clock) = time.split_once('T')?;
    let number = |text: &str| {
        text.parse::<i64>()
            .ok()
            .filter(|_| text.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut date = date.splitn(3, '-').map(number);
    let (year, month, day) = (date.next()??, date.next()??, date.next()??);
    let clock = clock.split('.').next()?;
    let mut clock = clock.splitn(3, ':').map(number);
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    let shifted = if month <= 2 { year - 1 } else { year };
    let era = shifted.div_euclid(400);
    let year_of_era = shifted - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    days.checked_mul(86_400)?
        .checked_add(hour * 3600 + minute * 60 + second)
}

/// [`unix_seconds`] as a `SystemTime`; `None` before 1970 or when `time` is not one.
pub(crate) fn system_time(time: &str) -> Option<SystemTime> {
    let seconds = u64::try_from(unix_seconds(time)?).ok()?;
    UNIX_EPOCH.checked_add(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_and_hcp_times_read_as_seconds() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            unix_seconds("2026-11-28T01:09:18.214896Z"),
            Some(1_795_828_158)
        );
        assert_eq!(
            unix_seconds("2026-11-28T01:09:18.214+00:00"),
            Some(1_795_828_158)
        );
        for bad in [
            "",
            "2026-13-01T00:00:00Z",
            "2026-11-28 01:09:18Z",
            "yesterday",
        ] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
        }
    }
}
