//! The `gcs` backend, as Terraform's `internal/backend/remote-state/gcs` keeps a state in Google
//! Cloud Storage: the workspace's object `<prefix><name>.tfstate` (read and written with the
//! customer-supplied key when there is one, written with the KMS key when there is one), and its
//! lock object `<prefix><name>.tflock`, created only if absent (`ifGenerationMatch=0`) with the lock
//! info as its body; its generation is the lock ID Terraform shows.
//!
//! `settings` reads the arguments and `GOOGLE_*` variables, `auth` finds the credentials and their
//! tokens (`jwt` signs a service account's assertion; `external_account` exchanges a CI's OIDC
//! token, which `subject_token` and `executable` get), `client` makes one bounded request, `object`
//! reads and writes the state, `lock` takes and releases the lock, `listing` finds every state below
//! a prefix, `versions` lists and reads the generations a versioned bucket keeps; this module words
//! what went wrong.

mod auth;
mod client;
mod credential_error;
mod executable;
mod external_account;
#[cfg(test)]
pub(crate) mod fake;
mod jwt;
mod listing;
mod lock;
mod object;
mod settings;
mod subject_token;
pub mod url;
mod versions;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use statectl_state::state::store::StoreError;
use statectl_state::state::store::lock_info::LockInfo;

use self::auth::{Credential, Tokens};
use self::client::{Answer, Http, error_message, status_text};
use self::settings::Settings;
use crate::config::{self, BackendConfig};
use crate::escape;
use crate::runtime::Runtime;
use statectl_net::Secret;

/// A state in a Google Cloud Storage bucket.
#[derive(Debug)]
pub struct GcsState {
    backend: Backend,
    /// Shared by the states of one listing.
    runtime: Arc<Runtime>,
}

/// What the async operations share.
#[derive(Debug)]
struct Backend {
    settings: Settings,
    http: Http,
    /// Shared by the states of one listing: one token for all of them.
    tokens: Arc<Tokens>,
    location: String,
    /// The generation of each lock object this process created, by lock ID: what releases it.
    generations: Mutex<HashMap<String, i64>>,
}

/// What a GET of a JSON document reads, in the words of its errors.
struct Reading<'a> {
    /// While doing what the request failed: "listing the states".
    doing: &'a str,
    /// What the refused request was to do: "list the states".
    what: &'a str,
    /// The object (or objects) it was about, and the permission it takes.
    object: &'a str,
    permission: &'a str,
    /// The document that is not JSON, and its verb: "the object listing is".
    document: &'a str,
}

impl GcsState {
    /// The object name of `config`'s workspace's state, as [`GcsState::open`] would read it.
    pub(crate) fn state_object(config: &BackendConfig) -> Result<String, StoreError> {
        Ok(Settings::read(config, &config::env)?.object)
    }

    /// Reads the configuration and finds the credentials; nothing is requested until the first call.
    pub fn open(config: &BackendConfig) -> Result<GcsState, StoreError> {
        let settings = Settings::read(config, &config::env)?;
        let location = settings.location();
        let credential = Credential::find(&settings, &config::env).map_err(|problem| {
            StoreError::new(format!("{location}: {problem}")).with_hint(
                "set `access_token` or `credentials` (a service account key), or run `gcloud auth application-default login`",
            )
        })?;
        let http =
            Http::new().map_err(|problem| StoreError::new(format!("{location}: {problem}")))?;
        let runtime = Runtime::new().map_err(|error| {
            StoreError::new(format!("{location}: cannot start the GCS client: {error}"))
        })?;
        Ok(GcsState {
            backend: Backend {
                settings,
                http,
                tokens: Arc::new(Tokens::new(credential)),
                location,
                generations: Mutex::new(HashMap::new()),
            },
            runtime: Arc::new(runtime),
        })
    }
}

crate::blocking::blocking_remote_state!(GcsState, object: object, runtime: runtime {
    fn missing_state_hint(&self) -> &'static str {
        "check the bucket and prefix (each workspace's state is `<prefix>/<workspace>.tfstate`); `terraform workspace list` shows the workspaces"
    }

    /// Terraform's gcs lock ID is the lock object's generation, which `force-unlock` takes.
    fn force_unlock_id(&self, lock: &LockInfo) -> String {
        self.backend
            .generations
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&lock.id)
            .map_or_else(|| lock.id.clone(), ToString::to_string)
    }
});

/// The customer-supplied key's three headers, on every request about the state object.
fn with_key(request: reqwest::RequestBuilder, key: Option<&Secret>) -> reqwest::RequestBuilder {
    use base64::Engine as _;
    use rsa::sha2::{Digest as _, Sha256};
    let Some(key) = key else { return request };
    let encode = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    request
        .header("x-goog-encryption-algorithm", "AES256")
        .header("x-goog-encryption-key", encode(key.expose()))
        .header(
            "x-goog-encryption-key-sha256",
            encode(&Sha256::digest(key.expose())),
        )
}

