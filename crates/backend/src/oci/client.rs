//! One Object Storage request as Terraform's OCI SDK client makes it: signed with the API key over
//! `date (request-target) host` (a PutObject's body headers unsigned, as the SDK signs it), the object
//! name escaped into the path (`/n/<namespace>/b/<bucket>/o/<object>`), and retried as Terraform's
//! backend retries (`retry.go`: 429, 500 and 503, up to 5 attempts; statectl waits less between
//! them). Bounded where Terraform is not: a request timeout, and a cap on the answer's size.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use statectl_net::http::body::{self, BodyError};
use statectl_net::http::client::{self, Timeouts};
use statectl_net::oci::signature::OciSigner;

use crate::client_error::ClientError;
use crate::escape;
use crate::runtime::Runtime;

/// The largest answer read: a state beyond 1 GiB is not one statectl reads.
pub(super) const MAX_BODY: u64 = 1 << 30;
/// Terraform's `MaximumNumberAttempts`.
const ATTEMPTS: u32 = 5;
/// Terraform's `RetryableStatus`.
const RETRIED: [u16; 3] = [429, 500, 503];
/// Terraform waits 2, 8, 18 and 32 s; statectl starts at half a second and doubles, or waits as a
/// 429's `retry-after` asks, up to this.
const MAX_PAUSE: Duration = Duration::from_secs(10);

/// The pause after attempt `attempt` (from 1): what the answer's `retry-after` asks, in seconds or
/// as an HTTP-date (RFC 9110), else half a second doubled each attempt; at most [`MAX_PAUSE`].
fn pause(retry_after: Option<&str>, attempt: u32, now: SystemTime) -> Duration {
    retry_after
        .and_then(|value| statectl_net::http::retry_after::parse(value, now))
        .unwrap_or_else(|| {
            Duration::from_millis(500)
                .saturating_mul(2_u32.saturating_pow(attempt.saturating_sub(1)))
        })
        .min(MAX_PAUSE)
}

/// The client of one namespace's Object Storage, shared by the states of a listing.
pub(super) struct Client {
    http: reqwest::Client,
    pub runtime: Arc<Runtime>,
    /// `https://objectstorage.<region>.oraclecloud.com`, or the override.
    endpoint: String,
    signer: OciSigner,
}

crate::debug::shown_in_debug!(Client: endpoint);

/// A final answer: a status that is not retried, or the last retried one's.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

/// Why there is no answer to use.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// Every attempt was answered 429, 500 or 503; this was the last answer.
    GaveUp {
        status: u16,
        code: String,
        attempts: u32,
    },
    /// No answer (refused, reset, timed out, TLS refused).
    Unreachable(String),
    /// The answer's body did not arrive whole, or is larger than [`MAX_BODY`].
    BodyBroken(String),
}

