//! Every workspace a `cloud` block or `backend "remote"` maps to, named as `terraform workspace
//! list` names them (Terraform's `Workspaces()` of `internal/cloud` and `internal/backend/remote`):
//!
//! - `cloud` with `name`: that one workspace, without a request;
//! - `cloud` with `tags`: the organization's workspaces carrying them all (`search[tags]`; for
//!   `tags = { key = "value" }` the keys there, and each pair in `filter[tagged][N][key]` and
//!   `[value]`, as Terraform asks), and with neither `name` nor `tags` every workspace; in both,
//!   when `project` (or `TF_CLOUD_PROJECT`) names one that exists, only that project's
//!   (`filter[project][id]`, the project found by `filter[names]` as Terraform finds it; a
//!   project not found filters nothing, as in Terraform, and says so);
//! - `remote` with `name`: `default`, which is that workspace;
//! - `remote` with `prefix`: the workspaces whose names start with it (`search[name]`), named
//!   without it.
//!
//! The list is read a page of 100 at a time within the listing rules every backend shares
//! (`crate::listing`: at most `max_pages` pages, a page number that does not move forward ends it
//! with a warning, a workspace listed twice counts once), each answer at most [`MAX_PAGE`] bytes.
//! Each listed workspace is then opened by the ID the list gave, on the listing's own client: no
//! request more until its state is read.

use std::collections::HashMap;
use std::sync::Arc;

use statectl_state::state::store::{RemoteState, StoreError};

use super::HcpState;
use super::settings::{self, Mapping};
use crate::config::{self, BackendConfig};
use crate::discover::DEFAULT_WORKSPACE;
use crate::escape;
use crate::listing::{ListOptions, Pages};

/// The largest page of workspaces (or of projects) read: a hundred workspaces take a few hundred
/// KiB.
const MAX_PAGE: u64 = 16 << 20;
/// Workspaces a page: the API's most.
const PAGE_SIZE: u32 = 100;

/// Workspaces' names and IDs.
type NamesAndIds = Vec<(String, String)>;

/// The workspaces a block maps to, and how to open each one.
pub struct MappedWorkspaces {
    /// As `terraform workspace list` names them, sorted, each once.
    pub names: Vec<String>,
    /// What was odd about the listing, each line naming where.
    pub warnings: Vec<String>,
    /// The connection the listing used, which each workspace shares.
    base: HcpState,
    /// Each listed workspace's remote name and ID, by the name shown.
    listed: HashMap<String, (String, String)>,
    /// The one workspace of a block that names it (`cloud`'s `name`, `remote`'s `name`), by the
    /// name shown: found by its name when opened.
    named: Option<(String, String)>,
}

crate::debug::shown_in_debug!(MappedWorkspaces: names, warnings);

impl MappedWorkspaces {
    /// The state of workspace `name` (one of [`MappedWorkspaces::names`]).
    pub fn open(&self, name: &str) -> Result<Arc<dyn RemoteState>, StoreError> {
        if let Some((remote, id)) = self.listed.get(name) {
            return Ok(Arc::new(self.base.at(id, remote)));
        }
        match &self.named {
            Some((shown, remote)) if shown == name => Ok(Arc::new(self.base.find(remote)?)),
            _ => Err(StoreError::new(format!(
                "{}: workspace `{name}` is not one the backend maps to",
                self.base.location
            ))),
        }
    }
}

/// Every workspace `config` (kind `cloud` or `remote`) maps to, the list taking at most
/// `max_pages` pages.
pub fn mapped_workspaces(
    config: &BackendConfig,
    max_pages: u32,
) -> Result<MappedWorkspaces, StoreError> {
    let mapping = settings::mapping(config, &config::env)?;
    let base = HcpState::connect(config)?;
    let mut mapped = MappedWorkspaces {
        names: Vec::new(),
        warnings: Vec::new(),
        base,
        listed: HashMap::new(),
        named: None,
    };
    let (filters, prefix) = match mapping {
        Mapping::Named(name) => {
            mapped.names = vec![name.clone()];
            mapped.named = Some((name.clone(), name));
            return Ok(mapped);
        }
        Mapping::Default(name) => {
            mapped.names = vec![DEFAULT_WORKSPACE.to_owned()];
            mapped.named = Some((DEFAULT_WORKSPACE.to_owned(), name));
            return Ok(mapped);
        }
        Mapping::Listed {
            tags,
            bindings,
            project,
        } => {
            let mut filters = vec![tag_filters(&tags, &bindings)];
            if let Some(project) = project {
                match mapped.base.project_id(&project)? {
                    Some(id) => filters.push(format!(
                        "&filter%5Bproject%5D%5Bid%5D={}",
                        escape::unreserved(&id)
                    )),
                    None => mapped.warnings.push(format!(
                        "{}: project `{project}` was not found in organization `{}`; as Terraform does, the workspaces of every project are listed",
                        mapped.base.location, mapped.base.settings.organization
                    )),
                }
            }
            (filters.concat(), String::new())
        }
        Mapping::Prefixed(prefix) => (
            format!("&search%5Bname%5D={}", escape::unreserved(&prefix)),
            prefix,
        ),
    };
    let hint = "raise the limit with `--max-pages N` if the organization really has that many workspaces (100 a page)";
    let (ids, warnings) = mapped.base.workspaces_where(&filters, max_pages, hint)?;
    mapped.warnings.extend(warnings);
    for (remote, id) in ids {
        // `search[name]` matches anywhere in the name; the prefix is what counts, as in Terraform.
        let Some(shown) = remote.strip_prefix(&prefix).filter(|name| !name.is_empty()) else {
            continue;
        };
        mapped.names.push(shown.to_owned());
        mapped.listed.insert(shown.to_owned(), (remote.clone(), id));
    }
    mapped.names.sort();
    Ok(mapped)
}

