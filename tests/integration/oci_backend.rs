//! The oci backend end to end against `statectl-sim object-storage` on loopback, with real Terraform
//! 1.15.5 as the other client: its `backend "oci"` is pointed at the simulator the way the OCI SDK
//! allows (`OCI_CLIENT_HOST_OVERRIDES`, plain http), signs with the same test API key, and keeps
//! its state, workspaces and `.lock` objects there. statectl lists what Terraform lists, taints so
//! that Terraform sees it, names and waits for Terraform's lock, holds one that Terraform is refused
//! by, scans a prefix page by page; faults are one line each, exit 2, with no lock left behind.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::builder::{Test, assert_contains, assert_starts_with, root};
use crate::oracle::terraform;
use crate::simulator;
use crate::workdir::{TerraformWorkdir, Workdir, cancel_statectl_lock, scanned_states};

const NAMESPACE: &str = "acme";
const BUCKET: &str = "states";
const TENANCY: &str = "ocid1.tenancy.oc1..t";
const USER: &str = "ocid1.user.oc1..u";
const FINGERPRINT: &str = "36:62:75:44";

fn private_key() -> PathBuf {
    root().join("tests/sim/oci_test_key.pem")
}

/// A running `statectl-sim object-storage`, stopped on drop.
struct Sim {
    server: simulator::Server,
}

impl Sim {
    fn start(extra: &[&str]) -> Sim {
        Sim::start_as(&format!("{TENANCY}/{USER}/{FINGERPRINT}"), extra)
    }

    /// The simulator accepting the test key under `key_id`.
    fn start_as(key_id: &str, extra: &[&str]) -> Sim {
        let public_key = root().join("tests/sim/oci_test_key.pub.pem");
        let mut args: Vec<OsString> = [
            "object-storage",
            "--namespace",
            NAMESPACE,
            "--bucket",
            BUCKET,
            "--key-id",
            key_id,
            "--public-key",
        ]
        .map(OsString::from)
        .into();
        args.push(public_key.into());
        args.extend(extra.iter().map(OsString::from));
        Sim {
            server: simulator::start(args),
        }
    }

    fn port(&self) -> u16 {
        self.server.address().port()
    }

    /// `OCI_CLIENT_HOST_OVERRIDES`, as Terraform's backend and statectl read it.
    fn host_override(&self) -> String {
        format!(
            "oci_object_storage.ObjectStorageClient=http://127.0.0.1:{}",
            self.port()
        )
    }

    /// One unsigned control request; the status and body.
    fn control(&self, method: &str, target: &str, body: &[u8]) -> (u16, Vec<u8>) {
        simulator::control(self.port(), method, target, body)
    }

    fn object(&self, name: &str) -> Option<Vec<u8>> {
        let (status, body) = self.control(
            "GET",
            &format!("/_sim/object?bucket={BUCKET}&name={name}"),
            b"",
        );
        (status == 200).then_some(body)
    }

    fn put_object(&self, name: &str, body: &[u8]) {
        let (status, _) = self.control(
            "PUT",
            &format!("/_sim/object?bucket={BUCKET}&name={name}"),
            body,
        );
        assert_eq!(status, 200);
    }

    fn fault(&self, spec: &str) {
        assert_eq!(self.control("POST", "/_sim/fault", spec.as_bytes()).0, 200);
    }

    fn log(&self) -> Vec<Value> {
        serde_json::from_slice(&self.control("GET", "/_sim/log", b"").1).unwrap()
    }

