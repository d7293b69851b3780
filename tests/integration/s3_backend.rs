//! The S3 backend against moto's server on loopback (S3, DynamoDB and STS on one port): both lock
//! kinds alone and together, the DynamoDB digest, SSE-C, the faults (a missing bucket, access denied,
//! the wrong region, a dead endpoint) through the crate's API; and real Terraform 1.15.5 with
//! `backend "s3"` as the other client through the CLI: the same state listed, a taint Terraform sees
//! and plans from, each tool refused (or waiting) while the other holds the lock, a second workspace.
//! Without moto or Terraform these tests skip, except under CI, where they fail.

use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use statectl_backend::BackendConfig;
use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState};

use crate::builder::{Test, assert_contains, assert_starts_with, find_by};
use crate::moto::{Moto, moto_server};
use crate::oracle::terraform;
use crate::workdir::{Served, TerraformWorkdir, Workdir, assert_prefix_scan};

pub(crate) const BUCKET: &str = "tfstate";
pub(crate) const TABLE: &str = "locks";

/// moto with a bucket and a lock table, in a scratch folder.
pub(crate) struct Aws {
    folder: tempfile::TempDir,
    pub(crate) moto: Moto,
}

impl Aws {
    /// `statectl ARGS` in the folder, its URLs reaching moto (path-style, us-east-1) with moto's
    /// test credentials.
    pub(crate) fn statectl(&self, args: &[&str]) -> Test {
        Test::new()
            .current_dir(self.path())
            .args(args)
            .backend_config(format!("endpoints={{ s3 = \"{}\" }}", self.moto.url()))
            .backend_config("use_path_style=true")
            .backend_config("region=us-east-1")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
    }

    pub(crate) fn start() -> Option<Aws> {
        let server = moto_server()?;
        let folder = tempfile::tempdir().unwrap();
        let moto = Moto::start(&server, folder.path());
        moto.python(&format!(
            "client('s3').create_bucket(Bucket='{BUCKET}')\n\
             client('dynamodb').create_table(TableName='{TABLE}', KeySchema=[{{'AttributeName': 'LockID', 'KeyType': 'HASH'}}], AttributeDefinitions=[{{'AttributeName': 'LockID', 'AttributeType': 'S'}}], BillingMode='PAY_PER_REQUEST')\n"
        ));
        Some(Aws { folder, moto })
    }

    pub(crate) fn path(&self) -> &Path {
        self.folder.path()
    }

    /// A backend configuration as `terraform init` records it, pointed at moto.
    fn config(&self, key: &str, extra: &Value, workspace: &str) -> BackendConfig {
        let url = self.moto.url();
        let mut values = json!({
            "bucket": BUCKET,
            "key": key,
            "region": "us-east-1",
            "endpoints": {"s3": url, "dynamodb": url, "sts": url},
            "use_path_style": true,
            "access_key": "testing",
            "secret_key": "testing",
            "skip_credentials_validation": true,
            "skip_metadata_api_check": true,
        });
        for (name, value) in extra.as_object().unwrap() {
            values[name] = value.clone();
        }
        let Value::Object(values) = values else {
            unreachable!()
        };
        BackendConfig {
            kind: "s3".to_owned(),
            values,
            workspace: workspace.to_owned(),
            origin: ".terraform/terraform.tfstate".to_owned(),
        }
    }

    fn open(&self, key: &str, extra: &Value) -> Arc<dyn RemoteState> {
        statectl_backend::open(&self.config(key, extra, "default")).unwrap()
    }

    /// The object's body, or `None` when there is none.
    pub(crate) fn object(&self, key: &str) -> Option<String> {
        let printed = self.moto.python(&format!(
            "try:\n    print(client('s3').get_object(Bucket='{BUCKET}', Key='{key}')['Body'].read().decode(), end='')\n\
             except client('s3').exceptions.NoSuchKey:\n    print('<none>', end='')\n"
        ));
        (printed != "<none>").then_some(printed)
    }

    /// A DynamoDB item's string attribute, or `None`.
    fn item(&self, lock_id: &str, attribute: &str) -> Option<String> {
        let printed = self.moto.python(&format!(
            "item = client('dynamodb').get_item(TableName='{TABLE}', Key={{'LockID': {{'S': '{lock_id}'}}}}).get('Item')\n\
             print(item['{attribute}']['S'] if item else '<none>', end='')\n"
        ));
        (printed != "<none>").then_some(printed)
    }
}

