//! The configuration in the working directory, read as Terraform reads it: every command that applies
//! lifecycle rules (`taint`, `untaint`, `forget`, `refresh --write`, `audit`) takes them from the `.tf`
//! and `.tofu` files there, says which folder it read, and leaves them out only when told
//! (`--no-config`), saying so. And `audit --plan` of a plan Terraform marked errored.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::builder::{Output, Test, assert_contains, assert_lacks, assert_starts_with, root};

/// A scratch copy of `testdata/audit/prevent-destroy` (its `main.tf` sets `prevent_destroy` on
/// `terraform_data.protected`), as a user's working directory.
fn working_copy() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let case = root().join("testdata/audit/prevent-destroy");
    for name in ["main.tf", "terraform.tfstate", "plan-destroy.json"] {
        std::fs::copy(case.join(name), folder.path().join(name)).unwrap();
    }
    folder
}

/// Runs statectl in `folder`, with the folder's path written `DIR` in stderr.
fn run_in(folder: &Path, args: &[&str]) -> Output {
    let mut output = Test::new().args(args).current_dir(folder).run();
    let shown = folder.canonicalize().unwrap();
    output.stderr = output
        .stderr
        .replace(&shown.display().to_string(), "DIR")
        .replace(&folder.display().to_string(), "DIR");
    output
}

const READ_HERE: &str = "lifecycle rules from the configuration in `DIR` (the working directory; `--no-config` leaves them out)\n";

#[test]
fn the_mutations_apply_the_lifecycle_rules_of_the_working_directory() {
    let folder = working_copy();
    let before = std::fs::read(folder.path().join("terraform.tfstate")).unwrap();
    for args in [
        &["taint", "terraform_data.protected", "--dry-run"][..],
        &["taint", "terraform_data.protected"],
        &["forget", "terraform_data.protected"],
    ] {
        let output = run_in(folder.path(), args).code(3).stdout("");
        assert!(
            output.stderr.starts_with(READ_HERE),
            "{args:?}: {}",
            output.stderr
        );
        assert!(
            output.stderr.contains("prevent-destroy"),
            "{args:?}: {}",
            output.stderr
        );
    }
    assert_eq!(
        std::fs::read(folder.path().join("terraform.tfstate")).unwrap(),
        before,
        "nothing written"
    );
    // The unprotected one goes ahead, with the same line first.
    let output = run_in(
        folder.path(),
        &["taint", "terraform_data.unprotected", "--dry-run"],
    )
    .code(1);
    assert_starts_with(&output.stderr, READ_HERE);
}

#[test]
fn no_config_leaves_the_rules_out_and_says_so() {
    let folder = working_copy();
    let output = run_in(
        folder.path(),
        &[
            "taint",
            "terraform_data.protected",
            "--dry-run",
            "--no-config",
        ],
    )
    .code(1);
    assert_starts_with(
        &output.stderr,
        "warning: the lifecycle rules of the configuration were not applied (`--no-config`)\n",
    );
    assert_lacks(&output.stderr, "lifecycle rules from");
    let audit = run_in(folder.path(), &["audit", "--no-config", "--format", "json"]).code(0);
    assert_contains(&audit.stderr, "were not applied (`--no-config`)");
    // `--no-config` with `--config` contradicts itself.
    run_in(folder.path(), &["audit", "--no-config", "--config", "."])
        .code(2)
        .stdout("");
}

#[test]
fn config_dir_chooses_another_folder_and_a_folder_without_configuration_reads_none() {
    let folder = working_copy();
    let elsewhere = tempfile::tempdir().unwrap();
    let state = folder.path().join("terraform.tfstate");
    let state = state.to_str().unwrap();
    let config = folder.path().to_str().unwrap();
    // No `.tf` file where it runs: nothing read, nothing said (the rules of the state and the
    // policy still apply).
    let output = run_in(
        elsewhere.path(),
        &["taint", "terraform_data.protected", state, "--dry-run"],
    )
    .code(1);
    assert_lacks(&output.stderr, "lifecycle rules");
    let output = Test::new()
        .args([
            "taint",
            "terraform_data.protected",
            state,
            "--dry-run",
            "--config",
            config,
        ])
        .current_dir(elsewhere.path())
        .run()
        .code(3);
    assert_starts_with(
        &output.stderr,
        &format!("lifecycle rules from the configuration in `{config}`\n"),
    );
}

