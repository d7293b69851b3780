//! The HTTP side of HCP Terraform's API as go-tfe speaks it for Terraform: service discovery
//! (`https://<host>/.well-known/terraform.json`, service `tfe.v2`), the bearer token on every API
//! request (and never elsewhere), JSON:API bodies, and go-tfe's retries: a 429 is retried after the
//! server's `X-RateLimit-Reset` (or `Retry-After`), a 5xx after a pause growing by 0.8 s a time,
//! up to 30 retries. Redirects are followed with the token only on the same host (as Go's client
//! does), never from https to http. Unlike go-tfe, statectl bounds the whole: at most 20 s of
//! pauses, two retries for a connection that fails, a connect and a read timeout.

pub(super) use statectl_net::http::status_text;
use std::time::Duration;

use reqwest::redirect;
use statectl_net::http::body::{self, BodyError};
use statectl_net::http::client::{self, Timeouts};
use url::Url;

use crate::client_error::ClientError;
use crate::runtime::Runtime;

/// go-tfe's `RetryMax`.
const MAX_RETRIES: u32 = 30;
/// The most statectl pauses in all before it gives up on one request.
const PAUSE_BUDGET: Duration = Duration::from_secs(20);
/// Retries for a request that got no answer at all (go-tfe retries those 30 times: a server that
/// is down stays down).
const MAX_NETWORK_RETRIES: u32 = 2;
/// go-tfe's rate-limit pause when the server names none, and its 5xx step (700 to 900 ms).
const MIN_RATE_PAUSE: Duration = Duration::from_millis(100);
const SERVER_ERROR_STEP: Duration = Duration::from_millis(800);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest silence while a request is sent or its answer read.
const READ_TIMEOUT: Duration = Duration::from_secs(20);
/// One attempt, body included (a large state at a slow link).
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(900);
/// The largest answer read.
pub(super) const MAX_BODY: u64 = 1 << 30;

/// A final answer.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Answer {
    /// The body as JSON (`Null` when it is not JSON).
    pub(super) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// The JSON:API errors' titles and details, one line.
    pub(super) fn errors(&self) -> String {
        let json = self.json();
        let mut parts = Vec::new();
        for error in json
            .get("errors")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            for key in ["title", "detail"] {
                if let Some(text) = error.get(key).and_then(serde_json::Value::as_str)
                    && !text.is_empty()
                    && !parts.iter().any(|part: &String| part == text)
                {
                    parts.push(text.replace('\n', " "));
                }
            }
        }
        parts.join(": ")
    }
}

/// Why there is no answer to use.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// Every attempt was answered 429 or 5xx; this was the last one.
    GaveUp { status: u16, attempts: u32 },
    /// The last attempt got no answer.
    Unreachable { problem: String, attempts: u32 },
    /// The answer's body did not arrive whole, or is larger than [`MAX_BODY`].
    Broken(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::GaveUp { status, attempts } => write!(
                formatter,
                "the server answered {} ({})",
                status_text(*status),
                tries(*attempts)
            ),
            Failure::Unreachable { problem, attempts } => {
                write!(formatter, "no answer: {problem} ({})", tries(*attempts))
            }
            Failure::Broken(problem) => write!(formatter, "the answer broke off: {problem}"),
        }
    }
}

fn tries(attempts: u32) -> String {
    if attempts == 1 {
        "1 attempt".to_owned()
    } else {
        format!("{attempts} attempts")
    }
}

/// One request to send.
#[derive(Debug)]
pub(super) struct Call<'a> {
    pub method: reqwest::Method,
    pub url: &'a Url,
    /// The body and its content type.
    pub body: Option<(bytes::Bytes, &'static str)>,
    pub accept: &'static str,
    /// Whether the token goes along.
    pub authorized: bool,
}

/// The API client of one host.
pub(super) struct Client {
    http: reqwest::Client,
    runtime: Runtime,
    token: String,
}

crate::debug::shown_in_debug!(Client: );

