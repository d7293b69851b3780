//! Prefix listings against hostile servers on loopback, for every backend that lists (s3, gcs,
//! azurerm, oci) and HCP Terraform's tagged workspaces: a server alternating two continuation
//! tokens, one repeating the same token, one offering a fresh token on every page for ever. Each
//! listing ends (a token followed before ends it with a warning naming the prefix; the page limit
//! ends it with an error), each key is read once however often it was listed, and each server
//! answers a bounded number of requests, so the code before these limits fails here instead of
//! running on.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::builder::{Output, Test, root};

/// Requests one hostile server answers; past them it stops listening.
const MOST_REQUESTS: usize = 80;

/// How one hostile listing goes on: the keys of the page a token asks for, and the next token.
#[derive(Debug, Clone, Copy)]
enum Script {
    /// Two tokens, one after the other, for ever; the third page lists a key of the first again.
    Alternating,
    /// The same token on every page, with the same keys.
    Repeating,
    /// A fresh token on every page, with the same key.
    Endless,
}

impl Script {
    /// Tokens are object names that sort after the keys, so that OCI's `nextStartWith` (which
    /// must move forward) takes them too.
    fn page(self, token: Option<&str>) -> (Vec<&'static str>, Option<String>) {
        match (self, token) {
            (Script::Alternating, None) => (
                vec!["org/a.tfstate", "org/b.tfstate"],
                Some("org/x".to_owned()),
            ),
            (Script::Alternating, Some("org/x")) => {
                (vec!["org/c.tfstate"], Some("org/y".to_owned()))
            }
            (Script::Alternating, Some(_)) => (vec!["org/a.tfstate"], Some("org/x".to_owned())),
            (Script::Repeating, _) => (
                vec!["org/a.tfstate", "org/b.tfstate", "org/c.tfstate"],
                Some("org/x".to_owned()),
            ),
            (Script::Endless, token) => {
                let next = token
                    .and_then(|token| token.strip_prefix("org/t"))
                    .and_then(|number| number.parse::<u64>().ok())
                    .map_or(1, |number| number + 1);
                (vec!["org/a.tfstate"], Some(format!("org/t{next:08}")))
            }
        }
    }
}

/// The backends that list a prefix, each as its server speaks.
#[derive(Debug, Clone, Copy)]
enum Kind {
    S3,
    Gcs,
    Azure,
    Oci,
}

const ACCOUNT: &str = "acct";

/// What a request to the hostile server asks for.
enum Asked {
    /// A listing page, after the token (none for the first).
    Page(Option<String>),
    State,
}

impl Kind {
    /// The prefix URL statectl is given.
    fn prefix(self) -> &'static str {
        match self {
            Kind::S3 => "s3://tfstate/org/",
            Kind::Gcs => "gs://tfstate/org/",
            Kind::Azure => "azurerm://acct/tfstate/org/",
            Kind::Oci => "oci://acme/states/org/",
        }
    }

    /// What a request asks for: a listing page (with its token), or a state.
    fn asked(self, path: &str, query: &[(String, String)]) -> Asked {
        let get = |name: &str| {
            query
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        };
        let (listing, token) = match self {
            Kind::S3 => (
                path.trim_end_matches('/') == "/tfstate" && get("list-type").is_some(),
                "continuation-token",
            ),
            Kind::Gcs => (path == "/storage/v1/b/tfstate/o", "pageToken"),
            Kind::Azure => (
                path == "/acct/tfstate" && get("comp").as_deref() == Some("list"),
                "marker",
            ),
            Kind::Oci => (path == "/n/acme/b/states/o", "start"),
        };
        if listing {
            Asked::Page(get(token))
        } else {
            Asked::State
        }
    }

    /// A listing page in the service's own format.
    fn page(self, keys: &[&str], next: Option<&str>) -> (&'static str, String) {
        match self {
            Kind::S3 => {
                let contents = keys.iter().fold(String::new(), |mut out, key| {
                    let _ = write!(out, "<Contents><Key>{key}</Key><Size>10</Size></Contents>");
                    out
                });
                let next = next.map_or(String::new(), |token| {
                    format!("<NextContinuationToken>{token}</NextContinuationToken>")
                });
                (
                    "application/xml",
                    format!(
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>tfstate</Name><Prefix>org/</Prefix><KeyCount>{}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>{contents}{next}</ListBucketResult>",
                        keys.len()
                    ),
                )
            }
            Kind::Gcs => {
                let mut page = serde_json::json!({
                    "kind": "storage#objects",
                    "items": keys.iter().map(|key| serde_json::json!({"name": key})).collect::<Vec<_>>(),
                });
                if let Some(token) = next {
                    page["nextPageToken"] = token.into();
                }
                ("application/json", page.to_string())
            }
            Kind::Azure => {
                let blobs = keys.iter().fold(String::new(), |mut out, key| {
                    let _ = write!(out, "<Blob><Name>{key}</Name><Properties /></Blob>");
                    out
                });
                let next = next.unwrap_or_default();
                (
                    "application/xml",
                    format!(
                        "<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults ContainerName=\"tfstate\"><Prefix>org/</Prefix><Blobs>{blobs}</Blobs><NextMarker>{next}</NextMarker></EnumerationResults>"
                    ),
                )
            }
            Kind::Oci => {
                let mut page = serde_json::json!({
                    "objects": keys.iter().map(|key| serde_json::json!({"name": key})).collect::<Vec<_>>(),
                });
                if let Some(token) = next {
                    page["nextStartWith"] = token.into();
                }
                ("application/json", page.to_string())
            }
        }
    }

    /// `statectl ARGS` reaching `url` for this backend, credentials and all.
    fn statectl(self, args: &[&str], url: &str, home: &Path) -> Test {
        let test = Test::new().current_dir(home).env("HOME", home).args(args);
        match self {
            Kind::S3 => test
                .backend_config(format!("endpoints={{ s3 = \"{url}\" }}"))
                .backend_config("use_path_style=true")
                .backend_config("region=us-east-1")
                .backend_config("skip_requesting_account_id=true")
                .env("AWS_ACCESS_KEY_ID", "testing")
                .env("AWS_SECRET_ACCESS_KEY", "testing")
                .env("AWS_EC2_METADATA_DISABLED", "true"),
            Kind::Gcs => test
                .backend_config(format!("storage_custom_endpoint={url}/storage/v1/"))
                .env("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.loopback-token"),
            Kind::Azure => test
                .backend_config(format!("endpoint={url}/{ACCOUNT}"))
                .env("ARM_ACCESS_KEY", "c3RhdGVjdGwtbG9vcGJhY2sta2V5"),
            Kind::Oci => {
                std::fs::create_dir_all(home.join(".oci")).unwrap();
                std::fs::write(
                    home.join(".oci/config"),
                    format!(
                        "[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nregion=eu-frankfurt-1\nkey_file={}\n",
                        root().join("tests/sim/oci_test_key.pem").display()
                    ),
                )
                .unwrap();
                test.env(
                    "OCI_CLIENT_HOST_OVERRIDES",
                    format!("oci_object_storage.ObjectStorageClient={url}"),
                )
            }
        }
    }
}

