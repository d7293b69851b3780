//! What a command that changes a state will do with the result, resolved once from its flags: write
//! the file (locked, backed up), put the new state on standard output, or write nothing.
//!
//! Contradictions are refused here, before any file is read: `--dry-run` with `-o -` or `--backup`,
//! `-o -` with `--backup` (clap's `conflicts_with` on [`WriteArgs`]), a write back to standard input,
//! and `refresh -o -` without `--write`.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::error::CliError;
use crate::cli::rewrite::WriteArgs;
use crate::cli::state_source::locate;
use crate::state::source::Source;
use crate::state::store::Backup;

/// Where the new state goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Destination {
    /// Nowhere: show the change and exit 1 when there is one (`--dry-run`, or `refresh` without
    /// `--write`).
    Nothing,
    /// Standard output (`-o -`), e.g. for `terraform state push -`; no lock, no backup, and nothing
    /// else on stdout: tables, diffs and notes go to stderr.
    Stdout,
    /// The state file itself, under Terraform's lock, after a backup.
    File(Backup),
}

/// Whether the command writes unless told not to (`taint`, `untaint`, `forget`, as Terraform's own
/// commands do) or only when told to (`refresh --write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteIntent {
    /// A single mutation: writes at once; `--dry-run` opts out.
    ByDefault,
    /// `refresh`: `true` when `--write` was given.
    OnlyWhenAsked(bool),
}

/// The resolved flags of a command that changes a state.
#[derive(Debug, Clone)]
pub(crate) struct WriteSettings {
    pub source: Source,
    /// The note naming a state the user did not name by path (a backend's, a workspace's).
    pub source_note: Option<String>,
    pub destination: Destination,
    /// Write although lifecycle rules refuse; each override is printed.
    pub force: bool,
    /// How long to wait for the lock; used only when the file is written.
    pub lock_timeout: Duration,
    pub config: Option<PathBuf>,
    /// `--no-config`: the configuration's lifecycle rules are not applied.
    pub no_config: bool,
    pub policy: Option<PathBuf>,
    pub show_sensitive: bool,
    /// Why nothing is written when [`Destination::Nothing`]: said after the change is shown.
    pub nothing_written_because: &'static str,
    /// How the state is stored: opened after the read, applied again before the write.
    pub encryption: std::sync::Arc<statectl_encryption::StateEncryption>,
    /// `--var`, `--var-file` and `TF_VAR_*`: what the configuration's `var.` references take.
    pub inputs: statectl_tfconfig::values::Inputs,
}

impl WriteSettings {
    /// Resolves the flags; every contradiction clap cannot see is a usage error (exit 2).
    pub(crate) fn resolve(
        args: &WriteArgs,
        intent: WriteIntent,
    ) -> Result<WriteSettings, CliError> {
        let to_stdout = args.output.is_some();
        let destination = match intent {
            // clap refuses `--dry-run` with `-o -` or `--backup`, and `-o -` with `--backup`.
            _ if args.dry_run => Destination::Nothing,
            WriteIntent::OnlyWhenAsked(false) if to_stdout => {
                return Err(CliError::new(
                    "`-o -` puts the refreshed state on standard output, which is a write, but `--write` is not given",
                )
                .with_hint("add `--write` to write the refreshed state to standard output, or drop `-o -` to see the plan only"));
            }
            WriteIntent::OnlyWhenAsked(false) => Destination::Nothing,
            _ if to_stdout => Destination::Stdout,
            _ => Destination::File(match args.backup.as_deref() {
                None => Backup::Timestamped,
                Some(path) if path.as_os_str() == "-" => Backup::Skip,
                Some(path) => Backup::At(path.to_owned()),
            }),
        };
        if args
            .state
            .state
            .as_deref()
            .is_some_and(|arg| arg.as_os_str() == "-")
            && matches!(destination, Destination::File(_))
        {
            return Err(CliError::new("cannot write a state back to standard input")
                .with_hint("add `-o -` to write the new state to standard output (`terraform state pull | statectl taint X - -o - | terraform state push -`)"));
        }
        // Only now, with the flags known to agree: finding the state may read the backend cache.
        let encryption = crate::cli::encryption::load(&args.state.config)?;
        let located = locate(args.state.state.as_deref(), &args.state.backend)?;
        if let (Destination::File(Backup::At(backup)), Source::Path(state)) =
            (&destination, &located.source)
        {
            // Before the lock: a backup over the state (or its lock info) would lose the old state.
            crate::state::store::refuse_backup_over_state(backup, state)?;
        }
        Ok(WriteSettings {
            source: located.source,
            source_note: located.note,
            destination,
            force: args.force,
            lock_timeout: args.lock_timeout,
            config: args.state.config.config.clone(),
            no_config: args.no_config,
            policy: args.policy.clone(),
            show_sensitive: args.show_sensitive,
            nothing_written_because: if args.dry_run {
                "--dry-run"
            } else {
                "`--write` applies it"
            },
            encryption,
            inputs: statectl_tfconfig::values::Inputs::from_flags(
                &args.state.config.vars,
                &args.state.config.var_files,
            ),
        })
    }

    /// Whether standard output carries the new state, so that everything else goes to stderr.
    pub(crate) fn stdout_carries_state(&self) -> bool {
        self.destination == Destination::Stdout
    }