fn lock_info(operation: &str, who: &str, path: &str) -> LockInfo {
    let mut info = LockInfo::new(operation, Path::new(path));
    who.clone_into(&mut info.who);
    info
}

fn held_by(refused: Result<(), LockRefused>) -> LockInfo {
    match refused {
        Err(LockRefused::Held(Some(holder))) => *holder,
        Err(LockRefused::Held(None)) => panic!("held, but the holder was not read"),
        Err(LockRefused::Failed(error)) => panic!("failed: {error:?}"),
        Ok(()) => panic!("a second lock was granted"),
    }
}

#[test]
fn each_lock_kind_excludes_others_names_the_holder_and_checks_the_id_on_release() {
    let Some(aws) = Aws::start() else { return };
    let kinds = [
        ("lockfile/terraform.tfstate", json!({"use_lockfile": true})),
        (
            "dynamodb/terraform.tfstate",
            json!({"dynamodb_table": TABLE}),
        ),
        (
            "both/terraform.tfstate",
            json!({"use_lockfile": true, "dynamodb_table": TABLE}),
        ),
    ];
    for (key, extra) in &kinds {
        let backend = aws.open(key, extra);
        assert_eq!(backend.location(), format!("s3://{BUCKET}/{key}"));
        assert_eq!(backend.lock_path(), format!("{BUCKET}/{key}"));
        assert_eq!(backend.backup_name(), "terraform.tfstate");
        let ours = lock_info("statectl taint", "ana@ci", &backend.lock_path());
        let theirs = lock_info("OperationTypeApply", "bo@laptop", &backend.lock_path());
        backend.lock(&ours).unwrap();
        let holder = held_by(backend.lock(&theirs));
        assert_eq!(holder, ours, "{key}");
        // A put the SDK retried after a lost answer meets the lock its first attempt wrote: ours.
        backend.lock(&ours).unwrap();
        // The lock info is stored in Terraform's shape, Path = bucket/key.
        let stored = if extra.get("use_lockfile").is_some() {
            aws.object(&format!("{key}.tflock")).unwrap()
        } else {
            aws.item(&format!("{BUCKET}/{key}"), "Info").unwrap()
        };
        let fields: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&stored)
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            fields,
            [
                "ID",
                "Operation",
                "Info",
                "Who",
                "Version",
                "Created",
                "Path"
            ]
        );
        assert_contains(&stored, &format!("\"Path\":\"{BUCKET}/{key}\""));
        // Someone else's ID does not release it.
        let error = backend.unlock(&theirs).unwrap_err();
        assert_contains(&error.message, "not by lock");
        backend.unlock(&ours).unwrap();
        assert_eq!(aws.object(&format!("{key}.tflock")), None);
        assert_eq!(aws.item(&format!("{BUCKET}/{key}"), "Info"), None);
        backend.lock(&theirs).unwrap();
        backend.unlock(&theirs).unwrap();
    }

    // Both kinds: a DynamoDB lock held elsewhere refuses the lock, and the lock object taken first
    // is removed again.
    let key = "both/terraform.tfstate";
    let backend = aws.open(key, &kinds[2].1);
    let dynamodb_only = aws.open(key, &kinds[1].1);
    let other = lock_info("OperationTypePlan", "cy@ci", &backend.lock_path());
    dynamodb_only.lock(&other).unwrap();
    let ours = lock_info("statectl taint", "ana@ci", &backend.lock_path());
    assert_eq!(held_by(backend.lock(&ours)), other);
    assert_eq!(aws.object(&format!("{key}.tflock")), None);
    dynamodb_only.unlock(&other).unwrap();
}

