//! A loopback stand-in for any provider or storage API that echoes everything it receives: the
//! `Authorization` header first (as Cloud Foundry's "Invalid Auth Token: Bearer <token>"), then the
//! request line, every header and the body, all on one line, in every place an error is read from
//! (JSON `message`, `error.message`, `errors[].detail`, `description`; S3's and Azure's XML
//! `<Message>`; the `x-ms-error-code` and `x-amz-bucket-region` headers). It also keeps every
//! credential it was sent (bearer and basic credentials, OCI, SigV4 and Shared Key signatures, session
//! tokens, customer keys), so a test can check that none of them is shown either. Bounded: at most
//! 400 connections, each read for at most 5 seconds; its threads end with the test binary.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

/// One request as received.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub method: String,
    pub target: String,
    /// Lowercase names.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    pub(crate) fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// Everything received on one line, the credentials first.
    pub(crate) fn echo(&self) -> String {
        statectl_sim::echo_line(&self.method, &self.target, &self.headers, &self.body)
    }

    /// The credentials this request carried.
    fn credentials(&self) -> Vec<String> {
        let mut found = Vec::new();
        if let Some(value) = self.header("authorization") {
            found.extend(authorization_credentials(value));
        }
        for name in [
            "x-amz-security-token",
            "x-amz-server-side-encryption-customer-key",
            "x-goog-encryption-key",
            "x-api-key",
        ] {
            found.extend(self.header(name).map(str::to_owned));
        }
        for pair in self.target.split(['?', '&']).skip(1) {
            if let Some(signature) = pair.strip_prefix("sig=") {
                found.push(signature.to_owned());
            }
        }
        found
    }
}

/// The credential parts of an `Authorization` value: the token of `Bearer` and `Basic`, the
/// signature of OCI's `Signature ...`, SigV4's `Signature=` and Azure's `SharedKey account:`.
fn authorization_credentials(value: &str) -> Vec<String> {
    let mut found = Vec::new();
    if let Some((_, token)) = value.split_once(' ')
        && (value.starts_with("Bearer ") || value.starts_with("Basic "))
    {
        found.push(token.to_owned());
    }
    if let Some((_, rest)) = value.split_once("signature=\"") {
        found.push(rest.split('"').next().unwrap_or_default().to_owned());
    }
    if let Some((_, rest)) = value.split_once("Signature=") {
        found.push(rest.split(',').next().unwrap_or_default().to_owned());
    }
    if let Some(rest) = value.strip_prefix("SharedKey ")
        && let Some((_, signature)) = rest.split_once(':')
    {
        found.push(signature.to_owned());
    }
    found
}

/// An answer.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub(crate) fn json(status: u16, value: &Value) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: value.to_string().into_bytes(),
        }
    }

    /// An error in every JSON shape the clients read, each field the whole echo.
    pub(crate) fn echo_json(status: u16, received: &Received) -> Reply {
        let echo = received.echo();
        Reply::json(
            status,
            &json!({
                "code": echo, "message": echo, "description": echo, "error_description": echo,
                "error": {"code": status, "message": echo},
                "errors": [{"status": status.to_string(), "title": echo, "detail": echo}],
            }),
        )
        .with_echo_headers(received)
    }

    /// S3's and Azure's XML error, its code and message the echo.
    pub(crate) fn echo_xml(status: u16, code: &str, received: &Received) -> Reply {
        let escaped = received
            .echo()
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        Reply {
            status,
            headers: vec![("content-type".into(), "application/xml".into())],
            body: format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{escaped}</Message><RequestId>1</RequestId></Error>"
            )
            .into_bytes(),
        }
        .with_echo_headers(received)
    }

    /// The echo in the headers clients put into messages.
    fn with_echo_headers(mut self, received: &Received) -> Reply {
        let line: String = received
            .echo()
            .chars()
            .map(|character| {
                if character == ' ' || character.is_ascii_graphic() {
                    character
                } else {
                    ' '
                }
            })
            .collect();
        for name in [
            "x-echo",
            "x-ms-error-code",
            "x-amz-bucket-region",
            "opc-request-id",
        ] {
            self.headers.push((name.to_owned(), line.clone()));
        }
        self
    }
}

/// The running stand-in.
pub(crate) struct Echo {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Echo {
    /// Starts answering each request with `answer`.
    pub(crate) fn start(answer: impl Fn(&Received) -> Reply + Send + Sync + 'static) -> Echo {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        let answer = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming().take(400) {
                let Ok(stream) = stream else { continue };
                let (log, answer) = (log.clone(), answer.clone());
                std::thread::spawn(move || serve(stream, &log, answer.as_ref()));
            }
        });
        Echo { url, received }
    }

    /// The host and port.
    pub(crate) fn host(&self) -> &str {
        self.url.trim_start_matches("http://")
    }

    /// Every credential received so far.
    pub(crate) fn credentials(&self) -> Vec<String> {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .flat_map(Received::credentials)
            .collect()
    }

    /// Whether a request with `method` came.
    pub(crate) fn saw(&self, method: &str) -> bool {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|received| received.method == method)
    }
}

/// Answers the requests of one connection (kept alive as the client asks).
fn serve(stream: TcpStream, log: &Mutex<Vec<Received>>, answer: &dyn Fn(&Received) -> Reply) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    for _ in 0..50 {
        let Some(received) = read(&mut reader) else {
            return;
        };
        let reply = answer(&received);
        log.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(received);
        let mut head = format!("HTTP/1.1 {} Echo\r\n", reply.status);
        for (name, value) in &reply.headers {
            let _ = write!(head, "{name}: {value}\r\n");
        }
        let _ = write!(head, "content-length: {}\r\n\r\n", reply.body.len());
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(&reply.body).is_err() {
            return;
        }
    }
}

/// One request, its body read by `content-length` or chunked; `None` at the end or on nonsense.
fn read(reader: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut line = String::new();
    reader.read_line(&mut line).ok().filter(|read| *read > 0)?;
    let mut words = line.split_whitespace();
    let (method, target) = (words.next()?.to_owned(), words.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut received = Received {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    if let Some(length) = received.header("content-length") {
        let length: usize = length.parse().ok()?;
        let mut body = vec![0; length.min(8 << 20)];
        reader.read_exact(&mut body).ok()?;
        received.body = body;
    } else if received
        .header("transfer-encoding")
        .is_some_and(|value| value.contains("chunked"))
    {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            received.body.extend_from_slice(&chunk[..size]);
        }
    }
    Some(received)
}
