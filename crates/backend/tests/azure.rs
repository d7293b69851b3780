//! The azurerm backend through the crate's API (`statectl_backend::open`) against a scripted Blob
//! service on loopback, for what Azurite cannot be made to do: a lock info write that fails after
//! the lease was taken (the lease must be released again), a service failing on every attempt
//! (bounded), an unlock with a lock ID that is not the blob's, and the exact requests of a write
//! (snapshot first, the lease ID on each, the metadata carried over).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use statectl_backend::BackendConfig;
use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState};

/// Azurite's well-known development key; the stub does not check signatures.
const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// One request as the stub saw it: `PUT /acct/tfstate/prod.tfstate?comp=lease` and its headers
/// (names in lower case).
#[derive(Debug, Clone)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// An answer: status, headers, body.
type Reply = (u16, Vec<(&'static str, String)>, Vec<u8>);

/// A Blob service stub answering each request with `script(request)`, one request per connection;
/// it serves until dropped (the listener thread ends at the next connection after that).
struct Stub {
    endpoint: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<Mutex<bool>>,
    port: u16,
}

impl Stub {
    fn start(script: impl Fn(&Seen) -> Reply + Send + 'static) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(Mutex::new(false));
        std::thread::spawn({
            let seen = Arc::clone(&seen);
            let stop = Arc::clone(&stop);
            move || {
                for stream in listener.incoming() {
                    if *stop.lock().unwrap() {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    stream
                        .set_read_timeout(Some(Duration::from_secs(10)))
                        .unwrap();
                    let mut reader = BufReader::new(stream);
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        continue;
                    }
                    let mut headers = Vec::new();
                    loop {
                        let mut header = String::new();
                        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                            break;
                        }
                        if let Some((name, value)) = header.trim_end().split_once(':') {
                            headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
                        }
                    }
                    let length: usize = headers
                        .iter()
                        .find(|(name, _)| name == "content-length")
                        .and_then(|(_, value)| value.parse().ok())
                        .unwrap_or(0);
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let request = Seen {
                        line: line.trim_end().trim_end_matches(" HTTP/1.1").to_owned(),
                        headers,
                    };
                    let (status, reply_headers, reply_body) = script(&request);
                    seen.lock().unwrap().push(request);
                    let mut stream = reader.into_inner();
                    let mut head = format!("HTTP/1.1 {status} X\r\nConnection: close\r\n");
                    for (name, value) in reply_headers {
                        let _ = write!(head, "{name}: {value}\r\n");
                    }
                    let _ = write!(head, "Content-Length: {}\r\n\r\n", reply_body.len());
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(&reply_body);
                }
            }
        });
        Stub {
            endpoint: format!("http://127.0.0.1:{port}/acct"),
            seen,
            stop,
            port,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The request lines, in order.
    fn lines(&self) -> Vec<String> {
        self.seen().into_iter().map(|seen| seen.line).collect()
    }

    fn open(&self, extra: &Value) -> Arc<dyn RemoteState> {
        let mut values = json!({
            "storage_account_name": "acct",
            "container_name": "tfstate",
            "key": "prod.tfstate",
            "access_key": KEY,
            "endpoint": self.endpoint,
        });
        values
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let Value::Object(values) = values else {
            unreachable!()
        };
        statectl_backend::open(&BackendConfig {
            kind: "azurerm".to_owned(),
            values,
            workspace: "default".to_owned(),
            origin: "test".to_owned(),
        })
        .unwrap()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        *self.stop.lock().unwrap() = true;
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn ok(status: u16) -> Reply {
    (status, Vec::new(), Vec::new())
}

fn error(status: u16, code: &str) -> Reply {
    (
        status,
        vec![("x-ms-error-code", code.to_owned())],
        Vec::new(),
    )
}

fn base64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[test]
fn a_lease_whose_lock_info_cannot_be_written_is_released_again() {
    let stub = Stub::start(|request| match request.line.as_str() {
        "HEAD /acct/tfstate/prod.tfstate" => (
            200,
            vec![("x-ms-lease-status", "unlocked".to_owned())],
            Vec::new(),
        ),
        "PUT /acct/tfstate/prod.tfstate?comp=lease" => {
            if request.header("x-ms-lease-action") == Some("acquire") {
                ok(201)
            } else {
                ok(200)
            }
        }
        "PUT /acct/tfstate/prod.tfstate?comp=metadata" => {
            error(403, "AuthorizationPermissionMismatch")
        }
        _ => ok(400),
    });
    let state = stub.open(&json!({}));
    let info = LockInfo::new(
        "statectl taint",
        std::path::Path::new("tfstate/prod.tfstate"),
    );
    let Err(LockRefused::Failed(failure)) = state.lock(&info) else {
        panic!("the lock must fail")
    };
    assert_eq!(
        failure.message,
        "azurerm://acct/tfstate/prod.tfstate: cannot lock the state: Set Blob Metadata answered 403 Forbidden (AuthorizationPermissionMismatch): the credentials are not allowed to do this"
    );
    let seen = stub.seen();
    let release = seen
        .iter()
        .find(|request| request.header("x-ms-lease-action") == Some("release"))
        .expect("the lease is released again");
    assert_eq!(release.header("x-ms-lease-id"), Some(info.id.as_str()));
    let acquire = seen
        .iter()
        .find(|request| request.header("x-ms-lease-action") == Some("acquire"))
        .unwrap();
    assert_eq!(
        acquire.header("x-ms-proposed-lease-id"),
        Some(info.id.as_str())
    );
    assert_eq!(acquire.header("x-ms-lease-duration"), Some("-1"));
}

#[test]
fn a_service_failing_every_time_is_given_up_after_three_attempts() {
    let stub = Stub::start(|_| error(503, "ServerBusy"));
    let state = stub.open(&json!({}));
    let failure = state.get().unwrap_err();
    assert_eq!(
        failure.message,
        "azurerm://acct/tfstate/prod.tfstate: cannot read the state: Get Blob answered 503 Service Unavailable (ServerBusy)"
    );
    assert_eq!(stub.lines().len(), 3, "{:?}", stub.lines());
}

#[test]
fn unlock_refuses_a_lock_id_that_is_not_on_the_blob_and_releases_nothing() {
    let holder = r#"{"ID":"8c6b1b7e-0f0b-4a8e-9d55-7a3b1f0c2d11","Operation":"OperationTypeApply","Info":"","Who":"ci@runner","Version":"1.15.5","Created":"2026-11-22T07:00:00Z","Path":"tfstate/prod.tfstate"}"#;
    let metadata = base64(holder);
    let stub = Stub::start(move |_| {
        (
            200,
            vec![
                ("x-ms-lease-status", "locked".to_owned()),
                ("x-ms-meta-terraformlockid", metadata.clone()),
            ],
            Vec::new(),
        )
    });
    let state = stub.open(&json!({}));
    let mine = LockInfo::new(
        "statectl taint",
        std::path::Path::new("tfstate/prod.tfstate"),
    );
    let failure = state.unlock(&mine).unwrap_err();
    assert_eq!(
        failure.message,
        format!(
            "azurerm://acct/tfstate/prod.tfstate: cannot unlock the state: lock ID {} does not match the lock on the blob, held by `ci@runner` (Terraform 1.15.5, operation `OperationTypeApply`, since 2026-11-22T07:00:00Z, lock ID 8c6b1b7e-0f0b-4a8e-9d55-7a3b1f0c2d11)",
            mine.id
        )
    );
    assert_eq!(stub.lines(), ["HEAD /acct/tfstate/prod.tfstate"]);
}

#[test]
fn a_write_snapshots_first_and_carries_the_lease_and_the_metadata() {
    let stub = Stub::start(|request| match request.line.as_str() {
        "HEAD /acct/tfstate/prod.tfstate" => (
            200,
            vec![
                ("x-ms-lease-status", "locked".to_owned()),
                ("x-ms-meta-owner", "team-a".to_owned()),
                ("x-ms-meta-terraformlockid", "e30=".to_owned()),
            ],
            Vec::new(),
        ),
        "PUT /acct/tfstate/prod.tfstate?comp=snapshot" | "PUT /acct/tfstate/prod.tfstate" => {
            ok(201)
        }
        _ => ok(400),
    });
    let state = stub.open(&json!({"snapshot": true}));
    let info = LockInfo::new(
        "statectl taint",
        std::path::Path::new("tfstate/prod.tfstate"),
    );
    state.put(b"{\"version\": 4}\n", &info).unwrap();
    let seen = stub.seen();
    let lines: Vec<&str> = seen.iter().map(|request| request.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            "PUT /acct/tfstate/prod.tfstate?comp=snapshot",
            "HEAD /acct/tfstate/prod.tfstate",
            "PUT /acct/tfstate/prod.tfstate",
        ]
    );
    for request in &seen {
        assert_eq!(request.header("x-ms-lease-id"), Some(info.id.as_str()));
        assert_eq!(request.header("x-ms-version"), Some("2023-11-03"));
        assert!(
            request
                .header("authorization")
                .is_some_and(|auth| auth.starts_with("SharedKey acct:")),
            "{request:?}"
        );
    }
    let put = &seen[2];
    assert_eq!(put.header("x-ms-blob-type"), Some("BlockBlob"));
    assert_eq!(put.header("content-type"), Some("application/json"));
    assert_eq!(put.header("x-ms-meta-owner"), Some("team-a"));
    assert_eq!(put.header("x-ms-meta-terraformlockid"), Some("e30="));
    assert_eq!(put.header("content-length"), Some("15"));
}
