//! What the lifecycle rules read besides the state, loaded the same way for every command that judges
//! by them (the mutations, refresh, audit): the policy file and the configuration's lifecycle blocks.

use std::path::Path;

use statectl_analysis::policy::file::Policy;
use statectl_analysis::scan::rules::Rules;
use statectl_analysis::settings_file::FILE_NAME;
use statectl_tfconfig::{Config, holds_configuration};

use crate::cli::Printer;
use crate::cli::error::{CliError, sanitize};

/// `--policy FILE`, or the `[[protect]]` tables of the `.statectl.toml` the rules came from (read
/// with them).
pub(super) fn load_policy(explicit: Option<&Path>, rules: &Rules) -> Result<Policy, CliError> {
    match (explicit, &rules.source) {
        (Some(path), _) => Ok(Policy::load(path)?),
        (None, Some(path)) if path.file_name().is_some_and(|name| name == FILE_NAME) => {
            Ok(rules.policy.clone())
        }
        _ => Ok(Policy::default()),
    }
}

/// Where the lifecycle rules of a configuration come from, as Terraform finds its configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ConfigChoice<'a> {
    /// `--config DIR`.
    Folder(&'a Path),
    /// The working directory, when it holds `.tf` or `.tofu` files (Terraform's root module).
    WorkingDirectory,
    /// `--no-config`: the state's own rules and the policy only.
    Off,
}

impl<'a> ConfigChoice<'a> {
    pub(super) fn from_flags(config: Option<&'a Path>, no_config: bool) -> ConfigChoice<'a> {
        match (config, no_config) {
            (_, true) => ConfigChoice::Off,
            (Some(dir), false) => ConfigChoice::Folder(dir),
            (None, false) => ConfigChoice::WorkingDirectory,
        }
    }
}

/// The configuration's lifecycle rules, and what to say about where they came from.
#[derive(Debug, Default)]
pub(super) struct LifecycleConfig {
    pub config: Option<Config>,
    /// The line naming the folder read, or the warning that none was (`--no-config`).
    said: Option<Said>,
}

#[derive(Debug)]
enum Said {
    Read(String),
    Off,
}

impl LifecycleConfig {
    /// Says on stderr where the rules came from: once the state is read and the rules are about
    /// to be applied, so that an earlier error stays the one line it should be.
    pub(super) fn say(&self, printer: &mut Printer) {
        match &self.said {
            Some(Said::Read(line)) => printer.note(line),
            Some(Said::Off) => printer.warning(
                "the lifecycle rules of the configuration were not applied (`--no-config`)",
            ),
            None => {}
        }
    }
}

/// The configuration's lifecycle and `removed` blocks, read where `choice` says, with a warning
/// for each module call that is not local (and so not read).
pub(super) fn load_config(
    choice: ConfigChoice<'_>,
    printer: &mut Printer,
) -> Result<LifecycleConfig, CliError> {
    let (dir, line) = match choice {
        ConfigChoice::Off => {
            return Ok(LifecycleConfig {
                config: None,
                said: Some(Said::Off),
            });
        }
        ConfigChoice::Folder(dir) => (
            dir,
            format!(
                "lifecycle rules from the configuration in `{}`",
                sanitize(&dir.display().to_string())
            ),
        ),
        ConfigChoice::WorkingDirectory => {
            let here = Path::new(".");
            if !holds_configuration(here) {
                return Ok(LifecycleConfig::default());
            }
            let shown = std::env::current_dir()
                .map_or_else(|_| ".".to_owned(), |dir| dir.display().to_string());
            (
                here,
                format!(
                    "lifecycle rules from the configuration in `{}` (the working directory; `--no-config` leaves them out)",
                    sanitize(&shown)
                ),
            )
        }
    };
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
    Ok(LifecycleConfig {
        config: Some(config),
        said: Some(Said::Read(line)),
    })
}
