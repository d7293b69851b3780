//! The `oci` backend (Terraform 1.12+), as `internal/backend/remote-state/oci` keeps a state in OCI
//! Object Storage: the state object (`key`, or `<workspace_key_prefix>/<name>/<key>`), read with a
//! GET and replaced with a PUT carrying its `Content-MD5` and the configured encryption; the lock, an
//! object beside it (`<object>.lock`) holding the lock info, created only if absent
//! (`If-None-Match: *`) and deleted only as read (`If-Match` its ETag) after its ID is checked.
//!
//! `settings` reads the arguments, `credentials` finds the API key, `client` signs and sends one
//! request, `errors` words the refusals, `listing` finds every state below a prefix, `versions`
//! lists and reads the object versions a versioned bucket keeps, `url` reads `oci://` URLs.

mod client;
mod credentials;
mod errors;
mod listing;
mod settings;
pub(crate) mod url;
mod versions;

use statectl_state::state::store::lock_info::{LockInfo, MAX_LOCK_INFO};
use statectl_state::state::store::{LockRefused, RemoteState, StoreError};

use self::client::{Answer, Call, Client};
use self::errors::Doing;
use self::settings::{Encryption, Settings};
use crate::config::{self, BackendConfig};

/// A state in an OCI Object Storage bucket.
#[derive(Debug)]
pub struct OciState {
    settings: Settings,
    client: Client,
    location: String,
    /// How the API key is named in messages.
    key: String,
}

impl OciState {
    /// The object name of `config`'s workspace's state, as [`OciState::open`] would read it.
    pub(crate) fn state_object(config: &BackendConfig) -> Result<String, StoreError> {
        Ok(Settings::read(config, &config::env)?.object)
    }

    /// Reads the configuration and loads the API key; nothing is requested until the first call.
    pub fn open(config: &BackendConfig) -> Result<OciState, StoreError> {
        OciState::open_with(config, &config::env)
    }

    fn open_with(
        config: &BackendConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<OciState, StoreError> {
        let settings = Settings::read(config, env)?;
        let location = settings.location();
        let key = credentials::load(&settings, &location, env)?;
        let endpoint = match (&settings.endpoint, &key.region) {
            (Some(endpoint), _) => endpoint.clone(),
            (None, Some(region)) => format!("https://objectstorage.{region}.oraclecloud.com"),
            (None, None) => {
                return Err(oci_error(
                    &location,
                    "no region: neither `region` nor the OCI config file's profile names one",
                )
                .with_hint("add `--backend-config region=REGION` (for example `eu-frankfurt-1`)"));
            }
        };
        let client = Client::new(
            endpoint,
            key.signer,
            settings.connect_timeout,
            settings.request_timeout,
        )
        .map_err(|problem| oci_error(&location, problem))?;
        Ok(OciState {
            settings,
            client,
            location,
            key: key.described,
        })
    }

    fn doing(&self, what: &'static str, method: &str, object: &str) -> Doing<'_> {
        Doing {
            location: &self.location,
            what,
            request: format!("{method} {object}"),
            key: &self.key,
        }
    }

    /// Sends `call`, whose good answers are the `accepted` statuses.
    fn expect(
        &self,
        call: &Call<'_>,
        doing: &Doing<'_>,
        accepted: &[u16],
    ) -> Result<Answer, StoreError> {
        let answer = self
            .client
            .send(call)
            .map_err(|failure| doing.failed(failure))?;
        if accepted.contains(&answer.status) {
            Ok(answer)
        } else {
            Err(doing.refused(&answer))
        }
    }

    fn object_path(&self, object: &str) -> String {
        client::object_path(&self.settings.namespace, &self.settings.bucket, object)
    }

    /// The SSE-C headers a read or write of the state needs.
    fn customer_key_headers(&self) -> Vec<(&'static str, String)> {
        match &self.settings.encryption {
            Encryption::Customer {
                key,
                sha256,
                algorithm,
            } => vec![
                ("opc-sse-customer-algorithm", algorithm.clone()),
                ("opc-sse-customer-key", key.clone()),
                ("opc-sse-customer-key-sha256", sha256.clone()),
            ],
            _ => Vec::new(),
        }
    }

    /// GETs `object`; `Ok(None)` when it does not exist (and the bucket does).
    fn get_object(
        &self,
        what: &'static str,
        object: &str,
        headers: Vec<(&'static str, String)>,
        max_body: u64,
    ) -> Result<Option<Answer>, StoreError> {
        let doing = self.doing(what, "GET", object);
        let mut call = Call::new("GET", self.object_path(object));
        call.headers = headers;
        call.max_body = max_body;
        let answer = self
            .client
            .send(&call)
            .map_err(|failure| doing.failed(failure))?;
        match (answer.status, errors::code(&answer).as_str()) {
            (200, _) => Ok(Some(answer)),
            // A missing bucket or namespace is a mistake to name, not a state to create.
            (404, "BucketNotFound" | "NamespaceNotFound") => Err(doing.refused(&answer)),
            (404, _) => Ok(None),
            _ => Err(doing.refused(&answer)),
        }
    }

    /// The lock object's holder and ETag; `None` when there is no lock.
    fn read_lock(&self, what: &'static str) -> Result<Option<(LockInfo, String)>, StoreError> {
        let object = self.settings.lock_object();
        let Some(answer) = self.get_object(what, &object, Vec::new(), MAX_LOCK_INFO as u64)? else {
            return Ok(None);
        };
        let etag = answer.header("etag").unwrap_or_default().to_owned();
        let info = LockInfo::parse(&answer.body).ok_or_else(|| {
            StoreError::new(format!(
                "{}: cannot {what}: the lock object {object} does not hold Terraform's lock info",
                self.location
            ))
            .with_hint(format!(
                "if no one holds the lock, delete the object `{object}` (`oci os object delete`)"
            ))
        })?;
        Ok(Some((info, etag)))
    }
}

impl RemoteState for OciState {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn missing_state_hint(&self) -> &'static str {
        "check the namespace, bucket and key (another workspace's state is `<workspace_key_prefix>/<workspace>/<key>`); `terraform workspace list` shows the workspaces"
    }

    /// The object's last segment: `terraform.tfstate` for `tf-state-env/dev/terraform.tfstate`.
    fn backup_name(&self) -> String {
        let object = &self.settings.object;
        object.rsplit('/').next().unwrap_or(object).to_owned()
    }

    /// Terraform's OCI backend writes the state object's name as the lock info's `Path`.
    fn lock_path(&self) -> String {
        self.settings.object.clone()
    }

    fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let what = "read the state";
        let Some(answer) = self.get_object(
            what,
            &self.settings.object,
            self.customer_key_headers(),
            client::MAX_BODY,
        )?
        else {
            return Ok(None);
        };
        if answer.body.is_empty() {
            return Err(StoreError::new(format!(
                "{}: cannot read the state: the object is empty, which Terraform refuses too",
                self.location
            )));
        }
        // A single-part object's answer carries its MD5: a state that arrives altered is refused.
        if let Some(expected) = answer.header("content-md5") {
            use base64::Engine as _;
            use md5::Digest as _;
            let actual =
                base64::engine::general_purpose::STANDARD.encode(md5::Md5::digest(&answer.body));
            if expected != actual {
                return Err(StoreError::new(format!(
                    "{}: cannot read the state: its bytes do not match the object's Content-MD5 ({expected}); the answer was altered on the way",
                    self.location
                )));
            }
        }
        Ok(Some(answer.body))
    }

    fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
        let object = self.settings.lock_object();
        let doing = self.doing("lock the state", "PUT", &object);
        let body = info.to_json();
        let mut call = Call::new("PUT", self.object_path(&object));
        call.headers.push(("if-none-match", "*".to_owned()));
        call.body = Some(body.as_bytes());
        let answer = self
            .client
            .send(&call)
            .map_err(|failure| LockRefused::Failed(doing.failed(failure)))?;
        match answer.status {
            200 | 201 => Ok(()),
            // The object exists: someone holds the lock. Terraform then reads it to name them.
            409 | 412 => match self.read_lock("lock the state") {
                // A retried PUT whose first attempt was taken but unanswered meets its own lock.
                Ok(Some((holder, _))) if holder.id == info.id => Ok(()),
                Ok(Some((holder, _))) => Err(LockRefused::Held(Some(Box::new(holder)))),
                // Released in between: waiting (trying again) will take it.
                Ok(None) => Err(LockRefused::Held(None)),
                Err(error) => Err(LockRefused::Failed(error)),
            },
            _ => Err(LockRefused::Failed(doing.refused(&answer))),
        }
    }

