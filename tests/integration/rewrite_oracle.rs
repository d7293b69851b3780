//! Real Terraform 1.15.5 as the oracle for the mutating commands: on states Terraform wrote,
//! `statectl taint X`, `untaint X` and `forget X` leave the same bytes as `terraform taint X`,
//! `terraform untaint X` and `terraform state rm X` (`check_results` compared as a set: Terraform
//! re-orders it on every write); `terraform state push` accepts statectl's `-o -` output and refuses a
//! file whose serial was not raised; `terraform plan` after `statectl untaint` plans no replacement.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::builder::{Test, assert_contains, find_by, root};
use crate::files::{folder_with, folder_with_copy};
use crate::oracle::{split_check_results, terraform};
use crate::processes::assert_success;

/// Runs Terraform with `args` in `folder`, as CI runs it.
pub(crate) fn run_terraform(terraform: &Path, folder: &Path, args: &[&str]) -> Output {
    Command::new(terraform)
        .args(args)
        .current_dir(folder)
        .env("TF_IN_AUTOMATION", "1")
        .env("TF_INPUT", "0")
        .env("CHECKPOINT_DISABLE", "1")
        .output()
        .expect("terraform runs")
}

/// A folder holding a copy of `state` as `terraform.tfstate`.
pub(crate) fn copy_of(state: &Path) -> tempfile::TempDir {
    folder_with_copy(state)
}

