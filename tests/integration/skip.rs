//! The one skip policy of the integration tests. A test that needs what this machine lacks (real
//! Terraform, an emulator, a provider, Python, the shared corpus) finds it with [`require_tool`]
//! or [`require_corpus`] (or, for anything else, calls [`missing`]) and returns early when told
//! to; a documented example that cannot run here is [`example`].
//!
//! - Under CI (`CI` set) a missing tool is a failure, never a silent pass.
//! - Elsewhere the test skips, and says so where people look: a `skipped:` line straight to the
//!   terminal (libtest captures `eprintln!`, not the stderr handle), and an entry in a ledger that
//!   the `skipped` test target, which cargo runs right after this one, reports test by test as
//!   ignored, so the skips are counted in a summary line (`0 passed; 0 failed; 12 ignored`).
//!   libtest on stable Rust cannot mark a test ignored once it runs; the ledger is how the
//!   decision made at run time still reaches a summary.
//!
//! The ledger is `$CARGO_TARGET_TMPDIR/skips/<parent pid>.tsv`: both test binaries are children of
//! the same `cargo test`, and the `skipped` target removes it once read.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::builder::root;

/// A tool a test needs: from `variable`, else `default`, a path below the checkout (where the
/// install script puts it) or a bare program name looked up on `PATH`. `None` means the test skips
/// (recorded); under CI a missing tool fails the test.
pub(crate) fn require_tool(variable: &str, default: &str, script: &str) -> Option<PathBuf> {
    let path = match std::env::var_os(variable) {
        Some(path) => PathBuf::from(path),
        None if !default.contains('/') => on_path(default).unwrap_or_else(|| default.into()),
        None => root().join(default),
    };
    if path.exists() {
        return Some(path);
    }
    missing(&format!("no {} ({variable}); run {script}", path.display()));
    None
}

/// A tool one of the install scripts puts below the checkout: each script installs into a folder
/// of `target/` named after it, so `place` (`target/<name>/...`) also names the script a missing tool
/// wants (`scripts/install-<name>.sh`).
pub(crate) fn require_installed(variable: &str, place: &str) -> Option<PathBuf> {
    let name = place
        .strip_prefix("target/")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| {
            panic!("an installed tool lies below target/<script's name>/, not {place}")
        });
    let script = format!("scripts/install-{name}.sh");
    assert!(root().join(&script).is_file(), "{place}: no {script}");
    require_tool(variable, place, &script)
}

/// `program` in a folder of `PATH`.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|folder| folder.join(program))
        .find(|path| path.is_file())
}

/// The shared corpus beside the checkout (`../shared/corpus`); `None` means the test skips, or
/// does without it (recorded); under CI a missing corpus fails the test.
pub(crate) fn require_corpus() -> Option<PathBuf> {
    let corpus = root().join("../shared/corpus");
    if corpus.is_dir() {
        return Some(corpus);
    }
    missing("../shared/corpus is not beside the checkout");
    None
}

/// This test cannot run here because of `why`: a failure under CI, else a recorded skip.
pub(crate) fn missing(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must provide what this test needs: {why}"
    );
    record(&current_test(), why);
}

/// This test means nothing here (it checks a refusal root is exempt from): reported, never a
/// failure, CI included.
pub(crate) fn not_here(why: &str) {
    record(&current_test(), why);
}

/// A documentation example excluded on purpose (it needs the network or a cloud account): never a
/// failure, always reported.
pub(crate) fn example(place: &str, reason: &str) {
    record(&format!("{} ({place})", current_test()), reason);
}

/// The running test's name: libtest names each test's thread after it.
fn current_test() -> String {
    std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_owned()
}

/// The ledger this `cargo test` run shares with the `skipped` target.
pub(crate) fn ledger() -> PathBuf {
    ledger_in(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

fn ledger_in(folder: &Path) -> PathBuf {
    folder
        .join("skips")
        .join(format!("{}.tsv", std::os::unix::process::parent_id()))
}

fn record(test: &str, why: &str) {
    let line = format!("skipped: {test}: {why}\n");
    // Straight to the terminal: the harness captures `eprintln!` but not the handle.
    let _ = std::io::stderr().write_all(line.as_bytes());
    let path = ledger();
    if let Some(folder) = path.parent() {
        let _ = std::fs::create_dir_all(folder);
    }
    let entry = format!(
        "{}\t{}\n",
        test.replace(['\t', '\n'], " "),
        why.replace(['\t', '\n'], " ")
    );
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        // One write per entry: tests on other threads append to the same file.
        let _ = file.write_all(entry.as_bytes());
    }
}

#[test]
fn a_tool_is_found_where_its_variable_points_or_on_path() {
    // `CARGO_MANIFEST_DIR` is set for every test run: a variable naming a path that exists.
    assert_eq!(
        require_tool("CARGO_MANIFEST_DIR", "no/such/tool", "nothing"),
        Some(root())
    );
    // An installed tool's place names its install script, which must exist.
    assert_eq!(
        require_installed("CARGO_MANIFEST_DIR", "target/terraform/bin/terraform"),
        Some(root())
    );
    let shell = require_tool("STATECTL_TEST_UNSET_VARIABLE", "sh", "nothing").unwrap();
    assert!(
        shell.is_absolute() && shell.ends_with("sh"),
        "{}",
        shell.display()
    );
}
