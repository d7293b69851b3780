//! `statectl lock`'s flags resolved: the state to lock, how long to wait for it, and the command
//! to run under it.

use std::path::Path;
use std::time::Duration;

use crate::cli::BackendArgs;
use crate::cli::lock::Args;

/// The resolved flags of `lock`.
#[derive(Debug)]
pub(crate) struct LockSettings<'a> {
    /// `None`: the state of the backend `terraform init` recorded.
    pub state: Option<&'a Path>,
    pub backend: &'a BackendArgs,
    pub timeout: Duration,
    pub program: &'a str,
    pub arguments: &'a [String],
}

impl<'a> LockSettings<'a> {
    pub(crate) fn resolve(args: &'a Args) -> LockSettings<'a> {
        let (program, arguments) = args.command.split_first().expect("clap requires a command");
        LockSettings {
            state: args.state.as_deref(),
            backend: &args.backend,
            timeout: args.lock_timeout,
            program,
            arguments,
        }
    }
}
