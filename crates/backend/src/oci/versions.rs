//! The object versions a bucket with versioning keeps of the state object: the bucket's
//! `versioning` read first (`GetBucket`), then `ListObjectVersions` (the object as prefix, only
//! the object itself kept; `opc-next-page` followed once within the page limit), newest first by
//! modification time, delete markers shown as such; a version's bytes are `GetObject` with
//! `versionId` (and the customer-supplied key). The simulator has no object versions, so the tests
//! check this side against the API's documented shapes on a loopback server.

use std::collections::HashSet;

use statectl_state::state::store::StoreError;
use statectl_state::state::store::versions::{Kept, StateVersions, Version};

use super::OciState;
use super::client::{self, Call};
use crate::version_pages::{VersionPages, read_version};

/// One entry of a `ListObjectVersions` answer.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    name: String,
    version_id: Option<String>,
    size: Option<u64>,
    time_modified: Option<String>,
    #[serde(default)]
    is_delete_marker: bool,
    etag: Option<String>,
    md5: Option<String>,
}

#[derive(serde::Deserialize)]
struct Page {
    #[serde(default)]
    items: Vec<Summary>,
}

impl StateVersions for OciState {
    fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        let bucket_path = client::bucket_path(&self.settings.namespace, &self.settings.bucket);
        let doing = self.doing("read whether the bucket keeps versions", "GET", "");
        let answer = self.expect(&Call::new("GET", bucket_path.clone()), &doing, &[200])?;
        let settings: serde_json::Value =
            serde_json::from_slice(&answer.body).unwrap_or(serde_json::Value::Null);
        let versioning = settings["versioning"].as_str().unwrap_or("Disabled");
        let bucket = &self.settings.bucket;
        if versioning == "Disabled" {
            return Ok(Kept::Nothing {
                why: format!(
                    "{}: bucket `{bucket}` keeps no versions (versioning is disabled), so the state has no history",
                    self.location
                ),
                hint: Some(format!(
                    "`oci os bucket update --bucket-name {bucket} --versioning Enabled` keeps every version from now on"
                )),
            });
        }
        let mut warnings = Vec::new();
        if versioning == "Suspended" {
            warnings.push(format!(
                "versioning is suspended on bucket `{bucket}`: the versions kept before are listed"
            ));
        }
        let mut versions = self.listed_versions(&bucket_path, max_pages, &mut warnings)?;
        // Newest first; OCI marks none as the latest: the newest is what a read gets.
        versions.sort_by_key(|version| std::cmp::Reverse(version.time));
        if let Some(newest) = versions.first_mut() {
            newest.latest = true;
        }
        Ok(Kept::Versions { versions, warnings })
    }

    fn version(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        let object = &self.settings.object;
        let doing = self.doing("read a version of the state", "GET", object);
        let mut call = Call::new("GET", self.object_path(object));
        call.query.push(("versionId", id.to_owned()));
        call.headers = self.customer_key_headers();
        let mut answer = self
            .client
            .send(&call)
            .map_err(|failure| doing.failed(failure))?;
        let read = read_version(&self.location, id, answer.status, &mut answer.body);
        read.unwrap_or_else(|| Err(doing.refused(&answer)))
    }
}

impl OciState {
    /// Every version and delete marker of the object, as listed.
    fn listed_versions(
        &self,
        bucket_path: &str,
        max_pages: u32,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Version>, StoreError> {
        let doing = self.doing("list the state's versions", "ListObjectVersions", "");
        let object = &self.settings.object;
        let mut versions: Vec<Version> = Vec::new();
        let mut seen = HashSet::new();
        let mut followed = VersionPages::new(&self.location, max_pages);
        let mut page: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut call = Call::new("GET", format!("{bucket_path}/objectversions"));
            call.query.push(("prefix", object.clone()));
            call.query
                .push(("fields", "name,size,timeModified,md5,etag".to_owned()));
            if let Some(page) = &page {
                call.query.push(("page", page.clone()));
            }
            let answer = self.expect(&call, &doing, &[200])?;
            pages += 1;
            let listed: Page = serde_json::from_slice(&answer.body).map_err(|error| {
                StoreError::new(format!(
                    "{}: cannot list the state's versions: the ListObjectVersions answer is not the service's JSON: {error}",
                    self.location
                ))
            })?;
            for item in listed.items {
                if item.name != *object {
                    continue;
                }
                let Some(id) = item.version_id else { continue };
                if !seen.insert(id.clone()) {
                    continue;
                }
                versions.push(Version {
                    id,
                    time: item
                        .time_modified
                        .as_deref()
                        .and_then(crate::rfc3339::system_time),
                    size: if item.is_delete_marker {
                        None
                    } else {
                        item.size
                    },
                    latest: false,
                    deleted: item.is_delete_marker,
                    extras: [
                        item.etag.map(|etag| ("etag", etag)),
                        item.md5.map(|md5| ("md5", md5)),
                    ]
                    .into_iter()
                    .flatten()
                    .collect(),
                });
            }
            let next = answer
                .header("opc-next-page")
                .filter(|next| !next.is_empty())
                .map(ToOwned::to_owned);
            page = followed.next(next, pages, versions.len(), warnings)?;
            if page.is_none() {
                break;
            }
        }
        Ok(versions)
    }
}
