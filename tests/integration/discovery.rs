//! States found as Terraform finds them: in a directory `terraform init` initialised, with no state
//! argument, statectl reads the state of the recorded backend in the selected workspace, the one
//! `terraform state list` lists. Real Terraform 1.15.5 makes the directories, with the `local` backend
//! (the remote backends have their own tests, against servers on loopback).

use std::path::Path;

use crate::builder::{Test, assert_contains};
use crate::files::folder_with;
use crate::oracle::terraform;
use crate::processes::assert_success;
use crate::rewrite_oracle::run_terraform;

/// A configuration with a configured local backend and two `terraform_data` resources, applied in the
/// default workspace and in `blue` (which gets a third resource through a variable).
fn initialised_with_workspaces(terraform: &Path) -> tempfile::TempDir {
    let folder = folder_with(
        "main.tf",
        r#"terraform {
  backend "local" {
    path          = "states/prod.tfstate"
    workspace_dir = "ws"
  }
}
variable "extra" {
  default = 0
}
resource "terraform_data" "app" {
  input = "app"
}
resource "terraform_data" "db" {
  count = 1 + var.extra
  input = "db"
}
"#,
    );
    for args in [
        &["init", "-input=false"][..],
        &["apply", "-auto-approve", "-input=false"],
        &["workspace", "new", "blue"],
        &["apply", "-auto-approve", "-input=false", "-var=extra=1"],
    ] {
        let output = run_terraform(terraform, folder.path(), args);
        assert!(
            output.status.success(),
            "terraform {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    folder
}

fn terraform_list(terraform: &Path, folder: &Path, workspace: &str) -> String {
    let output = std::process::Command::new(terraform)
        .args(["state", "list"])
        .current_dir(folder)
        .env("TF_WORKSPACE", workspace)
        .output()
        .unwrap();
    assert_success(&output);
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn with_no_state_argument_the_selected_workspace_of_the_recorded_backend_is_read() {
    let Some(terraform) = terraform() else { return };
    let folder = initialised_with_workspaces(&terraform);
    // `terraform workspace new` selected `blue`.
    let blue = terraform_list(&terraform, folder.path(), "blue");
    assert_eq!(blue.lines().count(), 3, "{blue}");
    let output = Test::new()
        .arg("list")
        .current_dir(folder.path())
        .run()
        .code(0)
        .stdout(&blue);
    assert_eq!(
        output.stderr,
        "state ws/blue/terraform.tfstate (workspace \"blue\")\n"
    );
    // TF_WORKSPACE wins over the selection, and `--workspace` over both.
    let default = terraform_list(&terraform, folder.path(), "default");
    assert_eq!(default.lines().count(), 2, "{default}");
    let output = Test::new()
        .arg("list")
        .current_dir(folder.path())
        .env("TF_WORKSPACE", "default")
        .run()
        .code(0)
        .stdout(&default);
    assert_eq!(
        output.stderr,
        "state states/prod.tfstate (backend \"local\" in .terraform/terraform.tfstate)\n"
    );
    Test::new()
        .args(["list", "--workspace", "blue"])
        .current_dir(folder.path())
        .env("TF_WORKSPACE", "default")
        .run()
        .code(0)
        .stdout(&blue);
}

#[test]
fn a_taint_in_a_workspace_writes_the_state_terraform_reads_there() {
    let Some(terraform) = terraform() else { return };
    let folder = initialised_with_workspaces(&terraform);
    Test::new()
        .args(["taint", "terraform_data.db[1]"])
        .current_dir(folder.path())
        .run()
        .code(0);
    let output = run_terraform(
        &terraform,
        folder.path(),
        &["state", "show", "terraform_data.db[1]"],
    );
    let shown = String::from_utf8(output.stdout).unwrap();
    assert_contains(&shown, "(tainted)");
    // The default workspace's state is untouched.
    let default = std::fs::read_to_string(folder.path().join("states/prod.tfstate")).unwrap();
    assert!(!default.contains("tainted"));
    // Terraform plans the replacement without complaint.
    let output = run_terraform(
        &terraform,
        folder.path(),
        &["plan", "-input=false", "-no-color", "-var=extra=1"],
    );
    assert_success(&output);
    let plan = String::from_utf8(output.stdout).unwrap();
    assert_contains(
        &plan,
        "terraform_data.db[1] is tainted, so must be replaced",
    );
}

#[test]
fn backend_flags_with_a_file_argument_or_an_unknown_key_are_refused() {
    let Some(terraform) = terraform() else { return };
    let folder = initialised_with_workspaces(&terraform);
    Test::new()
        .args(["list", "ws/blue/terraform.tfstate", "--workspace", "blue"])
        .current_dir(folder.path())
        .run()
        .refused("error: `--workspace` and `--backend-config` choose a backend's state, but `ws/blue/terraform.tfstate` is a file\nhint: leave the state argument out to use the backend `terraform init` recorded here, or give a URL (`s3://bucket/key`)\n");
    Test::new()
        .args(["list", "--backend-config", "bucket=b"])
        .current_dir(folder.path())
        .run()
        .refused("error: --backend-config bucket=b: `bucket` is not an argument of backend \"local\"\nhint: the arguments it takes are those in .terraform/terraform.tfstate\n");
    Test::new()
        .args(["list", "--workspace", "../x"])
        .current_dir(folder.path())
        .run()
        .refused("error: --workspace: `../x` is not a valid workspace name\nhint: workspace names use letters, digits and `-_.~$&+,:;=@`; `terraform workspace list` shows them\n");
}
