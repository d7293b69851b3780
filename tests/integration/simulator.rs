//! The provider simulator (`crates/sim`), started in-process the one way every test starts it: the
//! binary's arguments, a free loopback port, stopped when dropped. And the one plain-HTTP request
//! its `/_sim/` control endpoints answer, which needs no client of statectl's.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub(crate) use statectl_sim::Server;

/// The simulator `args` describe (as `statectl-sim ARGS` would take them), running.
#[track_caller]
pub(crate) fn start<I, S>(args: I) -> Server
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let server =
        Server::start(args).unwrap_or_else(|error| panic!("the simulator starts: {error}"));
    assert!(
        server.address().ip().is_loopback(),
        "loopback only: {}",
        server.address()
    );
    server
}

/// One unsigned request to the server on loopback `port`, over plain HTTP/1.1 with the connection
/// closed after it: the status and the body.
pub(crate) fn control(port: u16, method: &str, target: &str, body: &[u8]) -> (u16, Vec<u8>) {
    request(port, method, target, "", body)
}

/// [`control`] with `headers` (each ending in CRLF) added to the request.
pub(crate) fn request(
    port: u16,
    method: &str,
    target: &str,
    headers: &str,
    body: &[u8],
) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: x\r\n{headers}Connection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap();
    let status = String::from_utf8_lossy(&answer[9..12]).parse().unwrap();
    (status, answer[split + 4..].to_vec())
}
