//! The http backend through the crate's API (`statectl_backend::open`, `Source::Remote`,
//! `Locked::acquire_source`) against `statectl-sim http-backend` on loopback: reads, no state, the
//! lock (held, `?ID=`, released), credentials, `TF_HTTP_*`, faults (500, resets, nothing
//! listening), a body that is not a state, and TLS with a CA, client certificates and
//! `skip_cert_verification`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use statectl_backend::BackendConfig;
use statectl_state::state::source::Source;
use statectl_state::state::store::{Backup, Locked, RemoteState};

const STATE: &str = r#"{"version":4,"terraform_version":"1.15.5","serial":3,"lineage":"6a1c7c2e-0000-4000-8000-000000000001","outputs":{},"resources":[],"check_results":null}
"#;
const NEW_STATE: &str = r#"{"version":4,"terraform_version":"1.15.5","serial":4,"lineage":"6a1c7c2e-0000-4000-8000-000000000001","outputs":{},"resources":[],"check_results":null}
"#;

/// A running `statectl-sim http-backend`, in-process, stopped on drop.
struct Server {
    _sim: statectl_sim::Server,
    /// `http://127.0.0.1:PORT`
    base: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let args = std::iter::once("http-backend").chain(args.iter().copied());
        let sim = statectl_sim::Server::start(args)
            .unwrap_or_else(|error| panic!("the simulator starts: {error}"));
        Server {
            base: sim.url(),
            _sim: sim,
        }
    }

    /// A server holding the state in `state`, started with `more` arguments.
    fn serving(state: &tempfile::NamedTempFile, more: &[&str]) -> Server {
        let path = state.path().to_str().unwrap();
        Server::start(&[&["--state", path], more].concat())
    }

    fn port(&self) -> u16 {
        self.base.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// A control request (`/_sim/...`), over plain HTTP.
    fn control(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port())).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer[9..12].parse().unwrap();
        let body = answer.split_once("\r\n\r\n").unwrap().1.to_owned();
        (status, body)
    }

    fn log(&self) -> Vec<Value> {
        serde_json::from_str::<Value>(&self.control("GET", "/_sim/log", "").1)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    /// The `(method, target, status)` of every request served.
    fn requests(&self) -> Vec<(String, String, Value)> {
        self.log()
            .iter()
            .map(|entry| {
                (
                    entry["method"].as_str().unwrap().to_owned(),
                    entry["target"].as_str().unwrap().to_owned(),
                    entry["status"].clone(),
                )
            })
            .collect()
    }

    /// The status of every request served, in order.
    fn statuses(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .map(|(_, _, status)| status)
            .collect()
    }

    /// The lock info the server holds for `/state`, if any.
    fn lock(&self) -> Option<Value> {
        let (status, body) = self.control("GET", "/_sim/lock?path=/state", "");
        (status == 200).then(|| serde_json::from_str(&body).unwrap())
    }

    /// Takes the lock at `lock_path` as Terraform's `apply` would.
    fn locked_by_someone_else(&self, status_path: &str) {
        let holder = holder();
        let (status, _) = self.raw("LOCK", status_path, &holder.to_string());
        assert_eq!(status, 200);
    }

    fn raw(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        self.control(method, path, body)
    }
}

/// Terraform's lock info, as an `apply` in CI writes it.
fn holder() -> Value {
    json!({
        "ID": "8bd7b1d4-4c58-1f0a-2b5e-6e1f4a6e2c11",
        "Operation": "OperationTypeApply",
        "Info": "",
        "Who": "ci@runner-7",
        "Version": "1.15.5",
        "Created": "2026-11-25T00:10:00.123456Z",
        "Path": ""
    })
}

fn config(values: Value) -> BackendConfig {
    let Value::Object(values) = values else {
        panic!("an object")
    };
    BackendConfig {
        kind: "http".to_owned(),
        values,
        workspace: "default".to_owned(),
        origin: ".terraform/terraform.tfstate".to_owned(),
    }
}

/// The backend for `server`'s `/state`, locking at `/state/lock`, with no pause between retries.
fn gitlab_like(server: &Server, extra: Value) -> BackendConfig {
    let mut values = json!({
        "address": format!("{}/state", server.base),
        "lock_address": format!("{}/state/lock", server.base),
        "unlock_address": format!("{}/state/lock", server.base),
        "retry_wait_min": 0,
        "retry_wait_max": 0,
    });
    let Value::Object(extra) = extra else {
        panic!("an object")
    };
    for (key, value) in extra {
        values[key] = value;
    }
    config(values)
}

