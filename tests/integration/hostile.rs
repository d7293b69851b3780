//! Hostile or broken provider APIs, on loopback: a redirect to another host, a 400, a body that is not
//! JSON, JSON nested a million deep, a status of the wrong JSON type, a body past the 4 MB cap, a body
//! that drips one byte a second, a connection reset before any answer, endless 503s, and a
//! `Retry-After` of eleven days. Each
//! run ends within its deadline (or at once, for an answer that asking again cannot change), says what
//! happened to the instance, never prints the token, and writes nothing.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::builder::{assert_contains, root};
use crate::files::folder_with_copy;

const TOKEN: &str = "hostile-t0ken-never-printed";

/// How the server answers every request.
#[derive(Clone, Copy)]
enum Answer {
    Fixed(&'static str),
    /// Headers, then one byte a second for at most this many seconds.
    Drip(u64),
    /// A 200 whose body is this many bytes of JSON: `[` repeated (nesting), or spaces then `{}`.
    Deep(usize),
    Huge(usize),
    /// The connection closed as soon as the request is read.
    Reset,
}

/// A one-behaviour HTTP server on loopback; counts the requests it got. Its thread ends with the
/// process (the test binary), and each connection is bounded in time.
fn serve(answer: Answer) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(200) {
            let Ok(stream) = stream else { continue };
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || answer_one(stream, answer));
        }
    });
    (format!("http://{address}"), requests)
}

fn answer_one(mut stream: TcpStream, answer: Answer) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
        line.clear();
    }
    match answer {
        Answer::Fixed(text) => {
            let _ = stream.write_all(text.as_bytes());
        }
        Answer::Deep(bytes) | Answer::Huge(bytes) => {
            let filler = if matches!(answer, Answer::Deep(_)) {
                b'['
            } else {
                b' '
            };
            let _ = stream.write_all(
                format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", bytes + 2)
                    .as_bytes(),
            );
            let chunk = vec![filler; 64 * 1024];
            let mut left = bytes;
            while left > 0 {
                let now = left.min(chunk.len());
                if stream.write_all(&chunk[..now]).is_err() {
                    return;
                }
                left -= now;
            }
            let _ = stream.write_all(b"{}");
        }
        Answer::Reset => {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        Answer::Drip(seconds) => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{",
            );
            for _ in 0..seconds {
                std::thread::sleep(Duration::from_secs(1));
                if stream.write_all(b" ").is_err() {
                    return;
                }
            }
        }
    }
}

/// Runs `statectl refresh` of the Cloud Foundry fixture against `endpoint`; returns the exit code,
/// stdout, stderr and how long it took.
fn refresh(folder: &Path, endpoint: &str, extra: &[&str]) -> (i32, String, String, Duration) {
    let started = Instant::now();
    let (code, stdout, stderr) = crate::processes::output_of(
        Command::new(env!("CARGO_BIN_EXE_statectl"))
            .args(["refresh", "--endpoint", &format!("cf={endpoint}")])
            .args(extra)
            .current_dir(folder)
            .env_clear()
            .env("CF_ACCESS_TOKEN", format!("bearer {TOKEN}"))
            .env("COLUMNS", "300"),
    );
    (code, stdout, stderr, started.elapsed())
}

/// One hostile answer: the outcome line the table must hold, and how long the run may take at most.
/// `code` is 2 for an error outcome, 1 for "still pending" (not resolved). Returns stderr.
fn check(
    answer: Answer,
    extra: &[&str],
    (outcome, code): (&str, i32),
    at_most: Duration,
    max_requests: usize,
) -> String {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("terraform.tfstate");
    std::fs::copy(
        root().join("testdata/scan/cf-tainted-in-progress.tfstate"),
        &state,
    )
    .unwrap();
    let before = std::fs::read(&state).unwrap();
    let (endpoint, requests) = serve(answer);
    let (exit, stdout, stderr, took) = refresh(folder.path(), &endpoint, extra);
    assert_eq!(exit, code, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "cloudfoundry_service_instance.orders_db  {outcome}"
        )),
        "{stdout}{stderr}"
    );
    assert!(took <= at_most, "took {took:?}, at most {at_most:?}");
    let requests = requests.load(Ordering::SeqCst);
    assert!(
        (1..=max_requests).contains(&requests),
        "{requests} requests"
    );
    assert!(!stdout.contains(TOKEN) && !stderr.contains(TOKEN));
    assert_eq!(std::fs::read(&state).unwrap(), before, "nothing written");
    assert_eq!(
        std::fs::read_dir(folder.path()).unwrap().count(),
        1,
        "no backup, no lock"
    );
    stderr
}

#[test]
fn a_redirect_to_another_host_is_an_error_at_once() {
    check(
        Answer::Fixed(
            "HTTP/1.1 302 Found\r\nlocation: https://elsewhere.example/v3/service_instances/x?token=abc\r\ncontent-length: 0\r\n\r\n",
        ),
        &[],
        (
            "error: HTTP 302: the endpoint redirects to `https://elsewhere.example/v3/service_instances/x`, and statectl does not follow redirects",
            2,
        ),
        Duration::from_secs(20),
        1,
    );
}