    fn put(&self, bytes: &[u8], _lock: &LockInfo) -> Result<(), StoreError> {
        use base64::Engine as _;
        use md5::Digest as _;
        let object = &self.settings.object;
        let doing = self.doing("write the state", "PUT", object);
        let mut call = Call::new("PUT", self.object_path(object));
        // Terraform writes one part up to 128 MiB and many above; one PUT takes up to 50 GiB, and
        // statectl reads states up to 1 GiB, so it always writes one.
        call.headers.push((
            "content-md5",
            base64::engine::general_purpose::STANDARD.encode(md5::Md5::digest(bytes)),
        ));
        match &self.settings.encryption {
            Encryption::Kms(key) => call.headers.push(("opc-sse-kms-key-id", key.clone())),
            Encryption::Customer { .. } => call.headers.extend(self.customer_key_headers()),
            Encryption::Default => {}
        }
        call.body = Some(bytes);
        self.expect(&call, &doing, &[200, 201]).map(drop)
    }

    fn versions(&self) -> Option<&dyn statectl_state::state::store::versions::StateVersions> {
        Some(self)
    }

    fn unlock(&self, lock: &LockInfo) -> Result<(), StoreError> {
        let what = "unlock the state";
        let object = self.settings.lock_object();
        let Some((holder, etag)) = self.read_lock(what)? else {
            return Err(StoreError::new(format!(
                "{}: cannot unlock the state: the lock object {object} is gone; someone removed the lock",
                self.location
            )));
        };
        if holder.id != lock.id {
            return Err(StoreError::new(format!(
                "{}: cannot unlock the state: the lock is now held by another ({holder})",
                self.location
            )));
        }
        let doing = self.doing(what, "DELETE", &object);
        let mut call = Call::new("DELETE", self.object_path(&object));
        // Deleted only as read: a lock replaced in between is not ours to remove.
        call.headers.push(("if-match", etag));
        self.expect(&call, &doing, &[200, 204]).map(drop)
    }
}

/// An error of this backend at the state's `location`: `<location>: backend "oci": <problem>`.
fn oci_error(location: &str, problem: impl std::fmt::Display) -> StoreError {
    config::backend_error(location, "oci", problem)
}

#[cfg(test)]
mod tests;
