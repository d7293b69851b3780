//! What the unit tests of several modules share: writing a file in a temporary folder.

use std::path::PathBuf;

use tempfile::TempDir;

/// A file `name` holding `text` in a new temporary folder, which lives as long as the folder
/// handle returned with the file's path.
pub(crate) fn file_in_temp_folder(name: &str, text: &str) -> (TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    std::fs::write(&path, text).unwrap();
    (folder, path)
}