    /// Waits until the lock object `name` exists (`true`) or not (`false`).
    fn wait_for(&self, name: &str, present: bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.object(name).is_some() != present {
            assert!(Instant::now() < deadline, "{name} never became {present}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A folder with a `backend "oci"` block whose API key is given in the arguments, and an empty
/// home (no `~/.oci/config` of the machine's is read), initialised and applied by Terraform.
fn applied(terraform: &Path, sim: &Sim) -> Workdir {
    let environment = |home: &Path| {
        vec![
            ("HOME", home.display().to_string()),
            ("OCI_CLIENT_HOST_OVERRIDES", sim.host_override()),
            ("CHECKPOINT_DISABLE", "1".to_owned()),
            ("TF_IN_AUTOMATION", "1".to_owned()),
        ]
    };
    let workdir = Workdir::with_home(terraform, &["TF_DATA_DIR"], environment);
    let key = private_key().display().to_string();
    workdir.init_and_apply_backend(
        "oci",
        &[
            ["bucket", BUCKET],
            ["namespace", NAMESPACE],
            ["region", "eu-frankfurt-1"],
            ["tenancy_ocid", TENANCY],
            ["user_ocid", USER],
            ["fingerprint", FINGERPRINT],
            ["private_key_path", &key],
        ],
    );
    workdir
}

/// A home whose `~/.oci/config` names the test key in its `DEFAULT` profile, with the region.
fn home_with_profile() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".oci")).unwrap();
    std::fs::write(
        home.path().join(".oci/config"),
        format!(
            "[DEFAULT]\nuser={USER}\nfingerprint={FINGERPRINT}\ntenancy={TENANCY}\nregion=eu-frankfurt-1\nkey_file={}\n",
            private_key().display()
        ),
    )
    .unwrap();
    home
}

/// statectl by URL, with the key from `home`'s config file, run in `home` (where a write's local
/// backup goes, never the checkout).
fn by_url(sim: &Sim, home: &Path) -> Test {
    Test::new()
        .current_dir(home)
        .env("HOME", home)
        .env("OCI_CLIENT_HOST_OVERRIDES", sim.host_override())
        .env("USER", "statectl-e2e")
}

fn state_url(object: &str) -> String {
    format!("oci://{NAMESPACE}/{BUCKET}/{object}")
}

#[test]
fn terraform_writes_and_statectl_lists_and_taints_through_the_oci_backend() {
    let Some(terraform) = terraform() else { return };
    let sim = Sim::start(&[]);
    let project = applied(&terraform, &sim);
    let expected = project.terraform_stdout(&["state", "list"]);
    assert_eq!(
        expected,
        "terraform_data.app\nterraform_data.db[0]\nterraform_data.db[1]\n"
    );

    // In the initialised directory, and by URL with the key from ~/.oci/config.
    let listed = project
        .statectl_test()
        .arg("list")
        .run()
        .code(0)
        .stdout(&expected);
    assert_contains(&listed.stderr, &state_url("terraform.tfstate"));
    let home = home_with_profile();
    by_url(&sim, home.path())
        .args(["list", &state_url("terraform.tfstate")])
        .run()
        .code(0)
        .stdout(&expected);

    project
        .statectl_test()
        .args(["taint", "terraform_data.app"])
        .run()
        .code(0);
    let shown = project.terraform_stdout(&["state", "show", "-no-color", "terraform_data.app"]);
    assert_starts_with(&shown, "# terraform_data.app: (tainted)");
    assert_eq!(
        sim.object("terraform.tfstate.lock"),
        None,
        "the lock is released"
    );
    // statectl's lock went where Terraform's goes: an If-None-Match PUT, deleted with its ETag.
    let log = sim.log();
    let lock_requests: Vec<(&str, Option<&str>, Option<&str>)> = log
        .iter()
        .filter(|entry| {
            entry["target"]
                .as_str()
                .unwrap()
                .ends_with("/o/terraform.tfstate.lock")
        })
        .map(|entry| {
            (
                entry["method"].as_str().unwrap(),
                entry["if_none_match"].as_str(),
                entry["if_match"].as_str(),
            )
        })
        .collect();
    assert!(
        lock_requests
            .iter()
            .any(|(method, none, _)| *method == "PUT" && *none == Some("*"))
    );
    assert!(
        lock_requests
            .iter()
            .any(|(method, _, etag)| *method == "DELETE" && etag.is_some())
    );
    let puts_with_md5 = log
        .iter()
        .filter(|entry| {
            entry["method"] == "PUT"
                && entry["target"]
                    .as_str()
                    .unwrap()
                    .ends_with("/o/terraform.tfstate")
        })
        .all(|entry| entry["content_md5"].is_string());
    assert!(puts_with_md5, "every state PUT carries its Content-MD5");
    let plan = project.terraform_stdout(&["plan", "-no-color", "-input=false"]);
    assert_contains(&plan, "terraform_data.app is tainted, so must be replaced");
}

#[test]
fn workspaces_live_under_the_prefix_and_a_scan_finds_them_page_by_page() {
    let Some(terraform) = terraform() else { return };
    // Pages of one object: the scan has to follow `nextStartWith` through every one.
    let sim = Sim::start(&["--page-size", "1"]);
    let project = applied(&terraform, &sim);
    project.terraform_stdout(&["workspace", "new", "-no-color", "dev"]);
    project.terraform_stdout(&[
        "apply",
        "-auto-approve",
        "-input=false",
        "-no-color",
        "-target=terraform_data.app",
    ]);
    assert!(sim.object("tf-state-env/dev/terraform.tfstate").is_some());

    // The selected workspace (the data directory's `environment`), then `default` by flag.
    project
        .statectl_test()
        .arg("list")
        .run()
        .code(0)
        .stdout("terraform_data.app\n");
    project
        .statectl_test()
        .args(["list", "--workspace", "default"])
        .run()
        .code(0)
        .stdout("terraform_data.app\nterraform_data.db[0]\nterraform_data.db[1]\n");
    let home = home_with_profile();
    by_url(&sim, home.path())
        .args([
            "list",
            "--workspace",
            "dev",
            &state_url("terraform.tfstate"),
        ])
        .run()
        .code(0)
        .stdout("terraform_data.app\n");

    // A lock object Terraform left is no state; `--include` narrows by object name.
    sim.put_object("tf-state-env/dev/terraform.tfstate.lock", b"{}");
    let scan = by_url(&sim, home.path())
        .args([
            "scan",
            &format!("oci://{NAMESPACE}/{BUCKET}/"),
            "--format",
            "json",
        ])
        .run();
    assert!(scan.code == 0 || scan.code == 1, "{}", scan.stderr);
    let names = scanned_states(&scan.stdout);
    assert_eq!(
        names,
        [
            state_url("terraform.tfstate"),
            state_url("tf-state-env/dev/terraform.tfstate")
        ]
    );
    let lists = sim
        .log()
        .iter()
        .filter(|entry| entry["target"].as_str().unwrap().contains("/o?"))
        .count();
    assert!(lists >= 3, "one ListObjects a page: {lists}");
    let narrowed = by_url(&sim, home.path())
        .args([
            "scan",
            &format!("oci://{NAMESPACE}/{BUCKET}/tf-state-env/"),
            "--format",
            "json",
        ])
        .run();
    let report: Value = serde_json::from_str(&narrowed.stdout).unwrap();
    assert_eq!(report["summary"]["states"], 1, "{}", narrowed.stderr);
}

#[test]
fn statectl_names_terraforms_lock_and_waits_for_it_with_lock_timeout() {
    let Some(terraform) = terraform() else { return };
    let sim = Sim::start(&[]);
    let project = applied(&terraform, &sim);
    let (mut apply, mut answer) = project.apply_waiting_at_the_prompt("terraform_data.db[1]");
    sim.wait_for("terraform.tfstate.lock", true);
    // Terraform's own lock object: its lock info, `Path` the state object.
    let held: Value =
        serde_json::from_slice(&sim.object("terraform.tfstate.lock").unwrap()).unwrap();
    assert_eq!(held["Path"], "terraform.tfstate");

    let refused = project
        .statectl_test()
        .args(["taint", "terraform_data.app"])
        .run()
        .refused(&format!(
            "{}: the state is locked by `",
            state_url("terraform.tfstate")
        ));
    assert_contains(
        &refused.stderr,
        "(Terraform 1.15.5, operation `OperationTypeApply`, since ",
    );

    let waiting = std::thread::spawn({
        let test =
            project
                .statectl_test()
                .args(["taint", "terraform_data.app", "--lock-timeout", "30s"]);
        move || test.run()
    });
    std::thread::sleep(Duration::from_millis(700));
    answer.write_all(b"no\n").unwrap();
    drop(answer);
    let _ = apply.wait();
    waiting.join().unwrap().code(0);
    let shown = project.terraform_stdout(&["state", "show", "-no-color", "terraform_data.app"]);
    assert_starts_with(&shown, "# terraform_data.app: (tainted)");
    assert_eq!(sim.object("terraform.tfstate.lock"), None);
}

#[test]
fn terraform_is_refused_naming_statectl_while_statectl_lock_holds_it() {
    let Some(terraform) = terraform() else { return };
    let sim = Sim::start(&[]);
    let project = applied(&terraform, &sim);
    let holder = project.statectl_lock_holder();
    sim.wait_for("terraform.tfstate.lock", true);
    // statectl's lock object is Terraform's: its lock info, `Path` the state object.
    let ours: Value =
        serde_json::from_slice(&sim.object("terraform.tfstate.lock").unwrap()).unwrap();
    assert_eq!(ours["Path"], "terraform.tfstate");
    assert_eq!(ours["Operation"], "statectl lock");

    project.terraform_refused_by_statectl_lock("terraform_data.app");

    cancel_statectl_lock(holder);
    sim.wait_for("terraform.tfstate.lock", false);
    // And Terraform takes it now.
    project.terraform_stdout(&["plan", "-no-color", "-input=false", "-lock-timeout=0s"]);
}

/// A state in the simulator put there directly (no Terraform needed), and a home with the key.
fn seeded(extra: &[&str]) -> (Sim, tempfile::TempDir) {
    let sim = Sim::start(extra);
    sim.put_object(
        "app/terraform.tfstate",
        &std::fs::read(root().join("testdata/scan/clean.tfstate")).unwrap(),
    );
    (sim, home_with_profile())
}

#[test]
fn faults_are_one_line_each_and_leave_no_lock() {
    let (sim, home) = seeded(&[]);
    let url = state_url("app/terraform.tfstate");
    let run = |args: &[&str]| by_url(&sim, home.path()).args(args).run();

    // A bucket that does not exist, a namespace that does not, an object that does not.
    run(&["list", &format!("oci://{NAMESPACE}/nope/app/terraform.tfstate")]).refused(
        "cannot read the state: GET app/terraform.tfstate answered 404 BucketNotFound (Either the bucket named 'nope' does not exist",
    );
    run(&["list", "oci://other/states/app/terraform.tfstate"])
        .refused("answered 404 NamespaceNotFound");
    run(&["list", &state_url("app/missing.tfstate")]).refused(&format!(
        "{}: there is no state there",
        state_url("app/missing.tfstate")
    ));

    // Held by Terraform: its lock object, as Terraform's source writes it, names the holder.
    let lock = r#"{"ID":"5b1a7f0e-3f4c-4c8e-9a43-111111111111","Operation":"OperationTypeApply","Info":"","Who":"ana@ci-runner","Version":"1.15.5","Created":"2026-11-25T03:00:00.000000Z","Path":"app/terraform.tfstate"}"#;
    sim.put_object("app/terraform.tfstate.lock", lock.as_bytes());
    let before = sim.object("app/terraform.tfstate").unwrap();
    let refused = run(&["taint", "oci_core_instance.app", &url]).refused(&format!(
        "{url}: the state is locked by `ana@ci-runner` (Terraform 1.15.5, operation `OperationTypeApply`"
    ));
    assert_contains(&refused.stderr, "5b1a7f0e-3f4c-4c8e-9a43-111111111111");
    assert_eq!(
        sim.object("app/terraform.tfstate").unwrap(),
        before,
        "nothing written"
    );
    assert_eq!(
        sim.object("app/terraform.tfstate.lock").unwrap(),
        lock.as_bytes(),
        "their lock stays"
    );
    sim.control(
        "DELETE",
        &format!("/_sim/object?bucket={BUCKET}&name=app/terraform.tfstate.lock"),
        b"",
    );

    // A lock refused by the service: one line, nothing written.
    sim.fault("PUT=403*1");
    run(&["taint", "oci_core_instance.app", &url]).refused(
        "cannot lock the state: PUT app/terraform.tfstate.lock answered 403 NotAuthorized",
    );
    assert_eq!(sim.object("app/terraform.tfstate").unwrap(), before);
    assert_eq!(sim.object("app/terraform.tfstate.lock"), None);

    // A write that keeps failing under the lock: one line, the state untouched, the lock released.
    sim.fault("PUT:.tfstate=500*100");
    // (The diff is on stdout before the write; the error is the one line after the note.)
    run(&["taint", "oci_core_instance.app", &url])
        .code(2)
        .stderr_contains(&format!(
            "\nerror: {url}: cannot write the state: PUT app/terraform.tfstate answered 500 InternalServerError (5 attempts)\nhint: the service is throttling or failing; try again later\n"
        ));
    assert_eq!(sim.control("DELETE", "/_sim/fault", b"").0, 200);
    assert_eq!(sim.object("app/terraform.tfstate").unwrap(), before);
    assert_eq!(
        sim.object("app/terraform.tfstate.lock"),
        None,
        "no lock left"
    );

    // Throttled once, then served: the retry is silent. A lock PUT that fails once (503) is
    // retried, and a slow answer within the timeout is only slow: the taint goes through.
    sim.fault("GET=429*1");
    run(&["list", &url]).code(0);
    sim.fault("PUT=503*1");
    sim.fault("DELETE=slow:300*1");
    run(&["taint", "oci_core_instance.app", &url]).code(0);
    assert_ne!(sim.object("app/terraform.tfstate").unwrap(), before);
    assert_eq!(sim.object("app/terraform.tfstate.lock"), None);
}

#[test]
fn a_key_the_service_refuses_is_named_by_fingerprint_never_shown() {
    // The simulator knows another fingerprint for the key: every signature is refused.
    let sim = Sim::start_as(&format!("{TENANCY}/{USER}/00:00:00:00"), &[]);
    let home = home_with_profile();
    let refused = by_url(&sim, home.path())
        .args(["list", &state_url("terraform.tfstate")])
        .run()
        .refused("answered 401 NotAuthenticated");
    assert_contains(
        &refused.stderr,
        &format!(
            "the service did not accept the signature of the API key with fingerprint {FINGERPRINT} of profile DEFAULT in {}",
            home.path().join(".oci/config").display()
        ),
    );
    let key = std::fs::read_to_string(private_key()).unwrap();
    let body_line = key.lines().nth(1).unwrap();
    assert!(!refused.stderr.contains(body_line));
}

#[test]
fn an_endpoint_down_or_silent_is_one_bounded_line() {
    let (sim, home) = seeded(&[]);
    let url = state_url("app/terraform.tfstate");
    // Silent: every GET held; the request timeout bounds the wait.
    sim.fault("GET=silent");
    let started = Instant::now();
    let silent = by_url(&sim, home.path())
        .env("OCI_HTTP_REQUEST_TIMEOUT", "1s")
        .args(["list", &url])
        .run()
        .refused("got no answer: no answer in time (timed out)");
    assert!(started.elapsed() < Duration::from_secs(20), "{silent:?}");

    // Down: nothing listens on the port any more.
    let port = sim.port();
    drop(sim);
    by_url_port(port, home.path())
        .args(["list", &url])
        .run()
        .refused("got no answer: ");
}

fn by_url_port(port: u16, home: &Path) -> Test {
    Test::new().current_dir(home).env("HOME", home).env(
        "OCI_CLIENT_HOST_OVERRIDES",
        format!("oci_object_storage.ObjectStorageClient=http://127.0.0.1:{port}"),
    )
}

#[test]
fn a_kms_key_goes_with_every_state_write_and_not_with_the_lock() {
    let (sim, home) = seeded(&[]);
    let url = state_url("app/terraform.tfstate");
    by_url(&sim, home.path())
        .args(["taint", "oci_core_instance.app", &url])
        .backend_config("kms_key_id=ocid1.key.oc1..k")
        .run()
        .code(0);
    let log = sim.log();
    let puts: Vec<(&str, &Value)> = log
        .iter()
        .filter(|entry| entry["method"] == "PUT")
        .map(|entry| (entry["target"].as_str().unwrap(), &entry["sse_kms"]))
        .collect();
    assert_eq!(
        puts,
        [
            (
                "/n/acme/b/states/o/app%2Fterraform.tfstate.lock",
                &Value::Null
            ),
            (
                "/n/acme/b/states/o/app%2Fterraform.tfstate",
                &Value::from("ocid1.key.oc1..k")
            ),
        ],
        "Terraform's order: the lock, then the state with its key"
    );
    let backups = std::fs::read_dir(home.path())
        .unwrap()
        .filter(|entry| {
            let name = entry.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.starts_with("terraform.tfstate.")
                && Path::new(&*name)
                    .extension()
                    .is_some_and(|extension| extension == "backup")
        })
        .count();
    assert_eq!(
        backups, 1,
        "the old state's local backup, beside the command"
    );
}

#[test]
fn a_session_profile_signs_with_its_token() {
    // `oci session authenticate` leaves a profile with a token file and the session's key.
    let sim = Sim::start_as("ST$e2e-session-token", &[]);
    sim.put_object(
        "app/terraform.tfstate",
        &std::fs::read(root().join("testdata/scan/clean.tfstate")).unwrap(),
    );
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join(".oci/sessions/dev");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::copy(private_key(), sessions.join("oci_api_key.pem")).unwrap();
    std::fs::write(sessions.join("token"), "e2e-session-token\n").unwrap();
    std::fs::write(
        home.path().join(".oci/config"),
        "[dev]\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nregion=eu-frankfurt-1\nkey_file=sessions/dev/oci_api_key.pem\nsecurity_token_file=sessions/dev/token\n",
    )
    .unwrap();
    let session = |profile: &str| {
        by_url(&sim, home.path())
            .args(["list", &state_url("app/terraform.tfstate")])
            .backend_config("auth=SecurityToken")
            .backend_config(format!("config_file_profile={profile}"))
            .backend_config("region=eu-frankfurt-1")
            .run()
    };
    session("dev")
        .code(0)
        .stdout_contains("oci_core_instance.app\n");
    session("prod").refused("cannot sign requests with session profile prod: ");
}

/// OCI object versions in the API's documented shapes on a loopback server (the simulator has no
/// versions): `GetBucket`'s `versioning`, `ListObjectVersions` (items with `versionId`,
/// `timeModified`, `isDeleteMarker`), `GetObject` with `versionId`. History lists them newest
/// first, the delete marker as such; `--version` reads one and refuses the marker; a bucket with
/// versioning disabled says so. Bounded: at most 30 requests are answered.
#[test]
fn oci_object_versions_from_the_api_shapes() {
    let state = |serial: u64, names: &[&str]| {
        let resources: Vec<String> = names
            .iter()
            .map(|name| format!(r#"{{"mode": "managed", "type": "terraform_data", "name": "{name}", "provider": "provider[\"terraform.io/builtin/terraform\"]", "instances": [{{"schema_version": 0, "attributes": {{"id": "{name}"}}}}]}}"#))
            .collect();
        format!(
            r#"{{"version": 4, "terraform_version": "1.15.5", "serial": {serial}, "lineage": "lin-1", "outputs": {{}}, "resources": [{}]}}"#,
            resources.join(", ")
        )
    };
    let (older, newer) = (state(1, &["a"]), state(2, &["a", "b"]));
    let listing = serde_json::json!({"items": [
        {"name": "app/terraform.tfstate", "versionId": "v3", "timeModified": "2026-11-28T03:00:00.000Z", "isDeleteMarker": true},
        {"name": "app/terraform.tfstate", "versionId": "v1", "size": older.len(), "timeModified": "2026-11-28T01:00:00.000Z", "isDeleteMarker": false, "etag": "e1"},
        {"name": "app/terraform.tfstate", "versionId": "v2", "size": newer.len(), "timeModified": "2026-11-28T02:00:00.000Z", "isDeleteMarker": false, "etag": "e2"},
        {"name": "app/terraform.tfstate.lock", "versionId": "v9", "size": 1, "timeModified": "2026-11-28T04:00:00.000Z"},
    ]})
    .to_string();
    let port = crate::stand_in::answering(move |line| {
        let path = line.split(' ').nth(1).unwrap_or_default();
        let (status, body) = if path == "/n/acme/b/states" {
            (
                "200 OK",
                r#"{"name": "states", "versioning": "Enabled"}"#.to_owned(),
            )
        } else if path == "/n/acme/b/plain" {
            (
                "200 OK",
                r#"{"name": "plain", "versioning": "Disabled"}"#.to_owned(),
            )
        } else if path.starts_with("/n/acme/b/states/objectversions") {
            ("200 OK", listing.clone())
        } else if path.contains("versionId=v1") {
            ("200 OK", older.clone())
        } else if path.contains("versionId=v2") {
            ("200 OK", newer.clone())
        } else {
            (
                "404 Not Found",
                r#"{"code": "ObjectNotFound", "message": "no such object"}"#.to_owned(),
            )
        };
        crate::stand_in::answer(status, Some("application/json"), &body)
    });
    let home = home_with_profile();
    let run = |args: &[&str]| by_url_port(port, home.path()).args(args);
    let url = state_url("app/terraform.tfstate");
    let output = run(&["history", &url, "--format", "json"]).run().code(0);
    let history: Value = serde_json::from_str(&output.stdout).unwrap();
    let ids: Vec<&str> = crate::builder::strings_of(&history["versions"], "id");
    assert_eq!(ids, ["v3", "v2", "v1"], "{history:#}");
    assert_eq!(history["versions"][0]["deleted"], true);
    assert_eq!(history["versions"][1]["serial"], 2);
    assert_eq!(history["versions"][1]["changes"]["added"], 1);
    assert_eq!(history["versions"][2]["extras"]["etag"], "e1");
    run(&["list", &url, "--version", "v1"])
        .run()
        .code(0)
        .stdout("terraform_data.a\n");
    run(&["list", &url, "--version", "v3"])
        .run()
        .refused("is a delete marker");
    let plain = format!("oci://{NAMESPACE}/plain/app/terraform.tfstate");
    let said = run(&["history", &plain]).run().code(0);
    assert_contains(
        &said.stderr,
        "bucket `plain` keeps no versions (versioning is disabled), so the state has no history",
    );
}
