//! Sending one HTTP request to a provider API: rustls, a per-request timeout, a bounded body, and a
//! cap on requests in flight per host. Failures are classified (connect, reset, timeout) so the poller
//! can tell a transient network problem from an answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;

use statectl_net::Secret;
use statectl_net::http::body::{self, BodyError};
use statectl_net::http::client::Timeouts;

/// The largest body read; status documents are small, and an endless body must not exhaust memory.
const MAX_BODY: u64 = 4 << 20;

/// One request, ready to send.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: reqwest::Method,
    pub url: reqwest::Url,
    pub headers: Vec<(String, String)>,
    /// Headers that carry credentials (`Authorization`): sent, never logged.
    pub secret_headers: Vec<(String, Secret)>,
    pub body: Option<Vec<u8>>,
}

/// An answer.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    /// Lowercase names.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Why no answer came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    Connect,
    Reset,
    Timeout,
    Other,
}

#[derive(Debug, Clone)]
pub struct TransportError {
    pub kind: TransportKind,
    pub message: String,
}

/// A shared client with per-host limits.
#[derive(Debug)]
pub struct HttpClient {
    client: reqwest::Client,
    per_host: Mutex<HashMap<String, Arc<Semaphore>>>,
    per_host_limit: usize,
}

/// The HTTP client that cannot start (its TLS backend, for one).
#[derive(Debug, thiserror::Error)]
#[error("cannot start the HTTP client: {0}")]
pub struct HttpClientError(#[source] reqwest::Error);

impl HttpClient {
    pub fn new(per_host_limit: usize) -> Result<HttpClient, HttpClientError> {
        // No redirect followed: it could carry a signed request or a token to another host.
        let client = statectl_net::http::client::builder(Timeouts::default())
            .build()
            .map_err(HttpClientError)?;
        Ok(HttpClient {
            client,
            per_host: Mutex::new(HashMap::new()),
            per_host_limit: per_host_limit.max(1),
        })
    }

    fn host_gate(&self, url: &reqwest::Url) -> Arc<Semaphore> {
        let key = format!(
            "{}:{}",
            url.host_str().unwrap_or_default(),
            url.port_or_known_default().unwrap_or(0)
        );
        let mut gates = self
            .per_host
            .lock()
            .expect("the gate map is never poisoned");
        gates
            .entry(key)
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_host_limit)))
            .clone()
    }

    /// Sends `request`, waiting for a free slot of its host first; `timeout` bounds the whole
    /// exchange, body included.
    pub async fn send(
        &self,
        request: &HttpRequest,
        timeout: Duration,
    ) -> Result<HttpResponse, TransportError> {
        let gate = self.host_gate(&request.url);
        let _slot = gate.acquire().await.expect("gates are never closed");
        let mut builder = self
            .client
            .request(request.method.clone(), request.url.clone())
            .timeout(timeout);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        for (name, value) in &request.secret_headers {
            builder = builder.header(name, value.expose_str());
        }
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        let started = std::time::Instant::now();
        // The path only: a query may carry values a profile took from the environment.
        tracing::debug!(method = %request.method, host = request.url.host_str().unwrap_or(""), path = request.url.path(), "sending");
        let mut response = builder.send().await.map_err(|error| {
            let failure = classify(error);
            tracing::debug!(path = request.url.path(), kind = ?failure.kind, "no answer: {}", failure.message);
            failure
        })?;
        let status = response.status().as_u16();
        tracing::debug!(
            path = request.url.path(),
            status,
            elapsed_ms = started.elapsed().as_millis(),
            "answered"
        );
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body =
            body::read_capped(&mut response, MAX_BODY)
                .await
                .map_err(|error| match error {
                    BodyError::TooLarge { limit } => TransportError {
                        kind: TransportKind::Other,
                        message: format!("the response body is larger than {} MB", limit >> 20),
                    },
                    BodyError::Broken(error) => classify(error),
                })?;
        Ok(HttpResponse {
            status,
            headers,
            body,
        })
    }
}

