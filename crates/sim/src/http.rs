//! Just enough HTTP/1.1 for GET requests (and the http backend's writes), spoken directly over the
//! socket.
//!
//! The simulator does not use a server framework because its faults live on the wire: a reset must
//! be a real TCP reset after the request was read, and a slow body must be headers first and then
//! bytes trickled over time. Persistent connections are kept (clients pool them); request bodies are
//! read and dropped (but for the http backend's, which are kept), and chunked request bodies are
//! refused.

use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use percent_encoding::percent_decode_str;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The most a request head (request line and headers) may take; an OSB `operation` can be 10,000
/// characters, an OCI signature a few hundred.
const MAX_HEAD: u64 = 64 * 1024;
/// The most a request body may take before the connection is refused.
const MAX_BODY: u64 = 1024 * 1024;
/// How many pieces a slow body is cut into.
const SLOW_PIECES: usize = 8;

/// A parsed request.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    /// The request target as sent: path and query, still percent-encoded (OCI signs it so).
    pub target: String,
    /// The path part of the target.
    pub path: String,
    /// The query, percent-decoded, in order.
    pub query: Vec<(String, String)>,
    /// Lowercase names, in order.
    pub headers: Vec<(String, String)>,
    /// Whether the client wants the connection kept after the answer.
    pub keep_alive: bool,
}

/// A whole request on one line, its `Authorization` (`headers` are lowercase) first, as Cloud
/// Foundry's "Invalid Auth Token: Bearer <token>", then the request line, every header and the
/// body: what a server that echoes everything it got says. The tests that no secret is shown use
/// it, here and in their own echoing stand-in.
pub fn echo_line(method: &str, target: &str, headers: &[(String, String)], body: &[u8]) -> String {
    let mut parts: Vec<String> = headers
        .iter()
        .find(|(name, _)| name == "authorization")
        .map(|(_, value)| format!("Invalid Auth Token: {value}"))
        .into_iter()
        .collect();
    parts.push(format!("{method} {target}"));
    parts.extend(
        headers
            .iter()
            .map(|(name, value)| format!("{name}: {value}")),
    );
    parts.push(String::from_utf8_lossy(body).into_owned());
    parts.join(" | ")
}

/// The first value of `name` among `pairs`: a request's headers or query, a reply's headers.
pub(crate) fn first_value<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

impl Request {
    /// A request for `target`, its path and (decoded) query split off; `headers` with lowercase
    /// names.
    pub(crate) fn new(
        method: &str,
        target: &str,
        headers: Vec<(String, String)>,
        keep_alive: bool,
    ) -> Request {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Request {
            method: method.to_owned(),
            target: target.to_owned(),
            path: path.to_owned(),
            query: parse_query(query),
            headers,
            keep_alive,
        }
    }

    /// The first value of header `name` (lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        first_value(&self.headers, name)
    }

    /// The whole request on one line: see [`echo_line`].
    pub(crate) fn echo(&self, body: &[u8]) -> String {
        echo_line(&self.method, &self.target, &self.headers, body)
    }

    /// The first value of query parameter `name`.
    pub(crate) fn query(&self, name: &str) -> Option<&str> {
        first_value(&self.query, name)
    }
}

/// Why no request could be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The client closed the connection between requests: the normal end.
    Closed,
    /// The connection broke mid-request.
    Io,
    /// Answer with this status and close.
    Malformed(u16, &'static str),
}

impl From<std::io::Error> for ReadError {
    fn from(_: std::io::Error) -> ReadError {
        ReadError::Io
    }
}

/// Reads one request head, then drops the body it announces.
pub(crate) async fn read_request<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Request, ReadError> {
    let (request, length) = read_head(reader, MAX_BODY).await?;
    let dropped = tokio::io::copy(&mut (&mut *reader).take(length), &mut tokio::io::sink()).await?;
    if dropped < length {
        return Err(ReadError::Io);
    }
    Ok(request)
}

