//! HCP Terraform and Terraform Enterprise: the `cloud` block and `backend "remote"`, as Terraform's
//! `internal/cloud` and `internal/backend/remote` keep state there. The workspace is found by name
//! (`GET organizations/:org/workspaces/:name`) or by its tags; a read downloads the current state
//! version's `hosted-state-download-url` (404: no state yet); the lock is the workspace's own
//! (`POST workspaces/:id/actions/lock`, 409 while someone holds it, who is named from the
//! workspace's `locked-by`); a write creates a state version with the serial, MD5 and lineage and
//! uploads the bytes to its `hosted-state-upload-url`, or, from a server older than that flow
//! (Terraform Enterprise v202306-1 and before), sends them base64 in `state`, as Terraform 1.15
//! does; `actions/unlock` releases the lock.
//!
//! `settings` resolves the block, `statectl_net::cliconfig::credentials` finds the token, `client` makes the requests,
//! `workspace` finds the workspace and its lock holder, `versions` writes state versions, `history`
//! lists and reads them, `mapping` lists every workspace the block maps to (`--workspace GLOB`).

mod client;
mod history;
mod mapping;
mod settings;
mod versions;
mod workspace;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use statectl_net::cliconfig::{self, credentials};
use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState, StoreError};
use url::Url;

use self::client::{Answer, Call, Client, Failure, status_text};
pub use self::mapping::{MappedWorkspaces, mapped_workspaces};
use self::settings::Settings;
use self::workspace::discover;
use crate::config::{self, BackendConfig};
use crate::escape;

/// JSON:API's media type, which the API speaks.
const JSON_API: &str = "application/vnd.api+json";
/// What a server without the upload flow says to a state version created without `state`.
const NO_UPLOAD_FLOW: &str = "param is missing or the value is empty: state";
/// How often an unlock refused because the new state version is still pending is tried again
/// (Terraform's `RetryBackoff` keeps trying for a while too).
const PENDING_UNLOCK_TRIES: u32 = 6;

/// A workspace's state in HCP Terraform or Terraform Enterprise.
pub struct HcpState {
    settings: Settings,
    /// Shared by the workspaces of one listing.
    client: Arc<Client>,
    /// The API's root (`https://app.terraform.io/api/v2/`).
    api: Url,
    workspace_id: String,
    workspace: String,
    location: String,
}

crate::debug::shown_in_debug!(HcpState: location);

impl HcpState {
    /// The workspace `config` (a `cloud` or `remote` backend) maps the selected one to, found
    /// through the host's service discovery with the token Terraform would use.
    pub fn open(config: &BackendConfig) -> Result<HcpState, StoreError> {
        // The block is checked before any request.
        let target = settings::target(config, &config::env)?;
        let base = HcpState::connect(config)?;
        let name = base.workspace_name(&target)?;
        base.find(&name)
    }

