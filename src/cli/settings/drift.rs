//! `statectl drift`'s flags resolved: the states (no destination: drift never writes), each with
//! the configuration its providers come from (a working directory named brings its own), the
//! instances chosen, the plugin readers' settings, the ignore rules (`--ignore` over the settings
//! file's `[[drift.ignore]]`), the report format, and whether to take the lock (`--lock`).

use std::path::PathBuf;
use std::time::Duration;

use statectl_analysis::drift::{DriftRules, Ignore};
use statectl_analysis::glob::Glob;
use statectl_analysis::scan::select::Selection;
use statectl_tfconfig::values::Inputs;

use crate::cli::drift::Args;
use crate::cli::error::{CliError, echo};
use crate::cli::findings::ReportFormat;
use crate::cli::settings::PluginSettings;
use crate::cli::state_source::{locate, locate_in};
use crate::state::source::Source;

/// One state to check, and where its providers come from.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub source: Source,
    /// The note naming a state the user did not name by path (a backend's, a workspace's).
    pub note: Option<String>,
    /// The configuration: its `provider` blocks, and where `.terraform/providers` is (`--config`,
    /// or the working directory named; `None`: the current one).
    pub config: Option<PathBuf>,
    /// The workspace, when `--workspace GLOB` chose it among those listed (its report names it,
    /// and a workspace listed without a state yet has nothing to check).
    pub workspace: Option<String>,
}

/// The resolved flags of `drift`: all the run sees of its command line.
#[derive(Debug, Clone)]
pub(crate) struct DriftSettings {
    /// The states, in the order named (at least one).
    pub targets: Vec<Target>,
    pub encryption: std::sync::Arc<statectl_encryption::StateEncryption>,
    pub inputs: Inputs,
    /// The instances read: `--target` and `--type` (every managed instance when neither is given).
    pub selection: Selection,
    /// `--module`: only instances in these modules (or below them); globs allowed.
    pub modules: Vec<Glob>,
    pub plugins: PluginSettings,
    pub parallelism: usize,
    pub timeout: Option<Duration>,
    pub rules: DriftRules,
    pub format: ReportFormat,
    pub show_sensitive: bool,
    /// `--lock`: hold the state's lock for the run (`None`: no lock, the default).
    pub lock: Option<Duration>,
    /// What was odd about the workspace listings (`--workspace GLOB`), for stderr.
    pub warnings: Vec<String>,
}

impl DriftSettings {
    pub(crate) fn resolve(args: &Args) -> Result<DriftSettings, CliError> {
        let mut ignores = Vec::new();
        for pattern in &args.ignores {
            ignores.push(Ignore::parse(pattern, None).map_err(|error| {
                CliError::new(format!("`--ignore {}`: {}", echo(pattern), echo(&error.to_string())))
                    .with_hint("name the resource type first: `aws_instance.tags.LastScanned`, or `*.tags.LastScanned` for every type")
            })?);
        }
        // The settings file's ignores after the flags', each with its reason.
        let rules = crate::cli::scan::load_rules(None)?;
        ignores.extend(rules.drift_ignores);
        if args.lock_timeout.is_some() && !args.lock {
            return Err(CliError::new(
                "`--lock-timeout` waits for the lock, but drift takes no lock without `--lock`",
            )
            .with_hint("add `--lock`, or drop `--lock-timeout`"));
        }
        let encryption = crate::cli::encryption::load(&args.config)?;
        let (targets, warnings) = match super::workspace_glob::glob_of(&args.backend) {
            Some(glob) => super::workspace_glob::targets(
                glob,
                &working_directories(args)?,
                &args.backend,
                args.max_pages,
            )?,
            None => (targets(args)?, Vec::new()),
        };
        let (chosen, mut types) = (args.targets.clone(), args.types.clone());
        if chosen.is_empty() && types.is_empty() {
            // Every managed instance (without a choice, `select` would take the stale ones).
            types.push("*".to_owned());
        }
        Ok(DriftSettings {
            targets,
            encryption,
            inputs: Inputs::from_flags(&args.config.vars, &args.config.var_files),
            selection: Selection {
                targets: chosen,
                types,
            },
            modules: args
                .modules
                .iter()
                .map(|module| Glob::new(module))
                .collect(),
            plugins: PluginSettings {
                dirs: args.plugins.plugin_dirs.clone(),
                provider_configs: args.plugins.provider_configs.clone(),
                start_timeout: args.start_timeout,
            },
            parallelism: args.parallelism,
            timeout: args.timeout,
            rules: DriftRules {
                ignores,
                all_changes: args.all_changes,
            },
            format: args.format,
            show_sensitive: args.show_sensitive,
            lock: args
                .lock
                .then(|| args.lock_timeout.unwrap_or(Duration::ZERO)),
            warnings,
        })
    }
}

