//! Reading and parsing the state a command names, with errors that name the file.

use std::path::Path;

use crate::cli::error::CliError;
use crate::state::State;
use crate::state::legacy::StateBytes;
use crate::state::source::Source;

/// The bytes of the state that `arg` names, and where they came from.
pub(super) fn read(arg: Option<&Path>) -> Result<(Source, StateBytes), CliError> {
    let source = Source::from_arg(arg);
    let bytes = source
        .read()
        .map_err(|error| CliError::state(&source, &error))?;
    Ok((source, StateBytes::new(bytes)))
}

/// Parses bytes read by [`read`]; a format-3 state is upgraded in memory as Terraform upgrades it.
pub(super) fn parse_state<'a>(
    source: &Source,
    bytes: &'a StateBytes,
) -> Result<State<'a>, CliError> {
    bytes
        .parse()
        .map_err(|error| CliError::state(source, &error))
}
