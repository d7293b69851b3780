//! `statectl-sim http-backend`: a Terraform state server speaking the http backend's protocol as
//! GitLab's managed Terraform state does, for statectl's and Terraform's tests.
//!
//! - `GET <state>`: 200 with the state, 204 when there is none;
//! - `POST`/`PUT <state>[?ID=<lock id>]`: replaces it (`Content-MD5` checked); while the state is
//!   locked, a write without the holder's `ID` answers 423 with the holder's lock info;
//! - `DELETE <state>`: removes it (the same lock rule);
//! - `LOCK`/`POST <state>/lock` with the lock info: 200, or 409 with the holder's lock info (423
//!   with `--conflict-status 423`, as other servers answer);
//! - `UNLOCK`/`DELETE <state>/lock`: releases it when the IDs match (or no ID is given, as
//!   `force-unlock` does), else 409 with the holder's;
//! - with `--username`, basic auth on every request (401 otherwise);
//! - faults (`--fault METHOD=STATUS|reset|redirect:URL[*COUNT]`): answer that status, drop the
//!   connection, or redirect (307) to URL, for the first COUNT requests with that method (all of
//!   them without a count);
//! - `/_sim/...` for tests, unauthenticated and never faulted: `GET /_sim/log` (one JSON object a
//!   request), `GET /_sim/lock?path=P` (the lock info, 204 when free), `POST /_sim/fault` (a fault
//!   spec as the body), `DELETE /_sim/fault` (clears them).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use md5::Digest as _;
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::TcpListener;

use crate::http::{Request, Response, locked};
use crate::setup::SetupError;
use crate::state_server::{self, Answer, StateServer, log_line};
use crate::wire_faults;

/// The largest state accepted: the benchmarks write states of some 50 MB.
const MAX_STATE: u64 = 512 << 20;

/// One injected fault; it hits every request of its method (its target is empty).
pub(crate) type Fault = wire_faults::Fault<Action>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    Status(u16),
    Reset,
    Redirect(String),
}

impl Fault {
    /// `GET=500`, `LOCK=reset*2`, `POST=503*1`, `GET=redirect:http://localhost:8080/state`.
    pub(crate) fn parse(spec: &str) -> Result<Fault, SetupError> {
        const GRAMMAR: &str = "METHOD=STATUS or METHOD=reset, with an optional *COUNT";
        wire_faults::fault(spec, GRAMMAR, |method, action, remaining| {
            let action = if action == "reset" {
                Action::Reset
            } else if let Some(url) = action.strip_prefix("redirect:") {
                Action::Redirect(url.to_owned())
            } else {
                Action::Status(wire_faults::status(action)?)
            };
            (!method.is_empty()).then(|| Fault {
                method: method.to_ascii_uppercase(),
                target: String::new(),
                action,
                remaining,
            })
        })
    }
}

/// The server's settings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub credentials: Option<(String, String)>,
    pub faults: Vec<Fault>,
    /// A state at `/state` to start with.
    pub initial: Option<Vec<u8>>,
    /// The status of a refused LOCK: 409 as GitLab, or 423.
    pub conflict_status: u16,
    pub verbose: bool,
}

/// One state and its lock.
#[derive(Debug, Default)]
struct Stored {
    state: Option<Vec<u8>>,
    lock: Option<Value>,
}

/// The server's memory.
#[derive(Debug)]
pub(crate) struct Backend {
    credentials: Option<(String, String)>,
    conflict_status: u16,
    verbose: bool,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    states: HashMap<String, Stored>,
    faults: Vec<Fault>,
    log: Vec<Value>,
}

impl Backend {
    pub(crate) fn new(options: Options) -> Backend {
        let mut inner = Inner {
            faults: options.faults,
            ..Inner::default()
        };
        if let Some(initial) = options.initial {
            inner.states.insert(
                "/state".to_owned(),
                Stored {
                    state: Some(initial),
                    lock: None,
                },
            );
        }
        Backend {
            credentials: options.credentials,
            conflict_status: options.conflict_status,
            verbose: options.verbose,
            inner: Mutex::new(inner),
        }
    }

    fn authorized(&self, request: &Request) -> Result<(), Response> {
        let Some((username, password)) = &self.credentials else {
            return Ok(());
        };
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{username}:{password}"))
        );
        if request.header("authorization") == Some(expected.as_str()) {
            Ok(())
        } else {
            Err(Response::json(401, &json!({"message": "401 Unauthorized"}))
                .with_header("www-authenticate", "Basic realm=\"statectl-sim\""))
        }
    }
}

impl StateServer for Backend {
    const MAX_BODY: u64 = MAX_STATE;

    fn malformed(status: u16, message: &str) -> Response {
        Response::json(status, &json!({ "error": message }))
    }

