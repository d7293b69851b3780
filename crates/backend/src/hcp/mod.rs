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
//! `settings` resolves the block, `credentials` finds the token, `client` makes the requests.

mod client;
mod credentials;
mod settings;

use std::path::PathBuf;

use base64::Engine as _;
use md5::Digest as _;
use serde_json::{Value, json};
use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState, StoreError};
use url::Url;

use self::client::{Answer, Call, Client, Failure, status_text};
use self::settings::{Settings, Target};
use crate::config::{self, BackendConfig};

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
    client: Client,
    /// The API's root (`https://app.terraform.io/api/v2/`).
    api: Url,
    workspace_id: String,
    workspace: String,
    location: String,
}

impl std::fmt::Debug for HcpState {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("HcpState")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl HcpState {
    /// The workspace `config` (a `cloud` or `remote` backend) maps the selected one to, found
    /// through the host's service discovery with the token Terraform would use.
    pub fn open(config: &BackendConfig) -> Result<HcpState, StoreError> {
        let home = config::env("HOME").map(PathBuf::from);
        let files = credentials::config_files(&config::env, home.as_deref());
        let settings = Settings::read(config, &config::env, std::env::vars(), &files)?;
        let origin = format!("{} ({})", config.origin, settings.hostname);
        let client = Client::new(settings.token.clone())
            .map_err(|problem| StoreError::new(format!("{origin}: {problem}")))?;
        let api = discover(&client, &settings, &origin)?;
        let mut state = HcpState {
            location: origin,
            settings,
            client,
            api,
            workspace_id: String::new(),
            workspace: String::new(),
        };
        let name = state.workspace_name()?;
        state.location = format!(
            "https://{}/app/{}/workspaces/{name}",
            state.settings.hostname, state.settings.organization
        );
        let answer = state.api_call(
            "find the workspace",
            reqwest::Method::GET,
            &format!(
                "organizations/{}/workspaces/{}",
                segment(&state.settings.organization),
                segment(&name)
            ),
            None,
        )?;
        match answer.status {
            200 => {}
            404 => return Err(state.not_found(&name)),
            _ => return Err(state.refused("find the workspace", &answer)),
        }
        let data = &answer.json()["data"];
        data["id"]
            .as_str()
            .unwrap_or_default()
            .clone_into(&mut state.workspace_id);
        data["attributes"]["name"]
            .as_str()
            .unwrap_or(&name)
            .clone_into(&mut state.workspace);
        if state.workspace_id.is_empty() {
            return Err(StoreError::new(format!(
                "{}: cannot find the workspace: the answer names no workspace ID",
                state.location
            )));
        }
        Ok(state)
    }

    /// The remote workspace's name: given, or the one the tags select.
    fn workspace_name(&self) -> Result<String, StoreError> {
        let (tags, chosen) = match &self.settings.target {
            Target::Named(name) => return Ok(name.clone()),
            Target::Tagged { tags, chosen } => (tags, chosen),
        };
        let names = self.tagged(tags)?;
        let described = tags.join(", ");
        if let Some(chosen) = chosen {
            if names.contains(chosen) {
                return Ok(chosen.clone());
            }
            return Err(StoreError::new(format!(
                "{}: workspace `{chosen}` of organization `{}` does not carry the tags [{described}] the `cloud` block selects by",
                self.location, self.settings.organization
            ))
            .with_hint(format!("the workspaces with those tags: {}", list_or_none(&names))));
        }
        match names.as_slice() {
            [name] => Ok(name.clone()),
            [] => Err(StoreError::new(format!(
                "{}: no workspace of organization `{}` carries the tags [{described}]",
                self.location, self.settings.organization
            ))
            .with_hint("check the `cloud` block's `tags`, or select a workspace with `--workspace NAME`")),
            _ => Err(StoreError::new(format!(
                "{}: the tags [{described}] select {} workspaces of organization `{}`: {}",
                self.location,
                names.len(),
                self.settings.organization,
                names.join(", ")
            ))
            .with_hint("choose one with `--workspace NAME` (or TF_WORKSPACE, or `terraform workspace select`)")),
        }
    }

