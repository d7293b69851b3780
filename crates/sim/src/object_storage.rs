//! `statectl-sim object-storage`: OCI Object Storage's object API on loopback, for the `oci`
//! backend's tests (statectl's and Terraform's), as OCI's API reference documents it:
//!
//! - `GET`/`HEAD /n/<namespace>/b/<bucket>/o/<object>` (the object name percent-escaped, `/` as
//!   `%2F` or not): 200 with `etag` and `content-md5`, `If-Match` honoured (412 `NoEtagMatch`);
//! - `PUT` the same: stores the body (`Content-MD5` and `x-content-sha256` checked); `If-None-Match:
//!   *` fails with 412 `IfNoneMatchFailed` when the object exists, `If-Match` with 412 `NoEtagMatch`
//!   when the ETag differs;
//! - `DELETE` the same, with `If-Match`: 204;
//! - `GET /n/<namespace>/b/<bucket>/o?prefix=&start=&limit=`: `{"objects": [{"name"}],
//!   "nextStartWith"}`, pages of at most `--page-size` objects;
//! - every request signed with the one API key (`--key-id`, `--public-key`), checked as OCI checks
//!   it (a PutObject need not sign its body headers, as OCI documents; 401 `NotAuthenticated`
//!   otherwise); errors are `{"code", "message"}` with `opc-request-id`;
//!   an unknown bucket is 404 `BucketNotFound`, an unknown namespace 404 `NamespaceNotFound`;
//! - faults (`--fault METHOD[:PATH-SUFFIX]=STATUS|reset|silent|slow:MS[*COUNT]`): answer that
//!   status (with the service's code), drop the connection, never answer, or answer late, for the
//!   first COUNT requests with that method (and a path ending so), all of them without a count;
//! - `/_sim/...` for tests, unsigned and never faulted: `GET /_sim/log`, `GET|PUT|DELETE
//!   /_sim/object?bucket=B&name=N` (read, write or remove an object directly), `POST /_sim/fault`
//!   (a spec as the body), `DELETE /_sim/fault`.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use md5::Digest as _;
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::net::TcpListener;

use crate::http::{Request, Response, locked};
use crate::oci_signature::OciKey;
use crate::setup::SetupError;
use crate::state_server::{self, Answer, StateServer, log_line};
use crate::wire_faults;

/// The largest object accepted: the benchmarks write states of some 50 MB.
const MAX_OBJECT: u64 = 512 << 20;
/// How long a `silent` fault holds a request: longer than any client waits.
const SILENCE: Duration = Duration::from_secs(3600);

/// One injected fault; its target is a path suffix (`.tfstate`: the state, not its `.lock`).
pub(crate) type Fault = wire_faults::Fault<Action>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    Status(u16),
    Reset,
    Silent,
    Slow(Duration),
}

impl Fault {
    /// `GET=503`, `PUT=429*2`, `GET=reset*1`, `GET=silent`, `GET=slow:1500*1`, and
    /// `PUT:.tfstate=500` for the requests whose path ends with `.tfstate`.
    pub(crate) fn parse(spec: &str) -> Result<Fault, SetupError> {
        const GRAMMAR: &str =
            "METHOD[:PATH-SUFFIX]=STATUS, reset, silent or slow:MS, with an optional *COUNT";
        wire_faults::fault(spec, GRAMMAR, |target, action, remaining| {
            let (method, suffix) = target.split_once(':').unwrap_or((target, ""));
            let action = match action {
                "reset" => Action::Reset,
                "silent" => Action::Silent,
                _ => match action.strip_prefix("slow:") {
                    Some(millis) => Action::Slow(Duration::from_millis(millis.parse().ok()?)),
                    None => Action::Status(wire_faults::status(action)?),
                },
            };
            (!method.is_empty()).then(|| Fault {
                method: method.to_ascii_uppercase(),
                target: suffix.to_owned(),
                action,
                remaining,
            })
        })
    }
}

/// The server's settings.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub namespace: String,
    pub buckets: Vec<String>,
    pub key: OciKey,
    pub faults: Vec<Fault>,
    pub page_size: usize,
    pub verbose: bool,
}

/// One stored object.
#[derive(Debug, Clone)]
struct Object {
    body: Vec<u8>,
    etag: String,
    md5: String,
}

/// The server's memory.
#[derive(Debug)]
pub(crate) struct Store {
    namespace: String,
    key: OciKey,
    page_size: usize,
    verbose: bool,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    buckets: HashMap<String, BTreeMap<String, Object>>,
    faults: Vec<Fault>,
    log: Vec<Value>,
    requests: u64,
}

