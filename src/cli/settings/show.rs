//! `statectl show`'s flags resolved: the instance (and which of its objects), how it is printed,
//! whether sensitive values are shown. An address that cannot be parsed, or a deposed key named two
//! ways, stops here, before the state is read.

use crate::cli::error::{CliError, echo};
use crate::cli::show::Args;
use crate::cli::{Format, StateArg};
use crate::state::address::InstanceAddr;

/// The resolved flags of `show`.
#[derive(Debug)]
pub(crate) struct ShowSettings<'a> {
    pub state: &'a StateArg,
    /// `--version`: the earlier version to read instead of the current state.
    pub version: Option<&'a str>,
    pub instance: InstanceAddr,
    /// The deposed object to show instead of the current one.
    pub deposed: Option<String>,
    /// `--show-sensitive`: values are not masked.
    pub reveal: bool,
    pub format: Format,
}

impl<'a> ShowSettings<'a> {
    pub(crate) fn resolve(args: &'a Args) -> Result<ShowSettings<'a>, CliError> {
        let wanted: crate::state::address::ObjectAddr = args.address.parse().map_err(|error| {
            CliError::new(format!("invalid address `{}`: {error}", echo(&args.address)))
                .with_hint("an instance address looks like `aws_instance.web`, `aws_instance.web[0]` or `module.app.aws_instance.web[\"a\"]`")
        })?;
        let deposed = super::deposed_key(args.deposed.as_deref(), wanted.deposed.as_deref())?;
        Ok(ShowSettings {
            state: &args.state,
            version: args.version.version.as_deref(),
            instance: wanted.instance,
            deposed,
            reveal: args.show_sensitive,
            format: args.format,
        })
    }
}
