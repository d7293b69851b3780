//! `statectl refresh` against the project's provider simulator (`statectl-sim`) on loopback: OCI
//! instances (signed requests, VNIC lookups), Cloud Foundry v3 service instances (bearer token), faults
//! (503, 429 with Retry-After, resets), gone objects, refused credentials; the plan without `--write`
//! (exit 1, nothing written) and the safe write with it. Requests are counted by the simulator and
//! bounded here.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::builder::{assert_contains, assert_lacks, assert_starts_with, find_by, root};
use crate::files::{file_names, folder_with_state};
use crate::simulator;

/// A running simulator; stopped when dropped.
pub(crate) struct Sim {
    server: simulator::Server,
}

impl Sim {
    /// The simulator serving `scenario` (written to `folder`).
    pub(crate) fn start(folder: &Path, scenario: &str) -> Sim {
        let path = folder.join("scenario.toml");
        std::fs::write(&path, scenario).unwrap();
        Sim {
            server: simulator::start([OsStr::new("--scenario"), path.as_os_str()]),
        }
    }

    pub(crate) fn url(&self) -> String {
        self.server.url()
    }

    /// `/_sim/stats`.
    fn stats(&self) -> Value {
        let port = self.server.address().port();
        let (status, body) = simulator::control(port, "GET", "/_sim/stats", b"");
        assert_eq!(status, 200);
        serde_json::from_slice(&body).unwrap()
    }
}

/// Runs statectl in `folder` with `env` added to a scrubbed environment.
fn statectl(folder: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
    command
        .args(args)
        .current_dir(folder)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("COLUMNS", "200");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn scratch_with(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("terraform.tfstate");
    std::fs::copy(root().join("testdata/scan").join(fixture), &state).unwrap();
    (folder, state)
}

/// A scratch copy of `cf-tainted-in-progress.tfstate` and the simulator playing [`CF_SCENARIO`]
/// (the simulator first, so that it stops before its folder goes).
struct CfRun {
    sim: Sim,
    folder: tempfile::TempDir,
    state: PathBuf,
    /// The state's bytes before any run.
    before: Vec<u8>,
    /// `cf=<the simulator's address>`, for `--endpoint`.
    endpoint: String,
}

impl CfRun {
    /// `statectl refresh --endpoint <the simulator> --timeout 30s EXTRA…` in the folder.
    fn refresh(&self, extra: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let mut args = vec!["refresh", "--endpoint", &self.endpoint, "--timeout", "30s"];
        args.extend_from_slice(extra);
        statectl(self.folder.path(), &args, env)
    }
}

fn cf_run() -> CfRun {
    let (folder, state) = scratch_with("cf-tainted-in-progress.tfstate");
    let sim = Sim::start(folder.path(), CF_SCENARIO);
    let before = std::fs::read(&state).unwrap();
    let endpoint = format!("cf={}", sim.url());
    CfRun {
        sim,
        folder,
        state,
        before,
        endpoint,
    }
}

fn attributes(state: &Path, name: &str) -> Value {
    let document: Value = serde_json::from_slice(&std::fs::read(state).unwrap()).unwrap();
    find_by(&document["resources"], "name", name)["instances"][0]["attributes"].clone()
}

pub(crate) const CF_SCENARIO: &str = r#"
[cf]
token = "t0ken"

[[cf.service_instance]]
guid = "89acda41-b1a3-40ea-a528-fe1445219c75"
name = "orders-db"
last_operation_type = "create"
lifecycle = ["in progress:2", "succeeded"]
"#;

#[test]
fn a_cloud_foundry_instance_in_progress_is_reconciled_and_written_only_with_write() {
    let run = cf_run();
    let env = [("CF_ACCESS_TOKEN", "bearer t0ken")];
    // The plan: the outcome, the diff, exit 1, nothing written.
    let (code, stdout, stderr) = run.refresh(&[], &env);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        crate::builder::has_row(
            &stdout,
            &[
                "cloudfoundry_service_instance.orders_db",
                "reconciled (succeeded)"
            ]
        ),
        "{stdout}"
    );
    assert_contains(&stdout, "-      \"state\": \"in progress\",");
    assert_contains(&stdout, "+      \"state\": \"succeeded\",");
    assert_contains(&stderr, "nothing written");
    assert_eq!(std::fs::read(&run.state).unwrap(), run.before);
    // Written: the state learns the operation finished; serial raised; the taint stays (untaint is
    // the user's call, and the hint says so).
    let (code, _, stderr) = run.refresh(&["--write", "--backup", "-"], &env);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        attributes(&run.state, "orders_db")["last_operation"]["state"],
        "succeeded"
    );
    let (code, stdout, _) = statectl(run.folder.path(), &["scan", "--format", "json"], &[]);
    assert_eq!(code, 1);
    assert_contains(&stdout, "\"rule\": \"tainted\"");
    assert_lacks(&stdout, "tainted-after-timeout");
    // Two polls in progress, one succeeded, per run: bounded.
    let requests = run.sim.stats()["requests"].as_u64().unwrap();
    assert!((4..=8).contains(&requests), "{requests} requests");
}