fn state_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file
}

fn open(config: &BackendConfig) -> Arc<dyn RemoteState> {
    statectl_backend::open(config).unwrap()
}

/// Locks, reads, and commits `new` as a taint would; the error is the commit's (or the lock's).
fn write(backend: &Arc<dyn RemoteState>, new: &str, timeout: Duration) -> Result<(), String> {
    let source = Source::Remote(Arc::clone(backend));
    let locked =
        Locked::acquire_source(&source, "taint", timeout).map_err(|error| error.message)?;
    let bytes = locked.read().map_err(|error| error.message)?;
    let folder = tempfile::tempdir().unwrap();
    locked
        .commit(
            &bytes,
            new.as_bytes(),
            &Backup::At(folder.path().join("backup")),
        )
        .map(drop)
        .map_err(|error| error.message)
}

fn current_state(server: &Server, credentials: Option<(&str, &str)>) -> Option<String> {
    let mut values = json!({"address": format!("{}/state", server.base)});
    if let Some((username, password)) = credentials {
        values["username"] = json!(username);
        values["password"] = json!(password);
    }
    open(&config(values))
        .get()
        .unwrap()
        .map(|bytes| String::from_utf8(bytes).unwrap())
}

#[test]
fn reads_the_state_with_basic_auth_and_names_a_missing_or_wrong_password() {
    let state = state_file(STATE);
    let server = Server::serving(
        &state,
        &[
            "--username",
            "gitlab-ci-token",
            "--password",
            "glpat-s3cret",
        ],
    );
    let good = config(json!({
        "address": format!("{}/state", server.base),
        "username": "gitlab-ci-token",
        "password": "glpat-s3cret",
    }));
    let backend = open(&good);
    assert_eq!(backend.location(), format!("{}/state", server.base));
    assert_eq!(backend.backup_name(), "state");
    let bytes = Source::Remote(Arc::clone(&backend)).read().unwrap();
    assert_eq!(&bytes[..], STATE.as_bytes());
    assert_eq!(server.log()[0]["authorization"], true);

    let mut wrong = good.clone();
    wrong.values["password"] = json!("nope");
    let error = open(&wrong).get().unwrap_err();
    assert_eq!(
        error.message,
        format!(
            "{}/state: cannot read the state: GET answered 401 Unauthorized: the server asks for credentials",
            server.base
        )
    );
    assert!(
        error
            .hint
            .unwrap()
            .contains("TF_HTTP_USERNAME and TF_HTTP_PASSWORD")
    );
    assert!(!error.message.contains("nope"));
}

#[test]
fn a_password_in_the_address_is_used_but_never_shown() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &["--username", "u", "--password", "p@ss"]);
    let address = server.base.replace("http://", "http://u:p%40ss@") + "/state?private_token=t0k";
    let backend = open(&config(json!({ "address": address })));
    assert_eq!(
        backend.location(),
        format!("{}/state?private_token=***", server.base)
    );
    assert_eq!(backend.get().unwrap().unwrap(), STATE.as_bytes());
}

#[test]
fn no_state_is_204_or_404_and_reading_it_says_so() {
    let server = Server::start(&[]);
    let backend = open(&gitlab_like(&server, json!({})));
    assert_eq!(backend.get().unwrap(), None);
    let error = Source::Remote(Arc::clone(&backend)).read().unwrap_err();
    assert!(
        error.to_string().contains("there is no state there"),
        "{error}"
    );
    // The http backend's own words: one state per address, no workspaces to check.
    assert!(
        error
            .hint
            .as_deref()
            .is_some_and(|hint| hint.contains("the http backend has no workspaces")),
        "{error:?}"
    );
    let missing = Server::start(&["--fault", "GET=404"]);
    assert_eq!(open(&gitlab_like(&missing, json!({}))).get().unwrap(), None);
    assert_eq!(server.statuses(), [json!(204), json!(204)]);
}

