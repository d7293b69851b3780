//! Which files a scan reads: the paths given, and below each folder every `*.tfstate`, skipping
//! Terraform's `.terraform/` caches (backups end in `.backup`, so they never match).

use std::path::{Path, PathBuf};

/// A folder that cannot be searched for state files.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot read the folder: {source}", folder.display())]
pub struct StateFilesError {
    pub folder: PathBuf,
    pub source: std::io::Error,
}

/// The state files named by `paths`, folders searched recursively, in a stable order.
pub fn state_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, StateFilesError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found).map_err(|source| StateFilesError {
                folder: path.clone(),
                source,
            })?;
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn walk(folder: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if entry.file_name() != ".terraform" {
                walk(&path, found)?;
            }
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|extension| extension == "tfstate")
        {
            found.push(path);
        }
    }
    Ok(())
}
