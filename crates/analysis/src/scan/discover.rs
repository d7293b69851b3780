//! Which files a scan reads: the paths given, and below each folder every `*.tfstate`, skipping
//! Terraform's `.terraform/` caches (backups end in `.backup`, so they never match). A place below
//! a folder that cannot be searched (a folder that may not be read, a path longer than the system
//! takes) is an entry of its own, reported as unreadable, while the rest is still searched.

use std::path::{Path, PathBuf};

/// One thing to scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A state file (or what was named as one).
    State(PathBuf),
    /// A folder, or an entry of one, that could not be searched: why, without the path.
    Unreadable { path: PathBuf, problem: String },
}

impl Entry {
    fn path(&self) -> &Path {
        match self {
            Entry::State(path) | Entry::Unreadable { path, .. } => path,
        }
    }
}

/// The state files named by `paths`, folders searched recursively, in a stable order (each
/// folder's entries by path).
pub fn state_files(paths: &[PathBuf]) -> Vec<Entry> {
    let mut entries = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found);
            found.sort_by(|one, other| one.path().cmp(other.path()));
            entries.extend(found);
        } else {
            entries.push(Entry::State(path.clone()));
        }
    }
    entries
}

fn walk(folder: &Path, found: &mut Vec<Entry>) {
    let unreadable = |path: &Path, error: &std::io::Error| Entry::Unreadable {
        path: path.to_owned(),
        problem: format!("cannot read the folder: {error}"),
    };
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) => return found.push(unreadable(folder, &error)),
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                // The folder's listing broke off: say so once, keep what was listed.
                found.push(unreadable(folder, &error));
                return;
            }
        };
        let path = entry.path();
        let kind = match entry.file_type() {
            Ok(kind) => kind,
            Err(error) => {
                found.push(Entry::Unreadable {
                    path,
                    problem: format!("cannot tell what it is: {error}"),
                });
                continue;
            }
        };
        if kind.is_dir() {
            if entry.file_name() != ".terraform" {
                walk(&path, found);
            }
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|extension| extension == "tfstate")
        {
            found.push(Entry::State(path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_that_cannot_be_read_is_an_entry_and_the_rest_is_searched() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path();
        std::fs::create_dir_all(root.join("a/.terraform")).unwrap();
        std::fs::write(root.join("a/one.tfstate"), "{}").unwrap();
        std::fs::write(root.join("a/.terraform/cached.tfstate"), "{}").unwrap();
        std::fs::write(root.join("b.tfstate.backup"), "{}").unwrap();
        std::fs::write(root.join("c.tfstate"), "{}").unwrap();
        let missing = root.join("gone");
        let entries = state_files(&[root.to_owned(), missing.clone()]);
        assert_eq!(
            entries,
            [
                Entry::State(root.join("a/one.tfstate")),
                Entry::State(root.join("c.tfstate")),
                Entry::State(missing.clone()),
            ]
        );
        let mut found = Vec::new();
        walk(&missing, &mut found);
        assert!(
            matches!(&found[..], [Entry::Unreadable { path, problem }] if *path == missing && problem.starts_with("cannot read the folder: ")),
            "{found:?}"
        );
    }
}
