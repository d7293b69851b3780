//! Loopback stand-ins of the token exchanges CI credentials go through (Google's STS and IAM
//! credentials API, Azure AD's token endpoint, the instance metadata service, GitHub's and Azure
//! DevOps' OIDC token services), shared by the gcs and azurerm credential tests: a server that
//! records every request (method, target, headers, body), answers what one of its routes takes, and
//! forwards anything else to an emulator (fake-gcs-server) with its head recorded, so that a test
//! sees the token each storage call carried. Over plain HTTP, or TLS with a test CA's certificate
//! (Azure AD's address is fixed, and reached through a CONNECT proxy). One request per connection;
//! every read is bounded by a timeout; the server stops when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a connection may stay silent before it is dropped.
const SILENCE: Duration = Duration::from_secs(20);

/// One request as the stand-in saw it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    /// The path and query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    /// The body of a routed request (forwarded ones are not kept).
    pub body: String,
}

impl Request {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The body's form fields, sorted by name.
    pub(crate) fn form(&self) -> Vec<(String, String)> {
        let mut form: Vec<(String, String)> = url::form_urlencoded::parse(self.body.as_bytes())
            .into_owned()
            .collect();
        form.sort();
        form
    }
}

/// An answer to a routed request: its status and JSON body.
pub(crate) type Route = Box<dyn Fn(&Request) -> (u16, String) + Send + Sync>;

/// A route answering every request alike.
pub(crate) fn reply(status: u16, body: &str) -> Route {
    let body = body.to_owned();
    Box::new(move |_| (status, body.clone()))
}

/// A running stand-in.
pub(crate) struct StandIn {
    port: u16,
    seen: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

struct Config {
    /// Path prefixes and their answers; the first that matches answers.
    routes: Vec<(String, Route)>,
    /// Where requests no route takes are forwarded.
    upstream: Option<u16>,
    tls: Option<Arc<rustls::ServerConfig>>,
}

impl StandIn {
    /// Over plain HTTP, forwarding what no route takes to `upstream` on loopback.
    pub(crate) fn start(routes: Vec<(&str, Route)>, upstream: Option<u16>) -> StandIn {
        StandIn::serve(Config {
            routes: owned(routes),
            upstream,
            tls: None,
        })
    }

    /// Over TLS with `cert.pem` and `key.pem` from the folder `pki` (the test CA's).
    pub(crate) fn start_tls(routes: Vec<(&str, Route)>, pki: &Path) -> StandIn {
        StandIn::serve(Config {
            routes: owned(routes),
            upstream: None,
            tls: Some(tls_config(pki)),
        })
    }