impl Client {
    /// A client that sends `token`; the error says what is wrong with the TLS set-up.
    pub(super) fn new(token: String) -> Result<Client, ClientError> {
        let runtime = Runtime::new().map_err(ClientError::Runtime)?;
        let mut builder = client::builder(Timeouts {
            connect: Some(CONNECT_TIMEOUT),
            read: Some(READ_TIMEOUT),
            attempt: Some(ATTEMPT_TIMEOUT),
        })
        .redirect(redirect::Policy::custom(no_downgrade));
        // Go on Linux takes SSL_CERT_FILE as the only roots: Terraform trusts what it names.
        if let Some(path) = crate::config::env("SSL_CERT_FILE") {
            let pem = std::fs::read(&path).map_err(|source| ClientError::CertFileUnreadable {
                path: path.clone(),
                source,
            })?;
            let roots = reqwest::Certificate::from_pem_bundle(&pem)
                .ok()
                .filter(|roots| !roots.is_empty())
                .ok_or(ClientError::CertFileEmpty { path })?;
            builder = builder.tls_certs_only(roots);
        }
        let http = builder.build().map_err(ClientError::Tls)?;
        Ok(Client {
            http,
            runtime,
            token,
        })
    }

    /// Sends `call`, retried as go-tfe retries it.
    pub(super) fn send(&self, call: &Call<'_>) -> Result<Answer, Failure> {
        self.send_capped(call, MAX_BODY)
    }

    /// Sends `call`, retried as go-tfe retries it, reading at most `limit` bytes of the answer.
    pub(super) fn send_capped(&self, call: &Call<'_>, limit: u64) -> Result<Answer, Failure> {
        self.runtime.block_on(async {
            let mut attempt: u32 = 0;
            let mut paused = Duration::ZERO;
            loop {
                let mut request = self
                    .http
                    .request(call.method.clone(), call.url.clone())
                    .header(reqwest::header::ACCEPT, call.accept);
                if call.authorized {
                    request = request.bearer_auth(&self.token);
                }
                if let Some((body, kind)) = &call.body {
                    request = request
                        .header(reqwest::header::CONTENT_TYPE, *kind)
                        .body(body.clone());
                }
                let pause = match request.send().await {
                    Ok(response) if retried(response.status().as_u16()) => {
                        let status = response.status().as_u16();
                        let pause = pause_for(status, response.headers(), attempt);
                        if attempt >= MAX_RETRIES || paused.saturating_add(pause) > PAUSE_BUDGET {
                            return Err(Failure::GaveUp {
                                status,
                                attempts: attempt + 1,
                            });
                        }
                        pause
                    }
                    Ok(response) => return read(response, limit).await,
                    Err(error) => {
                        // A timeout is not retried: the silence would only repeat.
                        if attempt >= MAX_NETWORK_RETRIES
                            || error.is_timeout()
                            || error.is_redirect()
                            || statectl_net::http::error_text::chain(&error).to_ascii_lowercase().contains("certificate")
                        {
                            return Err(Failure::Unreachable {
                                problem: problem(&error),
                                attempts: attempt + 1,
                            });
                        }
                        SERVER_ERROR_STEP.saturating_mul(attempt.saturating_add(1))
                    }
                };
                tracing::debug!(url = %call.url.path(), attempt, ?pause, "retrying the HCP Terraform API");
                tokio::time::sleep(pause).await;
                paused = paused.saturating_add(pause);
                attempt += 1;
            }
        })
    }
}

/// go-tfe retries 429 always and every 5xx once the backend is configured.
fn retried(status: u16) -> bool {
    status == 429 || status >= 500
}