/// The working directories whose workspaces `--workspace GLOB` lists, each with where its
/// providers come from: the current one (with `--config`, if given), or those named, each its own
/// configuration; a file or URL has no workspaces to list.
fn working_directories(args: &Args) -> Result<Vec<(PathBuf, Option<PathBuf>)>, CliError> {
    if args.states.is_empty() {
        return Ok(vec![(PathBuf::from("."), args.config.config.clone())]);
    }
    let mut dirs = Vec::new();
    for state in &args.states {
        if !state.is_dir() {
            return Err(CliError::new(format!(
                "`--workspace {}` chooses among the workspaces of working directories, but `{}` is not one",
                echo(args.backend.workspace.as_deref().unwrap_or_default()),
                echo(&state.display().to_string())
            ))
            .with_hint("name working directories where `terraform init` ran, or leave the states out to use this one"));
        }
        if let Some(config) = &args.config.config {
            return Err(CliError::new(format!(
                "`--config {}` names the configuration of every state, but `{}` is a working directory with its own",
                echo(&config.display().to_string()),
                echo(&state.display().to_string())
            ))
            .with_hint("name working directories without `--config`"));
        }
        dirs.push((state.clone(), Some(state.clone())));
    }
    Ok(dirs)
}

/// The states named: files, URLs, and working directories (whose backend state is read, with their
/// own providers); none is the current directory's state.
fn targets(args: &Args) -> Result<Vec<Target>, CliError> {
    let config = args.config.config.clone();
    if args.states.is_empty() {
        let located = locate(None, &args.backend)?;
        return Ok(vec![Target {
            source: located.source,
            note: located.note,
            config,
            workspace: None,
        }]);
    }
    let mut targets = Vec::new();
    for state in &args.states {
        if state.is_dir() {
            if let Some(config) = &config {
                return Err(CliError::new(format!(
                    "`--config {}` names the configuration of every state, but `{}` is a working directory with its own",
                    echo(&config.display().to_string()),
                    echo(&state.display().to_string())
                ))
                .with_hint("name working directories without `--config`, or state files and URLs with it"));
            }
            let located = locate_in(state, &args.backend)?;
            targets.push(Target {
                source: located.source,
                note: located.note,
                config: Some(state.clone()),
                workspace: None,
            });
        } else {
            let located = locate(Some(state), &args.backend)?;
            targets.push(Target {
                source: located.source,
                note: located.note,
                config: config.clone(),
                workspace: None,
            });
        }
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Command;
    use crate::cli::settings::testing::{args_of, command, refused};

    fn resolve(argv: &[&str]) -> Result<DriftSettings, String> {
        let args = args_of!(argv, Command::Drift);
        DriftSettings::resolve(&args).map_err(|error| {
            let hint = error.hint.clone().unwrap_or_default();
            format!("{}\nhint: {hint}", refused(error))
        })
    }

    #[test]
    fn every_managed_instance_unless_chosen() {
        let all = resolve(&["statectl", "drift", "s.tfstate"]).unwrap();
        assert_eq!(all.selection.types, ["*"]);
        assert!(all.selection.targets.is_empty());
        let some =
            resolve(&["statectl", "drift", "s.tfstate", "--target", "aws_vpc.main"]).unwrap();
        assert!(some.selection.types.is_empty());
        assert!(all.lock.is_none(), "no lock by default");
        assert_eq!(all.targets.len(), 1);
        let locked = resolve(&[
            "statectl",
            "drift",
            "s.tfstate",
            "--lock",
            "--lock-timeout",
            "5s",
        ])
        .unwrap();
        assert_eq!(locked.lock, Some(Duration::from_secs(5)));
    }

    #[test]
    fn an_ignore_without_a_dot_is_refused_with_the_form() {
        let error = resolve(&["statectl", "drift", "s.tfstate", "--ignore", "tags"]).unwrap_err();
        assert_eq!(
            error,
            "`--ignore tags`: `tags` is not TYPE.PATH: a resource type, a dot, an attribute path\nhint: name the resource type first: `aws_instance.tags.LastScanned`, or `*.tags.LastScanned` for every type"
        );
    }

    #[test]
    fn no_write_path_and_no_lock_wait_without_the_lock() {
        for flag in ["--write", "-o", "--dry-run", "--backup"] {
            assert!(
                resolve(&["statectl", "drift", "s.tfstate", flag, "-"])
                    .unwrap_err()
                    .starts_with("usage:"),
                "{flag}"
            );
        }
        assert!(
            resolve(&["statectl", "drift", "s.tfstate", "--lock-timeout", "5s"])
                .unwrap_err()
                .starts_with("`--lock-timeout` waits for the lock")
        );
    }

    #[test]
    fn working_directories_bring_their_own_configuration() {
        let folder = tempfile::tempdir().unwrap();
        let (a, b) = (folder.path().join("a"), folder.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let args = |extra: &[&str]| {
            let mut argv = vec![
                "statectl",
                "drift",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "x.tfstate",
            ];
            argv.extend_from_slice(extra);
            match command(&argv).unwrap() {
                Command::Drift(args) => args,
                _ => unreachable!(),
            }
        };
        let settings = DriftSettings::resolve(&args(&[])).unwrap();
        let configs: Vec<Option<PathBuf>> = settings
            .targets
            .iter()
            .map(|target| target.config.clone())
            .collect();
        assert_eq!(configs, [Some(a.clone()), Some(b.clone()), None]);
        assert_eq!(
            settings.targets[0].source.to_string(),
            a.join("terraform.tfstate").display().to_string()
        );
        let error = DriftSettings::resolve(&args(&["--config", a.to_str().unwrap()])).unwrap_err();
        assert!(
            error
                .message
                .contains("is a working directory with its own"),
            "{}",
            error.message
        );
    }
}