/// Sorts a reqwest failure into what the poller retries. The message names no header and no URL
/// query (reqwest's own text may include the URL, whose path holds only ids).
fn classify(error: reqwest::Error) -> TransportError {
    let kind = if error.is_timeout() {
        TransportKind::Timeout
    } else if error.is_connect() {
        TransportKind::Connect
    } else if is_reset(&error) {
        TransportKind::Reset
    } else {
        TransportKind::Other
    };
    let message = match kind {
        TransportKind::Timeout => "the request timed out".to_owned(),
        TransportKind::Connect => "cannot connect".to_owned(),
        TransportKind::Reset => "the connection was closed before an answer".to_owned(),
        TransportKind::Other => error.without_url().to_string(),
    };
    TransportError { kind, message }
}

/// Whether the connection was reset or closed mid-exchange, looking through the error's sources.
fn is_reset(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::UnexpectedEof
            )
        {
            return true;
        }
        let text = cause.to_string();
        if text.contains("connection closed")
            || text.contains("IncompleteMessage")
            || text.contains("connection reset")
        {
            return true;
        }
        source = cause.source();
    }
    error.is_request() || error.is_body()
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;

    use super::*;

    /// A one-shot loopback server: answers each connection with `reply` (or closes it at once when
    /// `reply` is empty), for at most `connections` connections.
    fn serve(replies: Vec<&'static [u8]>) -> (reqwest::Url, std::thread::JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url =
            reqwest::Url::parse(&format!("http://{}/x", listener.local_addr().unwrap())).unwrap();
        let handle = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for reply in replies {
                let (mut stream, _) = listener.accept().unwrap();
                let mut buffer = [0; 4096];
                let read = stream.read(&mut buffer).unwrap_or(0);
                seen.push(String::from_utf8_lossy(&buffer[..read]).into_owned());
                if !reply.is_empty() {
                    let _ = stream.write_all(reply);
                }
            }
            seen
        });
        (url, handle)
    }

    fn get(url: reqwest::Url) -> HttpRequest {
        HttpRequest {
            method: reqwest::Method::GET,
            url,
            headers: vec![("accept".into(), "application/json".into())],
            secret_headers: vec![("authorization".into(), Secret::new("Bearer t0ken"))],
            body: None,
        }
    }

    #[tokio::test]
    async fn answers_come_back_with_status_headers_and_body() {
        let (url, server) = serve(vec![
            b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 2\r\n\r\n{}",
        ]);
        let client = HttpClient::new(4).unwrap();
        let response = client
            .send(&get(url), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(response.status, 429);
        assert_eq!(response.header("retry-after"), Some("3"));
        assert_eq!(response.body, b"{}");
        let seen = server.join().unwrap();
        assert!(
            seen[0].contains("authorization: Bearer t0ken"),
            "{}",
            seen[0]
        );
    }

    #[tokio::test]
    async fn a_closed_connection_is_a_reset_and_a_silent_one_a_timeout() {
        let (url, server) = serve(vec![b""]);
        let client = HttpClient::new(4).unwrap();
        let error = client
            .send(&get(url), Duration::from_secs(5))
            .await
            .unwrap_err();
        assert_eq!(error.kind, TransportKind::Reset, "{}", error.message);
        server.join().unwrap();
        // Nobody listens on a port just released.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = reqwest::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
        assert_eq!(
            client
                .send(&get(url), Duration::from_secs(5))
                .await
                .unwrap_err()
                .kind,
            TransportKind::Connect
        );
        // A server that reads and never answers.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url =
            reqwest::Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
        let holder = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            std::thread::sleep(Duration::from_millis(800));
            drop(stream);
        });
        let error = client
            .send(&get(url), Duration::from_millis(200))
            .await
            .unwrap_err();
        assert_eq!(error.kind, TransportKind::Timeout);
        holder.join().unwrap();
    }
}