#[test]
fn a_write_locks_carries_the_lock_id_sends_md5_and_unlocks_with_the_lock_info() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &[]);
    let backend = open(&gitlab_like(&server, json!({})));
    write(&backend, NEW_STATE, Duration::ZERO).unwrap();
    assert_eq!(current_state(&server, None).as_deref(), Some(NEW_STATE));
    assert_eq!(server.lock(), None, "the lock is released");
    let log = server.log();
    let methods: Vec<&str> = log
        .iter()
        .map(|entry| entry["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["LOCK", "GET", "GET", "POST", "UNLOCK", "GET"]);
    let lock_info: Value = serde_json::from_str(log[0]["body"].as_str().unwrap()).unwrap();
    let id = lock_info["ID"].as_str().unwrap();
    assert_eq!(lock_info["Operation"], "taint");
    assert_eq!(lock_info["Path"], "");
    assert_eq!(log[3]["target"], format!("/state?ID={id}"));
    assert_eq!(log[3]["content_md5_matches"], true);
    assert_eq!(log[3]["content_type"], "application/json");
    assert_eq!(log[0]["content_md5_matches"], true);
    assert_eq!(log[4]["body"], log[0]["body"], "UNLOCK sends the lock info");
}

#[test]
fn the_lock_id_joins_an_existing_query_as_go_encodes_it() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &[]);
    // The simulator keys states by path, so the query does not change which state it is.
    let backend = open(&gitlab_like(
        &server,
        json!({"address": format!("{}/state?z=1&a=x%20y", server.base), "update_method": "PUT"}),
    ));
    write(&backend, NEW_STATE, Duration::ZERO).unwrap();
    let (method, target, _) = server
        .requests()
        .into_iter()
        .find(|(method, _, _)| method == "PUT")
        .unwrap();
    let id = server.log()[0]["body"].as_str().map(|body| {
        serde_json::from_str::<Value>(body).unwrap()["ID"]
            .as_str()
            .unwrap()
            .to_owned()
    });
    assert_eq!(method, "PUT");
    assert_eq!(target, format!("/state?ID={}&a=x+y&z=1", id.unwrap()));
}

#[test]
fn a_lock_held_elsewhere_is_named_from_a_409_and_a_423() {
    for status in ["409", "423"] {
        let state = state_file(STATE);
        let server = Server::serving(&state, &["--conflict-status", status]);
        server.locked_by_someone_else("/state/lock");
        let backend = open(&gitlab_like(&server, json!({})));
        let started = Instant::now();
        let error = write(&backend, NEW_STATE, Duration::from_millis(600)).unwrap_err();
        assert_eq!(
            error,
            format!(
                "{}/state: the state is locked by `ci@runner-7` (Terraform 1.15.5, operation `OperationTypeApply`, since 2026-11-25T00:10:00.123456Z, lock ID 8bd7b1d4-4c58-1f0a-2b5e-6e1f4a6e2c11) after waiting 600ms",
                server.base
            ),
            "status {status}"
        );
        assert!(started.elapsed() < Duration::from_secs(3));
        assert_eq!(server.lock(), Some(holder()), "the holder keeps the lock");
        assert_eq!(current_state(&server, None).as_deref(), Some(STATE));
        let refusals = server
            .requests()
            .iter()
            .filter(|(method, _, answer)| {
                method == "LOCK" && answer == &json!(status.parse::<u16>().unwrap())
            })
            .count();
        assert!(
            refusals >= 2,
            "the lock is tried again while waiting: {refusals}"
        );
    }
}

#[test]
fn a_write_without_the_holders_id_is_refused_with_423_and_nothing_changes() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &[]);
    server.locked_by_someone_else("/state/lock");
    // No lock address: Terraform takes no lock, so the write goes out without an ID.
    let backend = open(&config(
        json!({"address": format!("{}/state", server.base)}),
    ));
    let error = write(&backend, NEW_STATE, Duration::ZERO).unwrap_err();
    assert_eq!(
        error,
        format!(
            "{}/state: cannot write the state: POST answered 423 Locked: the server says another lock holds the state (`ci@runner-7` (Terraform 1.15.5, operation `OperationTypeApply`, since 2026-11-25T00:10:00.123456Z, lock ID 8bd7b1d4-4c58-1f0a-2b5e-6e1f4a6e2c11))",
            server.base
        )
    );
    assert_eq!(current_state(&server, None).as_deref(), Some(STATE));
}