/// An error answer as the service writes it.
fn error(status: u16, code: &str, message: &str) -> Response {
    Response::json(status, &json!({"code": code, "message": message}))
}

/// The service's code for an injected status.
fn code_for(status: u16) -> &'static str {
    match status {
        400 => "InvalidParameter",
        401 => "NotAuthenticated",
        403 => "NotAuthorized",
        404 => "NotFound",
        409 => "Conflict",
        412 => "NoEtagMatch",
        429 => "TooManyRequests",
        503 => "ServiceUnavailable",
        _ => "InternalServerError",
    }
}

impl Store {
    pub(crate) fn new(options: Options) -> Store {
        let inner = Inner {
            buckets: options
                .buckets
                .iter()
                .map(|name| (name.clone(), BTreeMap::new()))
                .collect(),
            faults: options.faults,
            ..Inner::default()
        };
        Store {
            namespace: options.namespace,
            key: options.key,
            page_size: options.page_size.max(1),
            verbose: options.verbose,
            inner: Mutex::new(inner),
        }
    }

    /// The API itself.
    fn serve(&self, inner: &mut Inner, request: &Request, body: &[u8]) -> Response {
        let put_object = request.method == "PUT" && request.path.contains("/o/");
        let verified = if put_object {
            self.key.verify_unsigned_body(request, SystemTime::now())
        } else {
            self.key.verify(request, SystemTime::now())
        };
        if let Err(why) = verified {
            return error(
                401,
                "NotAuthenticated",
                &format!(
                    "The required information to complete authentication was not provided or was incorrect: {why}"
                ),
            );
        }
        // A body digest, when one is sent (signed or not), must be the body's.
        if let Some(sent) = request.header("x-content-sha256") {
            let digest = STANDARD.encode(<Sha256 as sha2::Digest>::digest(body));
            if sent != digest {
                return error(
                    400,
                    "InvalidParameter",
                    "x-content-sha256 does not match the body",
                );
            }
        }
        let Some(rest) = request.path.strip_prefix("/n/") else {
            return error(404, "NotFound", "no such API");
        };
        let parts: Vec<&str> = rest.splitn(4, '/').collect();
        let (namespace, bucket) = match parts.as_slice() {
            [namespace, "b", bucket, ..] => (decode(namespace), decode(bucket)),
            _ => return error(404, "NotFound", "no such API"),
        };
        if namespace != self.namespace {
            return error(
                404,
                "NamespaceNotFound",
                &format!(
                    "You do not have authorization to perform this request, or the requested resource could not be found: namespace '{namespace}'"
                ),
            );
        }
        let Some(objects) = inner.buckets.get_mut(&bucket) else {
            return error(
                404,
                "BucketNotFound",
                &format!(
                    "Either the bucket named '{bucket}' does not exist in the namespace '{namespace}' or you are not authorized to access it"
                ),
            );
        };
        match parts
            .get(3)
            .map(|tail| tail.split_once('/').unwrap_or((tail, "")))
        {
            Some(("o", "")) if request.method == "GET" => self.list(objects, request),
            Some(("o", object)) if !object.is_empty() => {
                serve_object(objects, &bucket, &decode(object), request, body)
            }
            _ => error(404, "NotFound", "no such API"),
        }
    }

    /// ListObjects: names with the prefix, from `start`, a page at a time.
    fn list(&self, objects: &BTreeMap<String, Object>, request: &Request) -> Response {
        let prefix = request.query("prefix").unwrap_or_default();
        let start = request.query("start").unwrap_or_default();
        let limit = request
            .query("limit")
            .and_then(|limit| limit.parse::<usize>().ok())
            .unwrap_or(1000)
            .clamp(1, 1000)
            .min(self.page_size);
        let mut names = objects
            .keys()
            .filter(|name| name.starts_with(prefix) && name.as_str() >= start);
        let page: Vec<Value> = names
            .by_ref()
            .take(limit)
            .map(|name| json!({"name": name}))
            .collect();
        let mut answer = json!({"objects": page, "prefixes": []});
        if let Some(next) = names.next() {
            answer["nextStartWith"] = json!(next);
        }
        Response::json(200, &answer)
    }
}

impl StateServer for Store {
    const MAX_BODY: u64 = MAX_OBJECT;

    fn malformed(status: u16, message: &str) -> Response {
        error(status, "InvalidParameter", message)
    }