    /// Connected to the host `config` names (its API found, the token read), no workspace chosen
    /// yet.
    fn connect(config: &BackendConfig) -> Result<HcpState, StoreError> {
        let home = config::env("HOME").map(PathBuf::from);
        let files = cliconfig::config_files(&config::env, home.as_deref());
        // `vars()` would panic on a variable that is not UTF-8; such a one cannot name a host.
        let vars = std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        });
        let settings = Settings::read(config, &config::env, vars, &files)?;
        let origin = format!("{} ({})", config.origin, settings.hostname);
        let client = Client::new(settings.token.clone())
            .map_err(|problem| StoreError::new(format!("{origin}: {problem}")))?;
        let api = discover(&client, &settings, &origin)?;
        Ok(HcpState {
            location: origin,
            settings,
            client: Arc::new(client),
            api,
            workspace_id: String::new(),
            workspace: String::new(),
        })
    }

    /// This connection at workspace `name` (its ID `id`), without a request: every workspace of a
    /// listing shares the listing's client.
    fn at(&self, id: &str, name: &str) -> HcpState {
        HcpState {
            settings: self.settings.clone(),
            client: Arc::clone(&self.client),
            api: self.api.clone(),
            workspace_id: id.to_owned(),
            workspace: name.to_owned(),
            location: self.workspace_url(name),
        }
    }

    /// The web page of workspace `name`, which names it in messages.
    fn workspace_url(&self, name: &str) -> String {
        format!(
            "https://{}/app/{}/workspaces/{name}",
            self.settings.hostname, self.settings.organization
        )
    }

    /// This connection at workspace `name`, found by name (its ID is the API's).
    fn find(&self, name: &str) -> Result<HcpState, StoreError> {
        let mut state = self.at("", name);
        let answer = state.api_call(
            "find the workspace",
            reqwest::Method::GET,
            &format!(
                "organizations/{}/workspaces/{}",
                escape::path_segment(&state.settings.organization),
                escape::path_segment(name)
            ),
            None,
        )?;
        match answer.status {
            200 => {}
            404 => return Err(state.not_found(name)),
            _ => return Err(state.refused("find the workspace", &answer)),
        }
        let data = &answer.json()["data"];
        data["id"]
            .as_str()
            .unwrap_or_default()
            .clone_into(&mut state.workspace_id);
        data["attributes"]["name"]
            .as_str()
            .unwrap_or(name)
            .clone_into(&mut state.workspace);
        if state.workspace_id.is_empty() {
            return Err(StoreError::new(format!(
                "{}: cannot find the workspace: the answer names no workspace ID",
                state.location
            )));
        }
        Ok(state)
    }

    /// `path` (an API path relative to `/api/v2/`, or a URL the API gave) as a URL to ask, to
    /// `doing` something.
    fn api_url(&self, doing: &str, path: &str) -> Result<Url, StoreError> {
        self.api
            .join(path)
            .map_err(|error| StoreError::new(format!("{}: cannot {doing}: {error}", self.location)))
    }

    /// Sends a request to the API path `path` (relative to `/api/v2/`) with the token.
    fn api_call(
        &self,
        doing: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Answer, StoreError> {
        self.api_call_capped(doing, method, path, body, client::MAX_BODY)
    }

    /// [`HcpState::api_call`], reading at most `limit` bytes of the answer.
    fn api_call_capped(
        &self,
        doing: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        limit: u64,
    ) -> Result<Answer, StoreError> {
        let url = self.api_url(doing, path)?;
        let call = Call {
            method,
            url: &url,
            body: body.map(|body| (bytes::Bytes::from(body.to_string()), JSON_API)),
            accept: JSON_API,
            authorized: true,
        };
        let answer = self
            .client
            .send_capped(&call, limit)
            .map_err(|failure| self.failed(doing, &failure))?;
        if answer.status == 401 {
            return Err(self.unauthorized());
        }
        Ok(answer)
    }

    /// The API path of this workspace's `under` (`/actions/lock`, `?include=locked_by`).
    fn workspace_path(&self, under: &str) -> String {
        format!(
            "workspaces/{}{under}",
            escape::path_segment(&self.workspace_id)
        )
    }

    /// The bytes of the state version `answer` describes (`None` for an empty one); `missing`
    /// says what is wrong when it names no download URL.
    fn download_of(
        &self,
        answer: &Answer,
        missing: impl FnOnce() -> String,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        match answer.json()["data"]["attributes"]["hosted-state-download-url"].as_str() {
            Some(download) => self.download(download),
            None => Err(StoreError::new(format!("{}: {}", self.location, missing()))),
        }
    }

    /// The bytes at a state version's `hosted-state-download-url`; `None` for an empty one.
    fn download(&self, download: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let url = self.api_url("read the state", download)?;
        let call = Call {
            method: reqwest::Method::GET,
            url: &url,
            body: None,
            accept: "application/json",
            // HCP's archivist URLs are signed; the token goes only to the API's own host (and
            // along a redirect only while it stays there).
            authorized: self.on_api_host(&url),
        };
        let answer = self
            .client
            .send(&call)
            .map_err(|failure| self.failed("download the state", &failure))?;
        match answer.status {
            200 if answer.body.is_empty() => Ok(None),
            200 => Ok(Some(answer.body)),
            401 if call.authorized => Err(self.unauthorized()),
            _ => Err(self.refused("download the state", &answer)),
        }
    }

    fn failed(&self, doing: &str, failure: &Failure) -> StoreError {
        let hint = match failure {
            Failure::GaveUp { .. } => "the server is failing or throttling; try again later",
            Failure::Unreachable { problem, .. } if problem.contains("certificate") => {
                "the server's certificate is not trusted: name its CA in SSL_CERT_FILE, as for Terraform"
            }
            _ => "check the `hostname` and that the server is up",
        };
        StoreError::new(format!("{}: cannot {doing}: {failure}", self.location)).with_hint(hint)
    }

    fn unauthorized(&self) -> StoreError {
        let settings = &self.settings;
        StoreError::new(format!(
            "{}: the API token for {} was refused (401 Unauthorized); it came from {}",
            self.location, settings.hostname, settings.token_source
        ))
        .with_hint(format!(
            "run `terraform login{}` for a new token, or set {}",
            if settings.host == settings::DEFAULT_HOSTNAME {
                String::new()
            } else {
                format!(" {}", settings.hostname)
            },
            credentials::env_name(&settings.host)
        ))
    }

    fn refused(&self, doing: &str, answer: &Answer) -> StoreError {
        let detail = answer.errors();
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        };
        let error = StoreError::new(format!(
            "{}: cannot {doing}: the server answered {}{detail}",
            self.location,
            status_text(answer.status)
        ));
        if answer.status == 403 {
            error.with_hint("the token may read but not lock or write this workspace's state: it needs the workspace's \"write\" permission")
        } else {
            error
        }
    }

    /// Whether `url` is on the API's own host (where the token may go).
    fn on_api_host(&self, url: &Url) -> bool {
        url.host_str() == self.api.host_str()
            && url.port_or_known_default() == self.api.port_or_known_default()
            && url.scheme() == self.api.scheme()
    }
}