impl HcpState {
    /// The ID of the organization's project named `name`, as Terraform finds it: the first page of
    /// `filter[names]`, the one named exactly so; `None` when there is none (or the API answers
    /// 404, which Terraform also takes as none).
    fn project_id(&self, name: &str) -> Result<Option<String>, StoreError> {
        let doing = "find the project";
        let path = format!(
            "organizations/{}/projects?filter%5Bnames%5D={}",
            escape::path_segment(&self.settings.organization),
            escape::unreserved(name)
        );
        let answer = self.api_call_capped(doing, reqwest::Method::GET, &path, None, MAX_PAGE)?;
        match answer.status {
            200 => {}
            404 => return Ok(None),
            _ => return Err(self.refused(doing, &answer)),
        }
        Ok(answer.json()["data"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|project| project["attributes"]["name"] == name)
            .and_then(|project| project["id"].as_str())
            .map(ToOwned::to_owned))
    }

    /// The name and ID of every workspace of the organization the query `filters` (`&key=value`
    /// pairs, escaped) selects, sorted by name, each once, every page of them within `max_pages`
    /// (`hint` says what to do past it); and what was odd about the listing.
    pub(super) fn workspaces_where(
        &self,
        filters: &str,
        max_pages: u32,
        hint: &str,
    ) -> Result<(NamesAndIds, Vec<String>), StoreError> {
        let doing = "list the workspaces";
        let keep = |_: &str| true;
        let options = ListOptions {
            keep: &keep,
            max_pages,
        };
        let mut pages = Pages::new(&self.location, options).counting("workspace");
        let mut ids: HashMap<String, String> = HashMap::new();
        let mut page: u64 = 1;
        loop {
            let path = format!(
                "organizations/{}/workspaces?page%5Bsize%5D={PAGE_SIZE}&page%5Bnumber%5D={page}{filters}",
                escape::path_segment(&self.settings.organization),
            );
            let answer =
                self.api_call_capped(doing, reqwest::Method::GET, &path, None, MAX_PAGE)?;
            match answer.status {
                200 => {}
                404 => return Err(self.not_found("")),
                _ => return Err(self.refused(doing, &answer)),
            }
            let json = answer.json();
            let Some(data) = json["data"].as_array() else {
                return Err(StoreError::new(format!(
                    "{}: cannot {doing}: the answer to page {page} is not a list of workspaces",
                    self.location
                )));
            };
            let mut names = Vec::with_capacity(data.len());
            for workspace in data {
                if let (Some(name), Some(id)) = (
                    workspace["attributes"]["name"].as_str(),
                    workspace["id"].as_str(),
                ) {
                    ids.entry(name.to_owned()).or_insert_with(|| id.to_owned());
                    names.push(name.to_owned());
                }
            }
            pages.page(names);
            match json["meta"]["pagination"]["next-page"].as_u64() {
                // A page number that does not move forward would list the same pages again.
                Some(next) if next <= page => {
                    pages.went_round();
                    break;
                }
                Some(next) => {
                    let followed = pages
                        .follow(&next.to_string())
                        .map_err(|error| StoreError::new(error.message).with_hint(hint))?;
                    if !followed {
                        break;
                    }
                    page = next;
                }
                None => break,
            }
        }
        let listed = pages.finish();
        let warnings = listed
            .warnings
            .iter()
            .map(|warning| format!("{}: {warning}", self.location))
            .collect();
        let named = listed
            .keys
            .into_iter()
            .map(|name| {
                let id = ids.remove(&name).unwrap_or_default();
                (name, id)
            })
            .collect();
        Ok((named, warnings))
    }
}

/// The query of a workspace list narrowed to `tags` (`search[tags]`, by key) and, for key/value
/// tags, to each pair (`filter[tagged][N][key]` and `[value]`), as go-tfe sends them.
pub(super) fn tag_filters(tags: &[String], bindings: &[(String, String)]) -> String {
    let mut filters = Vec::new();
    if !tags.is_empty() {
        filters.push(format!(
            "&search%5Btags%5D={}",
            escape::unreserved(&tags.join(","))
        ));
    }
    for (index, (key, value)) in bindings.iter().enumerate() {
        filters.push(format!(
            "&filter%5Btagged%5D%5B{index}%5D%5Bkey%5D={}&filter%5Btagged%5D%5B{index}%5D%5Bvalue%5D={}",
            escape::unreserved(key),
            escape::unreserved(value)
        ));
    }
    filters.concat()
}
