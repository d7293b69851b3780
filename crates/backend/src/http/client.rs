//! One request to the backend as Terraform's http client makes it (basic auth when a username is
//! set; with a body, `Content-Type: application/json` and its `Content-MD5`), retried as
//! go-retryablehttp retries it, and bounded where Terraform is not: a connect and a read timeout, a
//! cap on the answer's size, and no redirect to another host (it would take the credentials along).

use statectl_net::http::error_text::problem;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use md5::Digest as _;
use reqwest::redirect;
use statectl_net::http::body::{self, BodyError};
use statectl_net::http::client::{self, Timeouts};
use url::Url;

use super::retry;
use super::settings::{Retry, Settings, Tls};
use crate::client_error::ClientError;
use crate::runtime::Runtime;

/// The largest answer read: states of hundreds of megabytes exist; an endless body does not stop.
pub(super) const MAX_BODY: u64 = 1 << 30;
/// An answer that is not a success carries no state, only words for people: a lock's holder (a
/// 423's lock info, itself at most `lock_info::MAX_LOCK_INFO`) or an error. A server that sends
/// hundreds of megabytes there is cut off here.
const MAX_ERROR_BODY: usize = 64 << 10;
/// Go's transport gives a connection 30 s; a backend on the network answers far sooner or not at all.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest silence while a request is sent or its answer read.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest one attempt may take, body included: a 1 GiB state at 2 MB/s. Terraform has no limit;
/// a server that stops reading an upload would hold statectl (and its lock) forever.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(900);
/// As many redirects as Go's client follows.
const MAX_REDIRECTS: usize = 10;

/// The HTTP client of one backend.
#[derive(Debug)]
pub(super) struct Client {
    http: reqwest::Client,
    runtime: Runtime,
    username: String,
    password: String,
    retry: Retry,
}

/// A final answer: a status that is not retried, or the last retried one's.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: reqwest::StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

/// Why there is no answer to use.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// Every attempt was answered with a status that is retried (5xx, 429); this was the last one.
    GaveUp {
        status: reqwest::StatusCode,
        attempts: u32,
    },
    /// The last attempt got no answer (refused, reset, timed out, TLS refused).
    Unreachable { problem: String, attempts: u32 },
    /// The answer's body did not arrive whole.
    BodyBroken(String),
    /// The answer is larger than [`MAX_BODY`].
    TooLarge,
}

impl Client {
    /// The client for `settings`; the error is what is wrong with the TLS arguments.
    pub(super) fn new(settings: &Settings) -> Result<Client, ClientError> {
        let runtime = Runtime::new().map_err(ClientError::Runtime)?;
        let builder = client::builder(Timeouts {
            connect: Some(CONNECT_TIMEOUT),
            read: Some(READ_TIMEOUT),
            attempt: Some(ATTEMPT_TIMEOUT),
        })
        .redirect(redirect::Policy::custom(same_host_only));
        let http = with_tls(builder, &settings.tls)?
            .build()
            .map_err(ClientError::Tls)?;
        Ok(Client {
            http,
            runtime,
            username: settings.username.clone(),
            password: settings.password.clone(),
            retry: settings.retry,
        })
    }