    fn answer(&self, request: &Request, body: &[u8]) -> Answer {
        let mut inner = locked(&self.inner);
        inner.requests += 1;
        let request_id = format!("sim-{}", inner.requests);
        let injected = wire_faults::take(&mut inner.faults, |fault| {
            fault.method == request.method && request.path.ends_with(&fault.target)
        })
        .map(|fault| fault.action.clone());
        let answer = match injected {
            Some(Action::Reset) => Answer::Reset,
            Some(Action::Silent) => Answer::Later(SILENCE, Response::empty(503)),
            Some(Action::Status(status)) => {
                Answer::Respond(error(status, code_for(status), "injected by the simulator"))
            }
            Some(Action::Slow(delay)) => {
                Answer::Later(delay, self.serve(&mut inner, request, body))
            }
            None => Answer::Respond(self.serve(&mut inner, request, body)),
        };
        let status = answer.logged();
        if self.verbose {
            log_line(&request.method, &request.target, &status);
        }
        inner.log.push(json!({
            "method": request.method,
            "target": request.target,
            "status": status,
            "if_match": request.header("if-match"),
            "if_none_match": request.header("if-none-match"),
            "content_md5": request.header("content-md5"),
            "sse_kms": request.header("opc-sse-kms-key-id"),
        }));
        match answer {
            Answer::Respond(response) => {
                Answer::Respond(response.with_header("opc-request-id", request_id))
            }
            Answer::Later(delay, response) => {
                Answer::Later(delay, response.with_header("opc-request-id", request_id))
            }
            other => other,
        }
    }

    fn control(&self, what: &str, request: &Request, body: &[u8]) -> Response {
        let mut inner = locked(&self.inner);
        let bucket = request.query("bucket").unwrap_or_default().to_owned();
        let name = request.query("name").unwrap_or_default().to_owned();
        match (request.method.as_str(), what) {
            ("GET", "log") => Response::json(200, &Value::Array(inner.log.clone())),
            ("GET", "object") => match inner.buckets.get(&bucket).and_then(|b| b.get(&name)) {
                Some(object) => Response {
                    status: 200,
                    headers: vec![("etag".to_owned(), object.etag.clone())],
                    body: object.body.clone(),
                },
                None => Response::empty(404),
            },
            ("PUT", "object") => match inner.buckets.get_mut(&bucket) {
                Some(objects) => {
                    objects.insert(name, stored(body));
                    Response::empty(200)
                }
                None => Response::empty(404),
            },
            ("DELETE", "object") => {
                if let Some(objects) = inner.buckets.get_mut(&bucket) {
                    objects.remove(&name);
                }
                Response::empty(204)
            }
            (method, "fault") => {
                wire_faults::control(method, &mut inner.faults, body, Fault::parse)
            }
            _ => Response::json(404, &json!({"error": "no such control endpoint"})),
        }
    }
}

fn stored(body: &[u8]) -> Object {
    Object {
        body: body.to_vec(),
        etag: format!(
            "{:08x}-{:04x}-{:04x}",
            fastrand::u32(..),
            fastrand::u16(..),
            fastrand::u16(..)
        ),
        md5: STANDARD.encode(md5::Md5::digest(body)),
    }
}

fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// GetObject, HeadObject, PutObject and DeleteObject on one object.
fn serve_object(
    objects: &mut BTreeMap<String, Object>,
    bucket: &str,
    name: &str,
    request: &Request,
    body: &[u8],
) -> Response {
    let existing = objects.get(name);
    let not_found = || {
        error(
            404,
            "ObjectNotFound",
            &format!("The object '{name}' was not found in the bucket '{bucket}'"),
        )
    };
    if let Some(wanted) = request.header("if-match") {
        match existing {
            Some(object) if object.etag == wanted || wanted == "*" => {}
            Some(_) => {
                return error(
                    412,
                    "NoEtagMatch",
                    &format!("The If-Match header '{wanted}' does not match the ETag of '{name}'"),
                );
            }
            None => return not_found(),
        }
    }
    match request.method.as_str() {
        "GET" | "HEAD" => match existing {
            Some(object) => Response {
                status: 200,
                headers: vec![
                    ("etag".to_owned(), object.etag.clone()),
                    ("content-md5".to_owned(), object.md5.clone()),
                    (
                        "content-type".to_owned(),
                        "application/octet-stream".to_owned(),
                    ),
                ],
                body: if request.method == "GET" {
                    object.body.clone()
                } else {
                    Vec::new()
                },
            },
            None if request.method == "HEAD" => Response::empty(404),
            None => not_found(),
        },
        "PUT" => {
            if request.header("if-none-match") == Some("*") && existing.is_some() {
                return error(
                    412,
                    "IfNoneMatchFailed",
                    &format!("The object '{name}' already exists and If-None-Match is '*'"),
                );
            }
            let object = stored(body);
            if let Some(sent) = request.header("content-md5")
                && sent != object.md5
            {
                return error(
                    400,
                    "InvalidDigest",
                    "The Content-MD5 header does not match the body",
                );
            }
            let etag = object.etag.clone();
            let md5 = object.md5.clone();
            objects.insert(name.to_owned(), object);
            Response::empty(200)
                .with_header("etag", etag)
                .with_header("opc-content-md5", md5)
        }
        "DELETE" => match objects.remove(name) {
            Some(_) => Response::empty(204),
            None => not_found(),
        },
        _ => error(405, "MethodNotAllowed", "GET, HEAD, PUT or DELETE"),
    }
}

