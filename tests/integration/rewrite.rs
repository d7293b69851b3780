//! The mutating commands on real files: what a write leaves (serial, lineage, backup, mode, no lock
//! or temporary files), `--dry-run` and `-o -`, the lifecycle rules (exit 3, every violation listed,
//! nothing written; `--force` naming each override), the lock (holder named, `--lock-timeout`), and
//! bad input (one line, exit 2, nothing written).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::builder::{Test, assert_contains, assert_starts_with, root};
use crate::files::{file_names, folder_with_state};
use crate::processes::spawn_statectl;

/// A scratch folder with a copy of `testdata/<relative>` as `terraform.tfstate`.
struct Scratch {
    folder: tempfile::TempDir,
    original: Vec<u8>,
}

impl Scratch {
    fn of(relative: &str) -> Scratch {
        let original = std::fs::read(root().join("testdata").join(relative)).unwrap();
        Scratch::with(&original)
    }

    fn with(bytes: &[u8]) -> Scratch {
        let (folder, _) = folder_with_state(bytes);
        Scratch {
            folder,
            original: bytes.to_vec(),
        }
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }

    fn state(&self) -> PathBuf {
        self.path().join("terraform.tfstate")
    }

    fn read(&self) -> String {
        std::fs::read_to_string(self.state()).unwrap()
    }

