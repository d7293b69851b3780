//! `statectl history`, `--version` and `restore` (issue 29): the backups beside a local state, S3
//! object versions on moto (delete markers, a version that is not a state, a bucket without
//! versioning), and real Terraform 1.15.5 with `backend "s3"` on a versioned bucket: three applies,
//! their versions listed with serials, the first one listed and restored, Terraform planning from
//! the restored state, each tool refused while the other holds the lock. Without moto or Terraform
//! the remote tests skip, except under CI, where they fail.

use serde_json::Value;

use crate::builder::{Test, assert_contains};
use crate::s3_backend::{Aws, BUCKET, TABLE, backend_block, s3_workdir};
use crate::workdir::TerraformWorkdir;

/// A small state: `terraform_data` instances named `names`, each with `input` as its value.
fn state(serial: u64, lineage: &str, names: &[&str]) -> String {
    let resources: Vec<String> = names
        .iter()
        .map(|name| {
            format!(
                r#"    {{
      "mode": "managed",
      "type": "terraform_data",
      "name": "{name}",
      "provider": "provider[\"terraform.io/builtin/terraform\"]",
      "instances": [
        {{
          "schema_version": 0,
          "attributes": {{
            "id": "{name}-id",
            "input": null,
            "output": null,
            "triggers_replace": null
          }},
          "sensitive_attributes": []
        }}
      ]
    }}"#
            )
        })
        .collect();
    format!(
        "{{\n  \"version\": 4,\n  \"terraform_version\": \"1.15.5\",\n  \"serial\": {serial},\n  \"lineage\": \"{lineage}\",\n  \"outputs\": {{}},\n  \"resources\": [\n{}\n  ],\n  \"check_results\": null\n}}\n",
        resources.join(",\n")
    )
}

fn ids(history: &Value) -> Vec<String> {
    crate::builder::strings_of(&history["versions"], "id")
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// A local state and the backups statectl's writes leave: history lists them newest first with
/// serials and steps; `list --version ~2`, `diff --old-version` read them; `restore --dry-run`
/// writes nothing; `restore` brings the first back with a serial above the current one, the
/// replaced state backed up; history then shows the restore as a step of its own.
#[test]
fn a_local_state_s_backups_are_its_history_and_restore_brings_one_back() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("terraform.tfstate");
    let first = state(3, "lin-1", &["a", "b"]);
    std::fs::write(&path, &first).unwrap();
    let run = |args: &[&str]| Test::new().current_dir(folder.path()).args(args);
    run(&["taint", "terraform_data.a"]).run().code(0);
    // Two writes within one second get `.N.backup`: the order still follows them.
    run(&["forget", "terraform_data.b"]).run().code(0);
    let history = run(&["history", "--format", "json"]).run().code(0).json();
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 3, "{history:#}");
    let serials: Vec<u64> = versions
        .iter()
        .map(|version| version["serial"].as_u64().unwrap())
        .collect();
    assert_eq!(serials, [5, 4, 3]);
    assert_eq!(versions[0]["id"], "terraform.tfstate");
    assert_eq!(versions[0]["latest"], true);
    assert_eq!(versions[0]["changes"]["removed"], 1);
    assert_eq!(versions[1]["changes"]["changed"], 1);
    assert_eq!(versions[2]["changes"], Value::Null);
    let oldest = versions[2]["id"].as_str().unwrap().to_owned();
    let table = run(&["history"]).run().code(0).stdout;
    assert!(table.starts_with("   VERSION"), "{table}");
    assert_contains(&table, "+0 -1 ~0");
    // The first version read three ways: by id, by `~N`, and diffed against the current state.
    for spec in [oldest.as_str(), "~2"] {
        run(&["list", "--version", spec])
            .run()
            .code(0)
            .stdout("terraform_data.a\nterraform_data.b\n")
            .stderr_contains(&format!("version `{oldest}` of terraform.tfstate"));
    }
    // Every reading command takes `--version`.
    let summary = run(&["summary", "--version", "~2", "--format", "json"])
        .run()
        .code(0)
        .json();
    assert_eq!(summary["serial"], 3);
    run(&["query", "$.serial", "--version", "~1", "--compact"])
        .run()
        .code(0)
        .stdout("[4]\n");
    run(&["show", "terraform_data.b", "--version", &oldest])
        .run()
        .code(0)
        .stdout_contains("b-id");
    run(&["show", "terraform_data.b"]).run().code(2);
    let scanned = run(&["scan", "--version", "~2", "--format", "json"])
        .run()
        .code(0)
        .json();
    assert_eq!(scanned["states"][0]["instances"], 2, "{scanned:#}");
    run(&["scan", ".", "--version", "~1"]).run().refused(
        "error: `--version` reads an earlier version of one state, but several are named\n",
    );
    run(&["diff", "terraform.tfstate", "--old-version", "~2", "--stat"])
        .run()
        .code(1)
        .stdout_contains("- terraform_data.b");
    // A dry run shows the diff and writes nothing.
    let before = std::fs::read(&path).unwrap();
    run(&["restore", "--version", "~2", "--dry-run"])
        .run()
        .code(1)
        .stdout_contains("+ terraform_data.b")
        .stderr_contains("Would restore version");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let restored = run(&["restore", "--version", &oldest]).run().code(0);
    assert_contains(
        &restored.stderr,
        &format!("Restored version `{oldest}` (serial 3) over serial 5, as serial 6; backup `"),
    );
    // The first version's bytes exactly, but for the serial above the current one.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        first.replace("\"serial\": 3", "\"serial\": 6")
    );
    let history = run(&["history", "--format", "json"]).run().code(0).json();
    assert_eq!(history["versions"].as_array().unwrap().len(), 4);
    assert_eq!(history["versions"][0]["serial"], 6);
    assert_eq!(history["versions"][0]["changes"]["added"], 1);
    assert_eq!(history["versions"][1]["serial"], 5);
}

