//! `statectl drift --workspace GLOB` on remote backends: the workspaces `terraform workspace list`
//! would name (S3 on moto: `env:/<name>/<key>`; Cloud Storage on fake-gcs-server:
//! `<prefix>/<name>.tfstate`), those the glob matches checked in one report naming each, a glob
//! matching none refused with the workspaces found, a listing that fails refused before anything
//! is read; no object written and no lock taken. The states hold only `terraform_data` (built into
//! Terraform: no provider to start), so these tests are about the listing and the run around it.
//! Without moto or the emulator they skip, except under CI, where they fail.

use std::path::Path;

use serde_json::{Value, json};

use crate::builder::{Output, Test, root, strings_of};

/// The states of a `terraform_data`-only configuration.
fn state_text() -> String {
    std::fs::read_to_string(root().join("testdata/states/modules.tfstate")).unwrap()
}

/// `.terraform/terraform.tfstate` in `dir`, recording `kind` with `config` as `terraform init` does.
fn initialised(dir: &Path, kind: &str, config: &Value) {
    std::fs::create_dir_all(dir.join(".terraform")).unwrap();
    std::fs::write(
        dir.join(".terraform/terraform.tfstate"),
        json!({"version": 3, "backend": {"type": kind, "config": config, "hash": 1}}).to_string(),
    )
    .unwrap();
}

/// The `state` of each report entry of `--format json` output.
pub(crate) fn states_checked(output: &Output) -> Vec<String> {
    let report: Value = serde_json::from_str(&output.stdout).unwrap();
    strings_of(&report["states"], "state")
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The `backend "s3"` configuration `terraform init` records for `bucket` on moto at `url`.
fn s3_config(bucket: &str, url: &str) -> Value {
    json!({
        "bucket": bucket,
        "key": "app/terraform.tfstate",
        "region": "us-east-1",
        "endpoints": {"s3": url},
        "use_path_style": true,
        "skip_credentials_validation": true,
        "skip_requesting_account_id": true,
        "skip_metadata_api_check": true,
    })
}

/// `statectl drift ARGS` in `dir`, with moto's test credentials and no AWS files.
fn drift_on_moto(dir: &Path, home: &Path, args: &[&str]) -> Output {
    Test::new()
        .current_dir(dir)
        .env("HOME", home)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .arg("drift")
        .args(args)
        .run()
}

#[test]
fn drift_checks_the_s3_workspaces_a_glob_chooses() {
    let Some(aws) = crate::s3_backend::Aws::start() else {
        return;
    };
    let bucket = crate::s3_backend::BUCKET;
    let body = state_text();
    let file = aws.path().join("state.json");
    std::fs::write(&file, &body).unwrap();
    // The default workspace, two others, and what is no workspace's state of this key.
    for key in [
        "app/terraform.tfstate",
        "env:/dev/app/terraform.tfstate",
        "env:/prod-a/app/terraform.tfstate",
        "env:/prod-a/app/terraform.tfstate.tflock",
        "env:/prod-a/other/terraform.tfstate",
        "env:/x/y/app/terraform.tfstate",
    ] {
        aws.moto.python(&format!(
            "client('s3').put_object(Bucket='{bucket}', Key='{key}', Body=open('{}').read())\n",
            file.display()
        ));
    }
    let work = aws.path().join("work");
    let url = aws.moto.url();
    initialised(&work, "s3", &s3_config(bucket, &url));
    let objects = || {
        aws.moto.python(&format!(
            "print(sorted((o['Key'], o['ETag'], str(o['LastModified'])) for o in client('s3').list_objects_v2(Bucket='{bucket}')['Contents']))\n"
        ))
    };
    let before = objects();
    let drift = |args: &[&str]| drift_on_moto(&work, aws.path(), args);

    let all = drift(&["--workspace", "*", "--format", "json"]).code(0);
    assert_eq!(
        states_checked(&all),
        [
            format!("s3://{bucket}/app/terraform.tfstate (workspace \"default\")"),
            format!("s3://{bucket}/env:/dev/app/terraform.tfstate (workspace \"dev\")"),
            format!("s3://{bucket}/env:/prod-a/app/terraform.tfstate (workspace \"prod-a\")"),
        ],
        "{}",
        all.stderr
    );
    let some = drift(&["--workspace", "prod-*"]).code(0);
    assert_eq!(
        some.stdout,
        format!(
            "s3://{bucket}/env:/prod-a/app/terraform.tfstate (workspace \"prod-a\"): 0 instances read; no drift; 32 built into Terraform (no remote object) not read\n"
        )
    );
    drift(&["--workspace", "stage-?"]).refused(
        "error: `--workspace stage-?` matches no workspace of backend \"s3\"\nhint: the workspaces there: default, dev, prod-a\n",
    );
    assert_eq!(objects(), before, "nothing written, no lock object left");

    // A listing that fails is one error, before any state is read.
    let gone = aws.path().join("gone");
    initialised(&gone, "s3", &s3_config("no-such-bucket", &url));
    let refused = drift_on_moto(&gone, aws.path(), &["--workspace", "*"]).code(2);
    assert!(refused.stdout.is_empty(), "{}", refused.stdout);
    assert!(
        refused.stderr.starts_with("error: ") && refused.stderr.contains("no-such-bucket"),
        "{}",
        refused.stderr
    );
}

/// Hundreds of workspaces share the listing's one S3 client, and are fetched a window at a time:
/// with a CI runner's low open-file limit, every one is read and reported in order (each opened on
/// a client of its own, a runtime and connection pool apiece, this stopped with "Too many open
/// files" after a few dozen), and one that holds no state is that workspace's error alone.
#[test]
fn drift_reads_hundreds_of_s3_workspaces_on_one_client() {
    const WORKSPACES: usize = 300;
    let Some(aws) = crate::s3_backend::Aws::start() else {
        return;
    };
    let bucket = crate::s3_backend::BUCKET;
    let file = aws.path().join("state.json");
    std::fs::write(&file, state_text()).unwrap();
    aws.moto.python(&format!(
        "body = open('{}').read()\nfor n in range({WORKSPACES}):\n    client('s3').put_object(Bucket='{bucket}', Key=f'env:/w{{n:03}}/app/terraform.tfstate', Body=body if n != 150 else 'not a state')\n",
        file.display()
    ));
    let work = aws.path().join("work");
    initialised(&work, "s3", &s3_config(bucket, &aws.moto.url()));
    let all = Test::new()
        .current_dir(&work)
        .env("HOME", aws.path())
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .open_files(64)
        .args(["drift", "--workspace", "w*", "--format", "json"])
        .run()
        .code(2);
    let expected: Vec<String> = (0..WORKSPACES)
        .map(|n| {
            format!("s3://{bucket}/env:/w{n:03}/app/terraform.tfstate (workspace \"w{n:03}\")")
        })
        .collect();
    assert_eq!(states_checked(&all), expected, "{}", all.stderr);
    let report: Value = serde_json::from_str(&all.stdout).unwrap();
    let failed: Vec<(&str, &str)> = report["states"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|state| Some((state["workspace"].as_str()?, state["error"].as_str()?)))
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "w150");
    assert!(
        failed[0]
            .1
            .ends_with("not JSON: unexpected character 'n', expected a JSON value"),
        "{}",
        failed[0].1
    );
    assert!(
        all.stderr
            .contains("env:/w150/app/terraform.tfstate:1:1: not JSON"),
        "{}",
        all.stderr
    );
}

