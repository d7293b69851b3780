//! The state versions HCP Terraform keeps of a workspace, for `statectl history`: `GET
//! state-versions` filtered by organization and workspace name (newest first, 100 a page, each
//! `next-page` followed once within the page limit, `include=created_by` for the users), each
//! version with its serial's creation time, size, the run that made it and the user; a version's
//! bytes come from its `hosted-state-download-url`, as the current one's do.

use std::collections::HashSet;

use serde_json::Value;
use statectl_state::state::store::StoreError;
use statectl_state::state::store::versions::{Kept, StateVersions, Version};

use super::HcpState;
use crate::escape;
use crate::version_pages::VersionPages;

impl StateVersions for HcpState {
    fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        let doing = "list the state versions";
        let mut versions = Vec::new();
        let mut warnings = Vec::new();
        let mut seen = HashSet::new();
        let mut asked = VersionPages::new(&self.location, max_pages).named(
            "state version listing",
            "versions",
            "host",
        );
        let mut page: u64 = 1;
        let mut pages = 0;
        loop {
            let answer = self.api_call(
                doing,
                reqwest::Method::GET,
                &format!(
                    "state-versions?filter%5Bworkspace%5D%5Bname%5D={}&filter%5Borganization%5D%5Bname%5D={}&page%5Bnumber%5D={page}&page%5Bsize%5D=100&include=created_by",
                    escape::path_segment(&self.workspace),
                    escape::path_segment(&self.settings.organization)
                ),
                None,
            )?;
            if answer.status != 200 {
                return Err(self.refused(doing, &answer));
            }
            pages += 1;
            let document = answer.json();
            let users = usernames(&document);
            for entry in document["data"].as_array().into_iter().flatten() {
                let Some(id) = entry["id"].as_str() else {
                    continue;
                };
                if !seen.insert(id.to_owned()) {
                    continue;
                }
                versions.push(version(entry, &users, versions.is_empty()));
            }
            let Some(next) = document["meta"]["pagination"]["next-page"].as_u64() else {
                break;
            };
            if next <= page {
                asked.went_round(pages, &mut warnings);
                break;
            }
            if !asked.follow(next, pages, versions.len(), &mut warnings)? {
                break;
            }
            page = next;
        }
        Ok(Kept::Versions { versions, warnings })
    }

    fn version(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        let doing = "read a state version";
        let answer = self.api_call(
            doing,
            reqwest::Method::GET,
            &format!("state-versions/{}", escape::path_segment(id)),
            None,
        )?;
        match answer.status {
            200 => {}
            404 => {
                return Err(StoreError::new(format!(
                    "{}: there is no state version `{id}`",
                    self.location
                )));
            }
            _ => return Err(self.refused(doing, &answer)),
        }
        self.download_of(&answer, || {
            format!("state version `{id}` has no download URL (is it still pending?)")
        })?
        .ok_or_else(|| {
            StoreError::new(format!(
                "{}: state version `{id}` is empty: it holds no state",
                self.location
            ))
        })
    }
}

/// The `username` of each user `included` names, by ID.
fn usernames(document: &Value) -> Vec<(String, String)> {
    document["included"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "users")
        .filter_map(|item| {
            Some((
                item["id"].as_str()?.to_owned(),
                item["attributes"]["username"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// One entry of the listing; the first listed is the current state.
fn version(entry: &Value, users: &[(String, String)], first: bool) -> Version {
    let attributes = &entry["attributes"];
    let relationships = &entry["relationships"];
    let mut extras = Vec::new();
    if let Some(run) = relationships["run"]["data"]["id"].as_str() {
        extras.push(("run", run.to_owned()));
    }
    if let Some(user) = relationships["created-by"]["data"]["id"].as_str() {
        let name = users
            .iter()
            .find(|(id, _)| id == user)
            .map_or(user, |(_, name)| name.as_str());
        extras.push(("user", name.to_owned()));
    }
    if let Some(status) = attributes["status"].as_str() {
        extras.push(("status", status.to_owned()));
    }
    Version {
        id: entry["id"].as_str().unwrap_or_default().to_owned(),
        time: attributes["created-at"]
            .as_str()
            .and_then(crate::rfc3339::system_time),
        size: attributes["size"].as_u64(),
        latest: first,
        deleted: false,
        extras,
    }
}