#[test]
fn a_lock_method_the_server_does_not_take_gets_a_hint() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &[]);
    let backend = open(&gitlab_like(&server, json!({"lock_method": "PATCH"})));
    let source = Source::Remote(backend);
    let error = Locked::acquire_source(&source, "taint", Duration::from_secs(30)).unwrap_err();
    assert_eq!(
        error.message,
        format!(
            "{0}/state: cannot lock the state: PATCH {0}/state/lock answered 405 Method Not Allowed",
            server.base
        )
    );
    assert!(error.hint.unwrap().contains("lock_method = \"POST\""));
}

#[test]
fn a_500_is_retried_then_one_line_nothing_written_no_lock_left() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &["--fault", "POST=500"]);
    let backend = open(&gitlab_like(&server, json!({"retry_max": 2})));
    let error = write(&backend, NEW_STATE, Duration::ZERO).unwrap_err();
    assert_eq!(
        error,
        format!(
            "{}/state: cannot write the state: POST answered 500 Internal Server Error (3 attempts)",
            server.base
        )
    );
    assert_eq!(current_state(&server, None).as_deref(), Some(STATE));
    assert_eq!(
        server.lock(),
        None,
        "the lock is released after the failed write"
    );
    let posts = server
        .requests()
        .iter()
        .filter(|(method, _, _)| method == "POST")
        .count();
    assert_eq!(posts, 3, "retry_max 2: three attempts");
}

#[test]
fn a_500_on_lock_is_a_failure_not_a_wait_and_a_passing_one_is_retried_away() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &["--fault", "LOCK=500"]);
    let backend = open(&gitlab_like(&server, json!({"retry_max": 1})));
    let error = write(&backend, NEW_STATE, Duration::from_secs(30)).unwrap_err();
    assert_eq!(
        error,
        format!(
            "{0}/state: cannot lock the state: LOCK {0}/state/lock answered 500 Internal Server Error (2 attempts)",
            server.base
        )
    );
    assert_eq!(server.lock(), None);

    let flaky = Server::serving(&state, &["--fault", "GET=503*2"]);
    let backend = open(&gitlab_like(&flaky, json!({})));
    assert_eq!(backend.get().unwrap().unwrap(), STATE.as_bytes());
    assert_eq!(flaky.statuses(), [json!(503), json!(503), json!(200)]);
}

#[test]
fn retries_wait_as_go_retryablehttp_does() {
    // Terraform's defaults: retry_max 2, retry_wait_min 1 s: pauses of 1 s and 2 s.
    let server = Server::start(&["--fault", "GET=500"]);
    let backend = open(&config(
        json!({"address": format!("{}/state", server.base)}),
    ));
    let started = Instant::now();
    let error = backend.get().unwrap_err();
    let took = started.elapsed();
    assert!(
        error
            .message
            .ends_with("GET answered 500 Internal Server Error (3 attempts)"),
        "{}",
        error.message
    );
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(6),
        "{took:?}"
    );
}

#[test]
fn nothing_listening_fails_within_seconds_after_bounded_retries() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let backend = open(&config(json!({
        "address": format!("http://127.0.0.1:{port}/state"),
        "lock_address": format!("http://127.0.0.1:{port}/state/lock"),
        "retry_wait_max": 1,
    })));
    let started = Instant::now();
    let error = Source::Remote(Arc::clone(&backend)).read().unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        error
            .to_string()
            .ends_with("cannot read the state: GET got no answer: connection refused (3 attempts)"),
        "{error}"
    );
    let error = write(&backend, NEW_STATE, Duration::from_secs(30)).unwrap_err();
    assert_eq!(
        error,
        format!(
            "http://127.0.0.1:{port}/state: cannot lock the state: LOCK http://127.0.0.1:{port}/state/lock got no answer: connection refused (3 attempts)"
        )
    );
}

#[test]
fn a_dropped_connection_is_retried_then_named() {
    let state = state_file(STATE);
    let server = Server::serving(&state, &["--fault", "GET=reset"]);
    let backend = open(&gitlab_like(&server, json!({})));
    let error = backend.get().unwrap_err();
    assert!(
        error.message.starts_with(&format!(
            "{}/state: cannot read the state: GET got no answer: ",
            server.base
        )),
        "{}",
        error.message
    );
    assert!(
        error.message.ends_with(" (3 attempts)"),
        "{}",
        error.message
    );
    let resets = server
        .requests()
        .iter()
        .filter(|(_, _, status)| status == &json!("reset"))
        .count();
    assert_eq!(resets, 3);
    server.control("DELETE", "/_sim/fault", "");
    assert_eq!(backend.get().unwrap().unwrap(), STATE.as_bytes());
}