#[test]
fn a_bad_request_is_an_error_at_once() {
    check(
        Answer::Fixed("HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}"),
        &[],
        ("error: unexpected HTTP 400", 2),
        Duration::from_secs(20),
        1,
    );
}

#[test]
fn a_body_that_is_not_json_is_an_error_at_once() {
    check(
        Answer::Fixed(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n<html>oops",
        ),
        &[],
        ("error:", 2),
        Duration::from_secs(20),
        1,
    );
}

/// Issue 24, item 21: an instance whose every answer until the deadline was an error (here, a
/// request timed out) is an error, not "still pending": nothing was heard of the object.
#[test]
fn a_body_that_drips_ends_with_the_deadline() {
    check(
        Answer::Drip(60),
        &["--timeout", "3s"],
        (
            "error: every answer until the deadline was an error (last: the request timed out)",
            2,
        ),
        Duration::from_secs(9),
        2,
    );
}

/// Issue 24, item 21: endless 503s ended as "still pending (HTTP 503)" with exit 0.
#[test]
fn endless_503s_and_a_huge_retry_after_end_with_the_deadline_as_an_error() {
    for answer in [
        "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n",
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: 999999\r\ncontent-length: 0\r\n\r\n",
    ] {
        check(
            Answer::Fixed(answer),
            &["--timeout", "3s"],
            (
                "error: every answer until the deadline was an error (HTTP 503)",
                2,
            ),
            Duration::from_secs(9),
            10,
        );
    }
    let stderr = check(
        Answer::Fixed(
            "HTTP/1.1 500 Internal Server Error\r\nretry-after: 999999\r\ncontent-length: 4\r\n\r\noops",
        ),
        &["--timeout", "3s", "-v"],
        (
            "error: every answer until the deadline was an error (HTTP 500: oops)",
            2,
        ),
        Duration::from_secs(9),
        10,
    );
    assert!(
        stderr.contains(
            "the server asks to wait longer (Retry-After) than the deadline leaves: the wait ends at the deadline"
        ) && stderr.contains("retry_after=999999s"),
        "{stderr}"
    );
}

/// An object that answers "in progress" until the deadline is still pending: the outcome says so,
/// and so does the exit code (1: not every instance was resolved; it was 0).
#[test]
fn an_operation_in_progress_at_the_deadline_is_pending_and_the_run_says_so() {
    check(
        Answer::Fixed(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 58\r\n\r\n{\"last_operation\":{\"state\":\"in progress\",\"type\":\"create\"}}",
        ),
        &["--timeout", "3s"],
        ("still pending (in progress)", 1),
        Duration::from_secs(9),
        10,
    );
}

#[test]
fn json_nested_a_million_deep_is_an_error_at_once() {
    check(
        Answer::Deep(1_000_000),
        &[],
        ("error:", 2),
        Duration::from_secs(20),
        1,
    );
}

#[test]
fn a_status_of_the_wrong_json_type_is_an_error_at_once() {
    check(
        Answer::Fixed(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 41\r\n\r\n{\"last_operation\":{\"state\":[7],\"type\":1}}",
        ),
        &[],
        ("error:", 2),
        Duration::from_secs(20),
        1,
    );
}

#[test]
fn a_body_past_the_cap_is_refused_at_once_with_bounded_memory() {
    check(
        Answer::Huge(64 << 20),
        &[],
        ("error: the response body is larger than 4 MB", 2),
        Duration::from_secs(20),
        1,
    );
}

#[test]
fn a_connection_reset_before_any_answer_is_retried_until_the_deadline() {
    check(
        Answer::Reset,
        &["--timeout", "3s"],
        ("error: every answer until the deadline was an error", 2),
        Duration::from_secs(9),
        20,
    );
}

/// Item 17 of issue 24: a status from the server with a line break and an ESC in it. In the `-v` log
/// (and the outcome table) it is escaped: it cannot start a forged log line or restyle the terminal.
#[test]
fn a_status_that_would_forge_a_log_line_is_escaped_in_the_log() {
    let body = r#"{"last_operation":{"state":"weird\r\nFORGED \u001b[31mred","type":"create"}}"#;
    let answer: &'static str = Box::leak(
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_boxed_str(),
    );
    let folder = folder_with_copy(root().join("testdata/scan/cf-tainted-in-progress.tfstate"));
    let (endpoint, _) = serve(Answer::Fixed(answer));
    let (code, stdout, stderr, _) = refresh(folder.path(), &endpoint, &["-v"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_contains(
        &stderr,
        "outcome=error: unexpected state `weird\\r\\nFORGED \\u{1b}[31mred`",
    );
    for text in [&stdout, &stderr] {
        assert!(!text.contains('\r') && !text.contains('\u{1b}'), "{text}");
        assert!(
            !text.lines().any(|line| line.starts_with("FORGED")),
            "{text}"
        );
    }
}