    /// Writes `text` to `name` beside the state.
    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.path().join(name), text).unwrap();
    }

    fn run<I: IntoIterator<Item = S>, S: AsRef<str>>(&self, args: I) -> crate::builder::Output {
        Test::new().args(args).current_dir(self.path()).run()
    }

    /// Every file in the folder but the state, sorted.
    fn others(&self) -> Vec<String> {
        let mut names: Vec<String> = file_names(self.path())
            .into_iter()
            .filter(|name| name != "terraform.tfstate")
            .collect();
        names.sort();
        names
    }

    /// Nothing was written: the state has its original bytes and no file appeared beside it.
    #[track_caller]
    fn untouched(&self) {
        assert_eq!(
            std::fs::read(self.state()).unwrap(),
            self.original,
            "the state changed"
        );
        assert_eq!(
            self.others(),
            Vec::<String>::new(),
            "files appeared beside the state"
        );
    }
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn taint_raises_the_serial_keeps_the_lineage_backs_up_and_keeps_the_mode() {
    let scratch = Scratch::of("scan/clean.tfstate");
    std::fs::set_permissions(scratch.state(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = json(&String::from_utf8(scratch.original.clone()).unwrap());
    let output = scratch.run(["taint", "aws_security_group.db"]).code(0);
    assert_starts_with(
        &output.stdout,
        "--- aws_security_group.db\n+++ aws_security_group.db\n",
    );
    assert_contains(&output.stdout, "\n+  \"status\": \"tainted\",\n");
    assert_contains(
        &output.stderr,
        &format!(
            "Tainted `aws_security_group.db`; serial {} -> {}; backup `terraform.tfstate.",
            before["serial"],
            before["serial"].as_u64().unwrap() + 1
        ),
    );
    let after = json(&scratch.read());
    assert_eq!(
        after["serial"].as_u64(),
        Some(before["serial"].as_u64().unwrap() + 1)
    );
    assert_eq!(after["lineage"], before["lineage"]);
    assert_eq!(after["terraform_version"], before["terraform_version"]);
    let mode = std::fs::metadata(scratch.state())
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o600, "a 0600 state stays 0600");
    // Exactly one backup, named as terraform state rm names it, with the old bytes; no lock info,
    // no temporary file left.
    let others = scratch.others();
    let [backup] = &others[..] else {
        panic!("one backup: {others:?}")
    };
    let seconds = backup
        .strip_prefix("terraform.tfstate.")
        .and_then(|rest| rest.strip_suffix(".backup"))
        .unwrap();
    assert!(seconds.parse::<u64>().is_ok(), "{backup}");
    assert_eq!(
        std::fs::read(scratch.path().join(backup)).unwrap(),
        scratch.original
    );
    let backup_mode = std::fs::metadata(scratch.path().join(backup))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(backup_mode, 0o600, "the backup holds the same secrets");
}

#[test]
fn a_second_write_in_the_same_second_keeps_the_first_backup() {
    let scratch = Scratch::of("scan/clean.tfstate");
    scratch.run(["taint", "aws_security_group.db"]).code(0);
    let first_backups = scratch.others();
    scratch.run(["untaint", "aws_security_group.db"]).code(0);
    let backups = scratch.others();
    assert_eq!(backups.len(), 2, "{backups:?}");
    // Whatever the names, one backup holds the original state and one the tainted one.
    let contents: Vec<Vec<u8>> = backups
        .iter()
        .map(|name| std::fs::read(scratch.path().join(name)).unwrap())
        .collect();
    assert!(contents.contains(&scratch.original));
    assert!(first_backups.iter().all(|name| backups.contains(name)));
    // Untaint after taint gives the original bytes back, but for the serial.
    let serial = json(&String::from_utf8(scratch.original.clone()).unwrap())["serial"]
        .as_u64()
        .unwrap();
    assert_eq!(
        scratch.read(),
        String::from_utf8(scratch.original.clone())
            .unwrap()
            .replacen(
                &format!("\"serial\": {serial},"),
                &format!("\"serial\": {},", serial + 2),
                1
            )
    );
}

#[test]
fn backup_flag_names_the_backup_or_skips_it() {
    let scratch = Scratch::of("scan/clean.tfstate");
    scratch
        .run(["taint", "aws_security_group.db", "--backup", "old.tfstate"])
        .code(0);
    assert_eq!(scratch.others(), vec!["old.tfstate".to_owned()]);
    assert_eq!(
        std::fs::read(scratch.path().join("old.tfstate")).unwrap(),
        scratch.original
    );
    let output = scratch
        .run(["untaint", "aws_security_group.db", "--backup", "-"])
        .code(0);
    assert_contains(&output.stderr, "no backup");
    assert_eq!(scratch.others(), vec!["old.tfstate".to_owned()]);
}

#[test]
fn dry_run_shows_the_diff_exits_1_and_writes_nothing() {
    let scratch = Scratch::of("scan/clean.tfstate");
    let output = scratch
        .run(["forget", "oci_core_vcn.main", "--dry-run"])
        .code(1);
    assert_starts_with(&output.stdout, "--- oci_core_vcn.main\n+++ /dev/null\n");
    assert_contains(
        &output.stderr,
        "Would remove `oci_core_vcn.main`; nothing written (--dry-run)",
    );
    scratch.untouched();
}

#[test]
fn output_to_stdout_writes_the_new_state_there_and_the_diff_to_stderr() {
    let scratch = Scratch::of("scan/clean.tfstate");
    let output = scratch
        .run(["taint", "terraform_data.release", "-o", "-"])
        .code(0);
    scratch.untouched();
    let new = json(&output.stdout);
    let before = json(&String::from_utf8(scratch.original.clone()).unwrap());
    assert_eq!(
        new["serial"].as_u64(),
        Some(before["serial"].as_u64().unwrap() + 1)
    );
    assert_contains(&output.stderr, "+  \"status\": \"tainted\",");
    // From standard input to standard output, as in `terraform state pull | ... | terraform state push -`.
    let piped = Test::new()
        .args(["taint", "terraform_data.release", "-", "-o", "-"])
        .stdin(scratch.original.clone())
        .run()
        .code(0);
    assert_eq!(piped.stdout, output.stdout);
}

/// Issue 24, item 22: `untaint` of an instance that is not tainted exited 0 where `terraform untaint`
/// exits 1 ("Resource instance is not tainted"); it is an error with Terraform's exit code now. A
/// taint of a tainted instance stays a no-op with exit 0, as `terraform taint` (which rewrites it).
#[test]
fn untaint_and_taint_that_change_nothing_write_nothing() {
    let scratch = Scratch::of("scan/clean.tfstate");
    let refused = scratch.run(["untaint", "aws_security_group.db"]).code(1);
    assert_eq!(
        refused.stderr,
        "error: terraform.tfstate: `aws_security_group.db` is not tainted, so it cannot be untainted; nothing written\n"
    );
    assert_eq!(refused.stdout, "");
    scratch.untouched();
    scratch
        .run(["untaint", "aws_security_group.db", "--dry-run"])
        .code(1);
    scratch.untouched();
}

#[test]
fn forget_deposed_removes_only_that_object() {
    let scratch = Scratch::of("scan/deposed.tfstate");
    let output = scratch
        .run(["forget", "aws_instance.web", "--deposed", "1a2b3c4d"])
        .code(0);
    assert_starts_with(
        &output.stdout,
        "--- aws_instance.web (deposed object 1a2b3c4d)\n+++ /dev/null\n",
    );
    assert_contains(&output.stderr, "remote object stays");
    let after = scratch.read();
    assert!(!after.contains("1a2b3c4d"));
    scratch
        .run(["list"])
        .code(0)
        .stdout("aws_instance.web\naws_security_group.web\n");
    scratch.run(["scan"]).code(0);
    // The same through the address form `show` and Terraform's logs use.
    let again = Scratch::of("scan/deposed.tfstate");
    again
        .run(["rm", "aws_instance.web (deposed object 1a2b3c4d)"])
        .code(0);
    assert_eq!(again.read(), after);
}

/// An OpenTofu-written instance with every field a rewrite must keep, and a key no version knows.
const EVERY_FIELD: &str = r#"{
  "version": 4,
  "terraform_version": "1.10.0",
  "serial": 7,
  "lineage": "4f3c1b7e-0000-4000-8000-00000000abcd",
  "outputs": {},
  "resources": [
    {
      "mode": "managed",
      "type": "aws_instance",
      "name": "kept",
      "provider": "provider[\"registry.opentofu.org/hashicorp/aws\"]",
      "instances": [
        {
          "schema_version": 1,
          "attributes": {
            "id": "i-0123456789abcdef0",
            "instance_state": "running",
            "private_ip": "10.0.0.12"
          },
          "sensitive_attributes": [],
          "private": "eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ==",
          "dependencies": [
            "aws_security_group.web"
          ],
          "create_before_destroy": true,
          "skip_destroy": true,
          "identity": {
            "id": "i-0123456789abcdef0"
          },
          "identity_schema_version": 0,
          "x_future_field": {
            "kept": [
              1,
              2.50,
              1e3
            ]
          }
        }
      ]
    }
  ],
  "check_results": null
}
"#;