#[test]
fn a_redirect_is_followed_on_the_same_host_only() {
    let state = state_file(STATE);
    let other = Server::serving(&state, &[]);
    // `localhost` is another host than `127.0.0.1` for the credentials' sake, though the same box.
    let elsewhere = format!("http://localhost:{}/state", other.port());
    let server = Server::start(&[
        "--username",
        "u",
        "--password",
        "p",
        "--fault",
        &format!("GET=redirect:{elsewhere}"),
    ]);
    let backend = open(&config(json!({
        "address": format!("{}/state", server.base),
        "username": "u",
        "password": "p",
    })));
    let error = backend.get().unwrap_err();
    assert_eq!(
        error.message,
        format!(
            "{}/state: cannot read the state: GET answered 307 Temporary Redirect, a redirect to {elsewhere}, which statectl does not follow to another host",
            server.base
        )
    );
    assert!(other.log().is_empty(), "nothing reached the other host");

    let same = Server::serving(&state, &["--fault", "GET=redirect:/state*1"]);
    let backend = open(&config(json!({"address": format!("{}/state", same.base)})));
    assert_eq!(backend.get().unwrap().unwrap(), STATE.as_bytes());
    assert_eq!(same.statuses(), [json!(307), json!(200)]);
}

#[test]
fn a_body_that_is_not_a_state_is_refused_in_one_line() {
    let page = state_file("<html><body>Sign in to GitLab</body></html>\n");
    let server = Server::serving(&page, &[]);
    let backend = open(&gitlab_like(&server, json!({})));
    let error = Source::Remote(backend).read().unwrap_err().to_string();
    assert!(!error.contains('\n'), "{error}");
    assert!(error.contains("not JSON"), "{error}");
}

#[test]
fn only_the_default_workspace_exists() {
    let mut dev = config(json!({"address": "http://127.0.0.1:9/state"}));
    dev.workspace = "dev".to_owned();
    let error = statectl_backend::open(&dev).unwrap_err();
    assert_eq!(
        error.message,
        ".terraform/terraform.tfstate: backend \"http\" has only the `default` workspace, not `dev`"
    );
}

/// The child half of [`tf_http_variables_configure_the_backend`]: runs only with the variables set.
#[test]
fn tf_http_child() {
    if std::env::var_os("STATECTL_TEST_TF_HTTP_CHILD").is_none() {
        return;
    }
    // Only `address` in the configuration: it wins over TF_HTTP_ADDRESS; the rest is the
    // environment's.
    let address = std::env::var("STATECTL_TEST_ADDRESS").unwrap();
    let backend = open(&config(json!({"address": address, "update_method": null})));
    write(&backend, NEW_STATE, Duration::ZERO).unwrap();
}

#[test]
fn tf_http_variables_configure_the_backend() {
    let state = state_file(STATE);
    let server = Server::serving(
        &state,
        &["--username", "env-user", "--password", "env-pass"],
    );
    let base = &server.base;
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "tf_http_child", "--nocapture"])
        .env("STATECTL_TEST_TF_HTTP_CHILD", "1")
        .env("STATECTL_TEST_ADDRESS", format!("{base}/state"))
        .env("TF_HTTP_ADDRESS", format!("{base}/elsewhere"))
        .env("TF_HTTP_UPDATE_METHOD", "PUT")
        .env("TF_HTTP_LOCK_ADDRESS", format!("{base}/state/lock"))
        .env("TF_HTTP_LOCK_METHOD", "POST")
        .env("TF_HTTP_UNLOCK_ADDRESS", format!("{base}/state/lock"))
        .env("TF_HTTP_UNLOCK_METHOD", "DELETE")
        .env("TF_HTTP_USERNAME", "env-user")
        .env("TF_HTTP_PASSWORD", "env-pass")
        .env("TF_HTTP_RETRY_MAX", "0")
        .env("TF_HTTP_RETRY_WAIT_MIN", "0")
        .status()
        .unwrap();
    assert!(status.success());
    let requests: Vec<(String, String)> = server
        .requests()
        .into_iter()
        .map(|(method, target, _)| (method, target.split('?').next().unwrap().to_owned()))
        .collect();
    let expected = [
        ("POST", "/state/lock"),
        ("GET", "/state"),
        ("GET", "/state"),
        ("PUT", "/state"),
        ("DELETE", "/state/lock"),
    ];
    assert_eq!(
        requests,
        expected.map(|(method, path)| (method.to_owned(), path.to_owned()))
    );
    assert!(
        server
            .log()
            .iter()
            .all(|entry| entry["authorization"] == true)
    );
    assert_eq!(
        current_state(&server, Some(("env-user", "env-pass"))).as_deref(),
        Some(NEW_STATE)
    );
}