#[test]
fn a_write_keeps_encryption_and_records_the_digest_and_a_stale_digest_is_refused() {
    let Some(aws) = Aws::start() else { return };
    // moto ignores SSE-C (it stores and serves such objects without the key), so the bucket-side
    // encryption is what can be seen here; the SSE-C headers have a unit test.
    let extra = json!({"dynamodb_table": TABLE, "encrypt": true});
    let backend = aws.open("app/terraform.tfstate", &extra);
    assert_eq!(backend.get().unwrap(), None, "no state yet");
    let info = lock_info("statectl taint", "ana@ci", &backend.lock_path());
    backend.lock(&info).unwrap();
    let state = b"{\"version\": 4, \"serial\": 1, \"lineage\": \"l\", \"resources\": []}\n";
    backend.put(state, &info).unwrap();
    backend.unlock(&info).unwrap();
    assert_eq!(backend.get().unwrap().as_deref(), Some(&state[..]));
    // What Terraform checks: the MD5 in `<bucket>/<key>-md5`, lowercase hex.
    let printed = aws.moto.python(&format!(
        "import hashlib\n\
         head = client('s3').head_object(Bucket='{BUCKET}', Key='app/terraform.tfstate')\n\
         print(head['ContentType'], head.get('ServerSideEncryption'), head['ResponseMetadata']['HTTPHeaders'].get('x-amz-sdk-checksum-algorithm'), hashlib.md5({state:?}.encode()).hexdigest())\n",
        state = String::from_utf8_lossy(state)
    ));
    let words: Vec<&str> = printed.split_whitespace().collect();
    // As Terraform puts it: JSON, AES256 under `encrypt`, a SHA-256 checksum.
    assert_eq!(
        words[..3],
        ["application/json", "AES256", "SHA256"],
        "{printed}"
    );
    assert_eq!(
        aws.item(&format!("{BUCKET}/app/terraform.tfstate-md5"), "Digest")
            .as_deref(),
        Some(words[3])
    );

    // The object changed behind the digest's back: refused after Terraform's ten seconds of
    // retries, with the digest to set.
    aws.moto.python(&format!(
        "client('s3').put_object(Bucket='{BUCKET}', Key='app/terraform.tfstate', Body=b'{{}}')\n"
    ));
    let started = Instant::now();
    let error = backend.get().unwrap_err();
    assert!(started.elapsed() >= Duration::from_secs(9));
    assert_starts_with(
        &error.message,
        "s3://tfstate/app/terraform.tfstate: state data in S3 does not have the expected content: its MD5 is 99914b932bd37a50b983c5e7c90ae93b",
    );
    assert!(
        error
            .hint
            .unwrap()
            .contains(r#""Digest":{"S":"99914b932bd37a50b983c5e7c90ae93b"}"#)
    );
}

/// A server that answers every request with `response`, for the answers moto does not give.
fn canned_server(response: String) -> String {
    crate::stand_in::canned(response)
}

fn xml_error(status: &str, headers: &str, code: &str) -> String {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code><Message>m</Message></Error>"
    );
    format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn faults_are_one_line_naming_the_bucket_the_region_and_the_caller() {
    let Some(aws) = Aws::start() else { return };
    // No such key: no state yet. No such bucket: said so.
    assert_eq!(aws.open("absent.tfstate", &json!({})).get().unwrap(), None);
    let mut missing = aws.config("k.tfstate", &json!({}), "default");
    missing.values["bucket"] = json!("no-such-bucket");
    let error = statectl_backend::open(&missing).unwrap().get().unwrap_err();
    assert_eq!(
        error.message,
        "s3://no-such-bucket/k.tfstate: the S3 bucket `no-such-bucket` does not exist"
    );

    // The wrong region: S3 answers 301 with the bucket's region.
    let redirect = canned_server(xml_error(
        "301 Moved Permanently",
        "x-amz-bucket-region: eu-west-2\r\n",
        "PermanentRedirect",
    ));
    let error = aws
        .open("k.tfstate", &json!({"endpoints": {"s3": redirect}}))
        .get()
        .unwrap_err();
    assert_eq!(
        error.message,
        "s3://tfstate/k.tfstate: the bucket `tfstate` is in region eu-west-2, not us-east-1"
    );
    assert!(error.hint.unwrap().contains("region=eu-west-2"));

    // Access denied: bucket, key, and the caller as STS (moto) names it.
    let denied = canned_server(xml_error("403 Forbidden", "", "AccessDenied"));
    let url = aws.moto.url();
    let error = aws
        .open(
            "env:/dev/k.tfstate",
            &json!({"endpoints": {"s3": denied, "sts": url}}),
        )
        .get()
        .unwrap_err();
    assert_starts_with(
        &error.message,
        "s3://tfstate/env:/dev/k.tfstate: access denied to `env:/dev/k.tfstate` in bucket `tfstate` for `arn:aws:sts::",
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("that identity needs `s3:GetObject` on `arn:aws:s3:::tfstate/env:/dev/k.tfstate`")
    );

    // A dead endpoint: a few quick attempts, then one line naming it.
    let dead = crate::processes::refusing_url();
    let started = Instant::now();
    let error = aws
        .open("k.tfstate", &json!({"endpoints": {"s3": dead}}))
        .get()
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_starts_with(
        &error.message,
        &format!("s3://tfstate/k.tfstate: cannot reach S3 at {dead} while reading the state: "),
    );
    assert!(!error.message.contains('\n'));
    assert!(
        !format!("{error:?}").contains("testing"),
        "no credentials in errors"
    );

    // An endpoint that takes the connection and never answers: bounded too.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    let started = Instant::now();
    let error = aws
        .open("k.tfstate", &json!({"endpoints": {"s3": silent_url}}))
        .get()
        .unwrap_err();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(25), "{took:?}");
    assert_starts_with(
        &error.message,
        &format!(
            "s3://tfstate/k.tfstate: cannot reach S3 at {silent_url} while reading the state: "
        ),
    );
    drop(silent);
}