#[test]
fn a_rewritten_instance_keeps_every_field_and_unknown_key() {
    let scratch = Scratch::with(EVERY_FIELD.as_bytes());
    // skip_destroy blocks a taint; --force overrides and says so.
    scratch
        .run(["taint", "aws_instance.kept"])
        .code(3)
        .stderr_contains("[skip-destroy]");
    scratch.untouched();
    let output = scratch
        .run(["taint", "aws_instance.kept", "--force"])
        .code(0);
    assert_contains(
        &output.stderr,
        "warning: overriding taint `aws_instance.kept` [skip-destroy]",
    );
    let after = scratch.read();
    // The only differences: the serial, and the status line in OpenTofu's place for it.
    let expected = EVERY_FIELD
        .replace("\"serial\": 7,", "\"serial\": 8,")
        .replace(
            "        {\n          \"schema_version\": 1,",
            "        {\n          \"status\": \"tainted\",\n          \"schema_version\": 1,",
        );
    assert_eq!(after, expected);
}

/// Runs `args` on a copy of `fixture` and expects a block: exit 3, each rule's id on stderr, nothing
/// written.
#[track_caller]
fn blocked(fixture: &str, args: &[&str], rules: &[&str]) -> String {
    let scratch = Scratch::of(fixture);
    let output = scratch.run(args).code(3);
    for rule in rules {
        assert!(
            output.stderr.contains(&format!("[{rule}]")),
            "{rule} missing:\n{}",
            output.stderr
        );
    }
    let errors = output
        .stderr
        .lines()
        .filter(|line| line.starts_with("error: "))
        .count();
    assert_eq!(
        errors,
        rules.len() + 1,
        "one line per violation and the verdict:\n{}",
        output.stderr
    );
    assert!(
        output
            .stderr
            .contains("refused by the lifecycle rules; nothing was written")
    );
    assert_eq!(output.stdout, "");
    scratch.untouched();
    output.stderr
}

#[test]
fn never_taints_an_object_still_being_created() {
    let stderr = blocked(
        "scan/oci-async-provisioning.tfstate",
        &["taint", "oci_core_instance.app"],
        &["mid-operation"],
    );
    assert_contains(&stderr, "still being created (`state` = `PROVISIONING`)");
    assert_contains(&stderr, "hint: refresh it first");
    blocked(
        "scan/rds-creating.tfstate",
        &["taint", "aws_db_instance.orders"],
        &["mid-operation"],
    );
    // Untainting and forgetting are not replacements.
    Scratch::of("scan/oci-async-provisioning.tfstate")
        .run(["forget", "oci_core_instance.app", "--dry-run"])
        .code(1);
}

