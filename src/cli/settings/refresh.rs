//! `statectl refresh`'s flags resolved: where the new state goes (see [`WriteSettings`]), where the
//! outcome table and the diff go, and which readers run.
//!
//! With `-o -` standard output carries the refreshed state and nothing else, so that
//! `statectl refresh - --write -o - | terraform state push -` receives a state: the outcome table,
//! the diff and every note go to stderr, and `--format json` (which would need stdout too) is refused.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::Format;
use crate::cli::error::CliError;
use crate::cli::plugin_inputs::{Reader, Readers};
use crate::cli::refresh::Args;
use crate::cli::settings::{WriteIntent, WriteSettings};
use statectl_analysis::scan::select::Selection;

/// Where people-facing output (the outcome table, the diff) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportTo {
    Stdout,
    /// Standard output carries the new state.
    Stderr,
}

/// The resolved flags of `refresh`: all the run sees of its command line.
#[derive(Debug, Clone)]
pub(crate) struct RefreshSettings {
    pub write: WriteSettings,
    pub format: Format,
    pub report_to: ReportTo,
    /// The diff of each changed object is shown with the text table only (JSON leaves it out).
    pub show_diff: bool,
    pub readers: Readers,
    /// The instances asked about: `--target` and `--type`, else the stale ones scan finds.
    pub selection: Selection,
    /// A profiles file over the built-in ones (`--profiles`).
    pub profiles: Option<PathBuf>,
    /// Profile endpoints overridden (`--endpoint NAME=URL`).
    pub endpoints: Vec<(String, String)>,
    /// How many instances are asked about at once.
    pub parallelism: usize,
    /// The longest wait for one instance, over the profiles' own.
    pub timeout: Option<Duration>,
    /// The provider plugins' search folders, configurations and start timeout.
    pub plugins: PluginSettings,
    /// `--untaint-healthy`: a tainted instance reported healthy has its taint cleared.
    pub untaint_healthy: bool,
}

/// How provider plugins are found, configured and started (`--reader plugin`).
#[derive(Debug, Clone)]
pub(crate) struct PluginSettings {
    /// `--plugin-dir`, instead of `.terraform/providers`.
    pub dirs: Vec<PathBuf>,
    /// `--provider-config NAME=FILE`, laid over the `provider` blocks' literal arguments.
    pub provider_configs: Vec<(String, PathBuf)>,
    pub start_timeout: Duration,
}

impl RefreshSettings {
    pub(crate) fn resolve(args: &Args) -> Result<RefreshSettings, CliError> {
        let write = WriteSettings::resolve(&args.rewrite, WriteIntent::OnlyWhenAsked(args.write))?;
        let report_to = if write.stdout_carries_state() {
            ReportTo::Stderr
        } else {
            ReportTo::Stdout
        };
        if report_to == ReportTo::Stderr && args.format == Format::Json {
            return Err(CliError::new(
                "`--format json` and `-o -` both want standard output",
            )
            .with_hint("drop `--format json` (the outcome table then goes to stderr), or drop `-o -` and write the file with `--write`"));
        }
        let plugins_used = args
            .readers
            .iter()
            .any(|(_, reader)| *reader == Reader::Plugin);
        if !plugins_used {
            let flag = if !args.plugins.plugin_dirs.is_empty() {
                Some("--plugin-dir")
            } else if !args.plugins.provider_configs.is_empty() {
                Some("--provider-config")
            } else {
                None
            };
            if let Some(flag) = flag {
                return Err(CliError::new(format!(
                    "`{flag}` is for the provider plugins, but every instance is read through the HTTP profiles"
                ))
                .with_hint("add `--reader plugin` (or `--reader NAME=plugin` for one provider)"));
            }
        }
        Ok(RefreshSettings {
            show_diff: args.format == Format::Text,
            format: args.format,
            report_to,
            readers: Readers::new(&args.readers),
            write,
            selection: Selection {
                targets: args.targets.clone(),
                types: args.types.clone(),
            },
            profiles: args.profiles.clone(),
            endpoints: args.endpoints.clone(),
            parallelism: args.parallelism,
            timeout: args.timeout,
            plugins: PluginSettings {
                dirs: args.plugins.plugin_dirs.clone(),
                provider_configs: args.plugins.provider_configs.clone(),
                start_timeout: args.start_timeout,
            },
            untaint_healthy: args.untaint_healthy,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Command;
    use crate::cli::settings::Destination;
    use crate::cli::settings::testing::{args_of, refused};

    fn resolve(argv: &[&str]) -> Result<RefreshSettings, String> {
        let args = args_of!(argv, Command::Refresh);
        RefreshSettings::resolve(&args).map_err(refused)
    }

    #[test]
    fn with_the_state_on_stdout_the_report_goes_to_stderr() {
        let piped = resolve(&["statectl", "refresh", "-", "--write", "-o", "-"]).unwrap();
        assert_eq!(piped.report_to, ReportTo::Stderr);
        assert_eq!(piped.write.destination, Destination::Stdout);
        assert!(piped.show_diff, "the diff is shown, on stderr");
        for argv in [
            &["statectl", "refresh"][..],
            &["statectl", "refresh", "--write"],
            &["statectl", "refresh", "--dry-run"],
        ] {
            assert_eq!(
                resolve(argv).unwrap().report_to,
                ReportTo::Stdout,
                "{argv:?}"
            );
        }
    }

    #[test]
    fn json_outcomes_and_the_state_cannot_share_stdout() {
        let error = resolve(&[
            "statectl", "refresh", "--write", "-o", "-", "--format", "json",
        ])
        .unwrap_err();
        assert_eq!(
            error,
            "`--format json` and `-o -` both want standard output"
        );
        let json = resolve(&["statectl", "refresh", "--format", "json"]).unwrap();
        assert!(!json.show_diff, "JSON leaves the diff out");
        assert_eq!(json.report_to, ReportTo::Stdout);
    }

    #[test]
    fn write_and_dry_run_contradict() {
        assert_eq!(
            resolve(&["statectl", "refresh", "--write", "--dry-run"]).unwrap_err(),
            "usage: ArgumentConflict"
        );
    }

    #[test]
    fn plugin_flags_need_a_plugin_reader() {
        let error = resolve(&["statectl", "refresh", "--plugin-dir", "p"]).unwrap_err();
        assert!(
            error.starts_with("`--plugin-dir` is for the provider plugins"),
            "{error}"
        );
        let error =
            resolve(&["statectl", "refresh", "--provider-config", "aws=a.json"]).unwrap_err();
        assert!(
            error.starts_with("`--provider-config` is for the provider plugins"),
            "{error}"
        );
        let settings = resolve(&[
            "statectl",
            "refresh",
            "--reader",
            "aws=plugin",
            "--plugin-dir",
            "p",
        ])
        .unwrap();
        assert_eq!(
            settings
                .readers
                .for_provider("registry.terraform.io/hashicorp/aws"),
            Reader::Plugin
        );
        assert_eq!(
            settings
                .readers
                .for_provider("registry.terraform.io/oracle/oci"),
            Reader::Http
        );
    }

    #[test]
    fn parallelism_must_be_at_least_one() {
        assert_eq!(
            resolve(&["statectl", "refresh", "--parallelism", "0"]).unwrap_err(),
            "usage: ValueValidation"
        );
    }
}