/// A hostile server for `kind` following `script`; states read are clean ones. It records the
/// listing requests and the states read, and answers at most [`MOST_REQUESTS`] requests.
struct Server {
    url: String,
    listings: Arc<Mutex<usize>>,
    reads: Arc<Mutex<Vec<String>>>,
}

fn serve(kind: Kind, script: Script) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let listings = Arc::new(Mutex::new(0));
    let reads = Arc::new(Mutex::new(Vec::new()));
    let state = Arc::new(std::fs::read(root().join("testdata/scan/clean.tfstate")).unwrap());
    let (counted, read) = (Arc::clone(&listings), Arc::clone(&reads));
    std::thread::spawn(move || {
        for stream in listener.incoming().take(MOST_REQUESTS) {
            let Ok(stream) = stream else { continue };
            let (counted, read, state) =
                (Arc::clone(&counted), Arc::clone(&read), Arc::clone(&state));
            std::thread::spawn(move || answer(stream, kind, script, &counted, &read, &state));
        }
    });
    Server {
        url,
        listings,
        reads,
    }
}

fn answer(
    mut stream: TcpStream,
    kind: Kind,
    script: Script,
    listings: &Mutex<usize>,
    reads: &Mutex<Vec<String>>,
    state: &[u8],
) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut length = 0;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let target = line.split_whitespace().nth(1).unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let path = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let (status, kind_of, body) = if let Asked::Page(token) = kind.asked(&path, &query) {
        *listings.lock().unwrap() += 1;
        let (keys, next) = script.page(token.as_deref());
        let (content_type, page) = kind.page(&keys, next.as_deref());
        (200, content_type, page.into_bytes())
    } else {
        reads.lock().unwrap().push(path.into_owned());
        (200, "application/json", state.to_vec())
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} OK\r\nContent-Type: {kind_of}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&body);
}

/// `statectl scan PREFIX --format json` against a hostile `kind` server, bounded in time.
fn scan(kind: Kind, script: Script, extra: &[&str]) -> (Output, Server) {
    let server = serve(kind, script);
    let home = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut args = vec!["scan", kind.prefix(), "--format", "json", "-j", "2"];
    args.extend_from_slice(extra);
    let output = kind.statectl(&args, &server.url, home.path()).run();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(60), "{kind:?}: took {took:?}");
    (output, server)
}

fn scanned_paths(output: &Output) -> Vec<String> {
    if let Err(error) = serde_json::from_str::<Value>(&output.stdout) {
        panic!(
            "not JSON ({error}):\n{}\n--- stderr\n{}",
            output.stdout, output.stderr
        );
    }
    crate::workdir::scanned_states(&output.stdout)
}

const KINDS: [Kind; 4] = [Kind::S3, Kind::Gcs, Kind::Azure, Kind::Oci];