/// The state Terraform leaves after `terraform <command...> ADDRESS` on a copy of `state`.
pub(crate) fn terraform_result(
    terraform: &Path,
    state: &Path,
    command: &[&str],
    address: &str,
) -> String {
    let folder = copy_of(state);
    let mut args: Vec<&str> = command.to_vec();
    args.extend(["-state=terraform.tfstate", address]);
    let output = run_terraform(terraform, folder.path(), &args);
    assert!(
        output.status.success(),
        "terraform {} {address}: {}",
        command.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    state_text(folder.path())
}

/// The state statectl leaves after `statectl <command> ADDRESS` on a copy of `state`.
pub(crate) fn statectl_result(state: &Path, command: &str, address: &str) -> String {
    let folder = copy_of(state);
    Test::new()
        .args([command, address, "terraform.tfstate"])
        .current_dir(folder.path())
        .run()
        .code(0);
    state_text(folder.path())
}

/// `statectl COMMAND ADDRESS` leaves the state `terraform TERRAFORM_COMMAND… ADDRESS` leaves, on
/// copies of `state`.
#[track_caller]
fn assert_same_as_terraform(
    terraform: &Path,
    state: &Path,
    terraform_command: &[&str],
    command: &str,
    address: &str,
) {
    let theirs = terraform_result(terraform, state, terraform_command, address);
    let ours = statectl_result(state, command, address);
    assert_same_state(
        &ours,
        &theirs,
        &format!("{command} {address} in {}", state.display()),
    );
}

#[track_caller]
pub(crate) fn assert_same_state(ours: &str, theirs: &str, what: &str) {
    let (our_head, our_checks) = split_check_results(ours);
    let (their_head, their_checks) = split_check_results(theirs);
    assert_eq!(our_head, their_head, "{what}");
    assert_eq!(our_checks, their_checks, "{what}: check_results as a set");
}

/// The bytes of `terraform.tfstate` in `folder`.
fn state_bytes(folder: &Path) -> Vec<u8> {
    std::fs::read(folder.join("terraform.tfstate")).unwrap()
}

/// The text of `terraform.tfstate` in `folder`.
fn state_text(folder: &Path) -> String {
    std::fs::read_to_string(folder.join("terraform.tfstate")).unwrap()
}

fn testdata(name: &str) -> PathBuf {
    root().join("testdata/states").join(name)
}

/// `(state, address)` pairs covering keys of every kind, modules nested and keyed, and the quoting
/// of keys with escapes.
const TAINTS: &[(&str, &str)] = &[
    ("count_for_each.tfstate", "terraform_data.counted[0]"),
    ("count_for_each.tfstate", "terraform_data.counted[11]"),
    (
        "count_for_each.tfstate",
        r#"terraform_data.keyed["say \"hi\""]"#,
    ),
    (
        "count_for_each.tfstate",
        r#"terraform_data.keyed["naïve ☃ 日本"]"#,
    ),
    ("count_for_each.tfstate", "terraform_data.single"),
    (
        "modules.tfstate",
        r#"module.app["grün"].module.db[1].terraform_data.row["b"]"#,
    ),
    (
        "modules.tfstate",
        "module.shard[10].terraform_data.row[\"x\"]",
    ),
    ("lifecycle.tfstate", "terraform_data.workers[0]"),
    ("sensitive.tfstate", "terraform_data.password"),
    ("values.tfstate", "terraform_data.numbers"),
    ("checks.tfstate", "terraform_data.server[1]"),
];

#[test]
fn taint_gives_the_bytes_terraform_taint_gives() {
    let Some(terraform) = terraform() else { return };
    for (state, address) in TAINTS {
        let state = testdata(state);
        assert!(
            statectl_lists(&state, address),
            "{} has no `{address}`; update TAINTS",
            state.display()
        );
        assert_same_as_terraform(&terraform, &state, &["taint"], "taint", address);
    }
}

#[test]
fn untaint_gives_the_bytes_terraform_untaint_gives() {
    let Some(terraform) = terraform() else { return };
    // Instances Terraform tainted itself (a failed create-before-destroy, `terraform taint`), and ones
    // tainted here by Terraform first.
    let mut cases: Vec<(PathBuf, String)> = vec![
        (
            testdata("lifecycle.tfstate"),
            "terraform_data.workers[1]".into(),
        ),
        (testdata("lifecycle.tfstate"), "terraform_data.cbd".into()),
    ];
    let scratch = tempfile::tempdir().unwrap();
    for (index, (state, address)) in TAINTS.iter().take(6).enumerate() {
        let tainted = terraform_result(&terraform, &testdata(state), &["taint"], address);
        let path = scratch.path().join(format!("{index}.tfstate"));
        std::fs::write(&path, tainted).unwrap();
        cases.push((path, (*address).to_owned()));
    }
    for (state, address) in &cases {
        assert_same_as_terraform(&terraform, state, &["untaint"], "untaint", address);
    }
}

#[test]
fn forget_gives_the_bytes_terraform_state_rm_gives() {
    let Some(terraform) = terraform() else { return };
    let cases: &[(&str, &str)] = &[
        // One instance of many, the first, the last.
        ("count_for_each.tfstate", "terraform_data.counted[5]"),
        ("count_for_each.tfstate", "terraform_data.counted[0]"),
        ("count_for_each.tfstate", r#"terraform_data.set["c"]"#),
        // The only instance: the resource goes too.
        ("count_for_each.tfstate", "terraform_data.single"),
        ("count_for_each.tfstate", "terraform_data.one[0]"),
        // A whole resource, and the first resource of the file.
        ("count_for_each.tfstate", "terraform_data.keyed"),
        ("count_for_each.tfstate", "terraform_data.counted"),
        // Modules: a keyed call, a whole call with nested modules, one nested instance.
        ("modules.tfstate", r#"module.app["green"]"#),
        ("modules.tfstate", "module.app"),
        ("modules.tfstate", "module.shard[3]"),
        (
            "modules.tfstate",
            r#"module.single.module.db[1].terraform_data.row["a"]"#,
        ),
        // An instance with a deposed object goes whole, deposed object included.
        ("lifecycle.tfstate", "terraform_data.cbd"),
        ("lifecycle.tfstate", "terraform_data.workers"),
        // A data source, and a module-less whole state's last resource.
        ("checks.tfstate", "data.terraform_remote_state.upstream"),
        ("values.tfstate", "terraform_data.types"),
    ];
    for (state, address) in cases {
        let state = testdata(state);
        assert_same_as_terraform(&terraform, &state, &["state", "rm"], "forget", address);
    }
}

fn statectl_lists(state: &Path, address: &str) -> bool {
    let listed = Test::new().arg("list").arg(state).run().code(0);
    listed.stdout.lines().any(|line| line == address)
}

#[test]
fn terraform_state_push_takes_statectls_output_and_refuses_an_unraised_serial() {
    let Some(terraform) = terraform() else { return };
    let state = testdata("count_for_each.tfstate");
    let folder = copy_of(&state);
    // statectl writes the new state to stdout, as for `terraform state push -`.
    let pushed = Test::new()
        .args([
            "taint",
            "terraform_data.counted[2]",
            "terraform.tfstate",
            "-o",
            "-",
        ])
        .current_dir(folder.path())
        .run()
        .code(0);
    assert_eq!(
        state_bytes(folder.path()),
        std::fs::read(&state).unwrap(),
        "-o - leaves the file alone"
    );
    std::fs::write(folder.path().join("new.tfstate"), &pushed.stdout).unwrap();
    // The same change with the serial put back: Terraform must refuse it.
    let original: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    let serial = original["serial"].as_u64().unwrap();
    let unraised = pushed.stdout.replacen(
        &format!("\"serial\": {}", serial + 1),
        &format!("\"serial\": {serial}"),
        1,
    );
    assert_ne!(unraised, pushed.stdout);
    std::fs::write(folder.path().join("unraised.tfstate"), &unraised).unwrap();

    let refused = run_terraform(
        &terraform,
        folder.path(),
        &["state", "push", "unraised.tfstate"],
    );
    assert!(
        !refused.status.success(),
        "terraform state push took a state whose serial was not raised"
    );
    let message = String::from_utf8_lossy(&refused.stderr);
    assert_contains(&message, "serial");

    let accepted = run_terraform(&terraform, folder.path(), &["state", "push", "new.tfstate"]);
    assert!(
        accepted.status.success(),
        "terraform state push: {}",
        String::from_utf8_lossy(&accepted.stderr)
    );
    let after = run_terraform(&terraform, folder.path(), &["state", "pull"]);
    let after: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
    // The local backend raises the serial once more as it persists what was pushed.
    assert!(
        after["serial"].as_u64().unwrap() > serial,
        "{}",
        after["serial"]
    );
    assert_eq!(after["lineage"], original["lineage"]);
    assert_eq!(after["resources"][0]["instances"][2]["status"], "tainted");
}

#[test]
fn terraform_plans_no_replacement_after_statectl_untaint() {
    let Some(terraform) = terraform() else { return };
    let folder = tempfile::tempdir().unwrap();
    let config = root().join("testdata/terraform/count_for_each");
    for entry in std::fs::read_dir(&config).unwrap() {
        let entry = entry.unwrap();
        if entry
            .path()
            .extension()
            .is_some_and(|extension| extension == "tf")
        {
            std::fs::copy(entry.path(), folder.path().join(entry.file_name())).unwrap();
        }
    }
    std::fs::copy(
        testdata("count_for_each.tfstate"),
        folder.path().join("terraform.tfstate"),
    )
    .unwrap();
    let init = run_terraform(&terraform, folder.path(), &["init", "-no-color"]);
    assert_success(&init);
    let plan = |folder: &Path| {
        run_terraform(
            &terraform,
            folder,
            &["plan", "-no-color", "-detailed-exitcode", "-lock=false"],
        )
    };
    // Terraform's `-detailed-exitcode` is 0 for a plan without changes.
    let plans_nothing = |when: &str| {
        let output = plan(folder.path());
        assert_eq!(
            output.status.code(),
            Some(0),
            "{when}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
    };
    plans_nothing("the fixture plans no changes");

    let address = "terraform_data.counted[3]";
    Test::new()
        .args(["taint", address])
        .current_dir(folder.path())
        .run()
        .code(0);
    let tainted = plan(folder.path());
    let text = String::from_utf8_lossy(&tainted.stdout);
    assert_eq!(tainted.status.code(), Some(2), "{text}");
    assert_contains(&text, &format!("{address} is tainted, so must be replaced"));

    Test::new()
        .args(["untaint", address])
        .current_dir(folder.path())
        .run()
        .code(0);
    plans_nothing("no changes after untaint");
}

/// A root module whose apply holds the state lock for `pause` seconds (a provisioner sleeps), beside
/// a resource for statectl to change meanwhile; applied once, so the state exists.
fn slow_apply_folder(terraform: &Path) -> tempfile::TempDir {
    let folder = folder_with(
        "main.tf",
        r#"variable "pause" {
  type    = number
  default = 0
}

resource "terraform_data" "slow" {
  triggers_replace = var.pause
  provisioner "local-exec" {
    command = "sleep ${var.pause}"
  }
}

resource "terraform_data" "other" {
  input = "statectl changes this one"
}
"#,
    );
    for args in [
        &["init", "-no-color"][..],
        &["apply", "-auto-approve", "-no-color"],
    ] {
        let output = run_terraform(terraform, folder.path(), args);
        assert_success(&output);
    }
    folder
}

/// Waits until someone holds the lock of the state in `folder` (its lock info file appears).
fn wait_for_lock_info(folder: &Path) {
    let sidecar = folder.join(".terraform.tfstate.lock.info");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !sidecar.exists() {
        assert!(std::time::Instant::now() < deadline, "nobody took the lock");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn statectl_names_terraform_holding_the_lock_and_waits_for_it_with_lock_timeout() {
    let Some(terraform) = terraform() else { return };
    let folder = slow_apply_folder(&terraform);
    let apply = Command::new(&terraform)
        .args(["apply", "-auto-approve", "-no-color", "-var", "pause=3"])
        .current_dir(folder.path())
        .env("TF_IN_AUTOMATION", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lock_info(folder.path());
    let refused = Test::new()
        .args(["taint", "terraform_data.other"])
        .current_dir(folder.path())
        .run()
        .refused("terraform.tfstate: the state is locked by `");
    assert_contains(
        &refused.stderr,
        "(Terraform 1.15.5, operation `OperationTypeApply`",
    );
    // Waiting for Terraform, then changing what it wrote: both updates are in the state.
    Test::new()
        .args(["taint", "terraform_data.other", "--lock-timeout", "60s"])
        .current_dir(folder.path())
        .run()
        .code(0);
    let applied = apply.wait_with_output().unwrap();
    assert_success(&applied);
    let state: serde_json::Value = serde_json::from_slice(&state_bytes(folder.path())).unwrap();
    let resource = |name: &str| find_by(&state["resources"], "name", name).clone();
    assert_eq!(
        resource("slow")["instances"][0]["attributes"]["triggers_replace"]["value"],
        3,
        "Terraform's apply is kept"
    );
    assert_eq!(
        resource("other")["instances"][0]["status"],
        "tainted",
        "statectl's taint is there"
    );
}

#[test]
fn terraform_fails_to_acquire_the_lock_statectl_holds() {
    let Some(terraform) = terraform() else { return };
    let folder = slow_apply_folder(&terraform);
    let before = state_bytes(folder.path());
    let output = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(["lock", "terraform.tfstate", "--"])
        .arg(&terraform)
        .args(["taint", "-no-color", "terraform_data.other"])
        .current_dir(folder.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "terraform's exit code, passed through: {stderr}"
    );
    assert_contains(&stderr, "Error acquiring the state lock");
    // Terraform read statectl's lock info to name the holder.
    assert_contains(&stderr, "Operation: statectl lock");
    assert_contains(&stderr, "statectl 0.");
    assert_eq!(state_bytes(folder.path()), before);
}

/// A Terraform waiting on the lock (`-lock-timeout`) while statectl replaces the file holds the old
/// file open. It must never report success for an update that went into that old file: either its
/// change is in the final state, or it fails.
#[test]
fn a_terraform_waiting_on_the_lock_while_statectl_writes_never_loses_its_update_silently() {
    let Some(terraform) = terraform() else { return };
    let folder = slow_apply_folder(&terraform);
    let holder = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(["lock", "terraform.tfstate", "--", "sleep", "2"])
        .current_dir(folder.path())
        .spawn()
        .unwrap();
    wait_for_lock_info(folder.path());
    let spawn = |program: &Path, args: &[&str]| {
        Command::new(program)
            .args(args)
            .current_dir(folder.path())
            .env("TF_IN_AUTOMATION", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let terraform_taint = spawn(
        &terraform,
        &[
            "taint",
            "-no-color",
            "-lock-timeout=60s",
            "terraform_data.slow",
        ],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let statectl_taint = spawn(
        Path::new(env!("CARGO_BIN_EXE_statectl")),
        &["taint", "terraform_data.other", "--lock-timeout", "60s"],
    );
    let statectl = statectl_taint.wait_with_output().unwrap();
    let theirs = terraform_taint.wait_with_output().unwrap();
    assert!(holder.wait_with_output().unwrap().status.success());
    assert_success(&statectl);
    let state: serde_json::Value = serde_json::from_slice(&state_bytes(folder.path())).unwrap();
    let status =
        |name: &str| find_by(&state["resources"], "name", name)["instances"][0]["status"].clone();
    assert_eq!(status("other"), "tainted");
    if theirs.status.success() {
        assert_eq!(
            status("slow"),
            "tainted",
            "Terraform reported success but its taint is lost"
        );
    } else {
        let stderr = String::from_utf8_lossy(&theirs.stderr);
        eprintln!(
            "terraform failed safely: {}",
            stderr
                .lines()
                .find(|line| !line.trim().is_empty())
                .unwrap_or("")
        );
        assert_ne!(status("slow"), "tainted");
    }
}

/// Issue 25, item 14: `terraform state rm` takes several addresses; so does `forget`, in one locked
/// write with one serial raise, overlapping and repeated addresses included, leaving Terraform's bytes.
#[test]
fn forget_of_several_addresses_gives_the_bytes_terraform_state_rm_gives() {
    let Some(terraform) = terraform() else { return };
    let state = testdata("modules.tfstate");
    let addresses = [
        "module.shard[1]",
        "terraform_data.root",
        r#"module.app["blue"]"#,
        r#"module.app["blue"].module.db[0]"#,
        "module.shard[1]",
    ];
    let theirs = {
        let folder = copy_of(&state);
        let mut args = vec!["state", "rm", "-state=terraform.tfstate"];
        args.extend(addresses);
        let output = run_terraform(&terraform, folder.path(), &args);
        assert!(output.status.success(), "{output:?}");
        state_text(folder.path())
    };
    let folder = copy_of(&state);
    Test::new()
        .arg("forget")
        .args(addresses)
        .arg("terraform.tfstate")
        .current_dir(folder.path())
        .run()
        .code(0)
        .stderr_contains("Removed 7 objects; serial 33 -> 34");
    let ours = state_text(folder.path());
    assert_same_state(&ours, &theirs, "forget of several addresses");
    // Every address must match something: a typo writes nothing (Terraform drops the others and
    // says nothing of it).
    let before = state_bytes(folder.path());
    Test::new()
        .args(["forget", "module.shard[2]", "terraform_data.nosuch", "terraform.tfstate"])
        .current_dir(folder.path())
        .run()
        .stderr_is("error: terraform.tfstate: terraform_data.nosuch: no resource instance in the state matches this address\nhint: `statectl list` prints every address the state holds\n");
    assert_eq!(state_bytes(folder.path()), before);
}

/// Issue 24, item 22: `terraform untaint` of an instance that is not tainted exits 1 and writes
/// nothing; so does `statectl untaint`.
#[test]
fn untaint_of_an_instance_that_is_not_tainted_exits_as_terraform_does() {
    let Some(terraform) = terraform() else { return };
    let state = testdata("lifecycle.tfstate");
    let folder = copy_of(&state);
    let theirs = run_terraform(
        &terraform,
        folder.path(),
        &[
            "untaint",
            "-state=terraform.tfstate",
            "terraform_data.workers[0]",
        ],
    );
    assert_eq!(theirs.status.code(), Some(1), "{theirs:?}");
    assert!(String::from_utf8_lossy(&theirs.stderr).contains("is not tainted"));
    Test::new()
        .args(["untaint", "terraform_data.workers[0]", "terraform.tfstate"])
        .current_dir(folder.path())
        .run()
        .code(theirs.status.code().unwrap());
    assert_eq!(state_bytes(folder.path()), std::fs::read(&state).unwrap());
}
