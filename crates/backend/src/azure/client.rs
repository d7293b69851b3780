//! One request to the Blob service: its URL (the container and the blob's path under the service
//! base), the pinned `x-ms-version`, the credential applied (Shared Key signature, SAS query, or an
//! Azure AD bearer token fetched once), retried a bounded number of times on a lost connection, a
//! 5xx or a 429, with short connect and silence timeouts so that an endpoint down or silent ends
//! soon.

pub(super) use statectl_net::http::error_text::problem;
use std::time::{Duration, Instant};

use reqwest::header::HeaderMap;
use statectl_net::Secret;
use statectl_net::http::body::{self, BodyError};
use statectl_net::http::client::{self, Timeouts};
use statectl_state::duration::Deadline;
use tokio::sync::Mutex as AsyncMutex;
use url::Url;

use super::credential_error::CredentialError;
use super::credentials;
use super::settings::{Credential, STORAGE_RESOURCE, Settings};
use super::shared_key;
use crate::client_error::ClientError;
use crate::runtime::Runtime;

/// The Blob service version Terraform's client (giovanni `2023-11-03`) speaks.
pub(super) const VERSION: &str = "2023-11-03";
/// Attempts per request, the first included.
const MAX_ATTEMPTS: u32 = 3;
/// A connection not made within this is given up (a blackholed endpoint).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// An answer that stops for this long is given up: a silent endpoint fails after 3 × 5 s. The limit
/// is on silence, not on the whole transfer, so a large state still downloads.
const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// The pause before a retry, doubled each time.
const FIRST_PAUSE: Duration = Duration::from_millis(200);
/// The largest answer read.
const MAX_BODY: u64 = 1 << 30;
/// An Azure AD token is renewed this long before it expires.
const MARGIN: Duration = Duration::from_secs(60);
/// The longest a token is kept, whatever lifetime an endpoint claims for it.
const LONGEST_KEPT: Duration = Duration::from_secs(24 * 3600);

