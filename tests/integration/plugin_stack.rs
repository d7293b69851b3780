//! The plugin reader against a real stack, on loopback: real Terraform 1.15.5 applies
//! `testdata/plugin/aws` with the real AWS provider 3.39.0 (installed by `terraform init` from the
//! filesystem mirror scripts/install-aws-provider.sh makes) against moto's server
//! (scripts/install-moto.sh). The state is then made stale as an interrupted async create leaves it,
//! and `statectl refresh --reader plugin` must write what `terraform apply -refresh-only` writes; an
//! instance deleted behind Terraform's back must come out gone. Without the stack these tests skip,
//! except under CI, where they fail.

use std::process::Command;

use serde_json::Value;

use crate::aws_stack::AwsStack;
use crate::builder::assert_contains;
use crate::oracle::run;

/// The stack of `testdata/plugin/aws`, with this module's own steps.
type Stack = AwsStack;

fn apply_stack() -> Option<Stack> {
    AwsStack::apply("plugin/aws", &[])
}

impl AwsStack {
    fn state(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.path().join("terraform.tfstate")).unwrap())
            .unwrap()
    }

    fn write_state(&self, state: &Value) {
        let mut text = serde_json::to_string_pretty(state).unwrap();
        text.push('\n');
        std::fs::write(self.path().join("terraform.tfstate"), text).unwrap();
    }

    /// `statectl refresh --reader plugin` here; the endpoint is a variable, which statectl cannot
    /// evaluate, so it comes in a --provider-config file.
    fn statectl_refresh(&self, extra: &[&str]) -> (i32, String, String) {
        let services = ["ec2", "rds", "s3", "sts", "iam"];
        let settings = serde_json::json!({});
        crate::processes::output_of(&mut crate::processes::aws_plugin_refresh(
            self.path(),
            &self.moto.url(),
            &services,
            settings,
            extra,
        ))
    }
}

fn instance<'s>(state: &'s Value, type_name: &str) -> Option<&'s Value> {
    state["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|resource| resource["type"] == type_name)
        .map(|resource| &resource["instances"][0])
}

/// What an interrupted async create leaves: the instance still `pending` without addresses, the
/// database still `creating` without an endpoint.
fn make_stale(state: &mut Value) {
    state["serial"] = Value::from(state["serial"].as_u64().unwrap() + 1);
    for resource in state["resources"].as_array_mut().unwrap() {
        let type_name = resource["type"].as_str().unwrap().to_owned();
        let attributes = &mut resource["instances"][0]["attributes"];
        match type_name.as_str() {
            "aws_instance" => {
                attributes["instance_state"] = "pending".into();
                for name in ["public_ip", "private_ip", "public_dns", "private_dns"] {
                    attributes[name] = Value::Null;
                }
            }
            "aws_db_instance" => {
                attributes["status"] = "creating".into();
                attributes["address"] = Value::Null;
                attributes["endpoint"] = Value::Null;
            }
            _ => {}
        }
    }
}

/// An object without the one attribute moto makes up anew on every read.
fn comparable(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(attributes) = object["attributes"].as_object_mut() {
        attributes.remove("latest_restorable_time");
    }
    object
}

#[test]
fn refresh_through_the_aws_plugin_writes_what_terraform_refresh_only_writes() {
    let Some(stack) = apply_stack() else { return };
    let applied = stack.state();
    let mut stale = applied.clone();
    make_stale(&mut stale);
    stack.write_state(&stale);
    // Terraform's own answer, on a copy of the working folder.
    let copy = tempfile::tempdir().unwrap();
    for name in [
        "main.tf",
        "moto.tf",
        "cli.tfrc",
        ".terraform.lock.hcl",
        "terraform.tfstate",
    ] {
        std::fs::copy(stack.path().join(name), copy.path().join(name)).unwrap();
    }
    std::os::unix::fs::symlink(
        stack.path().join(".terraform"),
        copy.path().join(".terraform"),
    )
    .unwrap();
    run(Command::new(&stack.terraform)
        .args([
            "apply",
            "-refresh-only",
            "-auto-approve",
            "-input=false",
            "-no-color",
        ])
        .arg(format!("-var=endpoint={}", stack.moto.url()))
        .current_dir(copy.path())
        .env("TF_CLI_CONFIG_FILE", copy.path().join("cli.tfrc")));
    let expected: Value =
        serde_json::from_slice(&std::fs::read(copy.path().join("terraform.tfstate")).unwrap())
            .unwrap();

    // The plan: three objects read, exit 1, nothing written, the secret masked.
    let (code, stdout, stderr) = stack.statectl_refresh(&["--type", "aws_*"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    crate::builder::assert_row(&stdout, &["aws_instance.web", "reconciled (refreshed)"]);
    assert_contains(&stdout, "-    \"instance_state\": \"pending\",");
    assert_contains(&stdout, "+    \"instance_state\": \"running\",");
    assert!(!stdout.contains("s3cret-orders-pw") && !stderr.contains("s3cret-orders-pw"));
    assert_eq!(stack.state(), stale);

    let (code, stdout, stderr) =
        stack.statectl_refresh(&["--type", "aws_*", "--write", "--backup", "-"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let written = stack.state();
    assert_eq!(written["serial"], stale["serial"].as_u64().unwrap() + 1);
    assert_eq!(written["lineage"], stale["lineage"]);
    for type_name in ["aws_instance", "aws_db_instance", "aws_s3_bucket"] {
        let ours = instance(&written, type_name).unwrap();
        let theirs = instance(&expected, type_name).unwrap();
        assert_eq!(comparable(ours), comparable(theirs), "{type_name}");
    }
    // What was stale came back, and the database password stays marked sensitive.
    let web = instance(&written, "aws_instance").unwrap();
    assert_eq!(web["attributes"]["instance_state"], "running");
    assert!(web["attributes"]["private_ip"].is_string());
    let db = instance(&written, "aws_db_instance").unwrap();
    assert_eq!(db["attributes"]["status"], "available");
    assert_eq!(
        db["sensitive_attributes"],
        serde_json::json!([[{"type": "get_attr", "value": "password"}]])
    );

    // Deleted behind Terraform's back: gone, its removal proposed, then written.
    let id = web["attributes"]["id"].as_str().unwrap().to_owned();
    stack.moto.python(&format!(
        "ec2 = client('ec2')\nec2.terminate_instances(InstanceIds=['{id}'])\n"
    ));
    let (code, stdout, stderr) = stack.statectl_refresh(&["--target", "aws_instance.web"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    crate::builder::assert_row(&stdout, &["aws_instance.web", "gone"]);
    let (code, stdout, stderr) =
        stack.statectl_refresh(&["--target", "aws_instance.web", "--write", "--backup", "-"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let after = stack.state();
    assert!(instance(&after, "aws_instance").is_none(), "{after:#}");
    assert!(instance(&after, "aws_db_instance").is_some());
}