/// A CA, a server certificate for 127.0.0.1 it signed, and a client certificate it signed, in
/// PEM files.
struct Pki {
    folder: tempfile::TempDir,
    ca: String,
    client_certificate: String,
    client_key: String,
}

impl Pki {
    fn new() -> Pki {
        let ca = statectl_sim::TestCa::new("statectl test CA").unwrap();
        let server = ca.server(&["127.0.0.1", "localhost"]).unwrap();
        let client = ca.client("statectl test client").unwrap();
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("ca.pem"), ca.pem()).unwrap();
        std::fs::write(folder.path().join("server.pem"), &server.certificate).unwrap();
        std::fs::write(folder.path().join("server.key"), &server.key).unwrap();
        Pki {
            folder,
            ca: ca.pem().to_owned(),
            client_certificate: client.certificate,
            client_key: client.key,
        }
    }

    fn file(&self, name: &str) -> String {
        self.folder.path().join(name).display().to_string()
    }
}

#[test]
fn tls_with_the_given_ca_client_certificates_and_skip_cert_verification() {
    let pki = Pki::new();
    let state = state_file(STATE);
    let server = Server::serving(
        &state,
        &[
            "--tls-cert",
            &pki.file("server.pem"),
            "--tls-key",
            &pki.file("server.key"),
            "--client-ca",
            &pki.file("ca.pem"),
        ],
    );
    assert!(server.base.starts_with("https://"));
    let address = format!("{}/state", server.base);

    // A read with `values` that fails for want of an answer, the message going on with `then`.
    let unanswered = |values: Value, then: &str| {
        let error = open(&config(values)).get().unwrap_err();
        assert!(
            error.message.starts_with(&format!(
                "{address}: cannot read the state: GET got no answer: {then}"
            )),
            "{}",
            error.message
        );
        error
    };

    // The system's roots do not know the test CA: refused at once, not retried.
    let error = unanswered(json!({"address": address}), "invalid peer certificate");
    assert!(error.message.ends_with("(1 attempt)"), "{}", error.message);
    assert!(error.hint.unwrap().contains("`client_ca_certificate_pem`"));

    // The CA alone: the server wants a client certificate. (In TLS 1.3 its refusal comes after
    // the client's handshake is done, so the client sees the alert or, under load, the closed
    // connection.)
    let error = unanswered(
        json!({"address": address, "client_ca_certificate_pem": pki.ca, "retry_wait_min": 0}),
        "",
    );
    if error.message.contains("CertificateRequired") {
        // The alert itself is not retried; an attempt before it may have met the closed
        // connection instead (a lost connection is retried), so the alert ends the first or the
        // second attempt, never a later one.
        assert!(
            error.message.ends_with("(1 attempt)") || error.message.ends_with("(2 attempts)"),
            "{}",
            error.message
        );
        assert!(
            error
                .hint
                .unwrap()
                .starts_with("the server asks for a client certificate")
        );
    }

    // The CA and the client certificate: read.
    let full = config(json!({
        "address": address,
        "client_ca_certificate_pem": pki.ca,
        "client_certificate_pem": pki.client_certificate,
        "client_private_key_pem": pki.client_key,
    }));
    assert_eq!(open(&full).get().unwrap().unwrap(), STATE.as_bytes());

    // No verification of the server at all, still with the client certificate: read.
    let skip = config(json!({
        "address": address,
        "skip_cert_verification": true,
        "client_certificate_pem": pki.client_certificate,
        "client_private_key_pem": pki.client_key,
    }));
    assert_eq!(open(&skip).get().unwrap().unwrap(), STATE.as_bytes());

    // A CA argument that holds no certificate is one line at open.
    let error = statectl_backend::open(&config(
        json!({"address": address, "client_ca_certificate_pem": "not a pem"}),
    ))
    .unwrap_err();
    assert_eq!(
        error.message,
        ".terraform/terraform.tfstate: backend \"http\": `client_ca_certificate_pem` holds no PEM certificate"
    );
}
