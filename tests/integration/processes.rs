//! Processes the tests start, feed, signal and watch (statectl, Terraform, the tools they check
//! against), and the loopback ports their servers listen on.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

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

/// Every process `/proc` shows: its PID and the fields of its `stat` after the command (`STATE PPID
/// PGRP ...`; the command may hold spaces and parentheses, so it is cut at the last `) `).
pub(crate) fn list() -> Vec<(u32, Vec<String>)> {
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

/// `statectl refresh --reader plugin --config .` in `folder`, in a clean environment (PATH and a
/// wide terminal only), the AWS provider's endpoints (`services`, all at `endpoint`) and any other
/// `settings` written to a `--provider-config` file: an endpoint held in a variable is beyond
/// what statectl evaluates.
pub(crate) fn aws_plugin_refresh(
    folder: &Path,
    endpoint: &str,
    services: &[&str],
    settings: serde_json::Value,
    extra: &[&str],
) -> Command {
    let endpoints: serde_json::Map<String, serde_json::Value> = services
        .iter()
        .map(|service| ((*service).to_owned(), endpoint.into()))
        .collect();
    let mut config = settings;
    config["endpoints"] = serde_json::json!([endpoints]);
    let file = folder.join("aws-endpoints.json");
    std::fs::write(&file, config.to_string()).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
    command
        .args(["refresh", "--reader", "plugin", "--config", "."])
        .arg("--provider-config")
        .arg(format!("aws={}", file.display()))
        .args(extra)
        .current_dir(folder)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("COLUMNS", "200");
    command
}