/// Lifecycle rules apply to a restore as to any write: an instance the restore would drop that
/// the configuration protects (`prevent_destroy`) blocks it (exit 3, nothing written) unless
/// `--force`, which names the rule it overrides.
#[test]
fn a_restore_that_drops_a_protected_instance_is_blocked() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("terraform.tfstate");
    std::fs::write(&path, state(1, "lin-1", &["a"])).unwrap();
    std::fs::write(
        folder.path().join("main.tf"),
        "resource \"terraform_data\" \"b\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n",
    )
    .unwrap();
    let run = |args: &[&str]| Test::new().current_dir(folder.path()).args(args);
    // The backup of the first state, then the state with `b` added.
    std::fs::write(
        folder.path().join("terraform.tfstate.100.backup"),
        state(1, "lin-1", &["a"]),
    )
    .unwrap();
    let current = state(2, "lin-1", &["a", "b"]);
    std::fs::write(&path, &current).unwrap();
    let blocked = run(&["restore", "--version", "terraform.tfstate.100.backup"])
        .run()
        .code(3);
    assert_contains(&blocked.stderr, "prevent_destroy");
    assert_contains(&blocked.stderr, "nothing was written");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), current);
    run(&[
        "restore",
        "--version",
        "terraform.tfstate.100.backup",
        "--force",
        "--backup",
        "-",
    ])
    .run()
    .code(0)
    .stderr_contains("warning: overriding");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        state(3, "lin-1", &["a"])
    );
}

