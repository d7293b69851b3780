//! `statectl lock [STATE] -- COMMAND...`: holds the state lock (Terraform's, with the `.lock.info`
//! sidecar) while COMMAND runs, and exits with its code, as `flock(1)` does for its locks. For scripts
//! that must keep Terraform and statectl away from a state while they work on it. An interrupt
//! while COMMAND runs does not release the lock: statectl waits for COMMAND to exit (Ctrl-C and a
//! CI job's cancel reach it too), then releases and passes its exit code on.

use std::process::Command;
use std::time::Duration;

use crate::cli::duration::DurationParser;
use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::settings::LockSettings;
use crate::cli::state_source::locate;
use crate::cli::{BackendArgs, Printer};
use crate::state::store::Locked;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The state to lock: a file, or a URL (`s3://bucket/key`, `gs://bucket/prefix/default.tfstate`,
    /// `azurerm://account/container/blob`, `oci://namespace/bucket/object`, `https://...` for the
    /// http backend). Default: the state of the backend `terraform init` recorded here (local:
    /// `terraform.tfstate`), in the selected workspace. Not `-`: standard input has no lock.
    #[arg(value_name = "STATE")]
    pub state: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub backend: BackendArgs,

    /// How long to wait for the lock (e.g. `30s`).
    #[arg(long, value_name = "DURATION", value_parser = DurationParser, default_value = "0s")]
    pub lock_timeout: Duration,

    /// The command to run under the lock, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

pub(super) fn run(
    settings: &LockSettings<'_>,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let located = locate(settings.state, settings.backend)?;
    // For every backend: an interrupt while the command runs must not end statectl (and with it a
    // local lock) before the command ends.
    crate::cli::interrupt::end_writes_safely_on_interrupt();
    let locked = Locked::acquire_source(&located.source, "statectl lock", settings.timeout)?;
    if let Some(note) = &located.note {
        printer.note(note);
    }
    let (program, arguments) = (settings.program, settings.arguments);
    printer.flush()?;
    crate::cli::interrupt::defer_to_command();
    let status = Command::new(program)
        .args(arguments)
        .status()
        .map_err(|error| CliError::new(format!("cannot run `{}`: {error}", sanitize(program))))?;
    locked.release()?;
    Ok(ExitStatus::Passed(status.code().unwrap_or_else(|| {
        // Killed by a signal: the shell's convention.
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    })))
}