    fn answer(&self, request: &Request, body: &[u8]) -> Answer {
        let mut inner = locked(&self.inner);
        let injected = wire_faults::take(&mut inner.faults, |fault| fault.method == request.method)
            .map(|fault| fault.action.clone());
        let answer = match injected {
            Some(Action::Reset) => Answer::Reset,
            Some(Action::Status(status)) => Answer::Respond(Response::empty(status)),
            Some(Action::Redirect(url)) => {
                Answer::Respond(Response::empty(307).with_header("location", url))
            }
            None => Answer::Respond(match self.authorized(request) {
                Err(refused) => refused,
                Ok(()) => inner.serve(request, body, self.conflict_status),
            }),
        };
        let status = answer.logged();
        let md5 = request
            .header("content-md5")
            .map(|sent| sent == base64::engine::general_purpose::STANDARD.encode(md5_of(body)));
        let entry = json!({
            "method": request.method,
            "target": request.target,
            "status": status,
            "authorization": request.header("authorization").is_some(),
            "content_type": request.header("content-type"),
            "content_md5_matches": md5,
            "body": String::from_utf8_lossy(body),
        });
        if self.verbose {
            log_line(&request.method, &request.target, &status);
        }
        inner.log.push(entry);
        answer
    }

    fn control(&self, what: &str, request: &Request, body: &[u8]) -> Response {
        let mut inner = locked(&self.inner);
        match (request.method.as_str(), what) {
            ("GET", "log") => Response::json(200, &Value::Array(inner.log.clone())),
            ("GET", "lock") => {
                let path = request.query("path").unwrap_or("/state");
                match inner
                    .states
                    .get(path)
                    .and_then(|stored| stored.lock.clone())
                {
                    Some(lock) => Response::json(200, &lock),
                    None => Response::empty(204),
                }
            }
            (method, "fault") => {
                wire_faults::control(method, &mut inner.faults, body, Fault::parse)
            }
            _ => Response::json(404, &json!({"error": "no such control endpoint"})),
        }
    }
}

impl Inner {
    /// The protocol itself, for an authorized request.
    fn serve(&mut self, request: &Request, body: &[u8], conflict_status: u16) -> Response {
        if let Some(state) = request.path.strip_suffix("/lock") {
            let stored = self.states.entry(state.to_owned()).or_default();
            return match request.method.as_str() {
                "LOCK" | "POST" => lock(stored, body, conflict_status),
                "UNLOCK" | "DELETE" => unlock(stored, body, request.query("ID")),
                _ => method_not_allowed("LOCK, POST, UNLOCK, DELETE"),
            };
        }
        let stored = self.states.entry(request.path.clone()).or_default();
        match request.method.as_str() {
            "GET" => match &stored.state {
                Some(state) => Response {
                    status: 200,
                    headers: vec![("content-type".to_owned(), "application/json".to_owned())],
                    body: state.clone(),
                },
                None => Response::empty(204),
            },
            "POST" | "PUT" | "DELETE" => {
                if let Some(holder) = &stored.lock
                    && request.query("ID") != holder["ID"].as_str()
                {
                    return Response::json(423, holder);
                }
                if request.method == "DELETE" {
                    stored.state = None;
                    return Response::empty(200);
                }
                if let Some(sent) = request.header("content-md5")
                    && sent != base64::engine::general_purpose::STANDARD.encode(md5_of(body))
                {
                    return Response::json(
                        400,
                        &json!({"error": "Content-MD5 does not match the body"}),
                    );
                }
                stored.state = Some(body.to_vec());
                Response::empty(200)
            }
            _ => method_not_allowed("GET, POST, PUT, DELETE"),
        }
    }
}

fn lock(stored: &mut Stored, body: &[u8], conflict_status: u16) -> Response {
    let Some(info) = serde_json::from_slice::<Value>(body)
        .ok()
        .filter(|info| info["ID"].as_str().is_some_and(|id| !id.is_empty()))
    else {
        return Response::json(
            400,
            &json!({"error": "the body must be lock info with an ID"}),
        );
    };
    if let Some(holder) = &stored.lock {
        return Response::json(conflict_status, holder);
    }
    stored.lock = Some(info);
    Response::empty(200)
}

fn unlock(stored: &mut Stored, body: &[u8], query_id: Option<&str>) -> Response {
    let sent: Option<String> = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|info| info["ID"].as_str().map(str::to_owned))
        .or_else(|| query_id.map(str::to_owned));
    match (&stored.lock, sent) {
        (Some(holder), Some(id)) if holder["ID"].as_str() != Some(id.as_str()) => {
            Response::json(409, holder)
        }
        _ => {
            stored.lock = None;
            Response::empty(200)
        }
    }
}

fn method_not_allowed(allowed: &str) -> Response {
    Response::json(405, &json!({"error": "method not allowed"})).with_header("allow", allowed)
}

/// What the protocol's `Content-MD5` carries.
fn md5_of(data: &[u8]) -> [u8; 16] {
    md5::Md5::digest(data).into()
}