/// The pause before the retry after attempt `attempt`: for a 429, the seconds `X-RateLimit-Reset`
/// (else `Retry-After`) names, at least 100 ms; for a 5xx, 0.8 s more each time.
fn pause_for(status: u16, headers: &reqwest::header::HeaderMap, attempt: u32) -> Duration {
    if status != 429 {
        return SERVER_ERROR_STEP.saturating_mul(attempt.saturating_add(1));
    }
    let seconds = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.trim().parse::<f64>().ok())
            .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
    };
    seconds("x-ratelimit-reset")
        .or_else(|| seconds("retry-after"))
        .map_or(MIN_RATE_PAUSE, |seconds| {
            Duration::from_secs_f64(seconds.min(3600.0)).max(MIN_RATE_PAUSE)
        })
}

/// Reads the whole answer, up to `limit` bytes.
async fn read(mut response: reqwest::Response, limit: u64) -> Result<Answer, Failure> {
    let status = response.status().as_u16();
    match body::read_capped(&mut response, limit).await {
        Ok(body) => Ok(Answer { status, body }),
        Err(BodyError::TooLarge { limit }) if limit >= 1 << 30 => {
            Err(Failure::Broken(format!("larger than {} GiB", limit >> 30)))
        }
        Err(BodyError::TooLarge { limit }) => {
            Err(Failure::Broken(format!("larger than {} MiB", limit >> 20)))
        }
        Err(BodyError::Broken(error)) => Err(Failure::Broken(problem(&error))),
    }
}

/// Follows redirects as Go's client does for Terraform, up to 10, but never from https to http;
/// reqwest, as Go, drops the token when a redirect leaves the host (or port, or scheme).
fn no_downgrade(attempt: redirect::Attempt<'_>) -> redirect::Action {
    if attempt.previous().len() >= 10 {
        return attempt.error("stopped after 10 redirects");
    }
    let downgrade = attempt
        .previous()
        .last()
        .is_some_and(|last| last.scheme() == "https" && attempt.url().scheme() == "http");
    if downgrade {
        attempt.stop()
    } else {
        attempt.follow()
    }
}

/// What went wrong, from the innermost cause, without the URL; a timeout names the limit.
fn problem(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("no answer in {} s (timed out)", READ_TIMEOUT.as_secs());
    }
    statectl_net::http::error_text::problem(error)
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderMap, HeaderValue};

    use super::*;

    #[test]
    fn rate_limits_wait_as_the_server_says_and_server_errors_a_growing_pause() {
        let mut headers = HeaderMap::new();
        assert_eq!(pause_for(429, &headers, 0), MIN_RATE_PAUSE);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(pause_for(429, &headers, 3), Duration::from_secs(2));
        headers.insert("x-ratelimit-reset", HeaderValue::from_static("0.5"));
        assert_eq!(pause_for(429, &headers, 0), Duration::from_millis(500));
        assert_eq!(pause_for(503, &headers, 0), Duration::from_millis(800));
        assert_eq!(pause_for(500, &headers, 2), Duration::from_millis(2400));
        assert!(retried(429) && retried(500) && retried(503));
        assert!(!retried(404) && !retried(409) && !retried(401));
        // Absurd values are capped at an hour or ignored, never a panic.
        for value in [
            "18446744073709551615",
            "1e400",
            "inf",
            "-1",
            "NaN",
            "1e-400",
        ] {
            let mut headers = HeaderMap::new();
            headers.insert("retry-after", HeaderValue::from_static(value));
            let pause = pause_for(429, &headers, u32::MAX - 1);
            assert!(
                pause >= MIN_RATE_PAUSE && pause <= Duration::from_secs(3600),
                "{value}"
            );
        }
    }

    #[test]
    fn api_errors_read_as_one_line() {
        let answer = Answer {
            status: 409,
            body: br#"{"errors":[{"status":"409","title":"conflict","detail":"Unable to unlock workspace.\nIt is locked by Run"}]}"#.to_vec(),
        };
        assert_eq!(
            answer.errors(),
            "conflict: Unable to unlock workspace. It is locked by Run"
        );
        assert_eq!(status_text(429), "429 Too Many Requests");
        let one = Failure::GaveUp {
            status: 429,
            attempts: 1,
        };
        assert_eq!(
            one.to_string(),
            "the server answered 429 Too Many Requests (1 attempt)"
        );
    }
}