/// Bad input on a local state: an unknown id, a backup that is not a state, `~N` past the oldest,
/// standard input: one line, exit 2, nothing written. Another lineage needs `--force`, and the
/// refusal names both lineages.
#[test]
fn bad_versions_of_a_local_state_are_one_line_and_nothing_is_written() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("terraform.tfstate");
    let current = state(7, "lin-1", &["a"]);
    std::fs::write(&path, &current).unwrap();
    std::fs::write(folder.path().join("terraform.tfstate.backup"), "hello\n").unwrap();
    std::fs::write(
        folder.path().join("terraform.tfstate.100.backup"),
        state(2, "lin-other", &["z"]),
    )
    .unwrap();
    let run = |args: &[&str]| Test::new().current_dir(folder.path()).args(args);
    let before_files = std::fs::read_dir(folder.path()).unwrap().count();
    run(&["list", "--version", "nope"]).run().refused(
        "error: terraform.tfstate: there is no version `nope` of this state\nhint: `statectl history terraform.tfstate` lists the 3 versions kept, with their ids\n",
    );
    for command in ["list", "restore"] {
        run(&[command, "--version", "terraform.tfstate.backup"])
            .run()
            .refused("error: terraform.tfstate (version `terraform.tfstate.backup`):1:1: not JSON");
    }
    run(&["show", "terraform_data.a", "--version", "~3"])
        .run()
        .refused("error: terraform.tfstate: there is no version `~3`: the backend keeps 3 versions with a state\n");
    // `--version ~0` unquoted: bash made it the working directory.
    run(&["list", "--version", "/home/ana/infra"]).run().refused(
        "error: terraform.tfstate: there is no version `/home/ana/infra` of this state\nhint: the shell may have read `~N` as a directory: quote it, `--version '~1'`\n",
    );
    run(&["restore", "--version", "x/../terraform.tfstate.backup"])
        .run()
        .refused("there is no version");
    let empty = tempfile::tempdir().unwrap();
    Test::new()
        .current_dir(empty.path())
        .args(["restore", "--version", "~1"])
        .run()
        .refused("error: terraform.tfstate: there is no state here, nor a backup of it\n");
    Test::new()
        .args(["list", "-", "--version", "~1"])
        .stdin(current.clone())
        .run()
        .refused(
            "error: standard input has no versions: name the state file or its backend's URL\n",
        );
    run(&["restore", "--version", "terraform.tfstate.100.backup"])
        .run()
        .refused("error: terraform.tfstate: version `terraform.tfstate.100.backup` has lineage `lin-other`, the current state `lin-1`: it is another state; nothing was written\nhint: `--force` restores it anyway");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), current);
    assert_eq!(
        std::fs::read_dir(folder.path()).unwrap().count(),
        before_files,
        "no backup, no temporary file"
    );
    let forced = run(&[
        "restore",
        "--version",
        "terraform.tfstate.100.backup",
        "--force",
    ])
    .run()
    .code(0);
    assert_contains(
        &forced.stderr,
        "warning: overriding the lineage check: version `terraform.tfstate.100.backup` has lineage `lin-other`, the current state `lin-1`",
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        state(8, "lin-other", &["z"])
    );
}

/// How many versions and delete markers the bucket keeps of `key`.
fn version_count(aws: &Aws, bucket: &str, key: &str) -> usize {
    aws.moto
        .python(&format!(
            "page = client('s3').list_object_versions(Bucket='{bucket}', Prefix='{key}')\n\
             print(len([v for v in page.get('Versions', []) + page.get('DeleteMarkers', []) if v['Key'] == '{key}']), end='')\n"
        ))
        .parse()
        .unwrap()
}

/// Puts `body` (written to a file first) as the object `key` of `bucket`.
fn put(aws: &Aws, bucket: &str, key: &str, body: &str) {
    let file = aws.path().join("body");
    std::fs::write(&file, body).unwrap();
    aws.moto.python(&format!(
        "client('s3').put_object(Bucket='{bucket}', Key='{key}', Body=open('{}', 'rb').read())\n",
        file.display()
    ));
}