/// A Terraform working folder whose backend is S3 on moto (with `locks`, the locking settings),
/// initialised and applied. Both tools get moto's dummy keys, and no user AWS files or metadata.
fn applied(locks: &str) -> Option<Served<Aws>> {
    let workdir = s3_workdir()?;
    workdir.init_and_apply(&backend_block(&workdir.server.moto.url(), locks));
    Some(workdir)
}

/// A Terraform working folder beside moto (with a bucket and a lock table), nothing written yet.
pub(crate) fn s3_workdir() -> Option<Served<Aws>> {
    let terraform = terraform()?;
    let aws = Aws::start()?;
    let environment = |home: &Path| {
        let nowhere = home.join("no-aws-files").display().to_string();
        vec![
            ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
            ("AWS_CONFIG_FILE", nowhere.clone()),
            ("AWS_SHARED_CREDENTIALS_FILE", nowhere),
            ("AWS_EC2_METADATA_DISABLED", "true".to_owned()),
            ("HOME", home.display().to_string()),
            ("CHECKPOINT_DISABLE", "1".to_owned()),
        ]
    };
    Some(Served::new(aws, Workdir::new(&terraform, environment, &[])))
}

/// The `backend "s3"` block of a working folder on moto at `url` (state `app/terraform.tfstate`),
/// with `locks`, the locking settings.
pub(crate) fn backend_block(url: &str, locks: &str) -> String {
    format!(
        "  backend \"s3\" {{\n    bucket = \"{BUCKET}\"\n    key = \"app/terraform.tfstate\"\n    region = \"us-east-1\"\n    endpoints = {{ s3 = \"{url}\", dynamodb = \"{url}\", sts = \"{url}\" }}\n    use_path_style = true\n    skip_credentials_validation = true\n    skip_requesting_account_id = true\n    skip_metadata_api_check = true\n{locks}  }}\n"
    )
}

/// One round trip at a time: three at once, each with its own moto and Terraform, beside the rest of
/// the suite on two cores, once slowed moto enough that Terraform's own retried `PutItem` found the
/// lock item its first attempt had written, and refused its own plan.
pub(crate) static ROUND_TRIPS: Mutex<()> = Mutex::new(());

fn terraform_round_trip(locks: &str) {
    let _one_at_a_time = ROUND_TRIPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(workdir) = applied(locks) else {
        return;
    };
    workdir.list_taint_plan("terraform_data.web[0]");
    workdir.waits_for_terraforms_lock("terraform_data.web[1]");
    workdir.terraform_is_refused_while_statectl_holds_it();
    // A second workspace: its own object under `env:/`.
    workdir.second_workspace_round_trip(|| {
        workdir
            .server
            .object("env:/dev/app/terraform.tfstate")
            .is_some()
    });
}

