//! What the three state servers (http-backend, tfe, object-storage) share about answering: what an
//! answer may be, the `/_sim/...` controls routed apart from the API, the `-v` log line, and the loop
//! that reads a connection's requests and writes their answers.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::net::TcpStream;

use crate::http::{ReadError, Request, Response, read_request_with_body, write_response};

/// How long a hanging answer holds the connection: longer than any client waits.
const HANG: Duration = Duration::from_secs(3600);

/// What to do with a request.
pub(crate) enum Answer {
    Respond(Response),
    /// Answer after a while (a `slow` or `silent` fault).
    Later(Duration, Response),
    /// Close the connection with a reset, unanswered.
    Reset,
    /// Say nothing, then close.
    Hang,
}

impl Answer {
    /// The answer as the request log and `-v` name it: its status, `reset` or `hang`.
    pub(crate) fn logged(&self) -> Value {
        match self {
            Answer::Respond(response) | Answer::Later(_, response) => json!(response.status),
            Answer::Reset => json!("reset"),
            Answer::Hang => json!("hang"),
        }
    }
}

/// A state server: the API it serves and the `/_sim/...` controls the tests use.
pub(crate) trait StateServer {
    /// The largest body a request may carry.
    const MAX_BODY: u64;

    /// The answer, in the API's own error form, to a request that does not parse.
    fn malformed(status: u16, message: &str) -> Response;

    /// `/_sim/WHAT`: for tests, unauthenticated and never faulted.
    fn control(&self, what: &str, request: &Request, body: &[u8]) -> Response;

    /// Any other request: the API itself, with its faults.
    fn answer(&self, request: &Request, body: &[u8]) -> Answer;

    /// Routes `/_sim/...` to the controls, anything else to the API.
    fn handle(&self, request: &Request, body: &[u8]) -> Answer {
        match request.path.strip_prefix("/_sim/") {
            Some(what) => Answer::Respond(self.control(what, request, body)),
            None => self.answer(request, body),
        }
    }
}

#[expect(
    clippy::print_stderr,
    reason = "with -v the simulator logs each request to stderr; stdout carries only the listening line"
)]
pub(crate) fn log_line(method: &str, target: &str, status: &Value) {
    // No header is logged: they carry the credentials and tokens (the target holds a lock ID at
    // most).
    eprintln!("{method} {target} -> {status}");
}

/// Serves a plain TCP connection until it closes; a reset a fault asks for is a real one (RST).
pub(crate) async fn serve_plain<T: StateServer>(stream: TcpStream, server: &T) {
    let mut stream = BufReader::new(stream);
    if serve_stream(&mut stream, server).await {
        // A zero linger makes the close a reset (RST), as a crashed proxy's.
        let _ = stream.get_ref().set_zero_linger();
    }
}

/// Answers requests on `stream` until it closes; `true` when a fault asked for a reset (over TLS,
/// the connection is then dropped without TLS's goodbye).
pub(crate) async fn serve_stream<S, T>(stream: &mut BufReader<S>, server: &T) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
    T: StateServer,
{
    loop {
        let (request, body) = match read_request_with_body(stream, T::MAX_BODY).await {
            Ok(read) => read,
            Err(ReadError::Closed | ReadError::Io) => return false,
            Err(ReadError::Malformed(status, message)) => {
                let response = T::malformed(status, message);
                let _ = write_response(stream, &response, false, Duration::ZERO).await;
                return false;
            }
        };
        let response = match server.handle(&request, &body) {
            Answer::Reset => return true,
            Answer::Hang => {
                tokio::time::sleep(HANG).await;
                return false;
            }
            Answer::Respond(response) => response,
            Answer::Later(delay, response) => {
                tokio::time::sleep(delay).await;
                response
            }
        };
        let written = write_response(stream, &response, request.keep_alive, Duration::ZERO).await;
        if written.is_err() || !request.keep_alive {
            return false;
        }
    }
}