/// Serves `backend` on `listener`, over TLS when `tls` is given, until the task is dropped.
pub(crate) async fn serve(
    listener: TcpListener,
    backend: Arc<Backend>,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    wire_faults::accept_each(listener, |stream| {
        let backend = Arc::clone(&backend);
        let tls = tls.clone();
        async move {
            match tls {
                None => state_server::serve_plain(stream, &*backend).await,
                Some(acceptor) => {
                    // Over TLS a dropped connection is a close without TLS's goodbye.
                    if let Ok(secure) = acceptor.accept(stream).await {
                        state_server::serve_stream(&mut BufReader::new(secure), &*backend).await;
                    }
                }
            }
        }
    })
    .await;
}

/// The TLS acceptor for `--tls-cert`/`--tls-key`, asking for a client certificate signed by
/// `client_ca` when one is given.
pub(crate) fn tls_acceptor(
    certificate: &std::path::Path,
    key: &std::path::Path,
    client_ca: Option<&std::path::Path>,
) -> Result<tokio_rustls::TlsAcceptor, SetupError> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let chain = CertificateDer::pem_file_iter(certificate)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|source| pem_error(certificate, source))?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|source| pem_error(key, source))?;
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()?;
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let mut roots = rustls::RootCertStore::empty();
            for certificate in
                CertificateDer::pem_file_iter(path).map_err(|source| pem_error(path, source))?
            {
                let certificate = certificate.map_err(|source| pem_error(path, source))?;
                roots.add(certificate).map_err(|source| SetupError::Ca {
                    path: path.to_owned(),
                    source,
                })?;
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let config = builder
        .with_single_cert(chain, key)
        .map_err(SetupError::Pair)?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

fn pem_error(path: &std::path::Path, source: rustls::pki_types::pem::Error) -> SetupError {
    SetupError::Pem {
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, target: &str) -> Request {
        Request::new(method, target, Vec::new(), true)
    }

    fn status(backend: &Backend, method: &str, target: &str, body: &[u8]) -> (u16, Vec<u8>) {
        match backend.handle(&request(method, target), body) {
            Answer::Respond(response) => (response.status, response.body),
            Answer::Reset => (0, Vec::new()),
            Answer::Later(..) | Answer::Hang => panic!("the http backend neither delays nor hangs"),
        }
    }

    #[test]
    fn faults_parse_and_count_down() {
        assert_eq!(
            Fault::parse("lock=reset*2").unwrap(),
            Fault {
                method: "LOCK".to_owned(),
                target: String::new(),
                action: Action::Reset,
                remaining: Some(2)
            }
        );
        assert_eq!(
            Fault::parse("GET=redirect:http://h/s?a=1*1")
                .unwrap()
                .action,
            Action::Redirect("http://h/s?a=1".to_owned())
        );
        assert!(Fault::parse("GET=5000").is_err());
        assert!(Fault::parse("GET").is_err());
        let backend = Backend::new(Options {
            faults: vec![Fault::parse("GET=500*1").unwrap()],
            ..Options::default()
        });
        assert_eq!(status(&backend, "GET", "/s", b"").0, 500);
        assert_eq!(status(&backend, "GET", "/s", b"").0, 204);
    }

    #[test]
    fn speaks_gitlab_s_protocol() {
        let backend = Backend::new(Options {
            conflict_status: 409,
            ..Options::default()
        });
        let mine = br#"{"ID":"a","Who":"me"}"#;
        assert_eq!(status(&backend, "GET", "/s", b"").0, 204);
        assert_eq!(status(&backend, "LOCK", "/s/lock", mine).0, 200);
        let (code, body) = status(&backend, "POST", "/s/lock", br#"{"ID":"b"}"#);
        assert_eq!((code, body.as_slice()), (409, &mine[..]));
        assert_eq!(status(&backend, "POST", "/s", b"{}").0, 423);
        assert_eq!(status(&backend, "POST", "/s?ID=b", b"{}").0, 423);
        assert_eq!(status(&backend, "POST", "/s?ID=a", b"{\"v\":1}").0, 200);
        assert_eq!(
            status(&backend, "UNLOCK", "/s/lock", br#"{"ID":"b"}"#).0,
            409
        );
        assert_eq!(status(&backend, "DELETE", "/s/lock", mine).0, 200);
        assert_eq!(
            status(&backend, "GET", "/s", b""),
            (200, b"{\"v\":1}".to_vec())
        );
        assert_eq!(status(&backend, "DELETE", "/s", b"").0, 200);
        assert_eq!(status(&backend, "GET", "/s", b"").0, 204);
    }

    #[test]
    fn credentials_are_required_when_set() {
        let backend = Backend::new(Options {
            credentials: Some(("u".to_owned(), "p".to_owned())),
            ..Options::default()
        });
        assert_eq!(status(&backend, "GET", "/s", b"").0, 401);
        let mut authorized = request("GET", "/s");
        authorized
            .headers
            .push(("authorization".to_owned(), "Basic dTpw".to_owned()));
        assert!(matches!(
            backend.handle(&authorized, b""),
            Answer::Respond(Response { status: 204, .. })
        ));
    }
}
