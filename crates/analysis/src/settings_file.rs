//! The one reader of statectl's TOML settings: `.statectl.toml` (found upward from the working
//! directory; scan's rules and the lifecycle policy's `[[protect]]` tables side by side, so one file
//! holds a team's settings, and `statectl drift`'s `[[drift.ignore]]`), `--rules FILE` (the same keys) and `--policy FILE` (`[[protect]]`
//! only). One schema, one set of errors: a mistake anywhere in the file is refused by every command
//! that reads it, with the same line naming the file, the place and what is wrong.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use statectl_state::json::LineColumn;

use crate::policy::file::ProtectFile;
use crate::scan::catalog::{EntryFile, Generic};
use crate::scan::finding::Severity;

/// The name of the file found upward from the working directory.
pub const FILE_NAME: &str = ".statectl.toml";

/// How the file was given: which keys it may hold and what its errors call it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    /// `--rules FILE` or `.statectl.toml`: scan's keys and `[[protect]]`.
    Rules,
    /// `--policy FILE`: `[[protect]]` only.
    Policy,
}

impl Given {
    /// What the file is called in its errors.
    fn what(self) -> &'static str {
        match self {
            Given::Rules => "rules file",
            Given::Policy => "policy",
        }
    }
}

/// The README section that documents what went wrong, for the CLI's hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// "Rules file": scan's keys.
    Rules,
    /// "Lifecycle rules": the `[[protect]]` tables.
    Policy,
}

/// A settings file that cannot be used: unreadable, or invalid (one line naming the file, the
/// place and what is wrong).
#[derive(Debug, thiserror::Error)]
pub enum SettingsFileError {
    #[error("{}: cannot read the {what}: {source}", path.display())]
    Read {
        path: PathBuf,
        what: &'static str,
        section: Section,
        source: std::io::Error,
    },
    #[error("{message}")]
    Invalid { message: String, section: Section },
}

impl SettingsFileError {
    pub(crate) fn invalid(message: String, section: Section) -> SettingsFileError {
        SettingsFileError::Invalid { message, section }
    }

    /// The README section to point at.
    pub fn section(&self) -> Section {
        match self {
            SettingsFileError::Read { section, .. }
            | SettingsFileError::Invalid { section, .. } => *section,
        }
    }
}

/// Everything the file may hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SettingsFile {
    #[serde(default)]
    pub(crate) data_sources: bool,
    #[serde(default)]
    pub(crate) ignore: Vec<String>,
    #[serde(default)]
    pub(crate) severity: BTreeMap<String, Severity>,
    #[serde(default)]
    pub(crate) generic: Option<Generic>,
    #[serde(default)]
    pub(crate) resource: Vec<EntryFile>,
    #[serde(default)]
    pub(crate) protect: Vec<ProtectFile>,
    #[serde(default)]
    pub(crate) drift: DriftFile,
}

/// The `[drift]` table: `statectl drift`'s ignores, each with its reason.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DriftFile {
    #[serde(default)]
    pub(crate) ignore: Vec<crate::drift::IgnoreFile>,
}

/// What a `--policy` file may hold: the `[[protect]]` tables, nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyOnly {
    #[serde(default)]
    protect: Vec<ProtectFile>,
}

/// Reads and parses the file at `path`, given as `given`.
pub(crate) fn read(path: &Path, given: Given) -> Result<SettingsFile, SettingsFileError> {
    let section = match given {
        Given::Rules => Section::Rules,
        Given::Policy => Section::Policy,
    };
    let text = statectl_state::state::bytes::read_text(path).map_err(|source| {
        SettingsFileError::Read {
            path: path.to_owned(),
            what: given.what(),
            section,
            source,
        }
    })?;
    let invalid = |error: toml::de::Error| {
        let place = error
            .span()
            .map(|span| format!(":{}", LineColumn::of(text.as_bytes(), span.start)))
            .unwrap_or_default();
        SettingsFileError::invalid(
            format!(
                "{}{place}: invalid {}: {}",
                path.display(),
                given.what(),
                error.message().trim()
            ),
            section,
        )
    };
    match given {
        Given::Rules => toml::from_str(&text).map_err(invalid),
        Given::Policy => {
            let file: PolicyOnly = toml::from_str(&text).map_err(invalid)?;
            Ok(SettingsFile {
                protect: file.protect,
                ..SettingsFile::default()
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_file_keeps_the_io_error_as_its_source_and_is_named_as_given() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("missing.toml");
        for (given, what) in [(Given::Rules, "rules file"), (Given::Policy, "policy")] {
            let error = read(&path, given).unwrap_err();
            assert!(
                matches!(&error, SettingsFileError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
                "{error:?}"
            );
            let source = std::error::Error::source(&error).expect("the io::Error");
            assert!(source.downcast_ref::<std::io::Error>().is_some());
            assert_eq!(
                error.to_string(),
                format!("{}: cannot read the {what}: {source}", path.display())
            );
        }
    }
}
