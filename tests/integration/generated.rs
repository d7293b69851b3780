//! The checked-in completions and man pages match what the binary generates.

use crate::builder::{Test, root};

#[test]
fn completions_and_man_pages_are_fresh() {
    Test::new()
        .args(["generate", "--check", "--root"])
        .arg(root())
        .run()
        .code(0);
    for file in [
        "completions/statectl.bash",
        "completions/_statectl",
        "completions/statectl.fish",
        "completions/_statectl.ps1",
        "completions/statectl.elv",
        "man/statectl.1",
        "man/statectl-list.1",
        "man/statectl-show.1",
        "man/statectl-query.1",
        "man/statectl-summary.1",
    ] {
        assert!(root().join(file).is_file(), "{file} is checked in");
    }
}

#[test]
fn a_stale_file_is_reported() {
    let folder = tempfile::tempdir().unwrap();
    Test::new()
        .args(["generate", "--root"])
        .arg(folder.path())
        .run()
        .code(0);
    std::fs::write(folder.path().join("man/statectl-list.1"), "stale").unwrap();
    Test::new()
        .args(["generate", "--check", "--root"])
        .arg(folder.path())
        .run()
        .code(1)
        .stdout("man/statectl-list.1\n")
        .stderr_contains("1 generated files are stale");
}