impl RemoteState for HcpState {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn missing_state_hint(&self) -> &'static str {
        "the workspace has no state version yet (its first `terraform apply` makes one); check the organization and workspace: `terraform workspace list` shows the workspaces"
    }

    fn backup_name(&self) -> String {
        format!("{}.tfstate", self.workspace)
    }

    fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let doing = "read the state";
        let answer = self.api_call(
            doing,
            reqwest::Method::GET,
            &self.workspace_path("/current-state-version"),
            None,
        )?;
        match answer.status {
            200 => {}
            // No state version yet.
            404 => return Ok(None),
            _ => return Err(self.refused(doing, &answer)),
        }
        self.download_of(&answer, || {
            "cannot read the state: the current state version has no download URL".to_owned()
        })
    }

    fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
        let doing = "lock the workspace";
        let reason = format!(
            "Locked by {} ({}, {})",
            info.version, info.who, info.operation
        );
        let answer = self
            .api_call(
                doing,
                reqwest::Method::POST,
                &self.workspace_path("/actions/lock"),
                Some(&json!({ "reason": reason })),
            )
            .map_err(LockRefused::Failed)?;
        match answer.status {
            200 => Ok(()),
            409 => Err(LockRefused::Held(Some(Box::new(
                self.holder().unwrap_or_else(|| self.held_by(String::new())),
            )))),
            _ => Err(LockRefused::Failed(self.refused(doing, &answer))),
        }
    }

    fn put(&self, bytes: &[u8], _lock: &LockInfo) -> Result<(), StoreError> {
        let mut answer = self.create_version(bytes, false)?;
        let inline = matches!(answer.status, 400 | 422) && answer.errors().contains(NO_UPLOAD_FLOW);
        if inline {
            // A server without the upload flow: the bytes go inline, as Terraform falls back.
            answer = self.create_version(bytes, true)?;
        }
        if !matches!(answer.status, 200 | 201) {
            return Err(self.refused("write the state", &answer));
        }
        if inline {
            return Ok(());
        }
        match answer.json()["data"]["attributes"]["hosted-state-upload-url"].as_str() {
            Some(upload) if !upload.is_empty() => self.upload(upload, bytes),
            _ => Err(StoreError::new(format!(
                "{}: cannot write the state: the new state version has no upload URL",
                self.location
            ))),
        }
    }

    /// Terraform's cloud backend takes `org/workspace` for a lock it did not take itself.
    fn versions(&self) -> Option<&dyn statectl_state::state::store::versions::StateVersions> {
        Some(self)
    }

    fn force_unlock_id(&self, _lock: &LockInfo) -> String {
        self.lock_id()
    }

    fn unlock(&self, _lock: &LockInfo) -> Result<(), StoreError> {
        let doing = "unlock the workspace";
        let path = self.workspace_path("/actions/unlock");
        let mut pause = std::time::Duration::from_millis(250);
        for attempt in 1..=PENDING_UNLOCK_TRIES {
            let answer = self.api_call(doing, reqwest::Method::POST, &path, None)?;
            let pending = answer.status == 409 && answer.errors().contains("still pending");
            if answer.status == 200 {
                return Ok(());
            }
            if !pending || attempt == PENDING_UNLOCK_TRIES {
                return Err(self.refused(doing, &answer));
            }
            std::thread::sleep(pause);
            pause *= 2;
        }
        Ok(())
    }
}
