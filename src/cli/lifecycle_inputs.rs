//! What the lifecycle rules read besides the state, loaded the same way for every command that judges
//! by them (the mutations, refresh, audit): the policy file and the configuration's lifecycle blocks.

use std::path::Path;

use crate::cli::Printer;
use crate::cli::error::{CliError, sanitize};
use crate::policy::config::Config;
use crate::policy::file::Policy;
use crate::scan::rules::{FILE_NAME, Rules};

/// `--policy FILE`, or the `[[protect]]` tables of the `.statectl.toml` the rules came from.
pub(super) fn load_policy(explicit: Option<&Path>, rules: &Rules) -> Result<Policy, CliError> {
    let loaded = match (explicit, &rules.source) {
        (Some(path), _) => Policy::load(path, true),
        (None, Some(path)) if path.file_name().is_some_and(|name| name == FILE_NAME) => {
            Policy::load(path, false)
        }
        _ => Ok(Policy::default()),
    };
    loaded.map_err(CliError::from)
}

/// `--config DIR`, with a warning for each module call that is not local (and so not read).
pub(super) fn load_config(
    dir: Option<&Path>,
    printer: &mut Printer,
) -> Result<Option<Config>, CliError> {
    let Some(dir) = dir else { return Ok(None) };
    let config = Config::read(dir).map_err(|error| {
        let mut cli = CliError::new(sanitize(&error.message));
        cli.hint = error.hint;
        cli
    })?;
    for skipped in &config.skipped_modules {
        printer.warning(&format!(
            "module `{}` (source `{}`) is not local; its lifecycle blocks were not read",
            skipped.module.join("."),
            sanitize(&skipped.source)
        ));
    }
    Ok(Some(config))
}