#[test]
fn terraform_and_statectl_share_an_s3_state_locked_with_the_lock_object() {
    terraform_round_trip("    use_lockfile = true\n");
}

#[test]
fn terraform_and_statectl_share_an_s3_state_locked_with_dynamodb() {
    terraform_round_trip(&format!("    dynamodb_table = \"{TABLE}\"\n"));
}

#[test]
fn terraform_and_statectl_share_an_s3_state_locked_both_ways() {
    terraform_round_trip(&format!(
        "    use_lockfile = true\n    dynamodb_table = \"{TABLE}\"\n"
    ));
}

/// `statectl list s3://bucket/key` with the rest from `--backend-config` and the environment: the
/// state is read and named; a missing key is one line with a hint; no credential is printed.
#[test]
fn a_url_reads_the_state_and_a_missing_key_is_one_line() {
    let Some(aws) = Aws::start() else { return };
    let state = crate::builder::root().join("testdata/states/modules.tfstate");
    let body = std::fs::read_to_string(&state).unwrap();
    aws.moto.python(&format!(
        "client('s3').put_object(Bucket='{BUCKET}', Key='team/prod.tfstate', Body=open('{}').read())\n",
        state.display()
    ));
    let run = |url: &str| {
        aws.statectl(&["list", url])
            .env("AWS_SECRET_ACCESS_KEY", "s3cr3t-never-printed")
            .run()
    };
    let listed = run(&format!("s3://{BUCKET}/team/prod.tfstate")).code(0);
    let expected = Test::new().arg("list").arg(&state).run().code(0).stdout;
    assert_eq!(listed.stdout, expected);
    assert_eq!(
        listed.stderr,
        format!("state s3://{BUCKET}/team/prod.tfstate (backend \"s3\")\n")
    );
    assert!(body.contains("\"lineage\""));
    let missing = run(&format!("s3://{BUCKET}/team/missing.tfstate")).refused(&format!(
        "error: s3://{BUCKET}/team/missing.tfstate: there is no state there\nhint: check the bucket and key (another workspace's state is under `workspace_key_prefix`, `env:` by default); `terraform workspace list` shows the workspaces\n"
    ));
    assert!(!missing.stderr.contains("s3cr3t"));
}

/// `statectl scan s3://bucket/prefix/`: every state below the prefix (workspaces included) in one
/// report, each finding named by its URL; lock objects skipped; empty objects (a console's folder
/// marker, a state object a lock left empty) skipped with a note, as Terraform reads them as no
/// state; a key that is not a state is an error entry while the others are still scanned;
/// `--include`/`--exclude` choose keys.
#[test]
fn a_prefix_scans_every_state_below_it_in_one_report() {
    let Some(aws) = Aws::start() else { return };
    let scan = crate::builder::root().join("testdata/scan");
    let put = |key: &str, file: &Path| {
        aws.moto.python(&format!(
            "client('s3').put_object(Bucket='{BUCKET}', Key='{key}', Body=open('{}', 'rb').read())\n",
            file.display()
        ));
    };
    put("org/network/terraform.tfstate", &scan.join("clean.tfstate"));
    put(
        "org/env:/staging/network/terraform.tfstate",
        &scan.join("cf-tainted-in-progress.tfstate"),
    );
    put(
        "org/network/terraform.tfstate.tflock",
        &scan.join("clean.tfstate"),
    );
    put(
        "org/notes/readme.txt",
        &crate::builder::root().join("README.md"),
    );
    put(
        "other/terraform.tfstate",
        &scan.join("cf-tainted-in-progress.tfstate"),
    );
    for empty in ["org/archive/", "org/ci/terraform.tfstate"] {
        aws.moto.python(&format!(
            "client('s3').put_object(Bucket='{BUCKET}', Key='{empty}', Body=b'')\n"
        ));
    }
    let run = |extra: &[&str]| {
        aws.statectl(&["scan", &format!("s3://{BUCKET}/org/"), "--format", "json"])
            .args(extra)
            .run()
    };
    let all = run(&[]);
    // Chosen, only the states: the staging workspace has findings (exit 1), nothing failed to read.
    assert_prefix_scan(
        &all,
        &[
            "s3://tfstate/org/env:/staging/network/terraform.tfstate",
            "s3://tfstate/org/network/terraform.tfstate",
            "s3://tfstate/org/notes/readme.txt",
        ],
        "5 states under s3://tfstate/org/\nskipped 2 empty objects (no state yet, as Terraform reads them): s3://tfstate/org/archive/, s3://tfstate/org/ci/terraform.tfstate\n",
        &run(&["--include", "**/*.tfstate", "--exclude", "org/network/*"]),
        Some("s3://tfstate/org/env:/staging/network/terraform.tfstate"),
    );
    assert_contains(&all.stderr, "error: s3://tfstate/org/notes/readme.txt:");
    let report: Value = serde_json::from_str(&all.stdout).unwrap();
    find_by(
        &report["states"][0]["findings"],
        "rule",
        "tainted-after-timeout",
    );
    run(&["--include", "*.nothing"])
        .refused("error: s3://tfstate/org/: no states there matching *.nothing\n");
    // Named on its own, an empty object is still no state (a mistyped key must not scan clean).
    let alone = aws
        .statectl(&["scan", &format!("s3://{BUCKET}/org/ci/terraform.tfstate")])
        .run();
    assert_eq!(alone.code, 2, "{}", alone.stderr);
    assert_contains(
        &alone.stderr,
        "s3://tfstate/org/ci/terraform.tfstate: there is no state there",
    );

    summary_adds_up_the_states_under(&aws, &scan);
}

