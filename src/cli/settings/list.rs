//! `statectl list`'s flags resolved: which instances (address patterns and globs, `--module`,
//! `--type`, `--tainted`, `--deposed`) and how they are printed. A pattern or module that cannot be
//! an address stops here, before the state is read.

use crate::cli::error::CliError;
use crate::cli::filter::Pattern;
use crate::cli::list::Args;
use crate::cli::{Format, StateArg};
use crate::state::address::Target;

/// The resolved flags of `list`.
#[derive(Debug)]
pub(crate) struct ListSettings<'a> {
    pub state: &'a StateArg,
    /// `--version`: the earlier version to read instead of the current state.
    pub version: Option<&'a str>,
    pub filter: InstanceFilter<'a>,
    pub format: Format,
}

/// Which instances `list` prints; everything when nothing is set.
#[derive(Debug)]
pub(crate) struct InstanceFilter<'a> {
    /// Any may match.
    pub patterns: Vec<Pattern>,
    pub module: Option<Target>,
    /// Any may match; empty: every type.
    pub types: &'a [String],
    pub tainted: bool,
    pub deposed: bool,
}

impl<'a> ListSettings<'a> {
    pub(crate) fn resolve(args: &'a Args) -> Result<ListSettings<'a>, CliError> {
        let patterns = args
            .patterns
            .iter()
            .map(|text| Pattern::parse(text))
            .collect::<Result<Vec<_>, _>>()?;
        let module = args.module.as_deref().map(module).transpose()?;
        Ok(ListSettings {
            state: &args.state,
            version: args.version.version.as_deref(),
            filter: InstanceFilter {
                patterns,
                module,
                types: &args.types,
                tainted: args.tainted,
                deposed: args.deposed,
            },
            format: args.format,
        })
    }
}

/// `--module`: a module address and nothing else.
fn module(text: &str) -> Result<Target, CliError> {
    match Pattern::parse(text)? {
        Pattern::Address(target @ Target::Module(_)) => Ok(target),
        _ => Err(
            CliError::new(format!("`--module {text}` is not a module address"))
                .with_hint("write it as `module.NAME`, e.g. `module.app` or `module.app[\"eu\"]`"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::ListSettings;
    use crate::cli::{Cli, Command};

    /// What `statectl list ARGS...` resolves to, or the usage error, before any state is read
    /// (the state named does not exist).
    fn resolved(args: &[&str]) -> Result<(usize, bool), String> {
        let cli = Cli::try_parse_from(["statectl", "list", "missing.tfstate"].iter().chain(args))
            .unwrap();
        let Command::List(args) = cli.command else {
            unreachable!("parsed as list")
        };
        ListSettings::resolve(&args)
            .map(|settings| {
                (
                    settings.filter.patterns.len(),
                    settings.filter.module.is_some(),
                )
            })
            .map_err(|error| error.message)
    }

    #[test]
    fn patterns_and_modules_are_checked_before_the_state_is_read() {
        assert_eq!(resolved(&["module.app", "*_bucket.*"]), Ok((2, false)));
        assert_eq!(resolved(&["--module", "module.app"]), Ok((0, true)));
        assert_eq!(
            resolved(&["--module", "aws_instance.web"]),
            Err("`--module aws_instance.web` is not a module address".to_owned())
        );
    }
}