    /// Sends `method` to `url` with `body`, retrying as go-retryablehttp does.
    pub(super) fn exchange(
        &self,
        method: &str,
        url: &Url,
        body: Option<&[u8]>,
    ) -> Result<Answer, Failure> {
        // Checked when the settings were read.
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let body = body.map(|body| {
            let digest = md5::Md5::digest(body);
            (
                bytes::Bytes::copy_from_slice(body),
                base64::engine::general_purpose::STANDARD.encode(digest),
            )
        });
        self.runtime.block_on(async {
            let mut attempt = 0;
            loop {
                let mut request = self.http.request(method.clone(), url.clone());
                if !self.username.is_empty() {
                    request = request.basic_auth(&self.username, Some(&self.password));
                }
                if let Some((bytes, md5)) = &body {
                    request = request
                        .header(reqwest::header::CONTENT_TYPE, "application/json")
                        .header("Content-MD5", md5)
                        .body(bytes.clone());
                }
                let last = attempt >= self.retry.max;
                let (status, retry_after) = match request.send().await {
                    Ok(response) if retry::retries_status(response.status().as_u16()) => {
                        let status = response.status();
                        if last {
                            return Err(Failure::GaveUp {
                                status,
                                attempts: attempt + 1,
                            });
                        }
                        let retry_after = response
                            .headers()
                            .get(reqwest::header::RETRY_AFTER)
                            .and_then(|value| value.to_str().ok())
                            .map(str::to_owned);
                        (Some(status.as_u16()), retry_after)
                    }
                    Ok(response) => return read(response).await,
                    Err(error) => {
                        if last || !worth_retrying(&error) {
                            return Err(Failure::Unreachable {
                                problem: problem(&error),
                                attempts: attempt + 1,
                            });
                        }
                        (None, None)
                    }
                };
                let pause = retry::pause(
                    &self.retry,
                    attempt,
                    status,
                    retry_after.as_deref(),
                    SystemTime::now(),
                );
                tracing::debug!(%method, attempt, ?status, ?pause, "retrying the http backend");
                tokio::time::sleep(pause).await;
                attempt += 1;
            }
        })
    }
}

/// Reads the whole answer, up to [`MAX_BODY`]; of an answer that is not a success, only the first
/// [`MAX_ERROR_BODY`] bytes.
async fn read(mut response: reqwest::Response) -> Result<Answer, Failure> {
    let status = response.status();
    let headers = std::mem::take(response.headers_mut());
    let body = if status.is_success() {
        body::read_capped(&mut response, MAX_BODY).await
    } else {
        body::read_head(&mut response, MAX_ERROR_BODY).await
    };
    match body {
        Ok(body) => Ok(Answer {
            status,
            headers,
            body,
        }),
        Err(BodyError::TooLarge { .. }) => Err(Failure::TooLarge),
        Err(BodyError::Broken(error)) => Err(Failure::BodyBroken(problem(&error))),
    }
}

/// The TLS arguments as Terraform applies them: no verification at all, only the given CA (not
/// the system's roots, as Go's `RootCAs` replaces them), a client certificate.
fn with_tls(
    mut builder: reqwest::ClientBuilder,
    tls: &Tls,
) -> Result<reqwest::ClientBuilder, ClientError> {
    if tls.skip_verification {
        builder = builder.tls_danger_accept_invalid_certs(true);
    }
    if let Some(pem) = &tls.ca_certificate_pem {
        let certificates = reqwest::Certificate::from_pem_bundle(pem.as_bytes())
            .ok()
            .filter(|certificates| !certificates.is_empty())
            .ok_or(ClientError::NoCaCertificate)?;
        builder = builder.tls_certs_only(certificates);
    }
    if let (Some(certificate), Some(key)) =
        (&tls.client_certificate_pem, &tls.client_private_key_pem)
    {
        let identity = reqwest::Identity::from_pem(format!("{certificate}\n{key}").as_bytes())
            .map_err(ClientError::ClientCertificate)?;
        builder = builder.identity(identity);
    }
    Ok(builder)
}

/// Follows a redirect only on the same host, never from https to http: a redirect elsewhere would
/// carry the credentials to a server the user did not name.
fn same_host_only(attempt: redirect::Attempt<'_>) -> redirect::Action {
    if attempt.previous().len() > MAX_REDIRECTS {
        return attempt.error("stopped after 10 redirects");
    }
    let Some(first) = attempt.previous().first() else {
        return attempt.follow();
    };
    let next = attempt.url();
    let downgrade = first.scheme() == "https" && next.scheme() == "http";
    if next.host_str() == first.host_str() && !downgrade {
        attempt.follow()
    } else {
        attempt.stop()
    }
}

/// go-retryablehttp retries every failed request but those a retry cannot mend: too many
/// redirects, and a certificate the client does not trust (or a server that wants one).
fn worth_retrying(error: &reqwest::Error) -> bool {
    !(error.is_redirect()
        || error.is_builder()
        || statectl_net::http::error_text::chain(error)
            .to_ascii_lowercase()
            .contains("certificate"))
}
