//! The policy file: resource types and addresses a team protects from statectl's destructive
//! mutations. `--policy FILE`, or the `[[protect]]` tables of the `.statectl.toml` found upward from
//! the state (the rules file scan reads, so one file holds a team's settings).
//!
//! ```toml
//! [[protect]]
//! types = ["aws_db_instance", "*_bucket"]   # globs over resource types
//! addresses = ["module.prod.*"]             # globs over instance addresses
//! reason = "restored from snapshots by hand only"
//! actions = ["taint", "forget"]             # the default
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use statectl_state::state::mutate::Action;

use crate::glob::Glob;
use crate::settings_file::{self, Given, Section, SettingsFileError};

/// One `[[protect]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProtectFile {
    #[serde(default)]
    types: Vec<String>,
    #[serde(default)]
    addresses: Vec<String>,
    reason: Option<String>,
    actions: Option<Vec<String>>,
}

/// The protections in force.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub protect: Vec<Protection>,
    /// The file they came from.
    pub source: Option<PathBuf>,
}

/// One `[[protect]]` table.
#[derive(Debug, Clone)]
pub struct Protection {
    pub types: Vec<(String, Glob)>,
    pub addresses: Vec<(String, Glob)>,
    pub reason: Option<String>,
    pub actions: Vec<Action>,
}

impl Protection {
    /// The pattern that protects an object of `type_name` at `address`, if one does.
    pub fn pattern_for(&self, type_name: &str, address: &str) -> Option<&str> {
        self.types
            .iter()
            .find(|(_, glob)| glob.matches(type_name))
            .or_else(|| {
                self.addresses
                    .iter()
                    .find(|(_, glob)| glob.matches(address))
            })
            .map(|(text, _)| text.as_str())
    }
}

impl Policy {
    /// Reads the `[[protect]]` tables of the policy file at `path` (`--policy FILE`, where other
    /// keys are errors; those of `.statectl.toml` come with its rules, `Rules::policy`).
    pub fn load(path: &Path) -> Result<Policy, SettingsFileError> {
        let file = settings_file::read(path, Given::Policy)?;
        Policy::from_tables(path, file.protect)
    }

    /// The protections of the `[[protect]]` tables read from `path`.
    pub(crate) fn from_tables(
        path: &Path,
        tables: Vec<ProtectFile>,
    ) -> Result<Policy, SettingsFileError> {
        let invalid = |message: String| SettingsFileError::invalid(message, Section::Policy);
        let mut policy = Policy {
            protect: Vec::with_capacity(tables.len()),
            source: Some(path.to_owned()),
        };
        for (index, entry) in tables.into_iter().enumerate() {
            let place = format!("{}: [[protect]] number {}", path.display(), index + 1);
            if entry.types.is_empty() && entry.addresses.is_empty() {
                return Err(invalid(format!(
                    "{place}: give `types` or `addresses` (globs) to protect"
                )));
            }
            let actions = match entry.actions {
                None => vec![Action::Taint, Action::Forget],
                Some(names) => names
                    .iter()
                    .map(|name| {
                        action_named(name).ok_or_else(|| {
                            invalid(format!(
                                "{place}: unknown action `{name}`; actions: taint, untaint, forget, refresh"
                            ))
                        })
                    })
                    .collect::<Result<_, _>>()?,
            };
            let globs = |patterns: Vec<String>| {
                patterns
                    .into_iter()
                    .map(|pattern| {
                        let glob = Glob::new(&pattern);
                        (pattern, glob)
                    })
                    .collect()
            };
            policy.protect.push(Protection {
                types: globs(entry.types),
                addresses: globs(entry.addresses),
                reason: entry.reason,
                actions,
            });
        }
        Ok(policy)
    }
}

fn action_named(name: &str) -> Option<Action> {
    [
        Action::Taint,
        Action::Untaint,
        Action::Forget,
        Action::Refresh,
    ]
    .into_iter()
    .find(|action| action.as_str() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The policy of `text` as a `--policy` file (`strict`) or as `.statectl.toml`.
    fn load(text: &str, strict: bool) -> Result<Policy, String> {
        let name = if strict {
            "policy.toml"
        } else {
            ".statectl.toml"
        };
        let (_folder, path) = crate::test_support::file_in_temp_folder(name, text);
        let loaded = if strict {
            Policy::load(&path)
        } else {
            crate::scan::Rules::load(&path).map(|rules| rules.policy)
        };
        loaded.map_err(|error| {
            error
                .to_string()
                .replace(&path.display().to_string(), "FILE")
        })
    }

    #[test]
    fn protects_types_and_addresses_by_glob() {
        let policy = load(
            "[[protect]]\ntypes = [\"aws_db_instance\", \"*_bucket\"]\nreason = \"by hand\"\n\n[[protect]]\naddresses = [\"module.prod.*\"]\nactions = [\"forget\"]\n",
            true,
        )
        .unwrap();
        let [types, addresses] = &policy.protect[..] else {
            panic!("two protections")
        };
        assert_eq!(
            types.pattern_for("aws_s3_bucket", "aws_s3_bucket.logs"),
            Some("*_bucket")
        );
        assert_eq!(
            types.pattern_for("aws_db_instance", "x"),
            Some("aws_db_instance")
        );
        assert_eq!(
            types.pattern_for("aws_instance", "aws_instance.bucket"),
            None
        );
        assert_eq!(types.actions, vec![Action::Taint, Action::Forget]);
        assert_eq!(
            addresses.pattern_for("aws_instance", "module.prod.aws_instance.a"),
            Some("module.prod.*")
        );
        assert_eq!(addresses.actions, vec![Action::Forget]);
    }

    #[test]
    fn refuses_empty_protections_unknown_actions_and_stray_keys() {
        assert_eq!(
            load("[[protect]]\nreason = \"x\"\n", true).unwrap_err(),
            "FILE: [[protect]] number 1: give `types` or `addresses` (globs) to protect"
        );
        assert!(
            load(
                "[[protect]]\ntypes = [\"a\"]\nactions = [\"destroy\"]\n",
                true
            )
            .unwrap_err()
            .contains("unknown action `destroy`")
        );
        let stray = load("ignore = [\"x\"]\n", true).unwrap_err();
        assert!(stray.starts_with("FILE:1:1: invalid policy:"), "{stray}");
        // In .statectl.toml, scan's keys sit beside [[protect]], and a mistake in a table is the
        // same refusal whichever command reads the file.
        assert!(load("ignore = [\"x\"]\n[[protect]]\ntypes = [\"a\"]\n", false).is_ok());
        assert_eq!(
            load("ignore = [\"x\"]\n[[protect]]\nreason = \"x\"\n", false).unwrap_err(),
            "FILE: [[protect]] number 1: give `types` or `addresses` (globs) to protect"
        );
        let typo = load(
            "[[protect]]\ntypes = [\"a\"]\nacions = [\"taint\"]\n",
            false,
        )
        .unwrap_err();
        assert!(
            typo.starts_with("FILE:3:1: invalid rules file: unknown field `acions`"),
            "{typo}"
        );
    }
}