    /// Whether the state file is replaced (and so locked and backed up).
    pub(crate) fn writes_file(&self) -> bool {
        matches!(self.destination, Destination::File(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Command;
    use crate::cli::settings::testing::{command, refused};

    /// Parses a command line; `Err` names clap's usage error (exit 2).
    fn parse(argv: &[&str]) -> Result<(WriteArgs, WriteIntent), String> {
        Ok(match command(argv)? {
            Command::Taint(args) | Command::Untaint(args) => (args.write, WriteIntent::ByDefault),
            Command::Forget(args) => (args.write, WriteIntent::ByDefault),
            Command::Refresh(args) => {
                let intent = WriteIntent::OnlyWhenAsked(args.write);
                (args.rewrite, intent)
            }
            other => panic!("not a write command: {other:?}"),
        })
    }

    fn resolve(argv: &[&str]) -> Result<WriteSettings, String> {
        let (args, intent) = parse(argv)?;
        WriteSettings::resolve(&args, intent).map_err(refused)
    }

    #[test]
    fn a_mutation_writes_the_file_by_default_with_a_timestamped_backup() {
        let settings = resolve(&["statectl", "taint", "a.b", "s.tfstate"]).unwrap();
        assert_eq!(settings.destination, Destination::File(Backup::Timestamped));
        assert!(settings.writes_file());
        assert!(!settings.stdout_carries_state());
        assert_eq!(
            resolve(&["statectl", "untaint", "a.b", "s.tfstate", "--backup", "-"])
                .unwrap()
                .destination,
            Destination::File(Backup::Skip)
        );
        assert_eq!(
            resolve(&["statectl", "rm", "a.b", "s.tfstate", "--backup", "old.json"])
                .unwrap()
                .destination,
            Destination::File(Backup::At(PathBuf::from("old.json")))
        );
    }

    #[test]
    fn dry_run_and_stdout_write_no_file() {
        let dry = resolve(&["statectl", "taint", "a.b", "--dry-run"]).unwrap();
        assert_eq!(dry.destination, Destination::Nothing);
        let piped = resolve(&["statectl", "forget", "a.b", "-", "-o", "-"]).unwrap();
        assert_eq!(piped.destination, Destination::Stdout);
        assert!(piped.stdout_carries_state());
        assert!(!piped.writes_file());
    }

    #[test]
    fn contradictory_write_flags_are_usage_errors() {
        for argv in [
            &["statectl", "taint", "a.b", "--dry-run", "-o", "-"][..],
            &["statectl", "taint", "a.b", "--dry-run", "--backup", "x"],
            &["statectl", "untaint", "a.b", "-o", "-", "--backup", "x"],
            &["statectl", "forget", "a.b", "--dry-run", "-o", "-"],
            &["statectl", "refresh", "--write", "--dry-run"],
            &["statectl", "refresh", "--write", "-o", "-", "--backup", "-"],
        ] {
            let error = resolve(argv).unwrap_err();
            assert_eq!(error, "usage: ArgumentConflict", "{argv:?}");
        }
        // `-o` names standard output only.
        assert_eq!(
            resolve(&["statectl", "taint", "a.b", "-o", "new.tfstate"]).unwrap_err(),
            "usage: ValueValidation"
        );
    }

    #[test]
    fn refresh_writes_only_with_write() {
        let plan = resolve(&["statectl", "refresh", "s.tfstate"]).unwrap();
        assert_eq!(plan.destination, Destination::Nothing);
        let dry = resolve(&["statectl", "refresh", "--dry-run"]).unwrap();
        assert_eq!(dry.destination, Destination::Nothing);
        let written = resolve(&["statectl", "refresh", "--write"]).unwrap();
        assert_eq!(written.destination, Destination::File(Backup::Timestamped));
        let piped = resolve(&["statectl", "refresh", "-", "--write", "-o", "-"]).unwrap();
        assert_eq!(piped.destination, Destination::Stdout);
        let error = resolve(&["statectl", "refresh", "-o", "-"]).unwrap_err();
        assert!(error.contains("`--write` is not given"), "{error}");
    }

    #[test]
    fn a_write_back_to_standard_input_is_refused_but_a_dry_run_of_it_is_not() {
        for argv in [
            &["statectl", "taint", "a.b", "-"][..],
            &["statectl", "refresh", "-", "--write"],
        ] {
            let error = resolve(argv).unwrap_err();
            assert_eq!(
                error, "cannot write a state back to standard input",
                "{argv:?}"
            );
        }
        assert_eq!(
            resolve(&["statectl", "taint", "a.b", "-", "--dry-run"])
                .unwrap()
                .destination,
            Destination::Nothing
        );
        assert_eq!(
            resolve(&["statectl", "refresh", "-"]).unwrap().destination,
            Destination::Nothing
        );
    }

    #[test]
    fn flags_that_only_matter_for_a_file_write_are_kept_for_it() {
        let settings = resolve(&[
            "statectl",
            "taint",
            "a.b",
            "--lock-timeout",
            "30s",
            "--force",
            "--config",
            "testdata/scan",
            "--policy",
            "p.toml",
            "--show-sensitive",
        ])
        .unwrap();
        assert_eq!(settings.lock_timeout, Duration::from_secs(30));
        assert!(settings.force && settings.show_sensitive);
        assert_eq!(settings.config, Some(PathBuf::from("testdata/scan")));
        assert_eq!(settings.policy, Some(PathBuf::from("p.toml")));
    }
}
