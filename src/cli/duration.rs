//! Durations on the command line as Terraform writes them (`-lock-timeout=10s`): Go's
//! `time.ParseDuration` units `ms`, `s`, `m` and `h`, combined (`1m30s`) and fractional (`1.5s`).

use std::time::Duration;

use crate::cli::error::echo;

/// clap's `value_parser` for durations. Unlike a plain function, it words the whole error line, so
/// a garbage value is echoed shortened (clap would echo all of it, twice).
#[derive(Debug, Clone, Copy)]
pub struct DurationParser;

impl clap::builder::TypedValueParser for DurationParser {
    type Value = Duration;

    fn parse_ref(
        &self,
        _command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Duration, clap::Error> {
        let text = value.to_string_lossy();
        parse_duration(&text).map_err(|problem| {
            let flag = arg
                .and_then(clap::Arg::get_long)
                .map_or_else(|| "a duration".to_owned(), |long| format!("`--{long}`"));
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value `{}` for {flag}: {problem}\n", echo(&text)),
            )
        })
    }
}

/// Parses `30s`, `500ms`, `2m`, `1h30m`, `1.5s` or `0`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let invalid = || "use a number and a unit, e.g. `30s`, `500ms`, `2m`".to_owned();
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let mut rest = text;
    let mut total = 0.0_f64;
    if rest.is_empty() {
        return Err(invalid());
    }
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(invalid)?;
        let number: f64 = rest[..number_end].parse().map_err(|_| invalid())?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds_per_unit = match &rest[..unit_end] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(invalid()),
        };
        total += number * seconds_per_unit;
        rest = &rest[unit_end..];
    }
    Duration::try_from_secs_f64(total).map_err(|_| invalid())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_durations() {
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
    }

    #[test]
    fn refuses_what_go_refuses() {
        for bad in ["", "10", "s", "10x", "-1s", "1..5s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
