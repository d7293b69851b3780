//! The blob versions a storage account with versioning keeps of the state blob: List Blobs with
//! `include=versions` (the blob as prefix, only the blob itself kept) page by page within the page
//! limit, newest first (a version's id is the time it was written, in RFC 3339 with seven decimals,
//! so ids order as times do); a version's bytes are Get Blob with `versionid`. An account without
//! versioning lists no `VersionId`: no history. Azurite has no blob versioning (3.37 lists none),
//! so the tests check this side against the REST API's documented shapes on a loopback server.

use std::collections::HashSet;

use statectl_state::state::store::StoreError;
use statectl_state::state::store::versions::{Kept, StateVersions, Version};

use super::client::Request;
use super::listing::{elements, unescape};
use super::{AzureState, Backend};
use crate::version_pages::{VersionPages, read_version};

impl StateVersions for AzureState {
    fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        self.block_on(self.backend.versions(max_pages))
    }

    fn version(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        self.block_on(self.backend.blob_version(id))
    }
}

impl Backend {
    async fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        let doing = "list the state's versions";
        let blob = &self.settings.blob;
        let mut versions = Vec::new();
        let mut warnings = Vec::new();
        let mut unversioned = false;
        let mut seen = HashSet::new();
        let mut followed = VersionPages::new(&self.location, max_pages);
        let mut marker = None;
        let mut pages = 0;
        loop {
            let text = self
                .list_blobs(doing, blob, Some("versions"), marker.take())
                .await?;
            pages += 1;
            for entry in elements(&text, "Blob") {
                if elements(entry, "Name").next().map(unescape).as_deref() != Some(blob.as_str()) {
                    continue;
                }
                let Some(id) = elements(entry, "VersionId").next().map(unescape) else {
                    unversioned = true;
                    continue;
                };
                if !seen.insert(id.clone()) {
                    continue;
                }
                versions.push(version(entry, id));
            }
            let next = elements(&text, "NextMarker")
                .next()
                .map(unescape)
                .filter(|next| !next.is_empty());
            marker = followed.next(next, pages, versions.len(), &mut warnings)?;
            if marker.is_none() {
                break;
            }
        }
        if versions.is_empty() {
            let account = &self.settings.account;
            let why = if unversioned {
                format!(
                    "{}: storage account `{account}` keeps no versions of the blob (blob versioning is off), so the state has no history",
                    self.location
                )
            } else {
                format!(
                    "{}: there is no state there, nor any version of it",
                    self.location
                )
            };
            return Ok(Kept::Nothing {
                why,
                hint: unversioned.then(|| format!(
                    "`az storage account blob-service-properties update --account-name {account} --enable-versioning true` keeps every version from now on"
                )),
            });
        }
        // Version ids are their write times, which sort as text: the newest first.
        versions.sort_by(|one, other| other.id.cmp(&one.id));
        Ok(Kept::Versions { versions, warnings })
    }

    /// The bytes of version `id` of the blob.
    async fn blob_version(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        let doing = "read a version of the state";
        let request = Request {
            method: "GET",
            blob: Some(&self.settings.blob),
            query: vec![("versionid", id.to_owned())],
            ..Request::default()
        };
        let mut answer = self.client.send(request).await.map_err(|failure| {
            super::errors::failed(&self.target(), doing, "Get Blob", &failure)
        })?;
        let read = read_version(&self.location, id, answer.status, &mut answer.body);
        read.unwrap_or_else(|| Err(self.refused(doing, "Get Blob", &answer)))
    }
}

/// One `<Blob>` entry of a listing with versions.
fn version(entry: &str, id: String) -> Version {
    let properties = elements(entry, "Properties").next().unwrap_or_default();
    let property = |name: &str| elements(properties, name).next().map(unescape);
    let mut extras = Vec::new();
    if let Some(etag) = property("Etag") {
        extras.push(("etag", etag));
    }
    if let Some(tier) = property("AccessTier") {
        extras.push(("access_tier", tier));
    }
    Version {
        time: property("Last-Modified")
            .and_then(|text| httpdate::parse_http_date(&text).ok())
            .or_else(|| crate::rfc3339::system_time(&id)),
        size: property("Content-Length").and_then(|size| size.parse().ok()),
        latest: elements(entry, "IsCurrentVersion").next() == Some("true"),
        deleted: false,
        extras,
        id,
    }
}