    fn serve(config: Config) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let config = Arc::new(config);
        std::thread::spawn({
            let seen = Arc::clone(&seen);
            let stop = Arc::clone(&stop);
            move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let config = Arc::clone(&config);
                    let seen = Arc::clone(&seen);
                    std::thread::spawn(move || {
                        let _ = stream.set_read_timeout(Some(SILENCE));
                        if let Some(tls) = &config.tls {
                            let Ok(connection) = rustls::ServerConnection::new(Arc::clone(tls))
                            else {
                                return;
                            };
                            let mut stream = rustls::StreamOwned::new(connection, stream);
                            handle(&mut stream, None, &config, &seen);
                            stream.conn.send_close_notify();
                            let _ = stream.flush();
                        } else {
                            let raw = stream.try_clone().ok();
                            let mut stream = stream;
                            handle(&mut stream, raw, &config, &seen);
                        }
                    });
                }
            }
        });
        StandIn { port, seen, stop }
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>`.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in order of arrival.
    pub(crate) fn seen(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }

    /// Forgets what was seen (between the two tools' runs).
    pub(crate) fn forget(&self) {
        self.seen.lock().unwrap().clear();
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn owned(routes: Vec<(&str, Route)>) -> Vec<(String, Route)> {
    routes
        .into_iter()
        .map(|(prefix, route)| (prefix.to_owned(), route))
        .collect()
}

/// One request: answered by its route, or forwarded (plain HTTP only: `raw` is the socket).
fn handle(
    stream: &mut (impl Read + Write),
    raw: Option<TcpStream>,
    config: &Config,
    seen: &Mutex<Vec<Request>>,
) {
    let mut reader = BufReader::new(stream);
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line == b"\r\n" {
            break;
        }
        head.push(String::from_utf8_lossy(&line).trim_end().to_owned());
    }
    let Some(first) = head.first() else { return };
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = head[1..]
        .iter()
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let mut request = Request {
        method,
        target,
        headers,
        body: String::new(),
    };
    let route = config
        .routes
        .iter()
        .find(|(prefix, _)| request.target.starts_with(prefix.as_str()));
    match (route, config.upstream) {
        (Some((_, route)), _) => {
            request.body = String::from_utf8_lossy(&read_body(&mut reader, &request)).into_owned();
            seen.lock().unwrap().push(request.clone());
            let (status, body) = route(&request);
            let stream = reader.get_mut();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} Stand-in\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.flush();
        }
        (None, Some(upstream)) if raw.is_some() => {
            seen.lock().unwrap().push(request.clone());
            let buffered = reader.buffer().to_vec();
            forward(&head, &buffered, raw.unwrap(), upstream);
        }
        (None, _) => {
            seen.lock().unwrap().push(request);
            let stream = reader.get_mut();
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    }
}

/// A routed request's body, by its length or its chunks.
fn read_body(reader: &mut impl BufRead, request: &Request) -> Vec<u8> {
    if let Some(length) = request
        .header("content-length")
        .and_then(|length| length.parse::<usize>().ok())
    {
        let mut body = vec![0; length.min(16 << 20)];
        let _ = reader.read_exact(&mut body);
        return body;
    }
    let mut body = Vec::new();
    if request
        .header("transfer-encoding")
        .is_some_and(|coding| coding.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                break;
            }
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if size == 0 {
                let _ = reader.read_line(&mut String::new());
                break;
            }
            let mut chunk = vec![0; size.min(16 << 20)];
            if reader.read_exact(&mut chunk).is_err() {
                break;
            }
            body.extend_from_slice(&chunk);
            let _ = reader.read_line(&mut String::new());
        }
    }
    body
}

/// Sends the request on to the emulator, asking it to close after its answer, and pipes both
/// ways until it does.
fn forward(head: &[String], buffered: &[u8], client: TcpStream, upstream: u16) {
    let Ok(mut server) = TcpStream::connect(("127.0.0.1", upstream)) else {
        return;
    };
    let _ = server.set_read_timeout(Some(SILENCE));
    // The emulator's own host (fake-gcs-server serves its XML API, which Terraform reads with,
    // on the host it was told), and a close after the answer.
    let mut text = String::new();
    for line in head {
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("host:") {
            text.push_str("Host: 127.0.0.1:");
            text.push_str(&upstream.to_string());
            text.push_str("\r\n");
        } else if !lower.starts_with("connection:") {
            text.push_str(line);
            text.push_str("\r\n");
        }
    }
    text.push_str("Connection: close\r\n\r\n");
    if server.write_all(text.as_bytes()).is_err() || server.write_all(buffered).is_err() {
        return;
    }
    let (Ok(mut from_client), Ok(mut to_server)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from_client, &mut to_server);
    });
    let mut to_client = client;
    let _ = std::io::copy(&mut server, &mut to_client);
    let _ = to_client.shutdown(std::net::Shutdown::Both);
}

/// The TLS server configuration of `pki`'s certificate.
fn tls_config(pki: &Path) -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain = CertificateDer::pem_file_iter(pki.join("cert.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(pki.join("key.pem")).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    Arc::new(config)
}

/// A whole HTTP answer: `status` (its code and reason), the content type when there is one, and
/// `body`, closing the connection after it.
pub(crate) fn answer(status: &str, content_type: Option<&str>, body: &str) -> String {
    let content_type =
        content_type.map_or_else(String::new, |kind| format!("Content-Type: {kind}\r\n"));
    format!(
        "HTTP/1.1 {status}\r\n{content_type}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// A server on loopback that answers each of up to 30 requests with `response` (a whole HTTP
/// answer), once the request's head has come: for answers no emulator gives. Returns its
/// `http://` address.
pub(crate) fn canned(response: String) -> String {
    format!("http://127.0.0.1:{}", answering(move |_| response.clone()))
}

/// A server on loopback that answers each of up to 30 requests, once its head has come, with the
/// whole HTTP answer `respond` gives for its request line (`GET /path?query HTTP/1.1`): a service
/// no emulator here plays, in a few routes. Returns its port.
pub(crate) fn answering(respond: impl Fn(&str) -> String + Send + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(30) {
            let Ok(mut stream) = stream else { return };
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => request.extend_from_slice(&buffer[..read]),
                }
            }
            let request = String::from_utf8_lossy(&request);
            let line = request.lines().next().unwrap_or_default();
            let _ = stream.write_all(respond(line).as_bytes());
        }
    });
    port
}
