//! The checked-in completions and man pages match what the binary generates.

use std::path::Path;

use crate::builder::{Output, Test, root};

/// `statectl generate --root ROOT`, only checking the files there with `--check`.
fn generate(root: &Path, check: bool) -> Output {
    let check = if check { &["--check"][..] } else { &[] };
    Test::new()
        .arg("generate")
        .args(check)
        .arg("--root")
        .arg(root)
        .run()
}

#[test]
fn completions_and_man_pages_are_fresh() {
    generate(&root(), true).code(0);
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
    generate(folder.path(), false).code(0);
    std::fs::write(folder.path().join("man/statectl-list.1"), "stale").unwrap();
    generate(folder.path(), true)
        .code(1)
        .stdout("man/statectl-list.1\n")
        .stderr_contains("1 generated files are stale");
}
