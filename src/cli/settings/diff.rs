//! `statectl diff`'s flags resolved: the two states, how the differences are printed, whether
//! sensitive values are shown. `--stat` with a format that is not text, and standard input named
//! for both states, stop here as usage errors.

use std::path::{Path, PathBuf};

use crate::cli::diff::{Args, DiffFormat};
use crate::cli::error::CliError;

/// How `diff` prints what differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DiffOutput {
    /// Header and output changes, then each object's unified diff.
    Text,
    /// One line per changed object, then the totals (`--stat`).
    Stat,
    Json,
    Markdown,
}

/// The resolved flags of `diff`.
#[derive(Debug, Clone)]
pub(crate) struct DiffSettings {
    pub old: PathBuf,
    pub new: PathBuf,
    pub output: DiffOutput,
    /// `--show-sensitive`: values are not masked.
    pub reveal: bool,
}

impl DiffSettings {
    pub(crate) fn resolve(args: &Args) -> Result<DiffSettings, CliError> {
        let output = match (args.format, args.stat) {
            (DiffFormat::Text, false) => DiffOutput::Text,
            (DiffFormat::Text, true) => DiffOutput::Stat,
            (_, true) => {
                return Err(CliError::new("`--stat` summarizes the text format only")
                    .with_hint("drop `--stat`; JSON and Markdown carry the summary already"));
            }
            (DiffFormat::Json, false) => DiffOutput::Json,
            (DiffFormat::Markdown, false) => DiffOutput::Markdown,
        };
        let stdin = Path::new("-");
        let new = match &args.new {
            Some(new) => new.clone(),
            None if args.old_version.is_some() || args.new_version.is_some() => args.old.clone(),
            None => {
                return Err(CliError::new("`diff` compares two states: NEW is missing").with_hint(
                    "name NEW, or compare versions of OLD with `--old-version V` (and `--new-version W`)",
                ));
            }
        };
        if args.old == stdin && new == stdin {
            return Err(CliError::new(
                "OLD and NEW cannot both be `-`: standard input holds one state",
            ));
        }
        Ok(DiffSettings {
            old: args.old.clone(),
            new,
            output,
            reveal: args.show_sensitive,
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{DiffOutput, DiffSettings};
    use crate::cli::{Cli, Command};

    fn resolve(args: &[&str]) -> Result<DiffSettings, crate::cli::CliError> {
        let cli = Cli::try_parse_from(["statectl", "diff"].iter().chain(args)).unwrap();
        let Command::Diff(args) = cli.command else {
            unreachable!("parsed as diff")
        };
        DiffSettings::resolve(&args)
    }

    #[test]
    fn stat_is_a_way_of_printing_text_and_nothing_else() {
        assert_eq!(
            resolve(&["a", "b", "--stat"]).unwrap().output,
            DiffOutput::Stat
        );
        let refused = resolve(&["a", "b", "--stat", "--format", "json"]).unwrap_err();
        assert_eq!(refused.message, "`--stat` summarizes the text format only");
        assert_eq!(refused.code, crate::cli::ExitStatus::Error);
    }

    #[test]
    fn standard_input_holds_one_state() {
        assert!(resolve(&["-", "b"]).is_ok());
        assert!(
            resolve(&["-", "-"])
                .unwrap_err()
                .message
                .contains("cannot both be `-`")
        );
    }
}