/// `summary` over the prefix `a_prefix_scans_every_state_below_it_in_one_report` filled: the counts
/// of the states added up (each summarised alone is the oracle), the unreadable key named and exit 2,
/// the others still counted.
fn summary_adds_up_the_states_under(aws: &Aws, scan: &Path) {
    let summary = |extra: &[&str]| {
        let prefix = format!("s3://{BUCKET}/org/");
        aws.statectl(&["summary", &prefix, "--format", "json", "-j", "2"])
            .args(extra)
            .run()
    };
    let alone = |file: &str| -> Value {
        let output = Test::new()
            .args(["summary", "--format", "json"])
            .arg(scan.join(file))
            .run();
        assert_eq!(output.code, 0, "{}", output.stderr);
        serde_json::from_str(&output.stdout).unwrap()
    };
    let (clean, tainted) = (
        alone("clean.tfstate"),
        alone("cf-tainted-in-progress.tfstate"),
    );
    let with_readme = summary(&[]);
    assert_eq!(with_readme.code, 2, "{}", with_readme.stderr);
    assert_contains(
        &with_readme.stderr,
        "error: s3://tfstate/org/notes/readme.txt:",
    );
    let states = summary(&["--include", "**/*.tfstate"]);
    assert_eq!(states.code, 0, "{}", states.stderr);
    for output in [&with_readme, &states] {
        let total: Value = serde_json::from_str(&output.stdout).unwrap();
        assert_eq!(total["state"], "s3://tfstate/org/");
        assert_eq!(total["states"], 2);
        for counted in ["resources", "instances"] {
            assert_eq!(
                total[counted].as_u64().unwrap(),
                clean[counted].as_u64().unwrap() + tainted[counted].as_u64().unwrap(),
                "{counted}"
            );
        }
        for (type_name, count) in tainted["by_type"].as_object().unwrap() {
            let clean_count = clean["by_type"][type_name].as_u64().unwrap_or(0);
            assert_eq!(
                total["by_type"][type_name].as_u64().unwrap(),
                count.as_u64().unwrap() + clean_count,
                "{type_name}"
            );
        }
        let versions: u64 = crate::builder::sum_of_counts(&total["by_terraform_version"]);
        assert_eq!(versions, 2);
    }
    let unreadable = &serde_json::from_str::<Value>(&with_readme.stdout).unwrap()["unreadable"];
    assert_eq!(unreadable[0]["state"], "s3://tfstate/org/notes/readme.txt");
    assert_eq!(
        serde_json::from_str::<Value>(&states.stdout).unwrap()["unreadable"],
        json!([])
    );
    assert_eq!(
        serde_json::from_str::<Value>(&states.stdout).unwrap()["empty"],
        json!(["s3://tfstate/org/ci/terraform.tfstate"])
    );
}