/// S3 object versions on moto: history lists versions and a delete marker newest first, the
/// version that is not a state as such, the steps between readable versions with a lineage change
/// and a serial going down flagged; `--version` reads one; an unknown id, a delete marker, a
/// version that is not a state and a bucket without versioning are each one line, exit 2, and
/// nothing is written; `history` of an unversioned bucket says so and exits 0.
#[test]
fn s3_versions_delete_markers_and_an_unversioned_bucket() {
    let Some(aws) = Aws::start() else { return };
    aws.moto.python(&format!(
        "client('s3').put_bucket_versioning(Bucket='{BUCKET}', VersioningConfiguration={{'Status': 'Enabled'}})\n\
         client('s3').create_bucket(Bucket='plain')\n"
    ));
    let key = "team/terraform.tfstate";
    put(&aws, BUCKET, key, &state(1, "lin-1", &["a"]));
    put(&aws, BUCKET, key, &state(2, "lin-1", &["a", "b"]));
    put(&aws, BUCKET, key, "hello\n");
    put(&aws, BUCKET, key, &state(1, "lin-2", &["a"]));
    // Another object under the key as a prefix is not a version of it.
    put(&aws, BUCKET, &format!("{key}.tflock"), "{}");
    aws.moto.python(&format!(
        "client('s3').delete_object(Bucket='{BUCKET}', Key='{key}')\n"
    ));
    let url = format!("s3://{BUCKET}/{key}");
    let history = aws
        .statectl(&["history", &url, "--format", "json"])
        .run()
        .code(0)
        .json();
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 5, "{history:#}");
    let ids = ids(&history);
    assert_eq!(versions[0]["deleted"], true);
    assert_eq!(versions[0]["latest"], true);
    assert_eq!(versions[1]["serial"], 1);
    assert_eq!(versions[1]["lineage"], "lin-2");
    assert_eq!(versions[1]["changes"]["lineage_changed"], true);
    assert_eq!(versions[1]["changes"]["serial_went_down"], true);
    assert!(versions[1]["extras"]["etag"].is_string());
    assert_contains(versions[2]["error"].as_str().unwrap(), "not JSON");
    assert_eq!(versions[3]["serial"], 2);
    assert_eq!(versions[3]["changes"]["added"], 1);
    assert_eq!(versions[4]["changes"], Value::Null);
    let table = aws.statectl(&["history", &url]).run().code(0).stdout;
    assert_contains(&table, "deleted (a delete marker)");
    assert_contains(&table, "+0 -1 ~0  LINEAGE CHANGED  SERIAL WENT DOWN");
    aws.statectl(&["list", &url, "--version", &ids[3]])
        .run()
        .code(0)
        .stdout("terraform_data.a\nterraform_data.b\n");
    // Bad versions: one line each, exit 2, nothing written.
    aws.statectl(&["list", &url, "--version", "no-such-version"])
        .run()
        .refused(&format!(
            "error: {url}: there is no version `no-such-version` of this state\n"
        ));
    for command in ["list", "restore"] {
        aws.statectl(&[command, &url, "--version", &ids[0]])
            .run()
            .refused(&format!(
                "error: {url}: version `{}` is a delete marker: the state was deleted then, and it holds no state\n",
                ids[0]
            ));
        aws.statectl(&[command, &url, "--version", "~1"])
            .run()
            .refused(&format!(
                "error: {url} (version `{}`):1:1: not JSON",
                ids[2]
            ));
    }
    assert_eq!(version_count(&aws, BUCKET, key), 5);
    // A bucket without versioning: history says so and exits 0; a version asked for is an error.
    let plain = "s3://plain/terraform.tfstate";
    put(
        &aws,
        "plain",
        "terraform.tfstate",
        &state(1, "lin-1", &["a"]),
    );
    let no_history = aws.statectl(&["history", plain]).run().code(0);
    assert_eq!(no_history.stdout, "");
    assert_contains(
        &no_history.stderr,
        "warning: s3://plain/terraform.tfstate: bucket `plain` keeps no versions of the state (versioning is off, or was off for every write of it), so it has no history\nhint: `aws s3api put-bucket-versioning --bucket plain",
    );
    let document = aws
        .statectl(&["history", plain, "--format", "json"])
        .run()
        .code(0)
        .json();
    assert_eq!(document["versioning"], false);
    for command in ["list", "restore"] {
        aws.statectl(&[command, plain, "--version", "~1"])
            .run()
            .refused("error: s3://plain/terraform.tfstate: bucket `plain` keeps no versions of the state (versioning is off, or was off for every write of it), so it has no history\nhint: ");
    }
    assert_eq!(
        aws.object("terraform.tfstate"),
        None,
        "nothing written in the versioned bucket"
    );
}

const FIRST: &str = r#"resource "terraform_data" "kept" {
  input = "one"
}
resource "terraform_data" "dropped" {
  input = "gone later"
}
"#;

