//! The gcs backend against fake-gcs-server on loopback (scripts/install-gcs-emulator.sh): the lock
//! object and its generation, the faults (a missing bucket, refused credentials, a dead or silent
//! endpoint) through the crate's API; and real Terraform 1.15.5 with `backend "gcs"` pointed at the
//! same emulator (`storage_custom_endpoint`, any `access_token`) as the other client through the
//! CLI: the same state listed, a taint Terraform plans from, each tool refused (or waiting) while the
//! other holds the lock, a second workspace, and a scan of `gs://bucket/prefix/`.
//! Without the emulator or Terraform these tests skip, except under CI, where they fail.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use statectl_backend::BackendConfig;
use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState};

use crate::builder::{Test, assert_contains, assert_starts_with};
use crate::oracle::terraform;
use crate::skip::require_installed;
use crate::workdir::{Served, TerraformWorkdir, Workdir, assert_prefix_scan, scanned_states};

pub(crate) const BUCKET: &str = "tfstate";
/// Any string: the emulator takes every token, and Terraform sends this one as it is.
pub(crate) const TOKEN: &str = "ya29.loopback-token";

/// fake-gcs-server on a free loopback port, with the bucket; killed when dropped.
pub(crate) struct Emulator {
    child: Child,
    port: u16,
    folder: tempfile::TempDir,
}