/// A request, before the credential.
#[derive(Debug, Default)]
pub(super) struct Request<'a> {
    pub method: &'static str,
    /// The container's path; the blob's name under it, when the request is about a blob.
    pub blob: Option<&'a str>,
    pub query: Vec<(&'static str, String)>,
    /// Headers in lower case, beyond the version and date.
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// An answer of any status.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    /// `x-ms-error-code`, which every Blob error carries.
    pub(super) fn code(&self) -> &str {
        self.header("x-ms-error-code").unwrap_or("")
    }

    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

/// Why there is no answer.
#[derive(Debug)]
pub(super) enum Failure {
    /// No answer from the Blob service after every attempt: what went wrong last.
    Unreachable(String),
    /// The credential could not be had (an Azure AD token, the listed key): why.
    Credential(CredentialError),
    /// The answer is larger than statectl reads.
    TooLarge,
}

/// The HTTP client of one backend and the credential it signs with.
pub(super) struct Client {
    http: reqwest::Client,
    pub(super) runtime: Runtime,
    account: String,
    container: String,
    service: Url,
    credential: Credential,
    cloud: super::settings::Cloud,
    /// A bearer token and when it expires (when its endpoint said), or the listed key
    /// (base64-decoded), once fetched.
    secret: AsyncMutex<Option<(Secret, Option<Deadline>)>>,
}

crate::debug::shown_in_debug!(Client: service.as_str(), credential);

impl Client {
    pub(super) fn new(settings: &Settings) -> Result<Client, ClientError> {
        let runtime = Runtime::new().map_err(ClientError::Runtime)?;
        // No redirect followed: it would carry the signature or token elsewhere; Azure Storage
        // sends none.
        let http = client::builder(Timeouts {
            connect: Some(CONNECT_TIMEOUT),
            read: Some(READ_TIMEOUT),
            attempt: None,
        })
        .build()
        .map_err(ClientError::SetUp)?;
        Ok(Client {
            http,
            runtime,
            account: settings.account.clone(),
            container: settings.container.clone(),
            service: settings.service.clone(),
            credential: settings.credential.clone(),
            cloud: settings.cloud.clone(),
            secret: AsyncMutex::new(None),
        })
    }

    /// The Blob service's base, for messages (never with a SAS token).
    pub(super) fn service(&self) -> &Url {
        &self.service
    }

    /// The URL of the container, or of `blob` in it.
    fn url(&self, blob: Option<&str>) -> Url {
        let mut url = self.service.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().push(&self.container);
            if let Some(blob) = blob {
                segments.extend(blob.split('/'));
            }
        }
        url
    }

    /// Sends `request` and reads the answer, retrying as described above.
    pub(super) async fn send(&self, request: Request<'_>) -> Result<Answer, Failure> {
        let mut url = self.url(request.blob);
        {
            let mut pairs = url.query_pairs_mut();
            for (name, value) in &request.query {
                pairs.append_pair(name, value);
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        let method =
            reqwest::Method::from_bytes(request.method.as_bytes()).unwrap_or(reqwest::Method::GET);
        // Azure wants a length on every PUT, an empty one included.
        let body = match (&request.body, request.method) {
            (Some(body), _) => Some(body.clone()),
            (None, "PUT") => Some(Vec::new()),
            (None, _) => None,
        };
        let mut pause = FIRST_PAUSE;
        let mut attempt = 1;
        loop {
            let outcome = self
                .attempt(&method, &url, &request.headers, body.as_ref())
                .await;
            let retry = match &outcome {
                Ok(answer) => matches!(answer.status, 500..=599 | 429),
                Err(Failure::Unreachable(_)) => true,
                Err(_) => false,
            };
            if !retry || attempt >= MAX_ATTEMPTS {
                return outcome;
            }
            tracing::debug!(%method, attempt, "retrying the Blob service");
            tokio::time::sleep(pause).await;
            pause *= 2;
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        method: &reqwest::Method,
        url: &Url,
        extra: &[(String, String)],
        body: Option<&Vec<u8>>,
    ) -> Result<Answer, Failure> {
        let mut url = url.clone();
        let mut headers: Vec<(String, String)> = vec![
            ("x-ms-version".to_owned(), VERSION.to_owned()),
            (
                "x-ms-date".to_owned(),
                httpdate::fmt_http_date(std::time::SystemTime::now()),
            ),
        ];
        headers.extend(extra.iter().cloned());
        if let Some(body) = body {
            headers.push(("content-length".to_owned(), body.len().to_string()));
        }
        match &self.credential {
            Credential::SharedKey(key) => {
                let auth =
                    shared_key::authorization(&self.account, key, method.as_str(), &url, &headers);
                headers.push(("authorization".to_owned(), auth));
            }
            Credential::Sas(token) => {
                let query = match url.query() {
                    Some(query) if !query.is_empty() => format!("{query}&{token}"),
                    _ => token.clone(),
                };
                url.set_query(Some(&query));
            }
            Credential::AzureAd(_) => {
                let token = self.secret().await?;
                headers.push((
                    "authorization".to_owned(),
                    format!("Bearer {}", String::from_utf8_lossy(token.expose())),
                ));
            }
            Credential::LookedUpKey { .. } => {
                let key = self.secret().await?;
                let auth = shared_key::authorization(
                    &self.account,
                    key.expose(),
                    method.as_str(),
                    &url,
                    &headers,
                );
                headers.push(("authorization".to_owned(), auth));
            }
        }
        let mut builder = self.http.request(method.clone(), url);
        for (name, value) in &headers {
            // reqwest sets the length from a body, but sends none for an empty one, which the
            // service refuses on a PUT.
            if name != "content-length" || value == "0" {
                builder = builder.header(name.as_str(), value.as_str());
            }
        }
        if let Some(body) = body {
            builder = builder.body(body.clone());
        }
        let response = builder
            .send()
            .await
            .map_err(|error| Failure::Unreachable(problem(&error)))?;
        match body::read_whole(response, MAX_BODY).await {
            Ok((status, headers, body)) => Ok(Answer {
                status,
                headers,
                body,
            }),
            Err(BodyError::TooLarge { .. }) => Err(Failure::TooLarge),
            Err(BodyError::Broken(error)) => Err(Failure::Unreachable(problem(&error))),
        }
    }

    /// The bearer token or the listed key, fetched on first use and kept; a token that says when
    /// it expires is fetched again a minute before.
    async fn secret(&self) -> Result<Secret, Failure> {
        let mut secret = self.secret.lock().await;
        if let Some((secret, expires)) = &*secret
            && expires.is_none_or(|expires| !expires.earlier_by(MARGIN).has_passed(Instant::now()))
        {
            return Ok(secret.clone());
        }
        let fetched = match &self.credential {
            Credential::AzureAd(identity) => {
                credentials::token(&self.http, &self.cloud, identity, STORAGE_RESOURCE)
                    .await
                    .map(|token| (token.secret, token.lifetime.map(deadline)))
            }
            Credential::LookedUpKey {
                identity,
                subscription,
                resource_group,
            } => credentials::list_key(
                &self.http,
                &self.cloud,
                identity,
                subscription.as_deref(),
                resource_group,
                &self.account,
            )
            .await
            .map(|key| (Secret::key(key), None)),
            Credential::SharedKey(_) | Credential::Sas(_) => Ok((Secret::key(Vec::new()), None)),
        }
        .map_err(Failure::Credential)?;
        let token = fetched.0.clone();
        *secret = Some(fetched);
        Ok(token)
    }
}

/// When a token that lasts `lifetime` expires: a day from now at most, so that an absurd
/// `expires_in` neither overflows nor keeps a token forever.
fn deadline(lifetime: Duration) -> Deadline {
    Deadline::after(lifetime.min(LONGEST_KEPT))
}
