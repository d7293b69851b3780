//! A small builder for running the real `statectl` binary in a scrubbed environment and checking its
//! exit code, stdout and stderr together.

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
        }
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
        let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
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

/// A temporary folder holding `bytes` as its `terraform.tfstate`, and that file's path.
pub(crate) fn folder_with_state(bytes: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("terraform.tfstate");
    std::fs::write(&path, bytes).unwrap();
    (folder, path)
}

/// A temporary folder holding a copy of `state` as its `terraform.tfstate`.
pub(crate) fn folder_with_copy(state: impl AsRef<Path>) -> tempfile::TempDir {
    folder_with_state(std::fs::read(state).unwrap()).0
}

/// The name of every entry of `folder`, sorted.
pub(crate) fn file_names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts that a process (Terraform, a tool, statectl run by hand) succeeded, showing its stderr
/// when it did not.
#[track_caller]
pub(crate) fn assert_success(output: &std::process::Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Interrupts `child` (statectl mid-run) as Ctrl-C does and waits for it: it must exit 130.
/// Returns its stdout and stderr.
pub(crate) fn interrupted(child: std::process::Child) -> (String, String) {
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(130), "{stdout}{stderr}");
    (stdout, stderr)
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

/// Asserts that `text` starts with `expected`, showing the whole text when it does not.
#[track_caller]
pub(crate) fn assert_starts_with(text: &str, expected: &str) {
    assert!(
        text.starts_with(expected),
        "does not start with {expected:?}:\n{text}"
    );
}

/// Waits (30 s at most) until a server (`what`, for the failure) listens on loopback `port`.
#[track_caller]
pub(crate) fn wait_for_port(port: u16, what: &str) {
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{what} did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A temporary folder holding one file, `name`, with `contents`.
pub(crate) fn folder_with(name: &str, contents: impl AsRef<[u8]>) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join(name), contents).unwrap();
    folder
}

/// statectl started with `args` in `folder` (the environment inherited), its stdout dropped and
/// its stderr kept: for a run a test signals or waits for.
pub(crate) fn spawn_statectl(folder: impl AsRef<Path>, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(args)
        .current_dir(folder)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A loopback port free a moment ago, for a server the test starts on it.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `http://127.0.0.1:PORT` where nothing listens (the port was just let go): an endpoint that
/// refuses connections.
pub(crate) fn refusing_url() -> String {
    format!("http://127.0.0.1:{}", free_port())
}

/// Runs `command` to its end: its exit code (-1 for a signal), stdout and stderr.
pub(crate) fn output_of(command: &mut Command) -> (i32, String, String) {
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Runs `command` with `input` on its stdin, to its end, stdout and stderr kept.
pub(crate) fn fed(command: &mut Command, input: &[u8]) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{command:?} starts: {error}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
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

/// Every process `/proc` shows: its PID and the fields of its `stat` after the command (`STATE PPID
/// PGRP ...`; the command may hold spaces and parentheses, so it is cut at the last `) `).
pub(crate) fn processes() -> Vec<(u32, Vec<String>)> {
    let mut processes = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, after)) = stat.rsplit_once(") ") else {
            continue;
        };
        processes.push((pid, after.split_whitespace().map(str::to_owned).collect()));
    }
    processes
}

/// A Terraform CLI configuration that installs the providers of `include` (a source address) from
/// the filesystem mirror at `mirror`, written to `path`.
pub(crate) fn write_mirror_config(path: &Path, mirror: &Path, include: &str) {
    std::fs::write(
        path,
        format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path    = \"{}\"\n    include = [\"{include}\"]\n  }}\n}}\n",
            mirror.display()
        ),
    )
    .unwrap();
}
