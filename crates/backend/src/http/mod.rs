//! The `http` backend (GitLab's managed state speaks it), as Terraform's
//! `internal/backend/remote-state/http` does it: GET reads (204 and 404 mean no state), the update
//! method writes (with `?ID=<lock id>` while locked), LOCK and UNLOCK carry the lock info, and a
//! 409 or 423 answer to LOCK names the holder. Only the `default` workspace exists.
//!
//! `settings` reads the arguments and `TF_HTTP_*` variables, `address` shapes the URLs, `client`
//! makes one request (retried by the rules in `retry`); this module reads the answers.

mod address;
pub(crate) mod client;
mod retry;
mod settings;

use statectl_net::http::status_text;
use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState, StoreError};
use url::Url;

use self::client::{Answer, Client, Failure};
use self::settings::Settings;
use crate::config::{self, BackendConfig};

/// A state behind an HTTP backend.
pub struct HttpState {
    settings: Settings,
    client: Client,
    location: String,
}

crate::debug::shown_in_debug!(HttpState: location);

impl HttpState {
    /// The backend `config` describes, with the `TF_HTTP_*` variables of this process.
    pub fn open(config: &BackendConfig) -> Result<HttpState, StoreError> {
        if config.workspace != "default" {
            return Err(StoreError::new(format!(
                "{}: backend \"http\" has only the `default` workspace, not `{}`",
                config.origin, config.workspace
            ))
            .with_hint("select `default` (`--workspace default`, or unset TF_WORKSPACE); Terraform says \"workspaces not supported\" here too"));
        }
        let settings = Settings::read(config, &config::env)?;
        settings.register_basic();
        let location = address::redacted(&settings.address);
        let client = Client::new(&settings).map_err(|problem| config.error(problem))?;
        Ok(HttpState {
            settings,
            client,
            location,
        })
    }

    /// `METHOD` for the state's own address, `METHOD URL` for another (the lock's).
    fn request_name(&self, method: &str, url: &Url) -> String {
        if *url == self.settings.address {
            method.to_owned()
        } else {
            format!("{method} {}", address::redacted(url))
        }
    }

    /// Sends `method` with `body` to `url` (the lock's or unlock's address), and names the request
    /// as its messages do.
    fn named_exchange(
        &self,
        doing: &str,
        method: &str,
        url: &Url,
        body: &[u8],
    ) -> Result<(String, Answer), StoreError> {
        let request = self.request_name(method, url);
        let answer = self
            .client
            .exchange(method, url, Some(body))
            .map_err(|failure| self.failed(doing, &request, failure))?;
        Ok((request, answer))
    }

    /// The error for a request that got no usable answer.
    fn failed(&self, doing: &str, request: &str, failure: Failure) -> StoreError {
        let location = &self.location;
        match failure {
            Failure::GaveUp { status, attempts } => StoreError::new(format!(
                "{location}: cannot {doing}: {request} answered {} ({})",
                status_text(status.as_u16()),
                tries(attempts)
            ))
            .with_hint("the server is failing; try again later (`retry_max`, `retry_wait_min` and `retry_wait_max` set how long statectl insists)"),
            Failure::Unreachable { problem, attempts } => {
                let hint = if problem.contains("CertificateRequired") {
                    "the server asks for a client certificate: set `client_certificate_pem` and `client_private_key_pem` (or TF_HTTP_CLIENT_CERTIFICATE_PEM and TF_HTTP_CLIENT_PRIVATE_KEY_PEM)"
                } else if problem.contains("certificate") {
                    "the server's certificate is not trusted: give its CA in `client_ca_certificate_pem` (or TF_HTTP_CLIENT_CA_CERTIFICATE_PEM), or set `skip_cert_verification = true`"
                } else {
                    "check the backend's address and that its server is up"
                };
                StoreError::new(format!(
                    "{location}: cannot {doing}: {request} got no answer: {problem} ({})",
                    tries(attempts)
                ))
                .with_hint(hint)
            }
            Failure::BodyBroken(problem) => StoreError::new(format!(
                "{location}: cannot {doing}: the answer to {request} broke off: {problem}"
            )),
            Failure::TooLarge => StoreError::new(format!(
                "{location}: cannot {doing}: the answer to {request} is larger than {} GiB; statectl stops there",
                client::MAX_BODY >> 30
            )),
        }
    }