/// `url` with the `pairs` as its query, each escaped.
fn with_query(url: &str, pairs: &[(&str, &str)]) -> String {
    let mut query = ::url::form_urlencoded::Serializer::new(String::new());
    query.extend_pairs(pairs);
    format!("{url}?{}", query.finish())
}

impl Backend {
    /// `<endpoint>b/<bucket>/o/<object>`.
    fn object_url(&self, object: &str) -> String {
        format!(
            "{}b/{}/o/{}",
            self.settings.endpoint,
            escape::unreserved(&self.settings.bucket),
            escape::unreserved(object)
        )
    }

    /// `<endpoint>b/<bucket>/o`, where objects are listed.
    fn objects_url(&self) -> String {
        format!(
            "{}b/{}/o",
            self.settings.endpoint,
            escape::unreserved(&self.settings.bucket)
        )
    }

    /// The media upload address: `/upload/storage/v1/b/<bucket>/o` on the endpoint's host.
    fn upload_url(&self) -> String {
        let mut url = self.settings.endpoint.clone();
        url.set_path(&format!(
            "/upload/storage/v1/b/{}/o",
            escape::unreserved(&self.settings.bucket)
        ));
        url.set_query(None);
        url.to_string()
    }

    /// Sends the request `make` builds with the credential's bearer token (none to an emulator).
    /// The error is one line for a token that cannot be had and a server that cannot be reached.
    async fn call(
        &self,
        doing: &str,
        repeatable: bool,
        make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync,
    ) -> Result<Answer, StoreError> {
        let credential = &self.tokens.credential;
        let token = self.tokens.token(&self.http).await.map_err(|problem| {
            StoreError::new(format!(
                "{}: cannot get a Google access token for {} while {doing}: {problem}",
                self.location,
                credential.describe()
            ))
            .with_hint(credential.token_hint())
        })?;
        self.http
            .send(repeatable, |client| match &token {
                Some(token) => make(client).bearer_auth(token.expose_str()),
                None => make(client),
            })
            .await
            .map_err(|failure| {
                StoreError::new(format!(
                    "{}: cannot reach Google Cloud Storage at {} while {doing}: {failure}",
                    self.location,
                    self.settings.endpoint.origin().ascii_serialization()
                ))
                .with_hint("check the network, and `storage_custom_endpoint` when one is set")
            })
    }

    /// The JSON document a GET of `url` answers with 200: for a listing, or the bucket's settings.
    async fn get_json(
        &self,
        url: &str,
        reading: Reading<'_>,
    ) -> Result<serde_json::Value, StoreError> {
        let answer = self
            .call(reading.doing, true, |client| client.get(url))
            .await?;
        if answer.status != 200 {
            return Err(self
                .refused(&answer, reading.what, reading.object, reading.permission)
                .await);
        }
        serde_json::from_slice(&answer.body).map_err(|_| {
            StoreError::new(format!("{}: {} not JSON", self.location, reading.document))
        })
    }

    /// The error for an answer the request does not take: access refused names the credential;
    /// a missing bucket is said so.
    async fn refused(
        &self,
        answer: &Answer,
        doing: &str,
        object: &str,
        permission: &str,
    ) -> StoreError {
        let location = &self.location;
        let bucket = &self.settings.bucket;
        let credential = &self.tokens.credential;
        let said = error_message(&answer.body);
        match answer.status {
            401 => StoreError::new(format!(
                "{location}: cannot {doing}: Google Cloud Storage refused {} (401 Unauthorized: {said})",
                credential.describe()
            ))
            .with_hint(credential.hint()),
            403 => StoreError::new(format!(
                "{location}: cannot {doing}: access denied to `{object}` in bucket `{bucket}` for {}",
                credential.describe()
            ))
            .with_hint(format!("that identity needs `{permission}` on the bucket (`roles/storage.objectUser` has it)")),
            404 if self.bucket_missing().await => self.no_bucket(),
            400 if said.contains("encryption key") || said.contains("encrypted") => StoreError::new(format!(
                "{location}: cannot {doing}: Google Cloud Storage says: {said}"
            ))
            .with_hint("set `encryption_key` (or GOOGLE_ENCRYPTION_KEY) to the key the state was written with"),
            status => StoreError::new(format!(
                "{location}: cannot {doing}: Google Cloud Storage answered {}: {said}",
                status_text(status)
            )),
        }
    }

    fn no_bucket(&self) -> StoreError {
        StoreError::new(format!(
            "{}: the GCS bucket `{}` does not exist",
            self.location, self.settings.bucket
        ))
        .with_hint("check `bucket` (and `storage_custom_endpoint` when one is set)")
    }

    /// Whether the bucket is known not to exist (a 404 for the bucket itself); anything else, an
    /// identity without `storage.buckets.get` included, is not proof.
    async fn bucket_missing(&self) -> bool {
        let url = format!(
            "{}b/{}",
            self.settings.endpoint,
            escape::unreserved(&self.settings.bucket)
        );
        let answer = self
            .call("checking the bucket", true, |client| client.get(&url))
            .await;
        matches!(answer, Ok(answer) if answer.status == 404)
    }
}

#[cfg(test)]
mod tests;
