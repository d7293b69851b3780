//! Which workspace the backend means and who holds its lock: the host's service discovery, the
//! workspace by name or by tags (every page of the organization's list), the 404 that says which of
//! organization and workspace is missing, and the lock's holder from the workspace's `locked-by`.

use statectl_state::state::store::StoreError;
use statectl_state::state::store::lock_info::LockInfo;
use url::Url;

use super::HcpState;
use super::client::{Call, Client, Failure};
use super::settings::{Settings, Target};
use crate::escape;
use crate::listing::DEFAULT_MAX_PAGES;

impl HcpState {
    /// The remote workspace's name: given, or the one the tags select.
    pub(super) fn workspace_name(&self, target: &Target) -> Result<String, StoreError> {
        let (tags, bindings, chosen) = match target {
            Target::Named(name) => return Ok(name.clone()),
            Target::Tagged {
                tags,
                bindings,
                chosen,
            } => (tags, bindings, chosen),
        };
        let names = self.tagged(tags, bindings)?;
        // A key/value tag is named with its value: `env=prod`.
        let described = tags
            .iter()
            .map(|tag| match bindings.iter().find(|(key, _)| key == tag) {
                Some((key, value)) => format!("{key}={value}"),
                None => tag.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ");
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

    /// The names of the workspaces carrying every tag of `tags` (each of `bindings` with its
    /// value), every page of them (each page number followed once and only forward, within the
    /// page limit), sorted, each once.
    fn tagged(
        &self,
        tags: &[String],
        bindings: &[(String, String)],
    ) -> Result<Vec<String>, StoreError> {
        let filters = super::mapping::tag_filters(tags, bindings);
        let hint = "the server keeps offering pages of workspaces; name the workspace (`workspaces { name = ... }`) rather than select it by tags";
        // The names select one workspace: one listed twice changes nothing, so no warning.
        let (named, _warnings) = self.workspaces_where(&filters, DEFAULT_MAX_PAGES, hint)?;
        Ok(named.into_iter().map(|(name, _)| name).collect())
    }

    /// A 404 for the workspace `name` (empty: the organization's list): the organization or the
    /// workspace is missing, or the token may not see it (the API says 404 for both).
    pub(super) fn not_found(&self, name: &str) -> StoreError {
        let organization = &self.settings.organization;
        let org_exists = self
            .api_call(
                "find the organization",
                reqwest::Method::GET,
                &format!("organizations/{}", escape::path_segment(organization)),
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

    /// Who holds the workspace's lock, from its `locked-by` relationship.
    pub(super) fn holder(&self) -> Option<LockInfo> {
        let answer = self
            .api_call(
                "read the lock",
                reqwest::Method::GET,
                &self.workspace_path("?include=locked_by"),
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
    pub(super) fn held_by(&self, who: String) -> LockInfo {
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

    pub(super) fn lock_id(&self) -> String {
        format!("{}/{}", self.settings.organization, self.workspace)
    }
}

/// The `tfe.v2` service of the host's discovery document, as Terraform's `disco` reads it.
pub(super) fn discover(
    client: &Client,
    settings: &Settings,
    origin: &str,
) -> Result<Url, StoreError> {
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

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