/// Real Terraform 1.15.5 with `backend "s3"` (lock object and DynamoDB, so the digest counts) on a
/// versioned bucket: three applies (add, change, remove), history lists their versions with
/// serials, `list --version` of the first equals `terraform state list` after the first apply,
/// `restore` of the first, then `terraform plan` reads it (the digest matches, the serial is
/// above) and plans to re-create what was removed. Each tool is refused while the other holds the
/// lock; a restore waiting with `--lock-timeout` goes on once Terraform lets go.
#[test]
fn terraform_s3_history_and_restore_round_trip() {
    let _one_at_a_time = crate::s3_backend::ROUND_TRIPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(workdir) = s3_workdir() else { return };
    workdir.server.moto.python(&format!(
        "client('s3').put_bucket_versioning(Bucket='{BUCKET}', VersioningConfiguration={{'Status': 'Enabled'}})\n"
    ));
    let block = backend_block(
        &workdir.server.moto.url(),
        &format!("    use_lockfile = true\n    dynamodb_table = \"{TABLE}\"\n"),
    );
    workdir.init_and_apply_resources(&block, FIRST);
    let first_list = workdir.terraform(&["state", "list"]);
    assert_eq!(first_list, "terraform_data.dropped\nterraform_data.kept\n");
    // The version the first apply left: the newest one now.
    let after_first = history_json(&*workdir);
    let first = after_first["versions"][0].clone();
    let first_id = first["id"].as_str().unwrap().to_owned();
    let write_main = |resources: &str| {
        std::fs::write(
            workdir.path().join("main.tf"),
            format!("terraform {{\n{block}}}\n\n{resources}"),
        )
        .unwrap();
    };
    let third = FIRST.replace("\"one\"", "\"two\"").replace(
        "resource \"terraform_data\" \"dropped\" {\n  input = \"gone later\"\n}\n",
        "",
    );
    for resources in [FIRST.replace("\"one\"", "\"two\""), third.clone()] {
        write_main(&resources);
        workdir.terraform(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    }
    let history = history_json(&*workdir);
    let versions = history["versions"].as_array().unwrap();
    assert!(versions.len() >= 3, "{history:#}");
    let serials: Vec<u64> = versions
        .iter()
        .map(|version| version["serial"].as_u64().unwrap())
        .collect();
    assert!(
        serials.windows(2).all(|pair| pair[0] > pair[1]),
        "newest first: {serials:?}"
    );
    assert_eq!(versions[0]["latest"], true);
    assert_eq!(versions[0]["changes"]["removed"], 1);
    let position = ids(&history).iter().position(|id| *id == first_id);
    assert!(
        position.is_some_and(|position| position >= 2),
        "two applies after the first: {history:#}"
    );
    let listed = workdir.statectl(&["list", "--version", &first_id]).code(0);
    assert_eq!(listed.stdout, first_list);
    let text = workdir.statectl(&["history"]).code(0).stdout;
    assert_contains(&text, &first_id);
    let current_serial = serials[0];
    let version_count = versions.len();
    // Before the restore, the first apply's configuration plans to re-create what was removed.
    write_main(FIRST);
    let plan = workdir.terraform(&["plan", "-input=false", "-no-color"]);
    assert_contains(&plan, "terraform_data.dropped will be created");
    write_main(&third);

    let restored = restore_waiting_for_terraform(&*workdir, &first_id);
    let said = String::from_utf8_lossy(&restored.stderr);
    assert!(restored.status.success(), "{said}");
    assert_contains(
        &said,
        &format!(
            "Restored version `{first_id}` (serial {}) over serial {current_serial}, as serial {}; backup `",
            first["serial"],
            current_serial + 1
        ),
    );
    // Terraform reads the restored state: same lineage, higher serial, the digest matching.
    assert_eq!(workdir.terraform(&["state", "list"]), first_list);
    // With today's configuration, the plan starts from the restored state: the instance the
    // third apply removed is back in it, the first apply's input too.
    let plan = workdir.terraform(&["plan", "-input=false", "-no-color"]);
    assert_contains(&plan, "terraform_data.dropped will be destroyed");
    assert_contains(&plan, "terraform_data.kept will be updated in-place");
    // After it, the first apply's configuration matches the state as the first apply left it.
    write_main(FIRST);
    let plan = workdir.terraform(&["plan", "-input=false", "-no-color"]);
    assert_contains(&plan, "No changes.");
    // The state replaced is a version of its own: nothing deleted.
    let after = history_json(&*workdir);
    assert_eq!(
        after["versions"].as_array().unwrap().len(),
        version_count + 1
    );
    assert_eq!(after["versions"][1]["serial"], current_serial);
    // While statectl holds the lock restore takes, Terraform is refused naming statectl.
    workdir.terraform_is_refused_while_statectl_holds_it();
}

/// `statectl history --format json` in the working folder.
fn history_json(workdir: &impl TerraformWorkdir) -> Value {
    workdir
        .statectl(&["history", "--format", "json"])
        .code(0)
        .json()
}

/// While Terraform holds the lock (at its approval prompt), `restore --version ID` is refused
/// naming it; with `--lock-timeout` it waits, and restores once Terraform lets go. Returns what the
/// waiting restore printed.
fn restore_waiting_for_terraform(
    workdir: &impl TerraformWorkdir,
    first_id: &str,
) -> std::process::Output {
    workdir
        .write_against_terraforms_lock(
            &["-replace=terraform_data.kept"],
            &["restore", "--version", first_id],
        )
        .1
}

/// A server whose version listing never ends (every page truncated, pointing at the same next
/// page) is followed once round, then stopped with a warning; the version it repeated is listed
/// once.
#[test]
fn an_s3_version_listing_that_goes_round_is_stopped() {
    let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListVersionsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name><Prefix>k.tfstate</Prefix><IsTruncated>true</IsTruncated><NextKeyMarker>k.tfstate</NextKeyMarker><NextVersionIdMarker>v1</NextVersionIdMarker><Version><Key>k.tfstate</Key><VersionId>v1</VersionId><IsLatest>true</IsLatest><LastModified>2026-11-28T00:00:00.000Z</LastModified><Size>3</Size></Version></ListVersionsResult>";
    let url = crate::stand_in::canned(crate::stand_in::answer(
        "200 OK",
        Some("application/xml"),
        body,
    ));
    let output = Test::new()
        .args(["history", "s3://b/k.tfstate", "--format", "json"])
        .backend_config(format!("endpoints={{ s3 = \"{url}\" }}"))
        .backend_config("use_path_style=true")
        .backend_config("region=us-east-1")
        .backend_config("skip_credentials_validation=true")
        .backend_config("skip_requesting_account_id=true")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .run()
        .code(0);
    assert_contains(
        &output.stderr,
        "warning: s3://b/k.tfstate: the version listing went round: after 2 pages the server pointed back to a page already read; statectl stopped there",
    );
    let history = output.json();
    assert_eq!(ids(&history), ["v1"]);
}

/// GCS generations on fake-gcs-server (which keeps them when the bucket's `versioning.enabled`
/// is set): history lists them newest first, the replaced ones noncurrent; `--version` reads one;
/// `restore` writes it back under the gcs lock object as a new generation; a bucket without
/// versioning says so (history exits 0, `--version` 2); an unknown generation is one line.
#[test]
fn gcs_generations_are_the_history_and_restore_writes_a_new_one() {
    use crate::gcs_backend::{Emulator, TOKEN};
    let Some(gcs) = Emulator::start() else { return };
    let (status, body) = gcs.request(
        "POST",
        "/storage/v1/b",
        r#"{"name": "vb", "versioning": {"enabled": true}}"#,
    );
    assert_eq!(status, 200, "{body}");
    let put = |bucket: &str, body: &str| {
        let (status, answer) = gcs.request(
            "POST",
            &format!("/upload/storage/v1/b/{bucket}/o?uploadType=media&name=app%2Fdefault.tfstate"),
            body,
        );
        assert_eq!(status, 200, "{answer}");
    };
    put("vb", &state(1, "lin-1", &["a"]));
    put("vb", &state(2, "lin-1", &["a", "b"]));
    put("tfstate", &state(1, "lin-1", &["a"]));
    let run = |args: &[&str]| {
        Test::new()
            .current_dir(gcs.path())
            .args(args)
            .backend_config(format!("storage_custom_endpoint={}", gcs.endpoint()))
            .env("GOOGLE_OAUTH_ACCESS_TOKEN", TOKEN)
    };
    let url = "gs://vb/app/default.tfstate";
    let history = run(&["history", url, "--format", "json"])
        .run()
        .code(0)
        .json();
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{history:#}");
    assert_eq!(versions[0]["latest"], true);
    assert_eq!(versions[0]["serial"], 2);
    assert_eq!(versions[0]["changes"]["added"], 1);
    assert_eq!(versions[1]["latest"], false);
    assert!(versions[1]["extras"]["noncurrent_since"].is_string());
    let ids = ids(&history);
    run(&["list", url, "--version", &ids[1]])
        .run()
        .code(0)
        .stdout("terraform_data.a\n");
    run(&["list", url, "--version", "12345"])
        .run()
        .refused(&format!(
            "error: {url}: there is no version `12345` of this state\n"
        ));
    run(&["restore", url, "--version", "~1", "--backup", "-"])
        .run()
        .code(0)
        .stderr_contains(&format!(
            "Restored version `{}` (serial 1) over serial 2, as serial 3; no backup",
            ids[1]
        ));
    let history = run(&["history", url, "--format", "json"])
        .run()
        .code(0)
        .json();
    assert_eq!(history["versions"].as_array().unwrap().len(), 3);
    assert_eq!(history["versions"][0]["serial"], 3);
    assert_eq!(history["versions"][0]["changes"]["removed"], 1);
    // The lock object is gone again: the restore released it.
    let (status, _) = gcs.request("GET", "/storage/v1/b/vb/o/app%2Fdefault.tflock", "");
    assert_eq!(status, 404);
    let plain = "gs://tfstate/app/default.tfstate";
    let said = run(&["history", plain]).run().code(0);
    assert_eq!(said.stdout, "");
    assert_contains(
        &said.stderr,
        "warning: gs://tfstate/app/default.tfstate: bucket `tfstate` keeps no versions (object versioning is off), so the state has no history\nhint: `gcloud storage buckets update gs://tfstate --versioning`",
    );
    run(&["list", plain, "--version", "~1"])
        .run()
        .refused("error: gs://tfstate/app/default.tfstate: bucket `tfstate` keeps no versions");
}

/// A Blob service on loopback with versioning, in the REST API's documented shapes (Azurite has
/// none): List Blobs with `include=versions` gives each version's `VersionId`,
/// `IsCurrentVersion` and properties; Get Blob with `versionid` its bytes. History lists them newest
/// first; `--version` reads one; an unknown id is one line. Bounded: the server answers at most 20
/// requests.
#[test]
fn azure_blob_versions_from_the_rest_api_shapes() {
    let older = state(1, "lin-1", &["a"]);
    let newer = state(2, "lin-1", &["a", "b"]);
    let blob = |id: &str, current: bool, body: &str| {
        format!(
            "<Blob><Name>app.tfstate</Name><VersionId>{id}</VersionId>{}<Properties><Last-Modified>Sat, 28 Nov 2026 01:00:00 GMT</Last-Modified><Etag>0x8DC{}</Etag><Content-Length>{}</Content-Length><BlobType>BlockBlob</BlobType></Properties></Blob>",
            if current {
                "<IsCurrentVersion>true</IsCurrentVersion>"
            } else {
                ""
            },
            body.len(),
            body.len()
        )
    };
    let listing = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults ServiceEndpoint=\"http://127.0.0.1/acct\" ContainerName=\"tfstate\"><Prefix>app.tfstate</Prefix><Blobs>{}{}<Blob><Name>app.tfstate.old</Name><VersionId>2026-11-28T02:00:00.0000000Z</VersionId><Properties><Content-Length>1</Content-Length></Properties></Blob></Blobs><NextMarker /></EnumerationResults>",
        blob("2026-11-28T00:00:00.1000000Z", false, &older),
        blob("2026-11-28T01:00:00.2000000Z", true, &newer),
    );
    let port = crate::stand_in::answering(move |line| {
        let (status, body) = if line.contains("include=versions") {
            ("200 OK", &listing)
        } else if line.contains("versionid=2026-11-28T00%3A00%3A00.1000000Z") {
            ("200 OK", &older)
        } else if line.contains("versionid=2026-11-28T01%3A00%3A00.2000000Z") {
            ("200 OK", &newer)
        } else if line.contains("versionid=") {
            ("404 The specified blob does not exist.", &String::new())
        } else {
            ("200 OK", &newer)
        };
        crate::stand_in::answer(status, None, body)
    });
    let run = |args: &[&str]| {
        Test::new()
            .args(args)
            .backend_config(format!("endpoint=http://127.0.0.1:{port}/acct"))
            .env("ARM_ACCESS_KEY", "c3RhdGVjdGwtbG9vcGJhY2sta2V5")
    };
    let url = "azurerm://acct/tfstate/app.tfstate";
    let history = run(&["history", url, "--format", "json"])
        .run()
        .code(0)
        .json();
    assert_eq!(
        ids(&history),
        [
            "2026-11-28T01:00:00.2000000Z",
            "2026-11-28T00:00:00.1000000Z"
        ]
    );
    assert_eq!(history["versions"][0]["latest"], true);
    assert_eq!(history["versions"][0]["serial"], 2);
    assert_eq!(history["versions"][0]["changes"]["added"], 1);
    assert_eq!(history["versions"][1]["latest"], false);
    assert_eq!(history["versions"][1]["time"], "2026-11-28T01:00:00Z");
    assert!(history["versions"][1]["extras"]["etag"].is_string());
    run(&["list", url, "--version", "~1"])
        .run()
        .code(0)
        .stdout("terraform_data.a\n");
    run(&["list", url, "--version", "2026-01-01T00:00:00.0000000Z"])
        .run()
        .refused("error: azurerm://acct/tfstate/app.tfstate: there is no version `2026-01-01T00:00:00.0000000Z` of this state\n");
}
