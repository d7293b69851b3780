//! Reading and parsing the state a command names (or, with `--version`, an earlier version of it),
//! with errors that name the file; an OpenTofu-encrypted state is decrypted in memory between the
//! read and the parse. The one path by
//! which every reading command gets a state's plaintext: one named (`read`, `read_at`) and each of
//! many a scan or summary found ([`open_found`]). Writes read under their lock instead (`rewrite`),
//! keeping the stored bytes for the re-read check.

use std::path::Path;

use statectl_encryption::StateEncryption;

use crate::cli::error::CliError;
use crate::cli::many::{Found, read_found};
use crate::cli::printer::Printer;
use crate::cli::state_source::locate;
use crate::cli::{BackendArgs, StateArg};
use crate::state::State;
use crate::state::legacy::StateBytes;
use crate::state::notes::Noting;
use crate::state::source::Source;

/// The bytes of the state that `arg` names (found as Terraform finds it when there is none), or of
/// its earlier `version`, and where they came from; a state the user did not name by path is named
/// on stderr.
pub(super) fn read(
    arg: &StateArg,
    version: Option<&str>,
    printer: &mut Printer,
) -> Result<(Source, StateBytes), CliError> {
    let encryption = crate::cli::encryption::load(&arg.config)?;
    read_at(
        arg.state.as_deref(),
        &arg.backend,
        &encryption,
        version,
        printer,
    )
}

/// [`read`] for a command with its own state arguments (`diff`'s two).
pub(super) fn read_at(
    arg: Option<&Path>,
    backend: &BackendArgs,
    encryption: &StateEncryption,
    version: Option<&str>,
    printer: &mut Printer,
) -> Result<(Source, StateBytes), CliError> {
    let located = locate(arg, backend)?;
    let source = located.source;
    if let Some(spec) = version {
        let (version, bytes) = crate::cli::versions::read_version(&source, spec, encryption)?;
        let time = version
            .time
            .map(|time| {
                format!(
                    ", written {}",
                    crate::state::store::lock_info::rfc3339_utc(time)
                )
            })
            .unwrap_or_default();
        printer.note(&format!(
            "{}version `{}` of {source}{time}",
            located
                .note
                .as_deref()
                .map(|note| format!("{note}; "))
                .unwrap_or_default(),
            crate::cli::error::echo(&version.id)
        ));
        return Ok((source, bytes));
    }
    let started = std::time::Instant::now();
    // Only reading commands come here (writes read under their lock, in `rewrite`): a large local
    // state may be mapped rather than copied.
    let bytes = source
        .read_only()
        .map_err(|error| CliError::state(&source, &error))?;
    // Once read: an error already names the state, and stays the one line it should be.
    if let Some(note) = &located.note {
        printer.note(note);
    }
    // The read alone, apart from the parse: what a remote backend's speed is judged by.
    tracing::debug!(
        bytes = bytes.len(),
        elapsed_us = started.elapsed().as_micros(),
        "state read"
    );
    let plaintext = crate::cli::encryption::open(encryption, &source, bytes)?;
    Ok((source, StateBytes::new(plaintext)))
}

/// The plaintext of a state that `scan` or `summary` found (named, listed or unreadable), or of its
/// earlier `version` (of the one state named): read, decrypted; `None` for a listed object that is
/// empty (no state yet, as Terraform reads it).
pub(super) fn open_found(
    found: &Found,
    source: &Source,
    encryption: &StateEncryption,
    version: Option<&str>,
) -> Result<Option<StateBytes>, CliError> {
    if let Some(spec) = version {
        let (_, bytes) = crate::cli::versions::read_version(source, spec, encryption)?;
        return Ok(Some(bytes));
    }
    let Some(stored) = read_found(found, source)? else {
        return Ok(None);
    };
    let plaintext = crate::cli::encryption::open(encryption, source, stored)?;
    Ok(Some(StateBytes::new(plaintext)))
}

/// Leaves what a command is done with (its parsed state, the state's bytes, what was built over
/// them) to the process's exit instead of freeing it piece by piece: the command returns and the
/// process ends, and freeing a 250 MB state's model one allocation at a time (and unmapping its
/// file) was about a tenth of a `list`. Only for what runs once a process (a write's one state).
pub(super) fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
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

/// [`parse_state`], taking the notes `noting` asks for, when it asks (`StateBytes::parse_noting`).
pub(super) fn parse_state_noting<'a>(
    source: &Source,
    bytes: &'a StateBytes,
    noting: Option<&Noting>,
) -> Result<State<'a>, CliError> {
    match noting {
        Some(noting) => bytes.parse_noting(noting),
        None => bytes.parse(),
    }
    .map_err(|error| CliError::state(source, &error))
}

/// [`parse_state`] for a command that reads little of the text after the parse (`list`, `summary`,
/// `show`): a mapped file's pages are given back as the parse passes them
/// (`StateBytes::parse_reading_once`).
pub(super) fn parse_state_reading_once<'a>(
    source: &Source,
    bytes: &'a StateBytes,
) -> Result<State<'a>, CliError> {
    bytes
        .parse_reading_once()
        .map_err(|error| CliError::state(source, &error))
}
