//! The rules file (`--rules FILE`, or `.statectl.toml` found upward from the working directory):
//! extra catalog entries, severity overrides, ignores by address glob, and whether data sources are
//! scanned.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::glob::Glob;
use crate::policy::file::Policy;
use crate::scan::catalog::Catalog;
use crate::scan::finding::{Rule, Severity};
use crate::settings_file::{self, FILE_NAME, Given, Section, SettingsFileError};

/// Everything that decides what a scan reports.
#[derive(Debug, Clone)]
pub struct Rules {
    pub catalog: Catalog,
    pub severity: HashMap<Rule, Severity>,
    pub ignore: Vec<Glob>,
    pub data_sources: bool,
    /// The rules file these came from, if any.
    pub source: Option<PathBuf>,
    /// The file's `[[protect]]` tables (a write judges by them when the file is `.statectl.toml`).
    pub policy: Policy,
    /// The file's `[[drift.ignore]]` tables, for `statectl drift`.
    pub drift_ignores: Vec<crate::drift::Ignore>,
    /// Whether findings get their line and column in the file: counting the lines up to the last
    /// finding is a pass over the whole state, spared when the report does not show them.
    pub locations: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            catalog: Catalog::builtin(),
            severity: HashMap::new(),
            ignore: Vec::new(),
            data_sources: false,
            source: None,
            policy: Policy::default(),
            drift_ignores: Vec::new(),
            locations: true,
        }
    }
}

impl Rules {
    /// The built-in catalog extended by the rules file at `path`. Errors are one line naming the file.
    pub fn load(path: &Path) -> Result<Rules, SettingsFileError> {
        let file = settings_file::read(path, Given::Rules)?;
        let invalid = |message: String| SettingsFileError::invalid(message, Section::Rules);
        let mut rules = Rules {
            source: Some(path.to_owned()),
            data_sources: file.data_sources,
            policy: Policy::from_tables(path, file.protect)?,
            ..Rules::default()
        };
        for (id, severity) in file.severity {
            let rule = Rule::from_id(&id).ok_or_else(|| {
                let known: Vec<&str> = Rule::ALL.iter().map(|rule| rule.id()).collect();
                invalid(format!(
                    "{}: unknown rule `{id}` in [severity]; rules: {}",
                    path.display(),
                    known.join(", ")
                ))
            })?;
            rules.severity.insert(rule, severity);
        }
        for table in file.drift.ignore {
            let ignore = crate::drift::Ignore::parse(&table.attribute, Some(table.reason))
                .map_err(|error| {
                    invalid(format!("{}: [[drift.ignore]]: {error}", path.display()))
                })?;
            rules.drift_ignores.push(ignore);
        }
        rules.ignore = file
            .ignore
            .iter()
            .map(|pattern| Glob::new(pattern))
            .collect();
        rules
            .catalog
            .extend(crate::scan::catalog::CatalogFile {
                generic: file.generic,
                resource: file.resource,
            })
            .map_err(|problem| invalid(format!("{}: {problem}", path.display())))?;
        Ok(rules)
    }

    /// `.statectl.toml` in `start` or the nearest folder above it.
    pub fn discover(start: &Path) -> Option<PathBuf> {
        start
            .ancestors()
            .map(|folder| folder.join(FILE_NAME))
            .find(|candidate| candidate.is_file())
    }

    pub fn severity_of(&self, rule: Rule) -> Severity {
        self.severity
            .get(&rule)
            .copied()
            .unwrap_or(rule.default_severity())
    }

    pub fn ignored(&self, address: &str) -> bool {
        self.ignore.iter().any(|glob| glob.matches(address))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_rules_file_names_the_file_and_place() {
        let (_folder, path) = crate::test_support::file_in_temp_folder(
            ".statectl.toml",
            "[severity]\nno-such-rule = \"high\"\n",
        );
        let error = Rules::load(&path).unwrap_err();
        assert!(
            matches!(error, SettingsFileError::Invalid { .. }),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}", path.display())),
            "{error}"
        );
    }

    #[test]
    fn a_generic_table_may_leave_lists_out_but_not_add_unknown_ones() {
        let builtin = Catalog::builtin().generic;
        let (_folder, path) = crate::test_support::file_in_temp_folder(
            ".statectl.toml",
            "[generic]\npending = [\"QUEUED\"]\n",
        );
        let generic = Rules::load(&path).unwrap().catalog.generic;
        assert_eq!(generic.attributes, builtin.attributes);
        assert_eq!(generic.pending.last().map(String::as_str), Some("QUEUED"));
        assert_eq!(generic.pending.len(), builtin.pending.len() + 1);
        assert_eq!(generic.failed, builtin.failed);
        std::fs::write(&path, "[generic]\nstatus = [\"x\"]\n").unwrap();
        let error = Rules::load(&path).unwrap_err().to_string();
        assert!(error.contains("unknown field `status`"), "{error}");
    }
}
