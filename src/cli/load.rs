//! Reading and parsing the state a command names, with errors that name the file.

use std::path::Path;

use crate::cli::error::CliError;
use crate::state::bytes::Bytes;
use crate::state::source::Source;
use crate::state::{State, parse};

/// The bytes of the state that `arg` names, and where they came from.
pub fn read(arg: Option<&Path>) -> Result<(Source, Bytes), CliError> {
    let source = Source::from_arg(arg);
    let bytes = source
        .read()
        .map_err(|error| CliError::state(&source, &error))?;
    Ok((source, bytes))
}

/// Parses bytes read by [`read`].
pub fn parse_state<'a>(source: &Source, bytes: &'a [u8]) -> Result<State<'a>, CliError> {
    parse(bytes).map_err(|error| CliError::state(source, &error))
}