fn status(state: &Path, name: &str) -> Value {
    let document: Value = serde_json::from_slice(&std::fs::read(state).unwrap()).unwrap();
    find_by(&document["resources"], "name", name)["instances"][0]["status"].clone()
}

/// A tainted instance the provider reports healthy stays tainted after `refresh --write`, and the
/// run says what to run next; with `--untaint-healthy` the same locked write clears the taint.
#[test]
fn a_reconciled_tainted_instance_gets_a_hint_or_with_untaint_healthy_loses_its_taint() {
    let run = cf_run();
    let env = [("CF_ACCESS_TOKEN", "bearer t0ken")];
    let refresh = |extra: &[&str]| run.refresh(extra, &env);
    let hint = "hint: `cloudfoundry_service_instance.orders_db` is reconciled (its remote object is healthy) but still tainted, so the next `terraform apply` replaces it; to keep it: `statectl untaint cloudfoundry_service_instance.orders_db` (or refresh with `--untaint-healthy`)\n";
    let (code, _, stderr) = refresh(&["--write", "--backup", "-"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.ends_with(hint), "{stderr}");
    assert_eq!(status(&run.state, "orders_db"), "tainted");

    // Once more, now that the state already holds what the provider says (so it is named, as scan
    // no longer finds it stale): only the taint changes.
    let target = ["--target", "cloudfoundry_service_instance.orders_db"];
    let before = std::fs::read(&run.state).unwrap();
    let (code, stdout, stderr) =
        refresh(&[&target[..], &["--untaint-healthy", "--dry-run"]].concat());
    assert_eq!(code, 1, "{stderr}");
    assert_contains(&stdout, "-  \"status\": \"tainted\",");
    assert_contains(
        &stderr,
        "Would refresh and untaint `cloudfoundry_service_instance.orders_db`; nothing written",
    );
    assert_lacks(&stderr, "still tainted");
    assert_eq!(std::fs::read(&run.state).unwrap(), before);
    let (code, _, stderr) = refresh(
        &[
            &target[..],
            &["--untaint-healthy", "--write", "--backup", "-"],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_contains(
        &stderr,
        "Refreshed and untainted `cloudfoundry_service_instance.orders_db`; serial",
    );
    assert_eq!(status(&run.state, "orders_db"), Value::Null);
    let (code, stdout, _) = statectl(run.folder.path(), &["scan", "--format", "json"], &[]);
    assert_eq!(code, 0, "{stdout}");
}

/// A policy that protects untaints protects the untaint a refresh would make.
#[test]
fn untaint_healthy_is_judged_as_an_untaint_by_the_policy() {
    let run = cf_run();
    std::fs::write(
        run.folder.path().join(".statectl.toml"),
        "[[protect]]\ntypes = [\"cloudfoundry_*\"]\nactions = [\"untaint\"]\nreason = \"ask #data\"\n",
    )
    .unwrap();
    let (code, _, stderr) = run.refresh(
        &["--untaint-healthy", "--write"],
        &[("CF_ACCESS_TOKEN", "bearer t0ken")],
    );
    assert_eq!(code, 3, "{stderr}");
    assert_contains(&stderr, "ask #data");
    assert_eq!(std::fs::read(&run.state).unwrap(), run.before);
}

#[test]
fn refused_credentials_are_an_error_at_once_and_nothing_is_written() {
    let run = cf_run();
    let (code, stdout, stderr) = statectl(
        run.folder.path(),
        &["refresh", "--endpoint", &run.endpoint, "--write"],
        &[("CF_ACCESS_TOKEN", "wrong")],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_contains(&stdout, "error: HTTP 401: the credentials were refused");
    assert!(
        !stdout.contains("wrong") && !stderr.contains("wrong"),
        "the token never shows"
    );
    assert_eq!(std::fs::read(&run.state).unwrap(), run.before);
    assert_eq!(
        run.sim.stats()["requests"],
        1,
        "no retries on refused credentials"
    );
    // No token at all: said before any request.
    let (code, _, stderr) = statectl(
        run.folder.path(),
        &["refresh", "--endpoint", &run.endpoint],
        &[],
    );
    assert_eq!(code, 2);
    assert_contains(&stderr, "`CF_ACCESS_TOKEN` is not set");
}

/// An OCI config whose API key is the simulator's throwaway test key.
fn oci_config(folder: &Path) -> PathBuf {
    let config = folder.join("oci-config");
    std::fs::write(
        &config,
        format!(
            "[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nregion=eu-frankfurt-1\nkey_file={}\n",
            root().join("tests/sim/oci_test_key.pem").display()
        ),
    )
    .unwrap();
    config
}

fn oci_scenario(lifecycle: &str, faults: &str) -> String {
    format!(
        r#"
[oci]
key_id = "ocid1.tenancy.oc1..t/ocid1.user.oc1..u/36:62:75:44"
public_key_file = "{}"

[[oci.instance]]
id = "ocid1.instance.oc1.eu-frankfurt-1.aaaaaaaatuj41n8eg56rcixttywe3ldgcui88hyr79osd4yynm2u1cu0qq4m"
compartment_id = "ocid1.compartment.oc1..aaaaaaaaa8gj5bze6ibdqao4c8t2audw0icp2anyknkzuk5dcajypymd2zwk"
lifecycle = {lifecycle}
private_ip = "10.0.1.17"
public_ip = "130.61.4.2"
subnet_id = "ocid1.subnet.oc1.eu-frankfurt-1.aaaaaaaam3weklmtwbnntqn4wy5am0vgprrkrcuvn2qtr5jlcjaarsiqv6kk"
hostname_label = "app"
availability_domain = "Uocm:EU-FRANKFURT-1-AD-1"
{faults}
"#,
        root().join("tests/sim/oci_test_key.pub.pem").display()
    )
}

#[test]
fn an_oci_instance_launched_async_gets_its_state_and_ips_through_signed_requests_despite_faults() {
    let (folder, state) = scratch_with("oci-async-provisioning.tfstate");
    let config = oci_config(folder.path());
    let faults =
        "[faults]\nseed = 7\nrate_503 = 0.2\nrate_429 = 0.1\nretry_after = 1\nrate_reset = 0.05\n";
    let sim = Sim::start(
        folder.path(),
        &oci_scenario(r#"["PROVISIONING:2", "RUNNING"]"#, faults),
    );
    let endpoint = format!("oci={}", sim.url());
    let config = config.display().to_string();
    let (code, stdout, stderr) = statectl(
        folder.path(),
        &[
            "refresh",
            "--endpoint",
            &endpoint,
            "--timeout",
            "60s",
            "--write",
            "--backup",
            "-",
        ],
        &[("OCI_CLI_CONFIG_FILE", &config)],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_contains(&stdout, "reconciled (RUNNING)");
    let after = attributes(&state, "app");
    assert_eq!(after["state"], "RUNNING");
    assert_eq!(after["private_ip"], "10.0.1.17");
    assert_eq!(after["public_ip"], "130.61.4.2");
    assert_eq!(after["hostname_label"], "app");
    let stats = sim.stats();
    assert_eq!(
        stats["auth_rejected"], 0,
        "every request was signed right: {stats}"
    );
    assert!(stats["requests"].as_u64().unwrap() <= 30, "{stats}");
    assert_eq!(
        after["boot_volume_id"],
        "ocid1.bootvolume.oc1.eu-frankfurt-1.aaaaaaaatuj41n8eg56rcixttywe3ldgcui88hyr79osd4yynm2u1cu0qq4m"
    );
    // No longer in transition, every computed attribute filled: scan has nothing left to say of it.
    let (_, stdout, _) = statectl(folder.path(), &["scan", "--format", "json"], &[]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let findings: Vec<&Value> = report["states"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["address"] == "oci_core_instance.app")
        .collect();
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn a_terminated_instance_is_gone_and_its_removal_is_proposed() {
    let (folder, state) = scratch_with("oci-async-provisioning.tfstate");
    let config = oci_config(folder.path());
    let sim = Sim::start(folder.path(), &oci_scenario(r#"["TERMINATED"]"#, ""));
    let endpoint = format!("oci={}", sim.url());
    let config = config.display().to_string();
    let env = [("OCI_CLI_CONFIG_FILE", config.as_str())];
    let (code, stdout, _) = statectl(folder.path(), &["refresh", "--endpoint", &endpoint], &env);
    assert_eq!(code, 1, "{stdout}");
    crate::builder::assert_row(&stdout, &["oci_core_instance.app", "gone"]);
    assert_contains(&stdout, "+++ /dev/null");
    let (code, _, stderr) = statectl(
        folder.path(),
        &[
            "refresh",
            "--endpoint",
            &endpoint,
            "--write",
            "--backup",
            "-",
        ],
        &env,
    );
    assert_eq!(code, 0, "{stderr}");
    let (_, listed, _) = statectl(folder.path(), &["list"], &[]);
    assert_lacks(&listed, "oci_core_instance.app");
    assert!(state.exists());
}

#[test]
fn a_bad_signature_is_refused_by_the_simulator() {
    let (folder, _state) = scratch_with("oci-async-provisioning.tfstate");
    // The right key id, but a different key: the simulator verifies and refuses.
    let other_key = folder.path().join("other.pem");
    let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 1024).unwrap();
    std::fs::write(
        &other_key,
        rsa::pkcs8::EncodePrivateKey::to_pkcs8_pem(&key, rsa::pkcs8::LineEnding::LF)
            .unwrap()
            .as_bytes(),
    )
    .unwrap();
    let config = folder.path().join("oci-config");
    std::fs::write(&config, format!("[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nkey_file={}\n", other_key.display())).unwrap();
    let sim = Sim::start(folder.path(), &oci_scenario(r#"["RUNNING"]"#, ""));
    let endpoint = format!("oci={}", sim.url());
    let config = config.display().to_string();
    let (code, stdout, _) = statectl(
        folder.path(),
        &["refresh", "--endpoint", &endpoint],
        &[("OCI_CLI_CONFIG_FILE", &config)],
    );
    assert_eq!(code, 2, "{stdout}");
    assert_contains(&stdout, "HTTP 401: the credentials were refused");
    assert_eq!(sim.stats()["auth_rejected"], 1);
}

/// A state of Cloud Foundry service instances whose creates were left "in progress", by guid.
fn cf_state(guids: &[&str]) -> String {
    let instances: Vec<Value> = guids
        .iter()
        .enumerate()
        .map(|(index, guid)| {
            serde_json::json!({
                "index_key": index,
                "schema_version": 0,
                "attributes": {
                    "id": guid, "name": format!("db-{index}"), "type": "managed",
                    "last_operation": {"created_at": "2026-11-22T07:00:00Z", "description": "", "state": "in progress", "type": "create", "updated_at": "2026-11-22T07:00:00Z"}
                },
                "sensitive_attributes": []
            })
        })
        .collect();
    let state = serde_json::json!({
        "version": 4, "terraform_version": "1.15.5", "serial": 7, "lineage": "ctrl-c-test",
        "outputs": {},
        "resources": [{"mode": "managed", "type": "cloudfoundry_service_instance", "name": "db",
            "provider": "provider[\"registry.terraform.io/cloudfoundry/cloudfoundry\"]", "instances": instances}],
        "check_results": null
    });
    serde_json::to_string_pretty(&state).unwrap() + "\n"
}

#[test]
fn ctrl_c_stops_the_run_reports_what_is_known_and_writes_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("terraform.tfstate");
    let guids = [
        "00000000-0000-4000-8000-000000000001",
        "00000000-0000-4000-8000-000000000002",
        "00000000-0000-4000-8000-000000000003",
    ];
    std::fs::write(&state, cf_state(&guids)).unwrap();
    let before = std::fs::read(&state).unwrap();
    // The first instance succeeds at once; the others stay in progress for a minute.
    let sim = Sim::start(
        folder.path(),
        &format!(
            "[cf]\ntoken = \"t0ken\"\n\n\
             [[cf.service_instance]]\nguid = \"{}\"\nname = \"db-0\"\nlifecycle = [\"succeeded\"]\n\n\
             [[cf.service_instance]]\nguid = \"{}\"\nname = \"db-1\"\nlifecycle = [\"in progress@60s\", \"succeeded\"]\n\n\
             [[cf.service_instance]]\nguid = \"{}\"\nname = \"db-2\"\nlifecycle = [\"in progress@60s\", \"succeeded\"]\n",
            guids[0], guids[1], guids[2]
        ),
    );
    let endpoint = format!("cf={}", sim.url());
    let child = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args([
            "refresh",
            "--endpoint",
            &endpoint,
            "--timeout",
            "5m",
            "--write",
            "--format",
            "json",
        ])
        .current_dir(folder.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("CF_ACCESS_TOKEN", "t0ken")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until every instance was asked once (the first is then done), at most 10 s.
    let waited = std::time::Instant::now();
    while sim.stats()["requests"].as_u64().unwrap() < 3 {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(10),
            "the refresh never asked"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let (stdout, stderr) = crate::processes::interrupted(child);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let outcomes: Vec<&str> = crate::builder::strings_of(&report["instances"], "outcome");
    assert_eq!(
        outcomes,
        ["reconciled", "interrupted", "interrupted"],
        "{stdout}"
    );
    assert_contains(&stderr, "interrupted");
    assert_contains(&stderr, "nothing was written");
    // Not a byte written, no backup, no lock left behind.
    assert_eq!(std::fs::read(&state).unwrap(), before);
    let names: Vec<String> = file_names(folder.path());
    assert!(
        names
            .iter()
            .all(|name| !name.contains("backup") && !name.contains("lock")),
        "{names:?}"
    );
}

/// A broker-backed resource type of the user's, reading OSB's `last_operation` through a profile
/// that extends the built-in one.
const OSB_PROFILE: &str = r#"
[[profile]]
type = "example_broker_instance"
extends = "osb_service_instance"

[profile.poll]
interval = "200ms"
multiplier = 1
jitter = "0%"
"#;

fn osb_state() -> String {
    let instance = |key: &str, id: &str, kind: &str, operation: Option<&str>| {
        serde_json::json!({
            "index_key": key,
            "schema_version": 0,
            "attributes": {
                "id": id, "service_id": "svc-postgres", "plan_id": "plan-small",
                "last_operation": {"type": kind, "state": "in progress", "description": "", "operation": operation}
            },
            "sensitive_attributes": []
        })
    };
    let state = serde_json::json!({
        "version": 4, "terraform_version": "1.15.5", "serial": 2, "lineage": "osb-test",
        "outputs": {},
        "resources": [{"mode": "managed", "type": "example_broker_instance", "name": "db",
            "provider": "provider[\"registry.terraform.io/example/broker\"]",
            "instances": [
                instance("old", "osb-deprovisioning-1", "delete", Some("op-456")),
                instance("new", "osb-provisioning-2", "create", None),
            ]}],
        "check_results": null
    });
    serde_json::to_string_pretty(&state).unwrap() + "\n"
}

const OSB_SCENARIO: &str = r#"
[osb]
username = "broker"
password = "s3cret-pw"

[[osb.instance]]
id = "osb-deprovisioning-1"
service_id = "svc-postgres"
plan_id = "plan-small"
operation = "op-456"
kind = "deprovision"
lifecycle = ["in progress:1", "gone"]
retry_after = 1

[[osb.instance]]
id = "osb-provisioning-2"
service_id = "svc-postgres"
plan_id = "plan-small"
kind = "provision"
lifecycle = ["in progress:2", "failed"]
description = "quota exceeded"
"#;

#[test]
fn an_osb_deprovision_ending_in_410_is_removed_and_a_failed_provision_is_tainted() {
    let (folder, state) = folder_with_state(osb_state());
    std::fs::write(folder.path().join("profiles.toml"), OSB_PROFILE).unwrap();
    let sim = Sim::start(folder.path(), OSB_SCENARIO);
    let endpoint = format!("osb={}", sim.url());
    let env = [("OSB_USERNAME", "broker"), ("OSB_PASSWORD", "s3cret-pw")];
    let args = [
        "refresh",
        "--type",
        "example_broker_instance",
        "--profiles",
        "profiles.toml",
        "--endpoint",
        &endpoint,
        "--timeout",
        "30s",
    ];
    let (code, stdout, stderr) = statectl(folder.path(), &args, &env);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        crate::builder::has_row(&stdout, &["example_broker_instance.db[\"old\"]", "gone"]),
        "{stdout}"
    );
    assert!(
        crate::builder::has_row(
            &stdout,
            &[
                "example_broker_instance.db[\"new\"]",
                "failed (failed: quota exceeded)"
            ]
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("s3cret") && !stderr.contains("s3cret"));
    // Written: the deprovisioned instance is forgotten; the failed one keeps its object, learns
    // the failure and is tainted so the next apply replaces it.
    let mut with_write = args.to_vec();
    with_write.extend(["--write", "--backup", "-"]);
    let (code, stdout, stderr) = statectl(folder.path(), &with_write, &env);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let document: Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    let instances = document["resources"][0]["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 1, "{document:#}");
    assert_eq!(instances[0]["index_key"], "new");
    assert_eq!(instances[0]["status"], "tainted");
    assert_eq!(
        instances[0]["attributes"]["last_operation"]["state"],
        "failed"
    );
    assert_eq!(
        instances[0]["attributes"]["last_operation"]["description"],
        "quota exceeded"
    );
    assert_eq!(document["serial"], 3);
    // Each run: the delete polled until 410 (paced by Retry-After), the create until failed.
    let stats = sim.stats();
    let requests = stats["requests"].as_u64().unwrap();
    assert!((6..=10).contains(&requests), "{requests} requests: {stats}");
    assert_eq!(stats["auth_rejected"], 0, "{stats}");
}

#[test]
fn the_verbose_log_shows_requests_and_outcomes_but_never_the_token() {
    let run = cf_run();
    let (code, stdout, stderr) = statectl(
        run.folder.path(),
        &[
            "refresh",
            "-vv",
            "--endpoint",
            &run.endpoint,
            "--timeout",
            "30s",
        ],
        &[("CF_ACCESS_TOKEN", "bearer t0ken")],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    // Requests by path, each answer, each outcome, the run's end; on stderr only.
    assert_contains(
        &stderr,
        "sending method=GET host=\"127.0.0.1\" path=\"/v3/service_instances/89acda41-b1a3-40ea-a528-fe1445219c75\"",
    );
    assert_contains(&stderr, "status=200");
    assert_contains(
        &stderr,
        "instance=cloudfoundry_service_instance.orders_db outcome=reconciled (succeeded)",
    );
    assert_contains(&stderr, "reconciled instances=1 retries=0");
    assert_lacks(&stdout, "sending");
    for secret in ["t0ken", "uthorization", "earer"] {
        assert!(!stderr.contains(secret), "{secret} in {stderr}");
    }
    // Without -v: no log at all (stderr is not a terminal here, so no bar either).
    let (_, _, quiet) = run.refresh(&[], &[("CF_ACCESS_TOKEN", "bearer t0ken")]);
    assert!(
        !quiet.contains("sending") && !quiet.contains("INFO"),
        "{quiet}"
    );
}

/// `refresh - --write -o -` is the pipe from `terraform state pull` to `terraform state push -`:
/// stdout must carry the refreshed state and nothing else; the outcome table and the diff go to stderr.
#[test]
fn with_the_state_on_stdout_the_outcomes_and_diff_go_to_stderr() {
    let run = cf_run();
    let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
    let output = command
        .args([
            "refresh",
            "-",
            "--write",
            "-o",
            "-",
            "--endpoint",
            &run.endpoint,
            "--timeout",
            "30s",
        ])
        .current_dir(run.folder.path())
        .env_clear()
        .env("CF_ACCESS_TOKEN", "bearer t0ken")
        .env("COLUMNS", "200")
        .stdin(std::fs::File::open(&run.state).unwrap())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    );
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let refreshed: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("stdout is not only a state ({error}):\n{stdout}"));
    let original: Value = serde_json::from_slice(&run.before).unwrap();
    assert_eq!(
        refreshed["serial"],
        original["serial"].as_u64().unwrap() + 1
    );
    assert_eq!(refreshed["lineage"], original["lineage"]);
    assert_contains(&stdout, "\"state\": \"succeeded\"");
    assert!(
        crate::builder::has_row(
            &stderr,
            &[
                "cloudfoundry_service_instance.orders_db",
                "reconciled (succeeded)"
            ]
        ),
        "the outcome table is on stderr: {stderr}"
    );
    assert!(
        stderr.contains("+      \"state\": \"succeeded\","),
        "the diff is on stderr: {stderr}"
    );
    assert_eq!(
        std::fs::read(&run.state).unwrap(),
        run.before,
        "the file is untouched"
    );
}

/// Contradictory flags stop before any request or write: exit 2, the file unchanged, no backup.
#[test]
fn contradictory_refresh_flags_are_refused_before_anything_runs() {
    let run = cf_run();
    let env = [("CF_ACCESS_TOKEN", "bearer t0ken")];
    for (args, says) in [
        (
            &["--write", "--dry-run"][..],
            "the argument '--write' cannot be used with '--dry-run'",
        ),
        (
            &["--write", "-o", "-", "--format", "json"],
            "error: `--format json` and `-o -` both want standard output",
        ),
        (
            &["-o", "-"],
            "error: `-o -` puts the refreshed state on standard output, which is a write, but `--write` is not given",
        ),
        (
            &["--plugin-dir", "plugins"],
            "error: `--plugin-dir` is for the provider plugins",
        ),
    ] {
        let mut argv = vec!["refresh", "--endpoint", &run.endpoint];
        argv.extend_from_slice(args);
        let (code, stdout, stderr) = statectl(run.folder.path(), &argv, &env);
        assert_eq!(code, 2, "{argv:?}: {stderr}");
        assert!(stderr.contains(says), "{argv:?}: {stderr}");
        assert_eq!(stdout, "", "{argv:?}");
    }
    assert_eq!(std::fs::read(&run.state).unwrap(), run.before);
    assert_eq!(
        std::fs::read_dir(run.folder.path()).unwrap().count(),
        2,
        "only the state and the scenario: no backup, no lock file"
    );
    assert_eq!(
        run.sim.stats()["requests"].as_u64(),
        Some(0),
        "no request was sent"
    );
}

/// A stale instance of a type no refresh profile covers is skipped with the Terraform command that
/// refreshes it (a real Helm release left in `pending-upgrade`), and the state is left alone.
#[test]
fn a_type_without_a_profile_is_skipped_with_terraforms_refresh_command() {
    let (folder, state) = scratch_with("real/helm-pending-upgrade.tfstate");
    let before = std::fs::read(&state).unwrap();
    let (_, stdout, stderr) = statectl(folder.path(), &["refresh", "--format", "json"], &[]);
    let document: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!("{error}: {stdout}{stderr}");
    });
    assert_eq!(
        document["instances"],
        serde_json::json!([{
            "address": "helm_release.argocd",
            "outcome": "skipped",
            "detail": "no profile for type `helm_release`; Terraform refreshes it: `terraform apply -refresh-only -target=helm_release.argocd`"
        }])
    );
    assert_eq!(std::fs::read(&state).unwrap(), before);
}

/// The profile format reaches a user who has only the binary: `--profiles-format` prints it (the
/// same text the crate documents and tests its examples against), alone; a bad profile file's hint
/// names that flag, not a source path.
#[test]
fn the_profile_format_is_printed_by_the_binary_and_named_by_the_hint() {
    let (folder, _state) = scratch_with("oci-async-provisioning.tfstate");
    let (code, stdout, stderr) = statectl(folder.path(), &["refresh", "--profiles-format"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_starts_with(&stdout, "# Provider profiles\n");
    assert_contains(&stdout, "## Extending a profile");
    assert_lacks(&stdout, "crates/");
    let (code, stdout, _) = statectl(
        folder.path(),
        &["refresh", "--profiles-format", "--write"],
        &[],
    );
    assert_eq!((code, stdout.as_str()), (2, ""));
    std::fs::write(folder.path().join("bad.toml"), "[[profile]\n").unwrap();
    let (code, _, stderr) = statectl(folder.path(), &["refresh", "--profiles", "bad.toml"], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_contains(&stderr, "bad.toml:1:");
    assert_contains(
        &stderr,
        "hint: `statectl refresh --profiles-format` prints the profile format",
    );
}