    /// The error for an answer whose status the request does not take.
    fn refused(&self, doing: &str, request: &str, answer: &Answer) -> StoreError {
        let location = &self.location;
        let status = answer.status;
        let base = format!(
            "{location}: cannot {doing}: {request} answered {}",
            status_text(status.as_u16())
        );
        match status.as_u16() {
            401 => StoreError::new(format!("{base}: the server asks for credentials")).with_hint(
                "set `username` and `password` (or TF_HTTP_USERNAME and TF_HTTP_PASSWORD); GitLab takes an access token as the password",
            ),
            403 => StoreError::new(format!("{base}: the server refused the credentials")).with_hint(
                "check `username` and `password` (or TF_HTTP_USERNAME and TF_HTTP_PASSWORD) and their rights on this state",
            ),
            300..=399 => {
                let target = answer
                    .headers
                    .get(reqwest::header::LOCATION)
                    .and_then(|value| value.to_str().ok())
                    .and_then(|to| self.settings.address.join(to).ok())
                    .map_or_else(|| "elsewhere".to_owned(), |to| address::redacted(&to));
                StoreError::new(format!(
                    "{base}, a redirect to {target}, which statectl does not follow to another host"
                ))
                .with_hint("point the backend's address at the final URL")
            }
            _ => StoreError::new(base),
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

impl RemoteState for HttpState {
    fn location(&self) -> String {
        self.location.clone()
    }

    /// The http backend has one state per `address`, and no workspaces.
    fn missing_state_hint(&self) -> &'static str {
        "the server answered that it holds no state at this `address` yet; check the address (the http backend has no workspaces)"
    }

    fn backup_name(&self) -> String {
        address::backup_name(&self.settings.address)
    }

    /// Terraform's http backend leaves the lock info's `Path` empty.
    fn lock_path(&self) -> String {
        String::new()
    }

    fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let doing = "read the state";
        let address = &self.settings.address;
        let answer = self
            .client
            .exchange("GET", address, None)
            .map_err(|failure| self.failed(doing, "GET", failure))?;
        match answer.status.as_u16() {
            200 => {}
            204 | 404 => return Ok(None),
            _ => return Err(self.refused(doing, "GET", &answer)),
        }
        if answer.body.is_empty() {
            return Ok(None);
        }
        // Terraform refuses a Content-MD5 it cannot decode (and does not compare a readable one).
        if let Some(md5) = answer.headers.get("content-md5") {
            use base64::Engine as _;
            let readable = md5.to_str().ok().is_some_and(|text| {
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .is_ok()
            });
            if !readable {
                return Err(StoreError::new(format!(
                    "{}: cannot read the state: the answer's Content-MD5 header is not base64, which Terraform refuses too",
                    self.location
                )));
            }
        }
        Ok(Some(answer.body))
    }

    fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
        // Without a lock address Terraform takes no lock: the state is written unlocked.
        let Some(lock_address) = &self.settings.lock_address else {
            return Ok(());
        };
        let doing = "lock the state";
        let method = &self.settings.lock_method;
        let (request, answer) = self
            .named_exchange(doing, method, lock_address, info.to_json().as_bytes())
            .map_err(LockRefused::Failed)?;
        match answer.status.as_u16() {
            200 => Ok(()),
            409 | 423 => match LockInfo::parse(&answer.body) {
                // A retried LOCK whose first attempt was taken but unanswered meets its own lock.
                Some(holder) if holder.id == info.id => Ok(()),
                Some(holder) if !holder.id.is_empty() => {
                    Err(LockRefused::Held(Some(Box::new(holder))))
                }
                // Held, by someone the answer does not name: waiting may still help.
                _ => Err(LockRefused::Held(None)),
            },
            404 | 405 => Err(LockRefused::Failed(
                self.refused(doing, &request, &answer).with_hint(
                    "check `lock_address` and `lock_method` (GitLab takes `lock_method = \"POST\"` and `unlock_method = \"DELETE\"`)",
                ),
            )),
            _ => Err(LockRefused::Failed(self.refused(doing, &request, &answer))),
        }
    }

    fn put(&self, bytes: &[u8], lock: &LockInfo) -> Result<(), StoreError> {
        let doing = "write the state";
        let method = &self.settings.update_method;
        // Terraform adds the lock ID only when it took a lock, which needs a lock address.
        let target = if self.settings.lock_address.is_some() {
            address::with_lock_id(&self.settings.address, &lock.id)
        } else {
            self.settings.address.clone()
        };
        let answer = self
            .client
            .exchange(method, &target, Some(bytes))
            .map_err(|failure| self.failed(doing, method, failure))?;
        match answer.status.as_u16() {
            200 | 201 | 204 => Ok(()),
            409 | 423 => {
                let holder = LockInfo::parse(&answer.body)
                    .filter(|holder| !holder.id.is_empty())
                    .map_or_else(String::new, |holder| format!(" ({holder})"));
                Err(StoreError::new(format!(
                    "{}: cannot write the state: {method} answered {}: the server says another lock holds the state{holder}",
                    self.location,
                    status_text(answer.status.as_u16())
                )))
            }
            _ => Err(self.refused(doing, method, &answer)),
        }
    }

    fn unlock(&self, lock: &LockInfo) -> Result<(), StoreError> {
        let Some(unlock_address) = &self.settings.unlock_address else {
            return Ok(());
        };
        let doing = "unlock the state";
        let method = &self.settings.unlock_method;
        // Terraform sends the lock info it locked with; without a lock address it locked nothing
        // and sends an empty body.
        let body = if self.settings.lock_address.is_some() {
            lock.to_json().into_bytes()
        } else {
            Vec::new()
        };
        let (request, answer) = self.named_exchange(doing, method, unlock_address, &body)?;
        match answer.status.as_u16() {
            200 => Ok(()),
            _ => Err(self.refused(doing, &request, &answer)),
        }
    }
}
