//! Durations on the command line as Terraform writes them (`-lock-timeout=10s`): clap's value parser
//! around the one duration parser (`statectl::duration`), which words the error line itself.

use std::time::Duration;

use statectl_state::duration::parse_duration;

use crate::cli::error::echo;

/// clap's `value_parser` for durations. Unlike a plain function, it words the whole error line, so
/// a garbage value is echoed shortened (clap would echo all of it, twice).
#[derive(Debug, Clone, Copy)]
pub(super) struct DurationParser;

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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::{Cli, Command};

    /// The flag's own line: the value shortened, the flag named, what a duration looks like.
    #[test]
    fn a_bad_duration_flag_says_which_flag_and_what_is_expected() {
        let error = Cli::try_parse_from(["statectl", "taint", "a.b", "--lock-timeout", "10"])
            .map(|cli| matches!(cli.command, Command::Taint(_)))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "error: invalid value `10` for `--lock-timeout`: use a number and a unit (`ms`, `s`, `m`, `h`), e.g. `2s`, `500ms`, `10m`\n"
        );
    }
}