#[test]
fn a_cloud_foundry_instance_mid_operation_takes_no_mutation() {
    // (A taint would change nothing: the fixture is tainted already.)
    for command in ["untaint", "forget"] {
        let stderr = blocked(
            "scan/cf-tainted-in-progress.tfstate",
            &[command, "cloudfoundry_service_instance.orders_db"],
            &["operation-in-progress"],
        );
        assert_contains(
            &stderr,
            "Another operation for this service instance is in progress",
        );
    }
}

#[test]
fn config_prevent_destroy_and_destroy_false_protect_like_the_states_flags() {
    let scratch = Scratch::of("scan/clean.tfstate");
    let config = scratch.path().join("config");
    std::fs::create_dir(&config).unwrap();
    std::fs::write(
        config.join("main.tf"),
        "resource \"aws_db_instance\" \"orders\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n\nresource \"oci_core_vcn\" \"main\" {\n  lifecycle {\n    destroy = false\n  }\n}\n",
    )
    .unwrap();
    for (args, rule) in [
        (["forget", "aws_db_instance.orders"], "prevent-destroy"),
        (["taint", "aws_db_instance.orders"], "prevent-destroy"),
        (["taint", "oci_core_vcn.main"], "skip-destroy"),
    ] {
        let output = scratch
            .run(args.iter().copied().chain(["--config", "config"]))
            .code(3);
        assert_contains(&output.stderr, &format!("[{rule}]"));
        assert!(
            output.stderr.contains("main.tf:"),
            "names the block: {}",
            output.stderr
        );
    }
    // Without --config nothing protects them.
    scratch
        .run(["forget", "aws_db_instance.orders", "--dry-run"])
        .code(1);
    // --force removes it, and says what it overrode.
    scratch
        .run([
            "forget",
            "aws_db_instance.orders",
            "--config",
            "config",
            "--force",
            "--backup",
            "-",
        ])
        .code(0)
        .stderr_contains("warning: overriding forget `aws_db_instance.orders` [prevent-destroy]");
    assert!(!scratch.read().contains("\"name\": \"orders\""));
}

#[test]
fn a_policy_protects_types_and_addresses_and_every_violation_is_listed() {
    let scratch = Scratch::of("scan/rds-creating.tfstate");
    scratch.write("policy.toml", "[[protect]]\ntypes = [\"aws_db_instance\", \"*_bucket\"]\nreason = \"restored from snapshots only\"\n");
    let output = scratch
        .run(["taint", "aws_db_instance.orders", "--policy", "policy.toml"])
        .code(3);
    assert_contains(&output.stderr, "[mid-operation]");
    assert_contains(
        &output.stderr,
        "[protected]: policy.toml protects `aws_db_instance`: restored from snapshots only",
    );
    // `.statectl.toml` found upward from the working directory carries the same tables.
    std::fs::rename(
        scratch.path().join("policy.toml"),
        scratch.path().join(".statectl.toml"),
    )
    .unwrap();
    scratch
        .run(["forget", "aws_db_instance.orders"])
        .code(3)
        .stderr_contains("[protected]");
    let bucket = Scratch::of("scan/opentofu-skip-destroy.tfstate");
    bucket.write("p.toml", "[[protect]]\ntypes = [\"*_bucket\"]\n");
    let output = bucket
        .run(["taint", "aws_s3_bucket.audit_logs", "--policy", "p.toml"])
        .code(3);
    assert_contains(&output.stderr, "[skip-destroy]");
    assert_contains(&output.stderr, "[protected]");
}

#[test]
fn bad_input_gets_one_line_exit_2_and_nothing_written() {
    let scratch = Scratch::of("scan/clean.tfstate");
    let cases: &[(&[&str], &str)] = &[
        (
            &["taint", "aws_instance.nope"],
            "terraform.tfstate: aws_instance.nope: no such resource instance in the state",
        ),
        (
            &["taint", "aws_instance."],
            "invalid address `aws_instance.`",
        ),
        (
            &["forget", "module.nope"],
            "module.nope: no resource instance in the state matches this address",
        ),
        (
            &["forget", "aws_security_group.db", "--deposed", "abc"],
            "no deposed object `abc`",
        ),
        (
            &["taint", "aws_security_group.db", "missing.tfstate"],
            "missing.tfstate: cannot read the state",
        ),
        (
            &["taint", "aws_security_group.db", "--policy", "missing.toml"],
            "missing.toml: cannot read the policy",
        ),
        (
            &["taint", "aws_security_group.db", "--config", "missing"],
            "missing",
        ),
    ];
    for (args, message) in cases {
        scratch.run(args.iter().copied()).refused(message);
        scratch.untouched();
    }
    // From standard input the state cannot be written back: a hint says how.
    Test::new()
        .args(["taint", "aws_security_group.db", "-"])
        .stdin(scratch.original.clone())
        .run()
        .refused("cannot write a state back to standard input")
        .stderr_contains("hint: add `-o -`");
    // Only `-` is an output; clap refuses the rest with its usage error (exit 2).
    scratch
        .run(["taint", "aws_security_group.db", "-o", "new.tfstate"])
        .code(2)
        .stderr_contains("only `-`");
    scratch.untouched();
}

