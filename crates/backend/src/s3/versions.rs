//! The versions a versioned bucket keeps of the state object: `ListObjectVersions` (the key as prefix, only the key itself kept) lists them page by
//! page within the page limit, object versions and delete markers merged newest first; a version's
//! bytes are a `GetObject` with its version id (and the SSE-C key, as for the state itself).

use std::collections::HashSet;
use std::time::SystemTime;

use statectl_state::state::store::StoreError;
use statectl_state::state::store::versions::{Kept, StateVersions, Version};

use super::{About, Backend, S3State};
use crate::version_pages::VersionPages;

/// S3's version id of an object written while the bucket's versioning was off.
const NULL_VERSION: &str = "null";

impl StateVersions for S3State {
    fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        self.runtime.block_on(self.backend.versions(max_pages))
    }

    fn version(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        self.runtime
            .block_on(self.backend.get_object_version(Some(id)))?
            .ok_or_else(|| {
                StoreError::new(format!(
                    "{}: version `{id}` is empty: it holds no state",
                    self.backend.location
                ))
            })
    }
}

impl Backend {
    /// The key's versions. A bucket that never kept versions lists one, `null`: S3's id for an
    /// object written while versioning was off. That is read from the listing rather than from
    /// `GetBucketVersioning`, which needs a permission of its own (and which moto answers in a
    /// shape the SDK refuses): where every version is `null`, the bucket keeps no history of the
    /// state, whatever its setting says.
    async fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        let bucket = &self.settings.bucket;
        let mut warnings = Vec::new();
        let versions = self.listed_versions(max_pages, &mut warnings).await?;
        if versions.iter().all(|version| version.id == NULL_VERSION) {
            return Ok(Kept::Nothing {
                why: format!(
                    "{}: bucket `{bucket}` keeps no versions of the state (versioning is off, or was off for every write of it), so it has no history",
                    self.location
                ),
                hint: Some(format!(
                    "`aws s3api put-bucket-versioning --bucket {bucket} --versioning-configuration Status=Enabled` keeps every version from now on"
                )),
            });
        }
        if versions.iter().any(|version| version.id == NULL_VERSION) {
            warnings.push(format!(
                "some writes of the state were made while versioning was off or suspended on bucket `{bucket}`: each replaced the one version `{NULL_VERSION}`"
            ));
        }
        Ok(Kept::Versions { versions, warnings })
    }

    /// Every version and delete marker of the key, newest first.
    async fn listed_versions(
        &self,
        max_pages: u32,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Version>, StoreError> {
        let key = &self.settings.key;
        let mut versions = Vec::new();
        let mut markers: Option<(String, String)> = None;
        let mut followed = VersionPages::new(&self.location, max_pages);
        // A version listed twice (a server repeating a page) is kept once.
        let mut seen = HashSet::new();
        let mut pages = 0;
        loop {
            let (key_marker, version_marker) = markers.take().unzip();
            let request = self
                .clients
                .s3
                .list_object_versions()
                .bucket(&self.settings.bucket)
                .prefix(key)
                .set_key_marker(key_marker)
                .set_version_id_marker(version_marker);
            let page = self
                .aws_output(
                    request.send(),
                    About::Object(key),
                    "listing the state's versions",
                    "s3:ListBucketVersions",
                )
                .await?;
            pages += 1;
            let of_key = |listed: Option<&str>| listed == Some(key.as_str());
            for object in page.versions() {
                if of_key(object.key()) && seen.insert(object.version_id().map(str::to_owned)) {
                    versions.push(Version {
                        id: object.version_id().unwrap_or(NULL_VERSION).to_owned(),
                        time: object.last_modified().and_then(system_time),
                        size: object.size().and_then(|size| u64::try_from(size).ok()),
                        latest: object.is_latest() == Some(true),
                        deleted: false,
                        extras: [
                            object.e_tag().map(|etag| ("etag", etag.to_owned())),
                            object
                                .storage_class()
                                .map(|class| ("storage_class", class.as_str().to_owned())),
                        ]
                        .into_iter()
                        .flatten()
                        .collect(),
                    });
                }
            }
            for marker in page.delete_markers() {
                if of_key(marker.key()) && seen.insert(marker.version_id().map(str::to_owned)) {
                    versions.push(Version {
                        id: marker.version_id().unwrap_or(NULL_VERSION).to_owned(),
                        time: marker.last_modified().and_then(system_time),
                        size: None,
                        latest: marker.is_latest() == Some(true),
                        deleted: true,
                        extras: Vec::new(),
                    });
                }
            }
            let next = (page.is_truncated() == Some(true))
                .then(|| page.next_key_marker().zip(page.next_version_id_marker()))
                .flatten();
            let Some((next_key, next_version)) = next else {
                break;
            };
            // Past the key itself, every version of it was listed: the rest of the prefix is
            // other objects (`app/terraform.tfstate.tflock`, `app/terraform.tfstate2`).
            if next_key != key.as_str() {
                break;
            }
            let next = (next_key.to_owned(), next_version.to_owned());
            markers = followed.next(Some(next), pages, versions.len(), warnings)?;
            if markers.is_none() {
                break;
            }
        }
        // S3 lists a key's versions newest first, but versions and delete markers apart: merged
        // by time, the latest first among equals.
        versions.sort_by(|one, other| {
            other
                .time
                .cmp(&one.time)
                .then(other.latest.cmp(&one.latest))
        });
        Ok(versions)
    }
}

fn system_time(time: &aws_smithy_types::DateTime) -> Option<SystemTime> {
    SystemTime::try_from(*time).ok()
}