impl Emulator {
    pub(crate) fn start() -> Option<Emulator> {
        let binary = require_installed(
            "STATECTL_GCS_EMULATOR",
            "target/gcs-emulator/fake-gcs-server",
        )?;
        let folder = tempfile::tempdir().unwrap();
        let port = crate::processes::free_port();
        let log = std::fs::File::create(folder.path().join("emulator.log")).unwrap();
        // `-public-host` is the host Terraform's reads name (`GET /<bucket>/<object>`, the XML API).
        let child = Command::new(binary)
            .args([
                "-scheme",
                "http",
                "-host",
                "127.0.0.1",
                "-backend",
                "memory",
            ])
            .args(["-port", &port.to_string()])
            .args(["-public-host", &format!("127.0.0.1:{port}")])
            .args(["-log-level", "warn"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let emulator = Emulator {
            child,
            port,
            folder,
        };
        crate::processes::wait_for_port(port, "the emulator");
        let (status, body) = emulator.request(
            "POST",
            "/storage/v1/b",
            &json!({"name": BUCKET}).to_string(),
        );
        assert_eq!(status, 200, "{body}");
        Some(emulator)
    }

    pub(crate) fn path(&self) -> &Path {
        self.folder.path()
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    pub(crate) fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/storage/v1/", self.port)
    }

    /// One request to the emulator, as a third party behind both tools' backs.
    pub(crate) fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer[9..12].parse().unwrap();
        let body = answer
            .split_once("\r\n\r\n")
            .map_or("", |(_, body)| body)
            .to_owned();
        (status, body)
    }

    /// An object's body, or `None` when there is none.
    pub(crate) fn object(&self, name: &str) -> Option<String> {
        let (status, body) = self.request(
            "GET",
            &format!(
                "/storage/v1/b/{BUCKET}/o/{}?alt=media",
                name.replace('/', "%2F")
            ),
            "",
        );
        (status == 200).then_some(body)
    }

    /// Puts an object's body as another client would.
    pub(crate) fn put(&self, name: &str, body: &str) {
        let (status, answer) = self.request(
            "POST",
            &format!(
                "/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name={}",
                name.replace('/', "%2F")
            ),
            body,
        );
        assert_eq!(status, 200, "{answer}");
    }

    /// A backend configuration as `terraform init` records it, pointed at the emulator.
    fn config(&self, prefix: &str, workspace: &str) -> BackendConfig {
        let Value::Object(values) = json!({
            "bucket": BUCKET,
            "prefix": prefix,
            "storage_custom_endpoint": self.endpoint(),
            "access_token": TOKEN,
        }) else {
            unreachable!()
        };
        BackendConfig {
            kind: "gcs".to_owned(),
            values,
            workspace: workspace.to_owned(),
            origin: ".terraform/terraform.tfstate".to_owned(),
        }
    }

    fn open(&self, prefix: &str) -> std::sync::Arc<dyn RemoteState> {
        statectl_backend::open(&self.config(prefix, "default")).unwrap()
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lock_info(operation: &str, who: &str, path: &str) -> LockInfo {
    let mut info = LockInfo::new(operation, Path::new(path));
    who.clone_into(&mut info.who);
    info
}

#[test]
fn the_lock_object_excludes_others_names_the_holder_by_generation_and_checks_the_id_on_release() {
    let Some(gcs) = Emulator::start() else { return };
    let backend = gcs.open("team/app");
    assert_eq!(
        backend.location(),
        format!("gs://{BUCKET}/team/app/default.tfstate")
    );
    assert_eq!(
        backend.lock_path(),
        format!("gs://{BUCKET}/team/app/default.tflock")
    );
    assert_eq!(backend.backup_name(), "default.tfstate");
    assert_eq!(backend.get().unwrap(), None, "no state yet");

    let ours = lock_info("statectl taint", "ana@ci", &backend.lock_path());
    let theirs = lock_info("OperationTypeApply", "bo@laptop", &backend.lock_path());
    backend.lock(&ours).unwrap();
    let stored = gcs.object("team/app/default.tflock").unwrap();
    assert_eq!(LockInfo::parse(stored.as_bytes()).unwrap(), ours);
    // The holder is named with the lock ID Terraform would show: the object's generation.
    let holder = match backend.lock(&theirs) {
        Err(LockRefused::Held(Some(holder))) => *holder,
        other => panic!("not refused as held: {other:?}"),
    };
    assert_eq!(holder.who, "ana@ci");
    assert_eq!(holder.operation, "statectl taint");
    assert!(
        !holder.id.is_empty() && holder.id.bytes().all(|byte| byte.is_ascii_digit()),
        "{}",
        holder.id
    );
    // Someone else's ID does not release it.
    let error = backend.unlock(&theirs).unwrap_err();
    assert_contains(&error.message, "not by lock");
    assert!(gcs.object("team/app/default.tflock").is_some());

    // A write under the lock, read back; the lock is gone once released.
    let state = "{\"version\": 4, \"serial\": 1, \"lineage\": \"l\", \"resources\": []}\n";
    backend.put(state.as_bytes(), &ours).unwrap();
    backend.unlock(&ours).unwrap();
    assert_eq!(gcs.object("team/app/default.tflock"), None);
    assert_eq!(backend.get().unwrap().as_deref(), Some(state.as_bytes()));
    // A lock object removed behind the holder's back (force-unlock) is no error on release.
    backend.lock(&theirs).unwrap();
    gcs.request(
        "DELETE",
        &format!("/storage/v1/b/{BUCKET}/o/team%2Fapp%2Fdefault.tflock"),
        "",
    );
    backend.unlock(&theirs).unwrap();
}

/// A server that answers every request with `status` and a Google JSON error.
fn canned_server(status: &str, message: &str) -> String {
    let body = json!({"error": {"code": 0, "message": message}}).to_string();
    let response = crate::stand_in::answer(status, Some("application/json"), &body);
    format!("{}/storage/v1/", crate::stand_in::canned(response))
}

fn with_endpoint(gcs: &Emulator, endpoint: &str) -> std::sync::Arc<dyn RemoteState> {
    let mut config = gcs.config("app", "default");
    config.values["storage_custom_endpoint"] = json!(endpoint);
    statectl_backend::open(&config).unwrap()
}

#[test]
fn faults_are_one_line_naming_the_bucket_and_the_credential_never_the_token() {
    let Some(gcs) = Emulator::start() else { return };
    let mut missing = gcs.config("app", "default");
    missing.values["bucket"] = json!("no-such-bucket");
    let error = statectl_backend::open(&missing).unwrap().get().unwrap_err();
    assert_eq!(
        error.message,
        "gs://no-such-bucket/app/default.tfstate: the GCS bucket `no-such-bucket` does not exist"
    );

    let denied = canned_server(
        "403 Forbidden",
        "ci@p.iam.gserviceaccount.com does not have storage.objects.get access",
    );
    let error = with_endpoint(&gcs, &denied).get().unwrap_err();
    assert_eq!(
        error.message,
        "gs://tfstate/app/default.tfstate: cannot read the state: access denied to `app/default.tfstate` in bucket `tfstate` for the access token in `access_token`"
    );
    assert!(error.hint.unwrap().contains("storage.objects.get"));
    let unauthorized = canned_server("401 Unauthorized", "Invalid Credentials");
    let error = with_endpoint(&gcs, &unauthorized).get().unwrap_err();
    assert!(!format!("{error:?}").contains(TOKEN));
    assert_eq!(
        error.message,
        "gs://tfstate/app/default.tfstate: cannot read the state: Google Cloud Storage refused the access token in `access_token` (401 Unauthorized: Invalid Credentials)"
    );
    assert!(
        error
            .hint
            .unwrap()
            .contains("gcloud auth print-access-token")
    );

    // A dead endpoint: a few quick attempts, then one line naming it; the lock is refused alike.
    let dead = crate::processes::refusing_url();
    let started = Instant::now();
    let backend = with_endpoint(&gcs, &format!("{dead}/storage/v1/"));
    let error = backend.get().unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_starts_with(
        &error.message,
        &format!(
            "gs://tfstate/app/default.tfstate: cannot reach Google Cloud Storage at {dead} while reading the state: no answer: "
        ),
    );
    assert!(!error.message.contains('\n'));
    let info = lock_info("statectl taint", "ana@ci", &backend.lock_path());
    assert!(matches!(backend.lock(&info), Err(LockRefused::Failed(_))));

    // An endpoint that takes the connection and never answers: bounded too.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    let started = Instant::now();
    let error = with_endpoint(&gcs, &format!("{silent_url}/storage/v1/"))
        .get()
        .unwrap_err();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(25), "{took:?}");
    assert!(
        error
            .message
            .ends_with("no answer: no answer in time (timed out)"),
        "{}",
        error.message
    );
    drop(silent);
}

/// `statectl list gs://bucket/prefix/name.tfstate` with the rest from `--backend-config`: read and
/// named; a missing object is one line with a hint; the token is never printed.
#[test]
fn a_url_reads_the_state_and_a_missing_object_is_one_line() {
    let Some(gcs) = Emulator::start() else { return };
    let state = crate::builder::root().join("testdata/states/modules.tfstate");
    gcs.put(
        "team/prod.tfstate",
        &std::fs::read_to_string(&state).unwrap(),
    );
    let run = |url: &str, extra: &[&str]| {
        Test::new()
            .current_dir(gcs.path())
            .args(["list", url])
            .backend_config(format!("storage_custom_endpoint={}", gcs.endpoint()))
            .args(extra)
            .env("GOOGLE_OAUTH_ACCESS_TOKEN", TOKEN)
            .run()
    };
    let listed = run(&format!("gs://{BUCKET}/team/prod.tfstate"), &[]).code(0);
    let expected = Test::new().arg("list").arg(&state).run().code(0).stdout;
    assert_eq!(listed.stdout, expected);
    assert_eq!(
        listed.stderr,
        format!("state gs://{BUCKET}/team/prod.tfstate (backend \"gcs\")\n")
    );
    let missing = run(&format!("gs://{BUCKET}/team/missing.tfstate"), &[]).refused(&format!(
        "error: gs://{BUCKET}/team/missing.tfstate: there is no state there\nhint: check the bucket and prefix"
    ));
    assert!(!missing.stderr.contains(TOKEN));
    run(&format!("gs://{BUCKET}/team/notes.txt"), &[]).refused(&format!(
        "error: gs://{BUCKET}/team/notes.txt: a GCS state URL names a bucket and a state object ending in `.tfstate`\n"
    ));
    run(
        &format!("gs://{BUCKET}/team/prod.tfstate"),
        &["--workspace", "dev"],
    )
    .refused("the URL names workspace `prod`'s state, not `dev`'s");
}

/// No credentials given or found, and no metadata server: one line naming what was looked for,
/// with a hint, exit 2, without waiting long.
#[test]
fn no_credentials_at_all_is_one_line_with_a_hint() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = closed.local_addr().unwrap().to_string();
    drop(closed);
    let home = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let output = Test::new()
        .current_dir(home.path())
        .args(["list", "gs://tfstate/app/default.tfstate"])
        .backend_config(format!("storage_custom_endpoint=http://{nowhere}/storage/v1/"))
        .env("HOME", home.path())
        .env("GCE_METADATA_HOST", &nowhere)
        .run()
        .refused(&format!(
            "error: gs://tfstate/app/default.tfstate: cannot get a Google access token for the metadata server's service account (application default credentials) while reading the state: no credentials were given or found, and the metadata server at http://{nowhere}/computeMetadata/v1/instance/service-accounts/default/token gave none (no answer: "
        ));
    assert_contains(
        &output.stderr,
        "hint: give credentials: `credentials` (a service account key) or `access_token`",
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// `statectl scan gs://bucket/prefix/`: every state below the prefix (workspaces of several
/// prefixes) in one report, each named by its URL; lock objects skipped; an object that is not a
/// state is an error entry while the others are still scanned; `--include`/`--exclude` choose names.
#[test]
fn a_prefix_scans_every_state_below_it_in_one_report() {
    let Some(gcs) = Emulator::start() else { return };
    let scan = crate::builder::root().join("testdata/scan");
    let read = |name: &str| std::fs::read_to_string(scan.join(name)).unwrap();
    gcs.put("org/network/default.tfstate", &read("clean.tfstate"));
    gcs.put(
        "org/network/staging.tfstate",
        &read("cf-tainted-in-progress.tfstate"),
    );
    gcs.put("org/network/staging.tflock", "{\"ID\": \"x\"}");
    gcs.put("org/notes/readme.txt", "not a state");
    gcs.put("other/default.tfstate", &read("clean.tfstate"));
    let run = |extra: &[&str]| {
        Test::new()
            .current_dir(gcs.path())
            .args(["scan", &format!("gs://{BUCKET}/org/"), "--format", "json"])
            .backend_config(format!("storage_custom_endpoint={}", gcs.endpoint()))
            .backend_config(format!("access_token={TOKEN}"))
            .args(extra)
            .run()
    };
    let all = run(&[]);
    assert_prefix_scan(
        &all,
        &[
            "gs://tfstate/org/network/default.tfstate",
            "gs://tfstate/org/network/staging.tfstate",
            "gs://tfstate/org/notes/readme.txt",
        ],
        "3 states under gs://tfstate/org/\n",
        &run(&[
            "--include",
            "**/*.tfstate",
            "--exclude",
            "org/network/default*",
        ]),
        Some("gs://tfstate/org/network/staging.tfstate"),
    );
    assert_contains(&all.stderr, "error: gs://tfstate/org/notes/readme.txt:");
    assert!(!all.stderr.contains(TOKEN));
}

/// A Terraform working folder whose backend is gcs on the emulator, initialised and applied. Both
/// tools get the token from its variable (so the backend cache holds none), and no user gcloud
/// files.
fn applied() -> Option<Served<Emulator>> {
    let terraform = terraform()?;
    let gcs = Emulator::start()?;
    let backend = format!(
        "  backend \"gcs\" {{\n    bucket = \"{BUCKET}\"\n    prefix = \"app\"\n    storage_custom_endpoint = \"{}\"\n  }}\n",
        gcs.endpoint()
    );
    let workdir = gcs_workdir(
        gcs,
        &terraform,
        ("GOOGLE_OAUTH_ACCESS_TOKEN", TOKEN.to_owned()),
    );
    workdir.init_and_apply(&backend);
    Some(workdir)
}

/// A working folder for both tools on `gcs`, given `credential` (a variable and its value) and a
/// home of the folder's own; the test's own Google variables are hidden from Terraform.
pub(crate) fn gcs_workdir(
    gcs: Emulator,
    terraform: &Path,
    credential: (&'static str, String),
) -> Served<Emulator> {
    let environment = |home: &Path| {
        vec![
            credential,
            ("HOME", home.display().to_string()),
            ("CHECKPOINT_DISABLE", "1".to_owned()),
        ]
    };
    let hidden = &[
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CREDENTIALS",
        "GOOGLE_BACKEND_CREDENTIALS",
        "GOOGLE_OAUTH_ACCESS_TOKEN",
        "STORAGE_EMULATOR_HOST",
        "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT",
    ];
    Served::new(gcs, Workdir::new(terraform, environment, hidden))
}

#[test]
fn terraform_and_statectl_share_a_gcs_state_and_its_lock() {
    let Some(workdir) = applied() else {
        return;
    };
    workdir.list_taint_plan("terraform_data.web[0]");
    let refused = workdir.waits_for_terraforms_lock("terraform_data.web[1]");
    // The lock ID named is the lock object's generation, as `terraform force-unlock` takes it.
    let id = refused
        .stderr
        .split("lock ID ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_default();
    assert!(
        !id.is_empty() && id.bytes().all(|byte| byte.is_ascii_digit()),
        "{}",
        refused.stderr
    );
    workdir.terraform_is_refused_while_statectl_holds_it();
    assert_eq!(
        workdir.server.object("app/default.tflock"),
        None,
        "released"
    );
    // A second workspace: its own object `app/dev.tfstate`.
    workdir.second_workspace_round_trip(|| workdir.server.object("app/dev.tfstate").is_some());
    // Both workspaces in one scan of the prefix, each named by its object.
    let scanned = workdir.statectl(&[
        "scan",
        &format!("gs://{BUCKET}/app/"),
        "--format",
        "json",
        "--backend-config",
        &format!("storage_custom_endpoint={}", workdir.server.endpoint()),
    ]);
    assert_ne!(scanned.code, 2, "{}", scanned.stderr);
    let names = scanned_states(&scanned.stdout);
    assert_eq!(
        names,
        [
            "gs://tfstate/app/default.tfstate",
            "gs://tfstate/app/dev.tfstate"
        ]
    );
}