#[test]
fn data_sources_cannot_be_tainted() {
    let scratch = Scratch::of("states/checks.tfstate");
    scratch
        .run(["taint", "data.terraform_remote_state.upstream"])
        .refused("cannot taint a data source");
    scratch.untouched();
}

/// Starts `statectl lock STATE -- sleep SECONDS` and returns once it holds the lock.
fn hold_lock(scratch: &Scratch, seconds: &str) -> std::process::Child {
    let child = spawn_statectl(
        scratch.path(),
        &["lock", "terraform.tfstate", "--", "sleep", seconds],
    );
    let sidecar = scratch.path().join(".terraform.tfstate.lock.info");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sidecar.exists() {
        assert!(
            Instant::now() < deadline,
            "statectl lock did not take the lock"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

#[test]
fn a_held_lock_names_its_holder_and_lock_timeout_waits_for_it() {
    let scratch = Scratch::of("scan/clean.tfstate");
    let mut holder = hold_lock(&scratch, "1");
    let info = json(
        &std::fs::read_to_string(scratch.path().join(".terraform.tfstate.lock.info")).unwrap(),
    );
    let id = info["ID"].as_str().unwrap().to_owned();
    assert_eq!(info["Operation"], "statectl lock");
    assert!(info["Who"].as_str().unwrap().contains('@'));
    let refused = scratch
        .run(["taint", "aws_security_group.db"])
        .refused("the state is locked by `");
    assert_contains(&refused.stderr, &format!("lock ID {id}"));
    assert_contains(&refused.stderr, "operation `statectl lock`");
    assert!(
        refused
            .stderr
            .contains("hint: wait for that run to finish, or add `--lock-timeout 60s`")
    );
    // Waiting: the taint goes through once the holder lets go.
    let started = Instant::now();
    scratch
        .run(["taint", "aws_security_group.db", "--lock-timeout", "20s"])
        .code(0);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "it waited for the holder"
    );
    assert!(holder.wait().unwrap().success());
    assert!(scratch.read().contains("\"status\": \"tainted\""));
    assert!(!scratch.path().join(".terraform.tfstate.lock.info").exists());
}

#[test]
fn lock_passes_the_commands_exit_code_through() {
    let scratch = Scratch::of("scan/clean.tfstate");
    scratch
        .run(["lock", "terraform.tfstate", "--", "sh", "-c", "exit 7"])
        .code(7);
    scratch.untouched();
}

/// An interrupt sent to `statectl lock` alone (not to the command's process group) must not end
/// statectl, and with it the lock, while the command still runs: the lock stays until the command
/// exits, and its exit code is passed through.
#[test]
fn an_interrupt_keeps_the_lock_until_the_command_exits() {
    let scratch = Scratch::of("scan/clean.tfstate");
    let mut holder = hold_lock(&scratch, "2");
    std::thread::sleep(Duration::from_millis(200));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&holder),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(holder.try_wait().unwrap().is_none(), "statectl went on");
    scratch
        .run(["taint", "aws_security_group.db"])
        .refused("the state is locked by `");
    let status = holder.wait().unwrap();
    assert!(status.success(), "the command's own exit code: {status:?}");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut holder.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_contains(
        &stderr,
        "statectl: interrupted; the lock stays until the command exits",
    );
    assert!(!scratch.path().join(".terraform.tfstate.lock.info").exists());
    scratch.run(["taint", "aws_security_group.db"]).code(0);
}

#[test]
fn two_writers_at_once_one_wins_the_other_names_the_holder_and_no_update_is_lost() {
    // A state big enough that each write holds the lock for a while, so the two overlap.
    let big = crate::rewrite_crash::generated_state(3000);
    let mut conflicts = 0;
    for round in 0..6 {
        let scratch = Scratch::with(big.as_bytes());
        let spawn =
            |address: &str| spawn_statectl(scratch.path(), &["taint", address, "--backup", "-"]);
        let (first, second) = (spawn("aws_instance.node[1]"), spawn("aws_instance.node[2]"));
        let outputs = [
            first.wait_with_output().unwrap(),
            second.wait_with_output().unwrap(),
        ];
        let codes: Vec<i32> = outputs
            .iter()
            .map(|output| output.status.code().unwrap())
            .collect();
        let state = json(&scratch.read());
        let tainted =
            |index: usize| state["resources"][0]["instances"][index]["status"] == "tainted";
        match codes[..] {
            [0, 0] => {
                // One after the other: both changes are there, two serials up.
                assert!(
                    tainted(1) && tainted(2),
                    "round {round}: an update was lost"
                );
                assert_eq!(state["serial"], 3);
            }
            [0, 2] | [2, 0] => {
                conflicts += 1;
                let loser = &outputs[usize::from(codes[0] == 0)];
                let stderr = String::from_utf8_lossy(&loser.stderr);
                assert!(
                    stderr.contains("the state is locked by `"),
                    "round {round}: {stderr}"
                );
                assert!(
                    stderr.contains("operation `statectl taint`"),
                    "round {round}: {stderr}"
                );
                assert_eq!(tainted(1), codes[0] == 0, "round {round}");
                assert_eq!(tainted(2), codes[1] == 0, "round {round}");
                assert_eq!(state["serial"], 2);
            }
            _ => panic!("round {round}: exit codes {codes:?}"),
        }
        // With --lock-timeout both get through, neither change lost.
        let scratch = Scratch::with(big.as_bytes());
        let spawn = |address: &str| {
            Command::new(env!("CARGO_BIN_EXE_statectl"))
                .args(["taint", address, "--backup", "-", "--lock-timeout", "60s"])
                .current_dir(scratch.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
        };
        let (first, second) = std::thread::scope(|scope| {
            let first = scope.spawn(|| spawn("aws_instance.node[1]"));
            let second = spawn("aws_instance.node[2]");
            (first.join().unwrap(), second)
        });
        assert!(first.unwrap().success() && second.unwrap().success());
        let state = json(&scratch.read());
        assert_eq!(state["serial"], 3, "round {round}");
        for index in [1, 2] {
            assert_eq!(
                state["resources"][0]["instances"][index]["status"], "tainted",
                "round {round}"
            );
        }
    }
    assert!(
        conflicts > 0,
        "no round had the two writers overlap; the test proves nothing"
    );
}

/// Flags that contradict each other are a usage error for every mutation: exit 2 before the state is
/// read, nothing written, no backup, no lock file.
#[test]
fn contradictory_mutation_flags_are_usage_errors_and_write_nothing() {
    let scratch = Scratch::of("scan/deposed.tfstate");
    for (argv, says) in [
        (
            &["taint", "aws_instance.web", "--dry-run", "-o", "-"][..],
            "the argument '--dry-run' cannot be used with '--output <STDOUT>'",
        ),
        (
            &[
                "untaint",
                "aws_instance.web",
                "--dry-run",
                "--backup",
                "old",
            ],
            "the argument '--dry-run' cannot be used with '--backup <PATH>'",
        ),
        (
            &["forget", "aws_instance.web", "-o", "-", "--backup", "old"],
            "the argument '--output <STDOUT>' cannot be used with '--backup <PATH>'",
        ),
        (
            &[
                "forget",
                "aws_instance.web (deposed object 1a2b3c4d)",
                "--deposed",
                "ffff0000",
            ],
            "error: `--deposed ffff0000` names another deposed object than the address does (`1a2b3c4d`)",
        ),
        (
            &[
                "show",
                "aws_instance.web (deposed object 1a2b3c4d)",
                "--deposed",
                "ffff0000",
            ],
            "error: `--deposed ffff0000` names another deposed object than the address does (`1a2b3c4d`)",
        ),
    ] {
        let output = scratch.run(argv.iter().copied()).code(2);
        assert!(output.stderr.contains(says), "{argv:?}: {}", output.stderr);
        assert_eq!(output.stdout, "", "{argv:?}");
        scratch.untouched();
    }
}
