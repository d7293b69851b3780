//! `statectl_snapshot!`: one run of the real binary pinned whole (the command line, exit code,
//! stdout and stderr together, as uv's snapshot tests show them) in
//! `tests/integration/snapshots/NAME.snap`, so that a change in what a user sees is a diff in
//! review rather than a `contains` that still passes. What differs between machines and runs is
//! filtered: the checkout's path, temporary folders, backup timestamps and loopback ports.
//!
//! To accept a deliberate change: `INSTA_UPDATE=always cargo test --test integration NAME`, then
//! review the `.snap` diff.

use crate::builder::{Output, Test, root};

/// Runs a [`Test`] and pins what it printed as snapshot `$name` (without a name: the running
/// test's, numbered, for a helper that pins each case it is called with); evaluates to the
/// [`Output`] for any check the snapshot cannot make (files written, a state's contents).
macro_rules! statectl_snapshot {
    ($test:expr $(,)?) => {
        $crate::snapshot::check(&$crate::snapshot::next_name(), $test)
    };
    ($name:expr, $test:expr $(,)?) => {
        $crate::snapshot::check($name, $test)
    };
}

thread_local! {
    /// How many unnamed snapshots the test on this thread has taken.
    static TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `MODULE-TEST-N` for the running test's Nth unnamed snapshot: libtest names each test's thread
/// after the test.
pub(crate) fn next_name() -> String {
    let taken = TAKEN.with(|taken| {
        taken.set(taken.get() + 1);
        taken.get()
    });
    let thread = std::thread::current();
    let test = thread
        .name()
        .expect("a test's thread is named after the test");
    format!("{}-{taken}", test.replace("::", "-"))
}

#[track_caller]
pub(crate) fn check(name: &str, test: Test) -> Output {
    let command_line = test.command_line();
    let output = test.run();
    let text = format!(
        "$ statectl {command_line}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        output.code, output.stdout, output.stderr
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/integration/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.add_filter(&regex_escape(&root().display().to_string()), "[ROOT]");
    settings.add_filter(r"\.\d{10}\.backup", ".[UNIX-SECONDS].backup");
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]");
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    settings.bind(|| insta::assert_snapshot!(name, text));
    output
}

/// `text` with the characters a regex gives meaning to escaped.
fn regex_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(character) {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}