/// Reads one request and its body, up to `max_body` bytes (the http backend's states).
pub(crate) async fn read_request_with_body<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max_body: u64,
) -> Result<(Request, Vec<u8>), ReadError> {
    let (request, length) = read_head(reader, max_body).await?;
    let mut body = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
    (&mut *reader).take(length).read_to_end(&mut body).await?;
    if (body.len() as u64) < length {
        return Err(ReadError::Io);
    }
    Ok((request, body))
}

/// Reads a request head; the body's length comes with it, checked against `max_body`.
async fn read_head<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max_body: u64,
) -> Result<(Request, u64), ReadError> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let budget = MAX_HEAD.saturating_sub(before as u64);
        let read = (&mut *reader)
            .take(budget)
            .read_until(b'\n', &mut head)
            .await?;
        if read == 0 {
            return if head.is_empty() {
                Err(ReadError::Closed)
            } else if budget == 0 {
                Err(ReadError::Malformed(431, "the request head is too large"))
            } else {
                Err(ReadError::Io)
            };
        }
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            // Blank lines before a request are allowed (RFC 9112 section 2.2).
            if before == 0 {
                head.clear();
                continue;
            }
            break;
        }
    }
    let head = std::str::from_utf8(&head)
        .map_err(|_| ReadError::Malformed(400, "the request head is not UTF-8"))?;
    let mut lines = head.lines();
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Malformed(400, "malformed request line"));
    };
    if !target.starts_with('/') {
        return Err(ReadError::Malformed(
            400,
            "the request target must be a path",
        ));
    }
    let mut headers = Vec::new();
    for line in lines.filter(|line| !line.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Malformed(400, "malformed header line"));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request = Request::new(method, target, headers, false);
    let connection = request
        .header("connection")
        .unwrap_or_default()
        .to_ascii_lowercase();
    request.keep_alive = match version {
        "HTTP/1.1" => !connection.contains("close"),
        "HTTP/1.0" => connection.contains("keep-alive"),
        _ => {
            return Err(ReadError::Malformed(
                505,
                "only HTTP/1.1 and HTTP/1.0 are spoken",
            ));
        }
    };
    if request.header("transfer-encoding").is_some() {
        return Err(ReadError::Malformed(
            501,
            "chunked request bodies are not supported",
        ));
    }
    let length: u64 = match request.header("content-length") {
        None => 0,
        Some(value) => value
            .parse()
            .map_err(|_| ReadError::Malformed(400, "invalid Content-Length"))?,
    };
    if length > max_body {
        return Err(ReadError::Malformed(413, "the request body is too large"));
    }
    Ok((request, length))
}

/// A server's memory, locked; a panic in another request's handler does not stop the rest.
pub(crate) fn locked<T>(memory: &Mutex<T>) -> MutexGuard<'_, T> {
    memory.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `a=1&b=x%20y` as pairs, decoded the way Go's `url.ParseQuery` (and so most brokers) decode a