#[test]
fn drift_checks_the_gcs_workspaces_a_glob_chooses() {
    let Some(emulator) = crate::gcs_backend::Emulator::start() else {
        return;
    };
    let body = state_text();
    for name in [
        "team/app/default.tfstate",
        "team/app/dev.tfstate",
        "team/app/prod.tfstate",
        "team/app/prod.tflock",
        "team/app/nested/deeper.tfstate",
        "team/other.tfstate",
    ] {
        emulator.put(name, &body);
    }
    let work = emulator.path().join("work");
    initialised(
        &work,
        "gcs",
        &json!({
            "bucket": crate::gcs_backend::BUCKET,
            "prefix": "team/app",
            "storage_custom_endpoint": emulator.endpoint(),
            "access_token": crate::gcs_backend::TOKEN,
        }),
    );
    // Each object's bytes, and the lock objects a read must not leave.
    let objects = || {
        ["default", "dev", "prod"]
            .iter()
            .flat_map(|name| {
                [
                    emulator.object(&format!("team/app/{name}.tfstate")),
                    emulator.object(&format!("team/app/{name}.tflock")),
                ]
            })
            .collect::<Vec<_>>()
    };
    let before = objects();
    let drift = |args: &[&str]| {
        Test::new()
            .current_dir(&work)
            .env("HOME", emulator.path())
            .arg("drift")
            .args(args)
            .run()
    };
    let all = drift(&["--workspace", "*", "--format", "json"]).code(0);
    let bucket = crate::gcs_backend::BUCKET;
    assert_eq!(
        states_checked(&all),
        [
            format!("gs://{bucket}/team/app/default.tfstate (workspace \"default\")"),
            format!("gs://{bucket}/team/app/dev.tfstate (workspace \"dev\")"),
            format!("gs://{bucket}/team/app/prod.tfstate (workspace \"prod\")"),
        ],
        "{}",
        all.stderr
    );
    drift(&["--workspace", "prod*", "--format", "json"]).code(0);
    drift(&["--workspace", "qa-*"]).refused(
        "error: `--workspace qa-*` matches no workspace of backend \"gcs\"\nhint: the workspaces there: default, dev, prod\n",
    );
    assert_eq!(objects(), before, "nothing written, no lock object left");
}