    /// The names of the workspaces carrying every tag of `tags`, every page of them, sorted.
    fn tagged(&self, tags: &[String]) -> Result<Vec<String>, StoreError> {
        let mut names = Vec::new();
        let mut page = 1;
        loop {
            let path = format!(
                "organizations/{}/workspaces?search%5Btags%5D={}&page%5Bsize%5D=100&page%5Bnumber%5D={page}",
                segment(&self.settings.organization),
                segment(&tags.join(","))
            );
            let answer = self.api_call(
                "list the tagged workspaces",
                reqwest::Method::GET,
                &path,
                None,
            )?;
            match answer.status {
                200 => {}
                404 => return Err(self.not_found("")),
                _ => return Err(self.refused("list the tagged workspaces", &answer)),
            }
            let json = answer.json();
            names.extend(
                json["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|workspace| workspace["attributes"]["name"].as_str())
                    .map(ToOwned::to_owned),
            );
            match json["meta"]["pagination"]["next-page"].as_u64() {
                Some(next) if next > page && page < 1000 => page = next,
                _ => break,
            }
        }
        names.sort();
        Ok(names)
    }

    /// Sends a request to the API path `path` (relative to `/api/v2/`) with the token.
    fn api_call(
        &self,
        doing: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Answer, StoreError> {
        let url = self.api.join(path).map_err(|error| {
            StoreError::new(format!("{}: cannot {doing}: {error}", self.location))
        })?;
        let call = Call {
            method,
            url: &url,
            body: body.map(|body| (bytes::Bytes::from(body.to_string()), JSON_API)),
            accept: JSON_API,
            authorized: true,
        };
        let answer = self
            .client
            .send(&call)
            .map_err(|failure| self.failed(doing, &failure))?;
        if answer.status == 401 {
            return Err(self.unauthorized());
        }
        Ok(answer)
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

    /// A 404 for the workspace `name` (empty: the organization's list): the organization or the
    /// workspace is missing, or the token may not see it (the API says 404 for both).
    fn not_found(&self, name: &str) -> StoreError {
        let organization = &self.settings.organization;
        let org_exists = self
            .api_call(
                "find the organization",
                reqwest::Method::GET,
                &format!("organizations/{}", segment(organization)),
                None,
            )
            .is_ok_and(|answer| answer.status == 200);
        let what = if !org_exists || name.is_empty() {
            format!("organization `{organization}` was not found")
        } else {
            format!("workspace `{name}` was not found in organization `{organization}`")
        };
        StoreError::new(format!(
            "{}: {what} at {} (404 Not Found)",
            self.location, self.settings.hostname
        ))
        .with_hint(
            "check `organization` and the workspace's name; the API also answers 404 for what the token may not read",
        )
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

    /// Who holds the workspace's lock, from its `locked-by` relationship.
    fn holder(&self) -> Option<LockInfo> {
        let answer = self
            .api_call(
                "read the lock",
                reqwest::Method::GET,
                &format!(
                    "workspaces/{}?include=locked_by",
                    segment(&self.workspace_id)
                ),
                None,
            )
            .ok()
            .filter(|answer| answer.status == 200)?;
        let json = answer.json();
        let holder = &json["data"]["relationships"]["locked-by"]["data"];
        let (kind, id) = (holder["type"].as_str()?, holder["id"].as_str()?);
        let included = json["included"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|item| item["type"] == kind && item["id"] == id);
        let attribute = |key: &str| {
            included
                .and_then(|item| item["attributes"][key].as_str())
                .map(ToOwned::to_owned)
        };
        let who = match kind {
            "users" => format!(
                "user {}",
                attribute("username").unwrap_or_else(|| id.to_owned())
            ),
            "teams" => format!(
                "team {}",
                attribute("name").unwrap_or_else(|| id.to_owned())
            ),
            "runs" => format!("run {id}"),
            other => format!("{other} {id}"),
        };
        Some(self.held_by(who))
    }

    /// The holder as the store names it; the ID is the one `terraform force-unlock` takes here.
    fn held_by(&self, who: String) -> LockInfo {
        LockInfo {
            id: self.lock_id(),
            operation: String::new(),
            info: String::new(),
            who,
            version: String::new(),
            created: String::new(),
            path: String::new(),
        }
    }

    fn lock_id(&self) -> String {
        format!("{}/{}", self.settings.organization, self.workspace)
    }

    /// Creates the state version for `bytes`; with `inline`, the bytes go along base64.
    fn create_version(&self, bytes: &[u8], inline: bool) -> Result<Answer, StoreError> {
        let meta: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
        let serial = meta["serial"].as_u64().ok_or_else(|| {
            StoreError::new(format!(
                "{}: cannot write the state: it has no `serial`, which a state version needs",
                self.location
            ))
        })?;
        let base64 = base64::engine::general_purpose::STANDARD;
        let mut attributes = json!({
            "serial": serial,
            "md5": format!("{:x}", md5::Md5::digest(bytes)),
            "force": false,
            "json-state-outputs": base64.encode(outputs(&meta).to_string()),
        });
        if let Some(lineage) = meta["lineage"]
            .as_str()
            .filter(|lineage| !lineage.is_empty())
        {
            attributes["lineage"] = json!(lineage);
        }
        if inline {
            attributes["state"] = json!(base64.encode(bytes));
        }
        if let Some(run) = config::env("TFE_RUN_ID") {
            // Inside a run, Terraform ties the state to it.
            let body = json!({"data": {"type": "state-versions", "attributes": attributes,
                "relationships": {"run": {"data": {"type": "runs", "id": run}}}}});
            return self.post_version(&body);
        }
        self.post_version(&json!({"data": {"type": "state-versions", "attributes": attributes}}))
    }

    fn post_version(&self, body: &Value) -> Result<Answer, StoreError> {
        self.api_call(
            "write the state",
            reqwest::Method::POST,
            &format!("workspaces/{}/state-versions", segment(&self.workspace_id)),
            Some(body),
        )
    }

    /// Sends `bytes` to the state version's upload URL, as go-tfe does: no token, octet-stream.
    fn upload(&self, url: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let doing = "upload the state";
        let url = self.api.join(url).map_err(|error| {
            StoreError::new(format!("{}: cannot {doing}: {error}", self.location))
        })?;
        let call = Call {
            method: reqwest::Method::PUT,
            url: &url,
            body: Some((
                bytes::Bytes::copy_from_slice(bytes),
                "application/octet-stream",
            )),
            accept: "application/json, */*",
            authorized: false,
        };
        let answer = self
            .client
            .send(&call)
            .map_err(|failure| self.failed(doing, &failure))?;
        if (200..300).contains(&answer.status) {
            Ok(())
        } else {
            Err(self.refused(doing, &answer))
        }
    }

    /// Whether `url` is on the API's own host (where the token may go).
    fn on_api_host(&self, url: &Url) -> bool {
        url.host_str() == self.api.host_str()
            && url.port_or_known_default() == self.api.port_or_known_default()
            && url.scheme() == self.api.scheme()
    }
}

/// The `tfe.v2` service of the host's discovery document, as Terraform's `disco` reads it.
fn discover(client: &Client, settings: &Settings, origin: &str) -> Result<Url, StoreError> {
    let doing = "discover the host's services";
    let url = Url::parse(&format!(
        "https://{}/.well-known/terraform.json",
        settings.host
    ))
    .map_err(|error| StoreError::new(format!("{origin}: cannot {doing}: {error}")))?;
    let call = Call {
        method: reqwest::Method::GET,
        url: &url,
        body: None,
        accept: "application/json",
        authorized: false,
    };
    let answer = client.send(&call).map_err(|failure| {
        let hint = match &failure {
            Failure::Unreachable { problem, .. } if problem.contains("certificate") => {
                "the server's certificate is not trusted: name its CA in SSL_CERT_FILE, as for Terraform"
            }
            _ => "check the `hostname` and that the server is up",
        };
        StoreError::new(format!("{origin}: cannot {doing}: {failure}")).with_hint(hint)
    })?;
    let not_tfe = || {
        StoreError::new(format!(
            "{origin}: {} is not HCP Terraform or Terraform Enterprise: its {} offers no `tfe.v2` API",
            settings.hostname,
            url.path()
        ))
        .with_hint("check the `hostname` argument (or TF_CLOUD_HOSTNAME)")
    };
    if answer.status != 200 {
        return Err(not_tfe());
    }
    let service = answer.json()["tfe.v2"]
        .as_str()
        .map(ToOwned::to_owned)
        .ok_or_else(not_tfe)?;
    let mut api = url.join(&service).map_err(|_| not_tfe())?;
    if !api.path().ends_with('/') {
        let path = format!("{}/", api.path());
        api.set_path(&path);
    }
    Ok(api)
}

/// The root outputs as `json-state-outputs` carries them (name: sensitive, type, value).
fn outputs(state: &Value) -> Value {
    let mut outputs = serde_json::Map::new();
    for (name, output) in state["outputs"].as_object().into_iter().flatten() {
        outputs.insert(
            name.clone(),
            json!({
                "sensitive": output["sensitive"].as_bool().unwrap_or(false),
                "type": output["type"],
                "value": output["value"],
            }),
        );
    }
    Value::Object(outputs)
}

/// One path segment, percent-encoded as Go's `url.PathEscape` encodes it.
fn segment(text: &str) -> String {
    use std::fmt::Write as _;
    let mut encoded = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~$&+:=@".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    encoded
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

impl RemoteState for HcpState {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn backup_name(&self) -> String {
        format!("{}.tfstate", self.workspace)
    }

    fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let doing = "read the state";
        let answer = self.api_call(
            doing,
            reqwest::Method::GET,
            &format!(
                "workspaces/{}/current-state-version",
                segment(&self.workspace_id)
            ),
            None,
        )?;
        match answer.status {
            200 => {}
            // No state version yet.
            404 => return Ok(None),
            _ => return Err(self.refused(doing, &answer)),
        }
        let Some(download) = answer.json()["data"]["attributes"]["hosted-state-download-url"]
            .as_str()
            .map(ToOwned::to_owned)
        else {
            return Err(StoreError::new(format!(
                "{}: cannot read the state: the current state version has no download URL",
                self.location
            )));
        };
        let url = self.api.join(&download).map_err(|error| {
            StoreError::new(format!("{}: cannot read the state: {error}", self.location))
        })?;
        let call = Call {
            method: reqwest::Method::GET,
            url: &url,
            body: None,
            accept: "application/json",
            // HCP's archivist URLs are signed; the token goes only to the API's own host.
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
                &format!("workspaces/{}/actions/lock", segment(&self.workspace_id)),
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
    fn force_unlock_id(&self, _lock: &LockInfo) -> String {
        self.lock_id()
    }

    fn unlock(&self, _lock: &LockInfo) -> Result<(), StoreError> {
        let doing = "unlock the workspace";
        let mut pause = std::time::Duration::from_millis(250);
        for attempt in 1..=PENDING_UNLOCK_TRIES {
            let answer = self.api_call(
                doing,
                reqwest::Method::POST,
                &format!("workspaces/{}/actions/unlock", segment(&self.workspace_id)),
                None,
            )?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_escape_as_go_does() {
        assert_eq!(segment("acme"), "acme");
        assert_eq!(segment("a b/c"), "a%20b%2Fc");
        assert_eq!(segment("app,eu"), "app%2Ceu");
    }

    #[test]
    fn outputs_carry_type_value_and_sensitivity() {
        let state: Value = serde_json::from_str(
            r#"{"outputs": {"ip": {"value": "10.0.0.1", "type": "string"},
                            "pw": {"value": "x", "type": "string", "sensitive": true}}}"#,
        )
        .unwrap();
        assert_eq!(
            outputs(&state),
            json!({"ip": {"sensitive": false, "type": "string", "value": "10.0.0.1"},
                   "pw": {"sensitive": true, "type": "string", "value": "x"}})
        );
        assert_eq!(outputs(&Value::Null), json!({}));
    }
}