/// query: `+` is a space, `%XX` a byte.
pub(crate) fn parse_query(query: &str) -> Vec<(String, String)> {
    let decode = |text: &str| {
        percent_decode_str(&text.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

/// An answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// An answer without a body.
    pub(crate) fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A JSON answer.
    pub(crate) fn json(status: u16, body: &Value) -> Response {
        Response {
            status,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: serde_json::to_vec(body).expect("a JSON value always serializes"),
        }
    }

    #[must_use]
    pub(crate) fn with_header(mut self, name: &str, value: impl Into<String>) -> Response {
        self.headers.push((name.to_owned(), value.into()));
        self
    }
}

/// Writes `response`: the head at once, then the body, trickled over `slow_body` when that is not
/// zero so that a client sees headers long before the body ends.
pub(crate) async fn write_response<W: AsyncWrite + Unpin>(
    writer: &mut W,
    response: &Response,
    keep_alive: bool,
    slow_body: Duration,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    for (name, value) in &response.headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    let _ = write!(
        head,
        "date: {}\r\ncontent-length: {}\r\nconnection: {}\r\n\r\n",
        httpdate::fmt_http_date(SystemTime::now()),
        response.body.len(),
        if keep_alive { "keep-alive" } else { "close" }
    );
    writer.write_all(head.as_bytes()).await?;
    if slow_body.is_zero() || response.body.is_empty() {
        writer.write_all(&response.body).await?;
    } else {
        writer.flush().await?;
        let piece = response.body.len().div_ceil(SLOW_PIECES);
        let pieces = response.body.chunks(piece);
        let pause = slow_body / pieces.len() as u32;
        for piece in pieces {
            tokio::time::sleep(pause).await;
            writer.write_all(piece).await?;
            writer.flush().await?;
        }
    }
    writer.flush().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        302 => "Found",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        412 => "Precondition Failed",
        413 => "Content Too Large",
        423 => "Locked",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::BufReader;

    use super::*;

    async fn read(bytes: &[u8]) -> Result<Request, ReadError> {
        read_request(&mut BufReader::new(bytes)).await
    }

    #[tokio::test]
    async fn reads_a_request_with_its_query_and_headers() {
        let request = read(
            b"GET /v2/service_instances/a/last_operation?operation=op%201&plan_id=p+1 HTTP/1.1\r\nHost: h\r\nX-Broker-API-Version:  2.17 \r\n\r\n",
        )
        .await
        .unwrap();
        assert_eq!(request.path, "/v2/service_instances/a/last_operation");
        assert_eq!(
            request.target,
            "/v2/service_instances/a/last_operation?operation=op%201&plan_id=p+1"
        );
        assert_eq!(request.query("operation"), Some("op 1"));
        assert_eq!(request.query("plan_id"), Some("p 1"));
        assert_eq!(request.header("x-broker-api-version"), Some("2.17"));
        assert!(request.keep_alive);
    }

    #[tokio::test]
    async fn keeps_reading_after_a_body_on_the_same_connection() {
        let mut reader = BufReader::new(
            &b"GET /a HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabcGET /b HTTP/1.0\r\n\r\n"[..],
        );
        let first = read_request(&mut reader).await.unwrap();
        assert_eq!(first.path, "/a");
        assert!(!first.keep_alive);
        let second = read_request(&mut reader).await.unwrap();
        assert_eq!(second.path, "/b");
        assert!(!second.keep_alive);
        assert!(matches!(
            read_request(&mut reader).await,
            Err(ReadError::Closed)
        ));
    }

    #[tokio::test]
    async fn refuses_what_it_cannot_frame() {
        let refused = |result| match result {
            Err(ReadError::Malformed(status, _)) => status,
            other => panic!("{other:?}"),
        };
        assert_eq!(refused(read(b"GET /a\r\n\r\n").await), 400);
        assert_eq!(refused(read(b"GET /a HTTP/2\r\n\r\n").await), 505);
        assert_eq!(
            refused(read(b"GET /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").await),
            501
        );
        let huge = format!("GET /a HTTP/1.1\r\nX: {}\r\n\r\n", "y".repeat(70_000));
        assert_eq!(refused(read(huge.as_bytes()).await), 431);
    }

    #[tokio::test]
    async fn writes_length_date_and_connection() {
        let mut written = Vec::new();
        let response =
            Response::json(429, &serde_json::json!({"a": 1})).with_header("retry-after", "2");
        write_response(&mut written, &response, false, Duration::ZERO)
            .await
            .unwrap();
        let text = String::from_utf8(written).unwrap();
        assert!(text.starts_with("HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 2\r\ndate: "), "{text}");
        assert!(
            text.ends_with("content-length: 7\r\nconnection: close\r\n\r\n{\"a\":1}"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_slow_body_still_arrives_whole() {
        let mut written = Vec::new();
        let response = Response::json(200, &serde_json::json!({"state": "in progress"}));
        write_response(&mut written, &response, true, Duration::from_millis(16))
            .await
            .unwrap();
        assert!(
            String::from_utf8(written)
                .unwrap()
                .ends_with("{\"state\":\"in progress\"}")
        );
    }
}