#[test]
fn audit_reads_the_working_directory_and_blocks_what_terraform_would() {
    let folder = working_copy();
    let output = run_in(folder.path(), &["audit", "--format", "json"]).code(1);
    assert_starts_with(&output.stderr, READ_HERE);
    let document = output.json();
    assert_eq!(document["summary"]["blocked"], 1, "{document:#}");
}

#[test]
fn tofu_files_in_the_working_directory_count() {
    let folder = working_copy();
    std::fs::rename(
        folder.path().join("main.tf"),
        folder.path().join("main.tofu"),
    )
    .unwrap();
    let output = run_in(
        folder.path(),
        &["forget", "terraform_data.protected", "--dry-run"],
    )
    .code(3);
    assert_starts_with(&output.stderr, READ_HERE);
}

/// A plan Terraform saved although it errored (here `plan -destroy` stopped by `prevent_destroy`)
/// is refused, exit 2, instead of audited as a plan: from the fixture and from the hint's side, a
/// finished plan that deletes a `prevent_destroy` resource gets the hint that fits it.
#[test]
fn an_errored_plan_is_refused_and_a_finished_one_gets_the_right_hint() {
    let folder = working_copy();
    let output = run_in(folder.path(), &["audit", "--plan", "plan-destroy.json"]).refused(
        "error: plan-destroy.json: the plan errored (`\"errored\": true`): Terraform stopped at an error",
    );
    assert!(
        output
            .stderr
            .contains("hint: read the errors `terraform plan` printed")
    );
    let finished = std::fs::read_to_string(folder.path().join("plan-destroy.json"))
        .unwrap()
        .replace("\"errored\": true", "\"errored\": false");
    std::fs::write(folder.path().join("finished.json"), finished).unwrap();
    let output = run_in(folder.path(), &["audit", "--plan", "finished.json"]).code(3);
    assert_contains(
        &output.stderr,
        "Terraform refuses to plan this delete while `prevent_destroy` is set",
    );
    assert!(!output.stderr.contains("is not the one that protects it"));
}

/// The same with real Terraform 1.15.5: `plan -destroy -out` of the `prevent_destroy` case fails,
/// saves the plan all the same, and `terraform show -json` of it says `"errored": true`.
#[test]
fn an_errored_plan_from_real_terraform_is_refused() {
    let Some(terraform) = crate::oracle::terraform() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("testdata/audit/prevent-destroy/main.tf"),
        folder.path().join("main.tf"),
    )
    .unwrap();
    let tf = |args: &[&str]| {
        let mut command = Command::new(&terraform);
        command
            .args(args)
            .current_dir(folder.path())
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            .env("CHECKPOINT_DISABLE", "1");
        command
    };
    crate::oracle::run(&mut tf(&["init", "-no-color"]));
    crate::oracle::run(&mut tf(&["apply", "-auto-approve", "-no-color"]));
    let failed = tf(&["plan", "-destroy", "-no-color", "-out=plan.out"])
        .output()
        .unwrap();
    assert!(!failed.status.success(), "prevent_destroy stops the plan");
    let shown = tf(&["show", "-json", "plan.out"]).output().unwrap();
    assert!(shown.status.success());
    let plan: PathBuf = folder.path().join("plan.json");
    std::fs::write(&plan, &shown.stdout).unwrap();
    assert!(String::from_utf8_lossy(&shown.stdout).contains("\"errored\":true"));
    run_in(folder.path(), &["audit", "--plan", "plan.json"])
        .refused("error: plan.json: the plan errored (`\"errored\": true`)");
}
