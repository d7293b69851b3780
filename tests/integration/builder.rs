//! A small builder for running the real `statectl` binary in a scrubbed environment and checking its
//! exit code, stdout and stderr together, and the assertions on what it printed (text that
//! contains or starts with, table rows, JSON elements and counts), each showing the whole text
//! when it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.tfstate` file below `folder`, sorted.
pub(crate) fn state_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![folder.to_owned()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path
                .extension()
                .is_some_and(|extension| extension == "tfstate")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every `.tfstate` file of testdata/, then of the shared corpus when it is beside the checkout (its
/// absence recorded by [`crate::skip::require_corpus`]): the states the whole-corpus tests go over.
pub(crate) fn test_and_corpus_states() -> Vec<PathBuf> {
    let mut files = state_files(&root().join("testdata"));
    if let Some(corpus) = crate::skip::require_corpus() {
        files.extend(state_files(&corpus));
    }
    files
}

/// Whether `text` has a line whose columns (two or more spaces apart, as statectl's tables lay them
/// out) are `cells`.
pub(crate) fn has_row(text: &str, cells: &[&str]) -> bool {
    text.lines().any(|line| {
        let columns: Vec<&str> = line
            .split("  ")
            .map(str::trim)
            .filter(|column| !column.is_empty())
            .collect();
        columns == cells
    })
}

/// Asserts [`has_row`], showing the whole text when it does not.
#[track_caller]
pub(crate) fn assert_row(text: &str, cells: &[&str]) {
    assert!(has_row(text, cells), "no row {cells:?}:\n{text}");
}

#[must_use]
pub(crate) struct Test {
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    current_dir: PathBuf,
    env: Vec<(String, std::ffi::OsString)>,
    open_files: Option<u32>,
}

/// `statectl ARGS PATHS…`, which must exit `code`.
#[track_caller]
pub(crate) fn run_on(args: &[&str], paths: &[&Path], code: i32) -> Output {
    paths
        .iter()
        .fold(Test::new().args(args), Test::arg)
        .run()
        .code(code)
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Test {
    pub(crate) fn new() -> Test {
        Test {
            args: Vec::new(),
            stdin: None,
            current_dir: root(),
            env: Vec::new(),
            open_files: None,
        }
    }

    /// Runs the binary with at most `limit` open files (the shell's `ulimit -n`, set before it
    /// starts), as a CI runner's low limit would.
    pub(crate) fn open_files(mut self, limit: u32) -> Test {
        self.open_files = Some(limit);
        self
    }

    pub(crate) fn args<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, args: I) -> Test {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    pub(crate) fn arg(mut self, arg: impl AsRef<Path>) -> Test {
        self.args.push(arg.as_ref().to_string_lossy().into_owned());
        self
    }

    /// `--backend-config SETTING`: one `key=value` of the backend block's settings.
    pub(crate) fn backend_config(self, setting: impl AsRef<str>) -> Test {
        self.args(["--backend-config", setting.as_ref()])
    }

    pub(crate) fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Test {
        self.stdin = Some(bytes.into());
        self
    }

    /// Sets one environment variable for the run (the rest of the environment is cleared).
    pub(crate) fn env(mut self, name: &str, value: impl AsRef<std::ffi::OsStr>) -> Test {
        self.env.push((name.to_owned(), value.as_ref().to_owned()));
        self
    }

    pub(crate) fn current_dir(mut self, folder: impl Into<PathBuf>) -> Test {
        self.current_dir = folder.into();
        self
    }

    /// The arguments as a snapshot shows them, after `$ statectl`.
    pub(crate) fn command_line(&self) -> String {
        self.args.join(" ")
    }

    /// Runs the binary with no user environment leaking in (no NO_COLOR, no config).
    pub(crate) fn run(self) -> Output {
        let binary = env!("CARGO_BIN_EXE_statectl");
        let mut command = match self.open_files {
            Some(limit) => {
                let mut shell = Command::new("sh");
                shell.args(["-c", "ulimit -n \"$1\" && shift && exec \"$@\"", "sh"]);
                shell.arg(limit.to_string()).arg(binary);
                shell
            }
            None => Command::new(binary),
        };
        command
            .args(&self.args)
            .current_dir(&self.current_dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("COLUMNS", "100")
            .envs(self.env.iter().map(|(name, value)| (name, value)))
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("statectl starts");
        if let Some(bytes) = self.stdin {
            let mut stdin = child.stdin.take().expect("piped stdin");
            // A refused input may be closed early by statectl; that is not this test's failure.
            let _ = stdin.write_all(&bytes);
        }
        let output = child.wait_with_output().expect("statectl finishes");
        Output {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }
}

impl Output {
    #[track_caller]
    pub(crate) fn code(self, expected: i32) -> Output {
        assert_eq!(
            self.code, expected,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub(crate) fn stdout(self, expected: &str) -> Output {
        assert_eq!(self.stdout, expected, "stdout\n--- stderr\n{}", self.stderr);
        self
    }

    #[track_caller]
    pub(crate) fn stderr_contains(self, expected: &str) -> Output {
        assert_contains(&self.stderr, expected);
        self
    }

    #[track_caller]
    pub(crate) fn stdout_contains(self, expected: &str) -> Output {
        assert_contains(&self.stdout, expected);
        self
    }

    /// stdout read as one JSON document (a `--format json` report).
    #[track_caller]
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("stdout is JSON ({error}):\n{}", self.stdout))
    }

    /// Exactly this stderr (and exit 2, nothing on stdout, for the error lines tested here).
    #[track_caller]
    pub(crate) fn stderr_is(self, expected: &str) -> Output {
        let output = self.code(2).stdout("");
        assert_eq!(output.stderr, expected, "stderr");
        output
    }

    /// A refusal: exit 2, nothing on stdout, one `error:` line and at most one `hint:` line.
    #[track_caller]
    pub(crate) fn refused(self, expected: &str) -> Output {
        let output = self.code(2).stdout("").stderr_contains(expected);
        let lines: Vec<&str> = output.stderr.lines().collect();
        assert!(
            lines[0].starts_with("error: "),
            "first stderr line is the error: {:?}",
            output.stderr
        );
        assert!(
            lines.len() == 1 || (lines.len() == 2 && lines[1].starts_with("hint: ")),
            "one error line and an optional hint: {:?}",
            output.stderr
        );
        output
    }
}

/// Asserts that `text` contains `expected`, showing the whole text when it does not.
#[track_caller]
pub(crate) fn assert_contains(text: &str, expected: &str) {
    assert!(text.contains(expected), "lacks {expected:?}:\n{text}");
}

/// Asserts that `text` does not contain `unexpected`, showing the whole text when it does.
#[track_caller]
pub(crate) fn assert_lacks(text: &str, unexpected: &str) {
    assert!(!text.contains(unexpected), "has {unexpected:?}:\n{text}");
}

/// The first element of the JSON array `array` whose `key` is `value` (a resource by name, a
/// finding by rule); the array is shown when there is none.
#[track_caller]
pub(crate) fn find_by<'v>(
    array: &'v serde_json::Value,
    key: &str,
    value: &str,
) -> &'v serde_json::Value {
    array
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {array}"))
        .iter()
        .find(|element| element[key] == value)
        .unwrap_or_else(|| panic!("no element with {key} {value:?} in {array}"))
}

/// The string `key` of every element of `array` (the ids of a history's versions, say).
#[track_caller]
pub(crate) fn strings_of<'v>(array: &'v serde_json::Value, key: &str) -> Vec<&'v str> {
    array
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {array}"))
        .iter()
        .map(|element| {
            element[key]
                .as_str()
                .unwrap_or_else(|| panic!("no string {key} in {element}"))
        })
        .collect()
}

/// Asserts that `text` starts with `expected`, showing the whole text when it does not.
#[track_caller]
pub(crate) fn assert_starts_with(text: &str, expected: &str) {
    assert!(
        text.starts_with(expected),
        "does not start with {expected:?}:\n{text}"
    );
}

/// The sum of the counts of a JSON object's members (a summary's `by_status`, say).
pub(crate) fn sum_of_counts(object: &serde_json::Value) -> u64 {
    object
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {object}"))
        .values()
        .map(|count| count.as_u64().unwrap())
        .sum()
}