/// The state URL of `key` below `kind`'s bucket.
fn url_of(kind: Kind, key: &str) -> String {
    let prefix = kind.prefix();
    format!("{}{key}", &prefix[..prefix.len() - "org/".len()])
}

#[test]
fn a_listing_that_goes_round_ends_with_a_warning_and_each_state_is_read_once() {
    for kind in KINDS {
        let (output, server) = scan(kind, Script::Alternating, &[]);
        let (output, prefix) = (output.code(0), kind.prefix());
        assert_eq!(
            scanned_paths(&output),
            ["org/a.tfstate", "org/b.tfstate", "org/c.tfstate"].map(|key| url_of(kind, key)),
            "{kind:?}"
        );
        assert_eq!(
            output.stderr,
            format!(
                "warning: {prefix}: the listing went round: after 3 pages the server pointed back to a page already read; statectl stopped there, with the 3 states listed so far\n\
                 warning: {prefix}: the listing named 1 key more than once; each state is read once\n\
                 3 states under {prefix}\n"
            ),
            "{kind:?}"
        );
        assert_eq!(*server.listings.lock().unwrap(), 3, "{kind:?}");
        let mut reads = server.reads.lock().unwrap().clone();
        reads.sort();
        reads.dedup();
        assert_eq!(reads.len(), 3, "{kind:?}: {reads:?}");
    }
}

#[test]
fn a_repeated_token_ends_the_listing_and_its_keys_are_read_once() {
    for kind in KINDS {
        let (output, server) = scan(kind, Script::Repeating, &[]);
        let (output, prefix) = (output.code(0), kind.prefix());
        assert_eq!(scanned_paths(&output).len(), 3, "{kind:?}");
        assert!(
            output.stderr.contains(&format!(
                "warning: {prefix}: the listing went round: after 2 pages"
            )),
            "{kind:?}: {}",
            output.stderr
        );
        assert!(
            output.stderr.contains(&format!(
                "warning: {prefix}: the listing named 3 keys more than once; each state is read once"
            )),
            "{kind:?}: {}",
            output.stderr
        );
        assert_eq!(*server.listings.lock().unwrap(), 2, "{kind:?}");
    }
}

#[test]
fn a_listing_that_never_ends_stops_at_the_page_limit_with_one_error() {
    for kind in KINDS {
        let (output, server) = scan(kind, Script::Endless, &["--max-pages", "25"]);
        let prefix = kind.prefix();
        output.refused(&format!(
            "error: {prefix}: the listing has not ended after 25 pages (1 state so far); statectl stopped it\nhint: raise the limit with `--max-pages N` if the prefix really holds that many objects, or name a narrower prefix\n"
        ));
        assert_eq!(*server.listings.lock().unwrap(), 25, "{kind:?}");
        assert!(server.reads.lock().unwrap().is_empty(), "{kind:?}");
    }
}

/// `statectl drift --workspace '*'` in a folder whose recorded backend is gcs (prefix `org`) on a
/// hostile server: the workspace listing is bounded as a scan's is (a repeated token ends it with
/// a warning, each workspace's state read once; a listing that never ends is one error at the
/// page limit, before any state is read). The listed keys `org/a.tfstate`... are workspaces `a`...
#[test]
fn a_hostile_workspace_listing_ends_and_each_workspace_is_read_once() {
    let drift = |script: Script, extra: &[&str]| {
        let server = serve(Kind::Gcs, script);
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".terraform")).unwrap();
        std::fs::write(
            home.path().join(".terraform/terraform.tfstate"),
            r#"{"version": 3, "backend": {"type": "gcs", "config": {"bucket": "tfstate", "prefix": "org", "storage_custom_endpoint": null}, "hash": 1}}"#,
        )
        .unwrap();
        let mut args = vec!["drift", "--workspace", "*"];
        args.extend_from_slice(extra);
        let started = Instant::now();
        let output = Kind::Gcs.statectl(&args, &server.url, home.path()).run();
        assert!(started.elapsed() < Duration::from_secs(60));
        (output, server)
    };
    let (output, server) = drift(Script::Repeating, &["--format", "json"]);
    assert!(
        output
            .stderr
            .contains("the listing went round: after 2 pages"),
        "{}",
        output.stderr
    );
    assert_eq!(*server.listings.lock().unwrap(), 2);
    let mut reads = server.reads.lock().unwrap().clone();
    reads.sort();
    assert_eq!(
        reads,
        ["default", "a", "b", "c"]
            .map(|name| format!("/storage/v1/b/tfstate/o/org/{name}.tfstate"))
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>(),
        "each workspace's state read once"
    );
    // The states name the AWS provider, not installed here: each read, then one error.
    let output = output.code(2);
    assert!(
        output
            .stderr
            .contains("error: no `terraform-provider-aws` binary"),
        "{}",
        output.stderr
    );

    let (output, server) = drift(Script::Endless, &["--max-pages", "25"]);
    output.refused("the listing has not ended after 25 pages");
    assert_eq!(*server.listings.lock().unwrap(), 25);
    assert!(server.reads.lock().unwrap().is_empty());
}
