//! The versions of a local state: the file itself, and the backups beside it that Terraform
//! (`terraform.tfstate.backup`, the state before its last write) and statectl
//! (`terraform.tfstate.<unix-seconds>[.<n>].backup`) leave. Newest first by modification time; a
//! version's id is its file name, and only a name the listing found is read.

use std::path::{Path, PathBuf};

use crate::state::store::StoreError;
use crate::state::store::versions::{Kept, StateVersions, Version};

/// The most entries of the state's folder looked at: a folder of a million files is not a
/// Terraform working directory, and listing it would not end soon.
const MAX_ENTRIES: usize = 100_000;

/// The state file at `path` and its backups.
#[derive(Debug, Clone)]
pub struct LocalBackups {
    path: PathBuf,
}

impl LocalBackups {
    pub fn beside(path: &Path) -> LocalBackups {
        LocalBackups {
            path: path.to_owned(),
        }
    }

    fn folder(&self) -> PathBuf {
        match self.path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        }
    }

    fn name(&self) -> String {
        self.path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn error(&self, what: &str, error: &std::io::Error) -> StoreError {
        StoreError::new(format!(
            "{}: {what}: {}",
            self.path.display(),
            crate::state::source::problem(error)
        ))
    }
}

/// Whether `file` is a backup of the state named `name`: `NAME.backup`, `NAME.SECS.backup` or
/// `NAME.SECS.N.backup`.
fn is_backup_of(file: &str, name: &str) -> bool {
    let Some(middle) = file
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('.'))
        .and_then(|rest| rest.strip_suffix("backup"))
    else {
        return false;
    };
    if middle.is_empty() {
        return true;
    }
    let Some(numbers) = middle.strip_suffix('.') else {
        return false;
    };
    let parts: Vec<&str> = numbers.split('.').collect();
    (1..=2).contains(&parts.len())
        && parts
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
}

impl StateVersions for LocalBackups {
    fn versions(&self, _max_pages: u32) -> Result<Kept, StoreError> {
        let name = self.name();
        let folder = self.folder();
        let entries = std::fs::read_dir(&folder)
            .map_err(|error| self.error("cannot list the folder for backups", &error))?;
        let mut versions = Vec::new();
        let mut warnings = Vec::new();
        for (seen, entry) in entries.enumerate() {
            if seen >= MAX_ENTRIES {
                warnings.push(format!(
                    "{}: the folder holds more than {MAX_ENTRIES} entries; statectl looked at the first {MAX_ENTRIES} for backups",
                    folder.display()
                ));
                break;
            }
            let Ok(entry) = entry else { continue };
            let file = entry.file_name().to_string_lossy().into_owned();
            let latest = file == name;
            if !latest && !is_backup_of(&file, &name) {
                continue;
            }
            let Ok(metadata) = std::fs::metadata(entry.path()) else {
                continue;
            };
            if !metadata.is_file() {
                continue;
            }
            versions.push(Version {
                id: file,
                time: metadata.modified().ok(),
                size: Some(metadata.len()),
                latest,
                deleted: false,
                extras: Vec::new(),
            });
        }
        if versions.is_empty() {
            return Ok(Kept::Nothing {
                why: format!(
                    "{}: there is no state here, nor a backup of it",
                    self.path.display()
                ),
                hint: Some("name the state file, or run where `terraform init` ran".to_owned()),
            });
        }
        // Newest first; the state itself before a backup written in the same instant, and a later
        // `.N.backup` before an earlier one.
        versions.sort_by(|one, other| {
            other
                .time
                .cmp(&one.time)
                .then(other.latest.cmp(&one.latest))
                .then_with(|| natural(&other.id).cmp(&natural(&one.id)))
        });
        Ok(Kept::Versions { versions, warnings })
    }

    fn version(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        let name = self.name();
        if id.contains('/') || (id != name && !is_backup_of(id, &name)) {
            return Err(StoreError::new(format!(
                "{}: `{id}` is not a backup of this state",
                self.path.display()
            )));
        }
        let path = self.folder().join(id);
        std::fs::read(&path).map_err(|error| {
            StoreError::new(format!(
                "{}: cannot read the backup: {}",
                path.display(),
                crate::state::source::problem(&error)
            ))
        })
    }
}

/// A backup name's numbers, for ordering `NAME.SECS.10.backup` after `NAME.SECS.9.backup`.
fn natural(id: &str) -> Vec<u64> {
    id.split('.').filter_map(|part| part.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backups_are_terraforms_and_statectls_names_only() {
        let name = "terraform.tfstate";
        for backup in [
            "terraform.tfstate.backup",
            "terraform.tfstate.1732755600.backup",
            "terraform.tfstate.1732755600.2.backup",
        ] {
            assert!(is_backup_of(backup, name), "{backup}");
        }
        for other in [
            "terraform.tfstate",
            "terraform.tfstate.old",
            "terraform.tfstate..backup",
            "terraform.tfstate.x.backup",
            "terraform.tfstate.1.2.3.backup",
            "terraform.tfstatebackup",
            "other.tfstate.backup",
        ] {
            assert!(!is_backup_of(other, name), "{other}");
        }
    }

    #[test]
    fn the_state_and_its_backups_are_listed_newest_first_and_only_they_are_read() {
        let folder = tempfile::tempdir().unwrap();
        let state = folder.path().join("terraform.tfstate");
        let at = |seconds: u64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
        for (file, seconds) in [
            ("terraform.tfstate.backup", 100),
            ("terraform.tfstate.200.backup", 200),
            ("terraform.tfstate", 300),
            ("unrelated.backup", 400),
        ] {
            let path = folder.path().join(file);
            std::fs::write(&path, file).unwrap();
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(at(seconds))
                .unwrap();
        }
        let backups = LocalBackups::beside(&state);
        let Kept::Versions { versions, warnings } = backups.versions(1).unwrap() else {
            panic!("a local state keeps its backups")
        };
        assert!(warnings.is_empty());
        let ids: Vec<&str> = versions.iter().map(|version| version.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "terraform.tfstate",
                "terraform.tfstate.200.backup",
                "terraform.tfstate.backup"
            ]
        );
        assert!(versions[0].latest && !versions[1].latest);
        assert_eq!(versions[1].size, Some(28));
        assert_eq!(versions[1].time, Some(at(200)));
        assert_eq!(
            backups.version("terraform.tfstate.backup").unwrap(),
            b"terraform.tfstate.backup"
        );
        for refused in ["unrelated.backup", "../terraform.tfstate.backup"] {
            assert!(backups.version(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn no_state_and_no_backup_is_no_history() {
        let folder = tempfile::tempdir().unwrap();
        let state = folder.path().join("terraform.tfstate");
        let Kept::Nothing { why, .. } = LocalBackups::beside(&state).versions(1).unwrap() else {
            panic!("nothing is kept")
        };
        assert_eq!(
            why,
            format!(
                "{}: there is no state here, nor a backup of it",
                state.display()
            )
        );
    }
}
