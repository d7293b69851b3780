//! Provider plugins that misbehave before they speak gRPC, faked by small shell scripts in a
//! `--plugin-dir` (no lock file, so nothing is verified): one that exits during the handshake, one
//! that prints a line that is no handshake, one that speaks only protocol 4 (Terraform 0.11's), one
//! that prints nothing at all (cut off at `--start-timeout`).
//! Each is one clear per-instance error naming the plugin and what it did; exit 2; not a byte of
//! the state written and no lock left behind.

use crate::builder::{assert_contains, assert_starts_with};
use crate::files::write_script;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

const STATE: &str = "terraform.tfstate";

/// A folder with a one-instance AWS state and `plugins/terraform-provider-aws` running `script`.
fn folder_with_plugin(script: &str) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let state = crate::plugin_trust::aws_instances(&[
        json!({"schema_version": 1, "attributes": {"id": "i-1"}, "sensitive_attributes": []}),
    ]);
    std::fs::write(
        folder.path().join(STATE),
        serde_json::to_string_pretty(&state).unwrap(),
    )
    .unwrap();
    let plugins = folder.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    let binary = plugins.join("terraform-provider-aws");
    write_script(&binary, format!("#!/bin/sh\n{script}"));
    folder
}

/// `statectl refresh --reader plugin --write` there: the detail of the one outcome, after checking
/// the exit code, the state's bytes and the lock.
fn refresh_detail(folder: &Path) -> String {
    refresh_detail_with(folder, &[])
}

/// [`refresh_detail`] with more arguments.
fn refresh_detail_with(folder: &Path, extra: &[&str]) -> String {
    let before = std::fs::read(folder.join(STATE)).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args([
            "refresh",
            "--reader",
            "plugin",
            "--plugin-dir",
            "plugins",
            "--target",
            "aws_instance.web",
            "--write",
            "--format",
            "json",
        ])
        .args(extra)
        .current_dir(folder)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    assert_eq!(std::fs::read(folder.join(STATE)).unwrap(), before);
    assert!(!folder.join(".terraform.tfstate.lock.info").exists());
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let instances = report["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 1, "{stdout}");
    assert_eq!(instances[0]["outcome"], "error", "{stdout}");
    let detail = instances[0]["detail"].as_str().unwrap().to_owned();
    assert_starts_with(
        &detail,
        "error: aws_instance.web: provider provider[\"registry.terraform.io/hashicorp/aws\"]: provider plugin `plugins/terraform-provider-aws` did not start: ",
    );
    detail
}

/// A plugin that exits during the handshake is named with its exit and last words; a line that is
/// no handshake is quoted; one that speaks only protocol 4 is refused.
#[test]
fn a_plugin_that_fails_its_handshake_is_named_with_what_it_did() {
    for (script, ending) in [
        (
            "echo 'panic: no credentials' >&2\nexit 3\n",
            "it closed its output without a handshake (exit status 3); it said: panic: no credentials",
        ),
        (
            "echo 'This binary is a plugin.'\nexec sleep 30\n",
            "its first line `This binary is a plugin.` is not a plugin handshake: expected `CORE|PROTOCOL|NETWORK|ADDRESS|grpc|CERTIFICATE`, got 1 field(s)",
        ),
        (
            "echo '1|4|unix|/tmp/plugin.sock|grpc|'\nexec sleep 30\n",
            "plugin protocol version `4` is not one statectl speaks (5 or 6)",
        ),
    ] {
        let folder = folder_with_plugin(script);
        let detail = refresh_detail(folder.path());
        assert!(detail.ends_with(ending), "plugin {script:?}: {detail}");
    }
}

#[test]
fn a_plugin_that_prints_nothing_is_cut_off_at_the_start_timeout() {
    let folder = folder_with_plugin("exec sleep 30\n");
    let started = std::time::Instant::now();
    let detail = refresh_detail_with(folder.path(), &["--start-timeout", "1s"]);
    assert_contains(&detail, "it printed no handshake within 1s");
    // The deadline, not the plugin's sleep, ended it (and the plugin was killed with it).
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

/// The processes whose process group is `group` and that are not zombies (a zombie has ended; in a
/// container nobody may reap it).
fn live_members(group: u32) -> Vec<u32> {
    crate::processes::list()
        .into_iter()
        .filter(|(_, fields)| {
            fields.len() > 2 && fields[0] != "Z" && fields[2] == group.to_string()
        })
        .map(|(pid, _)| pid)
        .collect()
}

/// Was a `sleep 600` left running, orphaned, after the plugin that started it was cut off: the
/// plugin runs in a process group of its own, and the whole group is ended with it.
#[test]
fn a_plugin_cut_off_at_its_timeout_takes_the_processes_it_started_with_it() {
    let folder = folder_with_plugin(
        "echo $$ > plugin.pid\nsleep 600 &\necho $! > child.pid\nexec sleep 30\n",
    );
    let detail = refresh_detail_with(folder.path(), &["--start-timeout", "1s"]);
    assert_contains(&detail, "it printed no handshake within 1s");
    let read_pid = |name: &str| -> u32 {
        std::fs::read_to_string(folder.path().join(name))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let (plugin, child) = (read_pid("plugin.pid"), read_pid("child.pid"));
    assert_ne!(plugin, child);
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, after)| !after.starts_with('Z'))
        })
    };
    // SIGKILL is delivered at once, but a process takes a moment to die.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while (alive(child) || !live_members(plugin).is_empty()) && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left = alive(child);
    if left {
        // Not to leave it behind for the next test.
        let _ = Command::new("kill")
            .args(["-9", &child.to_string()])
            .status();
    }
    assert!(!left, "the process the plugin started lives on");
    assert_eq!(
        live_members(plugin),
        Vec::<u32>::new(),
        "the plugin's group lives on"
    );
}
