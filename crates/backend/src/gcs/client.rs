//! One HTTP exchange with Google (the storage JSON API, a token endpoint, the IAM credentials API,
//! the metadata server), bounded where the Go client that Terraform uses is not: a connect and a
//! read timeout, a cap on the answer's size, a few quick retries of what may be retried (no answer
//! at all, 429 and 5xx, as Google's retry strategy does), and nothing followed to another host.

pub(super) use statectl_net::http::error_text::problem;
pub(super) use statectl_net::http::status_text;
use std::time::Duration;

use statectl_net::Secret;
use statectl_net::http::body::{self, BodyError};

use crate::client_error::ClientError;
use statectl_net::http::client::{self, Timeouts};

/// The largest answer read: states of hundreds of megabytes exist; an endless body does not stop.
pub(super) const MAX_BODY: u64 = 1 << 30;
/// The largest answer of a token endpoint (a token is a few kilobytes; Google's libraries read 1 MiB).
pub(super) const MAX_TOKEN_BODY: u64 = 1 << 20;
/// A Google endpoint answers a connection at once or is not there.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest silence while a request is sent or its answer read.
const READ_TIMEOUT: Duration = Duration::from_secs(20);
/// The longest one attempt may take, body included: a 1 GiB state at 2 MB/s.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(900);
/// Attempts of a request that may be repeated, and the first pause between them (doubled after).
const ATTEMPTS: u32 = 3;
const FIRST_PAUSE: Duration = Duration::from_millis(400);

/// The HTTP client of one backend (and of every state listed through it).
#[derive(Debug, Clone)]
pub(super) struct Http {
    client: reqwest::Client,
}

/// A final answer.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Why there is no answer to use.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// Every attempt got no answer (refused, reset, timed out); what went wrong the last time.
    Unreachable(String),
    /// The answer's body did not arrive whole.
    BodyBroken(String),
    /// The answer is larger than the limit (in bytes) the request was sent with.
    TooLarge(u64),
}

impl std::error::Error for Failure {}

impl std::fmt::Display for Failure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unreachable(problem) => write!(formatter, "no answer: {problem}"),
            Failure::BodyBroken(problem) => write!(formatter, "the answer broke off: {problem}"),
            Failure::TooLarge(limit) if *limit >= 1 << 30 => write!(
                formatter,
                "the answer is larger than {} GiB; statectl stops there",
                limit >> 30
            ),
            Failure::TooLarge(limit) => write!(
                formatter,
                "the answer is larger than {} KiB; statectl stops there",
                limit >> 10
            ),
        }
    }
}

impl Http {
    pub(super) fn new() -> Result<Http, ClientError> {
        // No redirect followed: it would carry the bearer token along; Google's APIs do not redirect.
        let client = client::builder(Timeouts {
            connect: Some(CONNECT_TIMEOUT),
            read: Some(READ_TIMEOUT),
            attempt: Some(ATTEMPT_TIMEOUT),
        })
        .build()
        .map_err(ClientError::Start)?;
        Ok(Http { client })
    }

    /// Sends the request `make` builds; when `repeatable`, again after no answer or a 429 or 5xx
    /// (an attempt that timed out is not repeated: a silent server stays silent, and the wait is
    /// bounded by one read timeout).
    pub(super) async fn send(
        &self,
        repeatable: bool,
        make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync,
    ) -> Result<Answer, Failure> {
        self.send_limited(repeatable, MAX_BODY, make).await
    }

    /// [`Http::send`], reading at most `limit` bytes of the answer (a token endpoint's answer is
    /// small; a larger one is refused rather than held).
    pub(super) async fn send_limited(
        &self,
        repeatable: bool,
        limit: u64,
        make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync,
    ) -> Result<Answer, Failure> {
        let attempts = if repeatable { ATTEMPTS } else { 1 };
        let mut pause = FIRST_PAUSE;
        let mut attempt = 1;
        loop {
            let last = attempt >= attempts;
            match make(&self.client).send().await {
                Ok(response) if !last && retried_status(response.status().as_u16()) => {}
                Ok(response) => return read(response, limit).await,
                Err(error) if last || error.is_timeout() => {
                    return Err(Failure::Unreachable(problem(&error)));
                }
                Err(_) => {}
            }
            tracing::debug!(attempt, ?pause, "retrying a Google API request");
            tokio::time::sleep(pause).await;
            pause *= 2;
            attempt += 1;
        }
    }

    /// POSTs the JSON `body` of a token request (the IAM credentials API's
    /// `generateAccessToken`) with `bearer`, the token that asks.
    pub(super) async fn post_token_request(
        &self,
        url: &str,
        bearer: &Secret,
        body: &serde_json::Value,
    ) -> Result<Answer, Failure> {
        let body = body.to_string();
        self.send_limited(true, MAX_TOKEN_BODY, |client| {
            client
                .post(url)
                .bearer_auth(bearer.expose_str())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone())
        })
        .await
    }
}

/// Google's client libraries retry these: too many requests, and the server's own failures.
fn retried_status(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

/// Reads the whole answer, up to `limit` bytes.
async fn read(mut response: reqwest::Response, limit: u64) -> Result<Answer, Failure> {
    let status = response.status().as_u16();
    match body::read_capped(&mut response, limit).await {
        Ok(body) => Ok(Answer { status, body }),
        Err(BodyError::TooLarge { limit }) => Err(Failure::TooLarge(limit)),
        Err(BodyError::Broken(error)) => Err(Failure::BodyBroken(problem(&error))),
    }
}

/// The message in a Google API error answer (`{"error": {"message": ...}}`, or OAuth2's
/// `{"error": "invalid_grant", "error_description": ...}`), else the body's first line, short.
pub(super) fn error_message(body: &[u8]) -> String {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) {
        let error = &value["error"];
        if let Some(message) = error["message"].as_str() {
            return one_line(message);
        }
        if let Some(code) = error.as_str() {
            return match value["error_description"].as_str() {
                Some(description) => one_line(&format!("{code}: {description}")),
                None => code.to_owned(),
            };
        }
    }
    one_line(&String::from_utf8_lossy(body))
}

/// The first line, masked, then cut at 200 characters.
fn one_line(text: &str) -> String {
    statectl_net::http::error_text::excerpt(text, 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_come_from_either_json_shape_in_one_line() {
        assert_eq!(
            error_message(br#"{"error": {"code": 403, "message": "a@b does not have storage.objects.get access.\nmore"}}"#),
            "a@b does not have storage.objects.get access."
        );
        assert_eq!(
            error_message(br#"{"error": "invalid_grant", "error_description": "Bad Request"}"#),
            "invalid_grant: Bad Request"
        );
        assert_eq!(error_message(b"Not Found\n"), "Not Found");
        assert_eq!(status_text(412), "412 Precondition Failed");
    }
}
