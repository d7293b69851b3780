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
use crate::listing::{DEFAULT_MAX_PAGES, ListOptions, Pages};

impl HcpState {
    /// The remote workspace's name: given, or the one the tags select.
    pub(super) fn workspace_name(&self) -> Result<String, StoreError> {
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

    /// The names of the workspaces carrying every tag of `tags`, every page of them (each page
    /// number followed once and only forward, within the page limit), sorted, each once.
    fn tagged(&self, tags: &[String]) -> Result<Vec<String>, StoreError> {
        let keep = |_: &str| true;
        let options = ListOptions {
            keep: &keep,
            max_pages: DEFAULT_MAX_PAGES,
        };
        let mut pages = Pages::new(&self.location, options).counting("workspace");
        let mut page = 1;
        loop {
            let path = format!(
                "organizations/{}/workspaces?search%5Btags%5D={}&page%5Bsize%5D=100&page%5Bnumber%5D={page}",
                escape::path_segment(&self.settings.organization),
                escape::path_segment(&tags.join(","))
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
            pages.page(
                json["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|workspace| workspace["attributes"]["name"].as_str())
                    .map(ToOwned::to_owned),
            );
            match json["meta"]["pagination"]["next-page"].as_u64() {
                // A page number that does not move forward would list the same pages again.
                Some(next) if next > page => {
                    let followed = pages.follow(&next.to_string()).map_err(|error| {
                        StoreError::new(error.message).with_hint(
                            "the server keeps offering pages of workspaces; name the workspace (`workspaces { name = ... }`) rather than select it by tags",
                        )
                    })?;
                    if !followed {
                        break;
                    }
                    page = next;
                }
                _ => break,
            }
        }
        // The names select one workspace: one listed twice changes nothing, so no warning.
        Ok(pages.finish().keys)
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
