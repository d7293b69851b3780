//! `statectl drift`'s refusals, which need no provider: every bad input is one line (and a hint
//! where there is a fix), exit 2, nothing read through any plugin, never a panic. The runs against
//! real providers are in plugin_tf.rs (protocol 6) and drift_stack.rs (the AWS provider on moto).

use crate::builder::{Output, Test};

/// A state of one VPC, as the AWS provider writes it, in a folder where `terraform init` never ran.
const STATE: &str = r#"{
  "version": 4,
  "terraform_version": "1.15.5",
  "serial": 3,
  "lineage": "8d1bd1c4-1f0c-4a54-a7a4-1f2f2f7f0a11",
  "outputs": {},
  "resources": [
    {
      "mode": "managed",
      "type": "aws_vpc",
      "name": "main",
      "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
      "instances": [
        {
          "schema_version": 1,
          "attributes": {"id": "vpc-1", "cidr_block": "10.0.0.0/16", "tags": {"Name": "main"}},
          "sensitive_attributes": [],
          "private": "eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ=="
        }
      ]
    }
  ],
  "check_results": null
}
"#;

fn state_folder() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("terraform.tfstate"), STATE).unwrap();
    folder
}

/// `statectl drift` by the state with `settings` as its `.statectl.toml`: a refusal (exit 2).
#[track_caller]
fn drift_with_settings(settings: &str) -> Output {
    let folder = state_folder();
    std::fs::write(folder.path().join(".statectl.toml"), settings).unwrap();
    Test::new()
        .current_dir(folder.path())
        .args(["drift"])
        .run()
        .code(2)
}

#[test]
fn drift_refuses_an_ignore_pattern_without_a_type() {
    let folder = state_folder();
    Test::new()
        .current_dir(folder.path())
        .args(["drift", "--ignore", "LastScanned"])
        .run()
        .refused("error: `--ignore LastScanned`: `LastScanned` is not TYPE.PATH");
}

#[test]
fn drift_refuses_a_settings_file_ignore_without_a_reason() {
    let stderr =
        drift_with_settings("[[drift.ignore]]\nattribute = \"aws_instance.tags.LastScanned\"\n")
            .stderr;
    assert!(
        stderr.contains(".statectl.toml:1:1: invalid rules file: missing field `reason`"),
        "{stderr}"
    );
    assert!(stderr.lines().count() <= 2, "{stderr}");
}

#[test]
fn drift_refuses_a_settings_file_ignore_without_a_type() {
    let output = drift_with_settings(
        "[[drift.ignore]]\nattribute = \"LastScanned\"\nreason = \"the scanner\"\n",
    );
    assert!(
        output.stderr.contains(
            ".statectl.toml: [[drift.ignore]]: `LastScanned` is not TYPE.PATH: a resource type, a dot, an attribute path"
        ),
        "{}",
        output.stderr
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn drift_has_no_write_path_and_knows_its_formats() {
    let folder = state_folder();
    for (args, message) in [
        (&["drift", "--write"][..], "unexpected argument '--write'"),
        (&["drift", "-o", "-"], "unexpected argument '-o'"),
        (
            &["drift", "--format", "yaml"],
            "invalid value 'yaml' for '--format",
        ),
        (
            &["drift", "--parallelism", "0"],
            "invalid value '0' for '--parallelism",
        ),
        (
            &["drift", "--lock-timeout", "5s"],
            "`--lock-timeout` waits for the lock",
        ),
    ] {
        let output = Test::new()
            .current_dir(folder.path())
            .args(args)
            .run()
            .code(2);
        let stderr = output.stderr;
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// No provider to start (nothing installed by `terraform init`): one line naming the provider and
/// what to run, exit 2, and the state untouched.
#[test]
fn drift_without_the_provider_installed_is_one_clear_error() {
    let folder = state_folder();
    let state = folder.path().join("terraform.tfstate");
    let before = (
        std::fs::read(&state).unwrap(),
        std::fs::metadata(&state).unwrap().modified().unwrap(),
    );
    let output = Test::new()
        .current_dir(folder.path())
        .args(["drift"])
        .run()
        .code(2);
    let stderr = output.stderr;
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        (
            std::fs::read(&state).unwrap(),
            std::fs::metadata(&state).unwrap().modified().unwrap()
        ),
        before
    );
}

#[test]
fn drift_of_a_missing_state_is_one_clear_error() {
    let folder = tempfile::tempdir().unwrap();
    let output = Test::new()
        .current_dir(folder.path())
        .args(["drift", "nowhere.tfstate"])
        .run()
        .code(2);
    let stderr = output.stderr;
    assert!(stderr.starts_with("error: nowhere.tfstate"), "{stderr}");
}

/// `--module` keeps the instances in a module and below it, `--type` and `--target` as in refresh;
/// what is chosen here is all `terraform_data`, built into Terraform: counted, never read.
#[test]
fn drift_chooses_instances_by_module_type_and_target() {
    for (args, chosen) in [
        (&["--module", "module.single"][..], 5),
        (&["--module", "module.app*"], 15),
        (
            &[
                "--module",
                "module.app*",
                "--target",
                "module.app[\"blue\"]",
            ],
            5,
        ),
    ] {
        let output = Test::new()
            .args(["drift", "testdata/states/modules.tfstate"])
            .args(args)
            .run()
            .code(0);
        let expected = format!(
            "testdata/states/modules.tfstate: 0 instances read; no drift; {chosen} built into Terraform (no remote object) not read\n"
        );
        assert_eq!(output.stdout, expected, "{args:?}");
    }
    // A choice that matches nothing is a mistake, not "no drift".
    Test::new()
        .args([
            "drift",
            "testdata/states/modules.tfstate",
            "--type",
            "aws_*",
        ])
        .run()
        .refused("error: no managed instance in the state matches the --target and --type given");
    // And so is a module that is not there (it read nothing and said "no drift" before).
    Test::new()
        .args([
            "drift",
            "testdata/states/modules.tfstate",
            "--module",
            "module.nowhere",
        ])
        .run()
        .refused("error: no managed instance in the state matches the --module given");
}

/// `--workspace GLOB` chooses among a working directory's workspaces: with a state file it is one
/// line (exit 2); in a folder without `terraform init`, the local workspaces are listed, and a glob
/// matching none names them.
#[test]
fn drift_refuses_a_workspace_glob_it_cannot_list_or_that_matches_nothing() {
    let folder = state_folder();
    Test::new()
        .current_dir(folder.path())
        .args(["drift", "--workspace", "*", "terraform.tfstate"])
        .run()
        .refused("error: `--workspace *` chooses among the workspaces of working directories, but `terraform.tfstate` is not one\nhint: ");
    std::fs::create_dir_all(folder.path().join("terraform.tfstate.d/dev")).unwrap();
    Test::new()
        .current_dir(folder.path())
        .args(["drift", "--workspace", "prod-*"])
        .run()
        .refused("error: `--workspace prod-*` matches no workspace of backend \"local\"\nhint: the workspaces there: default, dev\n");
}
