//! `statectl drift`'s proof on a real stack, on loopback: real Terraform 1.15.5 applies
//! `testdata/drift/aws` (51 instances of seven types) with the real AWS provider 3.39.0 against
//! moto's server; then, behind Terraform's back through moto's API, a tag is added to an instance,
//! another instance's type changes, a security group loses its ingress rule and a bucket is
//! deleted. Terraform's own `plan -refresh-only` is the oracle: with `--all-changes` statectl
//! reports exactly its `resource_drift` (addresses, actions, attribute paths); by default exactly
//! that less what the documented `null-empty` rule takes out (the provider reads every empty `tags`
//! back as `{}`); exit 1; with each change `--ignore`d, exit 0; the state's bytes and modification
//! time never change. Without the stack this test skips, except under CI, where it fails.

use std::process::Command;

use serde_json::Value;

use crate::aws_stack::AwsStack;
use crate::builder::assert_contains;
use crate::drift_oracle::{drift_of, refresh_only_plan, statectl_drift};

/// The stack of `testdata/drift/aws`, with this module's own steps.
type Stack = AwsStack;

fn apply_stack() -> Option<Stack> {
    AwsStack::apply("drift/aws", &["-parallelism=20"])
}

impl AwsStack {
    /// `statectl drift --config . --provider-config aws=FILE ARGS`: the endpoint is a variable,
    /// which statectl does not evaluate, so it comes in a file.
    fn drift(&self, args: &[&str]) -> (i32, String, String) {
        let url = self.moto.url();
        let endpoints =
            serde_json::json!({"endpoints": [{"ec2": url, "s3": url, "sts": url, "iam": url}]});
        let file = self.path().join("aws-endpoints.json");
        std::fs::write(&file, endpoints.to_string()).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
        command
            .args(["drift", "--config", "."])
            .arg("--provider-config")
            .arg(format!("aws={}", file.display()))
            .args(args)
            .current_dir(self.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("COLUMNS", "200");
        crate::processes::output_of(&mut command)
    }

    fn state_file(&self) -> (Vec<u8>, std::time::SystemTime) {
        let path = self.path().join("terraform.tfstate");
        (
            std::fs::read(&path).unwrap(),
            std::fs::metadata(&path).unwrap().modified().unwrap(),
        )
    }
}

/// The changes made behind Terraform's back, through moto's API.
const OUT_OF_BAND: &str = r"
state = json.load(open('terraform.tfstate'))
def ids(type_name):
    for resource in state['resources']:
        if resource['type'] == type_name:
            return [instance['attributes']['id'] for instance in resource['instances']]
ec2 = client('ec2')
web = ids('aws_instance')
ec2.create_tags(Resources=[web[0]], Tags=[{'Key': 'Env', 'Value': 'changed-outside'}])
ec2.modify_instance_attribute(InstanceId=web[1], InstanceType={'Value': 't2.small'})
ec2.revoke_security_group_ingress(GroupId=ids('aws_security_group')[0], IpPermissions=[
    {'IpProtocol': 'tcp', 'FromPort': 443, 'ToPort': 443, 'IpRanges': [{'CidrIp': '10.0.0.0/8'}]}])
client('s3').delete_bucket(Bucket='statectl-drift-0')
";

#[test]
fn drift_on_the_aws_stack_reports_what_terraform_refresh_only_reports() {
    let Some(stack) = apply_stack() else { return };
    let applied = stack.state_file();

    // Nothing changed: the provider's `tags = {}` for every untagged object is noise, counted.
    let (code, stdout, stderr) = stack.drift(&[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_contains(
        &stdout,
        "51 instances read; no drift\nignored by `null-empty`: 40 changes\n",
    );

    let script = format!(
        "import os\nos.chdir({:?})\n{OUT_OF_BAND}",
        stack.path().display().to_string()
    );
    stack.moto.python(&script);
    let plan: Value = refresh_only_plan(|args| stack.terraform(args), stack.path());
    let terraform_all = drift_of(&plan, false);
    let terraform_less_noise = drift_of(&plan, true);

    let (code, stdout, stderr) = stack.drift(&["--all-changes", "--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        statectl_drift(&serde_json::from_str(&stdout).unwrap()),
        terraform_all
    );

    let (code, stdout, stderr) = stack.drift(&["--format", "json"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let drift = statectl_drift(&serde_json::from_str(&stdout).unwrap());
    assert_eq!(drift, terraform_less_noise);
    let expected: Vec<(&str, &str, Vec<&str>)> = vec![
        (
            "aws_instance.web[0]",
            "update",
            vec!["tags.Env", "tags_all.Env"],
        ),
        ("aws_instance.web[1]", "update", vec!["instance_type"]),
        ("aws_s3_bucket.data[0]", "delete", vec![]),
        ("aws_security_group.app[0]", "update", vec!["ingress[0]"]),
    ];
    let got: Vec<(&str, &str, Vec<&str>)> = drift
        .iter()
        .map(|(address, (action, paths))| {
            (
                address.as_str(),
                action.as_str(),
                paths.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(got, expected);

    // Each change ignored; an ignore comes before the noise rules, so the buckets' `{}` tags count
    // under the rule that ignores buckets whole (nine, and the deleted one).
    let (code, stdout, stderr) = stack.drift(&[
        "--ignore",
        "aws_instance.tags*",
        "--ignore",
        "aws_instance.instance_type",
        "--ignore",
        "aws_security_group.ingress",
        "--ignore",
        "aws_s3_bucket.*",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_contains(
        &stdout,
        "51 instances read; no drift\n\
         ignored by `null-empty`: 30 changes\n\
         ignored by `aws_instance.tags*`: 2 changes\n\
         ignored by `aws_instance.instance_type`: 1 change\n\
         ignored by `aws_security_group.ingress`: 1 change\n\
         ignored by `aws_s3_bucket.*`: 10 changes\n",
    );
    assert_eq!(stack.state_file(), applied, "drift never writes the state");
    assert!(!stack.path().join(".terraform.tfstate.lock.info").exists());
}