/// Serves `store` on `listener` until the task is dropped.
pub(crate) async fn serve(listener: TcpListener, store: Arc<Store>) {
    wire_faults::accept_each(listener, |stream| {
        let store = Arc::clone(&store);
        async move { state_server::serve_plain(stream, &*store).await }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse() {
        assert_eq!(
            Fault::parse("put=429*2").unwrap(),
            Fault {
                method: "PUT".into(),
                target: String::new(),
                action: Action::Status(429),
                remaining: Some(2)
            }
        );
        assert_eq!(Fault::parse("GET=silent").unwrap().action, Action::Silent);
        assert_eq!(Fault::parse("PUT:.tfstate=500").unwrap().target, ".tfstate");
        assert_eq!(
            Fault::parse("GET=slow:1500*1").unwrap().action,
            Action::Slow(Duration::from_millis(1500))
        );
        assert!(Fault::parse("GET=teapot").is_err());
    }

    fn objects_named(names: &[&str]) -> BTreeMap<String, Object> {
        names
            .iter()
            .map(|name| ((*name).to_owned(), stored(b"{}")))
            .collect()
    }

    fn request(method: &str, target: &str, headers: &[(&str, &str)]) -> Request {
        let headers = headers
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        Request::new(method, target, headers, true)
    }

    #[test]
    fn conditional_writes_and_deletes_follow_the_etag() {
        let mut objects = objects_named(&[]);
        let put = |objects: &mut BTreeMap<String, Object>, headers: &[(&str, &str)]| {
            serve_object(
                objects,
                "b",
                "k.lock",
                &request("PUT", "/", headers),
                b"{\"ID\":\"1\"}",
            )
            .status
        };
        assert_eq!(put(&mut objects, &[("if-none-match", "*")]), 200);
        assert_eq!(put(&mut objects, &[("if-none-match", "*")]), 412);
        let etag = objects["k.lock"].etag.clone();
        let delete = |objects: &mut BTreeMap<String, Object>, etag: &str| {
            serve_object(
                objects,
                "b",
                "k.lock",
                &request("DELETE", "/", &[("if-match", etag)]),
                b"",
            )
            .status
        };
        assert_eq!(delete(&mut objects, "other"), 412);
        assert_eq!(delete(&mut objects, &etag), 204);
        assert_eq!(delete(&mut objects, &etag), 404);
    }

    #[test]
    fn lists_in_pages_that_name_the_next_start() {
        let key = OciKey::from_pem(
            crate::oci_signature::tests::KEY_ID.to_owned(),
            crate::oci_signature::tests::PUBLIC_KEY,
        )
        .unwrap();
        let store = Store::new(Options {
            namespace: "ns".into(),
            buckets: vec![],
            key,
            faults: vec![],
            page_size: 2,
            verbose: false,
        });
        let objects = objects_named(&["a/1", "a/2", "a/3", "b/1"]);
        let page = store.list(&objects, &request("GET", "/?prefix=a/", &[]));
        let page: Value = serde_json::from_slice(&page.body).unwrap();
        assert_eq!(page["objects"], json!([{"name": "a/1"}, {"name": "a/2"}]));
        assert_eq!(page["nextStartWith"], "a/3");
        let page = store.list(&objects, &request("GET", "/?prefix=a/&start=a/3", &[]));
        let page: Value = serde_json::from_slice(&page.body).unwrap();
        assert_eq!(page["objects"], json!([{"name": "a/3"}]));
        assert!(page.get("nextStartWith").is_none());
    }
}
