//! What the unit tests of several modules share: reading the bundled test states, writing a file
//! in a temporary folder.

/// The bytes of `testdata/scan/NAME`, a state file bundled with the repository.
pub(crate) fn scan_fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/scan")
            .join(name),
    )
    .unwrap()
}

/// A file `name` holding `text` in a new temporary folder, which lives as long as the folder
/// handle returned with the file's path.
pub(crate) fn file_in_temp_folder(
    name: &str,
    text: &str,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    std::fs::write(&path, text).unwrap();
    (folder, path)
}