/// One request: method, the path below the namespace's bucket, query pairs, extra headers, body.
pub(super) struct Call<'a> {
    pub method: &'a str,
    pub path: String,
    pub query: Vec<(&'static str, String)>,
    pub headers: Vec<(&'static str, String)>,
    pub body: Option<&'a [u8]>,
    /// The largest answer read: [`MAX_BODY`] but for small objects (a lock's info).
    pub max_body: u64,
}

impl<'a> Call<'a> {
    pub(super) fn new(method: &'a str, path: String) -> Call<'a> {
        Call {
            method,
            path,
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            max_body: MAX_BODY,
        }
    }
}

/// `/n/<namespace>/b/<bucket>/o/<object>`, each part escaped.
pub(super) fn object_path(namespace: &str, bucket: &str, object: &str) -> String {
    format!(
        "{}/o/{}",
        bucket_path(namespace, bucket),
        escape::unreserved(object)
    )
}

/// `/n/<namespace>/b/<bucket>`.
pub(super) fn bucket_path(namespace: &str, bucket: &str) -> String {
    format!(
        "/n/{}/b/{}",
        escape::unreserved(namespace),
        escape::unreserved(bucket)
    )
}

impl Client {
    pub(super) fn new(
        endpoint: String,
        signer: OciSigner,
        connect_timeout: Duration,
        request_timeout: Duration,
    ) -> Result<Client, ClientError> {
        let runtime = Runtime::new().map_err(ClientError::ClientRuntime)?;
        // No redirect followed: Object Storage does not redirect, and following one would carry the
        // signature elsewhere.
        let http = client::builder(Timeouts {
            connect: Some(connect_timeout),
            read: Some(request_timeout),
            // Long enough for a large state at a slow link; a server that stops reading still ends.
            attempt: Some(request_timeout.max(Duration::from_secs(900))),
        })
        .user_agent(format!("{} Oracle-TerraformBackend", client::USER_AGENT))
        .build()
        .map_err(ClientError::Tls)?;
        Ok(Client {
            http,
            runtime: Arc::new(runtime),
            endpoint,
            signer,
        })
    }

    /// The same client for another state of the listing.
    pub(super) fn shared(&self) -> Client {
        Client {
            http: self.http.clone(),
            runtime: Arc::clone(&self.runtime),
            endpoint: self.endpoint.clone(),
            signer: self.signer.clone(),
        }
    }

    /// Sends `call`, retrying 429, 500 and 503.
    pub(super) fn send(&self, call: &Call<'_>) -> Result<Answer, Failure> {
        let mut target = call.path.clone();
        for (index, (name, value)) in call.query.iter().enumerate() {
            target.push(if index == 0 { '?' } else { '&' });
            target.push_str(name);
            target.push('=');
            target.push_str(&escape::unreserved(value));
        }
        let url = reqwest::Url::parse(&format!("{}{target}", self.endpoint))
            .map_err(|error| Failure::Unreachable(format!("the endpoint is not a URL: {error}")))?;
        let method =
            reqwest::Method::from_bytes(call.method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let body = call.body.map(bytes::Bytes::copy_from_slice);
        self.runtime.block_on(async {
            let mut attempt = 1;
            loop {
                // Each attempt signs afresh: the date is signed, and OCI refuses one 5 minutes old.
                let date = httpdate::fmt_http_date(SystemTime::now());
                // Every body this client sends is a PutObject's, whose body headers the SDK does
                // not sign (OCI's "Special Instructions for Object Storage PUT").
                let signed = self.signer.sign_url(call.method, &url, &date, None);
                let mut request = self
                    .http
                    .request(method.clone(), url.clone())
                    .header("date", &date)
                    .header("authorization", signed.authorization.expose_str());
                for (name, value) in &call.headers {
                    request = request.header(*name, value);
                }
                if let Some(body) = &body {
                    request = request
                        .header("content-type", "application/json")
                        .body(body.clone());
                }
                let response = request.send().await.map_err(|error| {
                    Failure::Unreachable(statectl_net::http::error_text::problem(&error))
                })?;
                let status = response.status().as_u16();
                if !RETRIED.contains(&status) {
                    return read(response, call.max_body).await;
                }
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|value| value.to_str().ok())
                    .map(ToOwned::to_owned);
                if attempt >= ATTEMPTS {
                    let answer = read(response, call.max_body).await?;
                    return Err(Failure::GaveUp {
                        status,
                        code: super::errors::code(&answer),
                        attempts: attempt,
                    });
                }
                let pause = pause(retry_after.as_deref(), attempt, SystemTime::now());
                tracing::debug!(
                    status,
                    attempt,
                    ?pause,
                    "retrying an Object Storage request"
                );
                tokio::time::sleep(pause).await;
                attempt += 1;
            }
        })
    }
}

/// Reads the whole answer, up to `max_body` bytes.
async fn read(response: reqwest::Response, max_body: u64) -> Result<Answer, Failure> {
    match body::read_whole(response, max_body).await {
        Ok((status, headers, body)) => Ok(Answer {
            status,
            headers,
            body,
        }),
        Err(BodyError::TooLarge { limit }) if limit >= 1 << 30 => Err(Failure::BodyBroken(
            format!("it is larger than {} GiB", limit >> 30),
        )),
        Err(BodyError::TooLarge { limit }) => Err(Failure::BodyBroken(format!(
            "it is larger than {} KiB",
            limit >> 10
        ))),
        Err(BodyError::Broken(error)) => Err(Failure::BodyBroken(
            statectl_net::http::error_text::problem(&error),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names_are_escaped_whole_as_the_sdk_escapes_path_parameters() {
        assert_eq!(
            object_path("ns", "b", "tf-state-env/dev/app state.tfstate"),
            "/n/ns/b/b/o/tf-state-env%2Fdev%2Fapp%20state.tfstate"
        );
    }

    #[test]
    fn a_retry_after_in_seconds_or_as_a_date_is_honoured_up_to_the_cap() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let seconds = Duration::from_secs;
        for (retry_after, attempt, expected) in [
            (Some("3"), 1, seconds(3)),
            (Some(" 2 "), 4, seconds(2)),
            (Some("Sun, 06 Nov 1994 08:49:42 GMT"), 1, seconds(5)),
            // A date already past: at once.
            (Some("Sun, 06 Nov 1994 08:49:00 GMT"), 3, Duration::ZERO),
            (Some("86400"), 1, MAX_PAUSE),
            (Some("Mon, 07 Nov 1994 08:49:37 GMT"), 1, MAX_PAUSE),
            // Unreadable or absent: the doubling pause.
            (Some("soon"), 1, Duration::from_millis(500)),
            (Some("-1"), 2, seconds(1)),
            (None, 3, seconds(2)),
            (None, 5, seconds(8)),
            (None, u32::MAX, MAX_PAUSE),
        ] {
            assert_eq!(
                pause(retry_after, attempt, now),
                expected,
                "{retry_after:?} after attempt {attempt}"
            );
        }
    }
}
