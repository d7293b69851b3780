//! Settings: each command's parsed arguments resolved, before anything runs, into a value saying what
//! the command will do. Contradictory flags stop here as usage errors (exit 2), so no command can
//! half-honour them (a `--dry-run` that writes, a table in front of the state on `-o -`).

mod audit;
mod diff;
mod drift;
mod list;
mod lock;
mod query;
mod refresh;
mod show;
mod states;
mod workspace_glob;
mod write;

pub(super) use audit::AuditSettings;
pub(super) use diff::{DiffOutput, DiffSettings};
pub(super) use drift::{DriftSettings, Target as DriftTarget};
pub(super) use list::{InstanceFilter, ListSettings};
pub(super) use lock::LockSettings;
pub(super) use query::QuerySettings;
pub(super) use refresh::{PluginSettings, RefreshSettings, ReportTo};
pub(super) use show::ShowSettings;
pub(super) use states::StatesArgs;
pub(super) use states::StatesSettings;
pub(super) use write::{Destination, WriteIntent, WriteSettings};

use crate::cli::error::{CliError, echo};
use crate::cli::flag_value::FlagValueError;

/// The deposed key named by `--deposed` and by the address (`ADDR (deposed object KEY)`): either
/// one, or both when they agree; two different keys are a usage error.
pub(super) fn deposed_key(
    flag: Option<&str>,
    in_address: Option<&str>,
) -> Result<Option<String>, CliError> {
    match (flag, in_address) {
        (Some(flag), Some(in_address)) if flag != in_address => Err(CliError::new(format!(
            "`--deposed {}` names another deposed object than the address does (`{}`)",
            echo(flag),
            echo(in_address)
        ))
        .with_hint("name the deposed object once: in the address or with `--deposed`")),
        (flag, in_address) => Ok(flag.or(in_address).map(str::to_owned)),
    }
}

/// A count flag (`--parallelism`, `--jobs`): at least one, since zero workers would never finish.
pub(super) fn at_least_one(text: &str) -> Result<usize, FlagValueError> {
    match text.parse::<usize>()? {
        0 => Err(FlagValueError::Zero),
        count => Ok(count),
    }
}

/// What the settings' `resolve` tests share: a command line parsed, a refusal read.
#[cfg(test)]
mod testing {
    use clap::Parser;

    use crate::cli::error::CliError;
    use crate::cli::{Cli, Command, ExitStatus};

    /// `argv`'s command; `Err` names clap's usage error (which exits 2).
    pub(super) fn command(argv: &[&str]) -> Result<Command, String> {
        let cli = Cli::try_parse_from(argv).map_err(|error| {
            assert_eq!(error.exit_code(), 2, "clap's usage errors exit 2");
            format!("usage: {:?}", error.kind())
        })?;
        Ok(cli.command)
    }

    /// A `resolve` refusal, which exits 2 like every bad flag: its message.
    pub(super) fn refused(error: CliError) -> String {
        assert_eq!(error.code, ExitStatus::Error);
        error.message
    }

    /// The arguments of `argv`'s command, which must be `$variant` (`Command::Drift`); returns
    /// clap's usage error from the enclosing function.
    macro_rules! args_of {
        ($argv:expr, $variant:path) => {
            match $crate::cli::settings::testing::command($argv)? {
                $variant(args) => args,
                other => panic!("{other:?}"),
            }
        };
    }
    pub(super) use args_of;
}

#[cfg(test)]
mod tests {
    use super::{at_least_one, deposed_key};

    #[test]
    fn counts_start_at_one() {
        assert_eq!(at_least_one("1").unwrap(), 1);
        assert_eq!(
            at_least_one("0").unwrap_err().to_string(),
            "must be at least 1"
        );
        assert!(at_least_one("-1").is_err());
        assert!(at_least_one("two").is_err());
    }

    #[test]
    fn a_deposed_key_may_be_named_once_or_twice_alike_but_not_two_ways() {
        assert_eq!(deposed_key(None, None).unwrap(), None);
        assert_eq!(
            deposed_key(Some("a1"), None).unwrap().as_deref(),
            Some("a1")
        );
        assert_eq!(
            deposed_key(None, Some("b2")).unwrap().as_deref(),
            Some("b2")
        );
        assert_eq!(
            deposed_key(Some("a1"), Some("a1")).unwrap().as_deref(),
            Some("a1")
        );
        let error = deposed_key(Some("a1"), Some("b2")).unwrap_err();
        assert_eq!(error.code, crate::cli::ExitStatus::Error);
        assert_eq!(
            error.message,
            "`--deposed a1` names another deposed object than the address does (`b2`)"
        );
    }
}
