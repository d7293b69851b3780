//! The generations a bucket with object versioning keeps of the state object: the bucket's
//! `versioning.enabled` read first (`storage.buckets.get`), then `objects.list` with
//! `versions=true` (the object as prefix, only the object itself kept) page by page within the
//! page limit, newest generation first; a generation's bytes are the object read with
//! `generation=` (and the customer-supplied key, as for the state itself). Cloud Storage has no
//! delete markers: a deleted or replaced generation is noncurrent (`timeDeleted`).

use std::collections::HashSet;

use statectl_state::state::store::StoreError;
use statectl_state::state::store::versions::{Kept, StateVersions, Version};

use super::{Backend, GcsState, Reading, with_key, with_query};
use crate::escape;
use crate::version_pages::{VersionPages, read_unit};

impl StateVersions for GcsState {
    fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        self.runtime.block_on(self.backend.versions(max_pages))
    }

    fn version(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        self.runtime.block_on(self.backend.generation(id))
    }
}

impl Backend {
    async fn versions(&self, max_pages: u32) -> Result<Kept, StoreError> {
        let bucket = &self.settings.bucket;
        let url = format!("{}b/{}", self.settings.endpoint, escape::unreserved(bucket));
        let reading = Reading {
            doing: "reading whether the bucket keeps versions",
            what: "read the bucket's settings",
            object: "",
            permission: "storage.buckets.get",
            document: "the bucket's settings are",
        };
        let settings = self.get_json(&url, reading).await?;
        let enabled = settings["versioning"]["enabled"].as_bool() == Some(true);
        let mut warnings = Vec::new();
        let versions = self.listed_generations(max_pages, &mut warnings).await?;
        if !enabled && versions.len() <= 1 {
            return Ok(Kept::Nothing {
                why: format!(
                    "{}: bucket `{bucket}` keeps no versions (object versioning is off), so the state has no history",
                    self.location
                ),
                hint: Some(format!(
                    "`gcloud storage buckets update gs://{bucket} --versioning` keeps every generation from now on"
                )),
            });
        }
        if !enabled {
            warnings.push(format!(
                "object versioning is off on bucket `{bucket}` now: the generations kept before are listed, and the next write replaces the live one for good"
            ));
        }
        Ok(Kept::Versions { versions, warnings })
    }

    /// Every generation of the object, newest first.
    async fn listed_generations(
        &self,
        max_pages: u32,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Version>, StoreError> {
        let object = &self.settings.object;
        let url = self.objects_url();
        let mut versions: Vec<(i64, Version)> = Vec::new();
        let mut seen = HashSet::new();
        let mut followed = VersionPages::new(&self.location, max_pages).named(
            "generation listing",
            "generations",
            "endpoint",
        );
        let mut page_token: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut query = vec![("prefix", object.as_str()), ("versions", "true")];
            if let Some(token) = &page_token {
                query.push(("pageToken", token.as_str()));
            }
            let page_url = with_query(&url, &query);
            let reading = Reading {
                doing: "listing the state's generations",
                what: "list the state's generations",
                object,
                permission: "storage.objects.list",
                document: "the generation listing is",
            };
            let page = self.get_json(&page_url, reading).await?;
            pages += 1;
            for item in page["items"].as_array().into_iter().flatten() {
                if item["name"].as_str() != Some(object.as_str()) {
                    continue;
                }
                let Some(id) = item["generation"].as_str() else {
                    continue;
                };
                let Ok(generation) = id.parse::<i64>() else {
                    continue;
                };
                if !seen.insert(generation) {
                    continue;
                }
                let text = |name: &str| item[name].as_str().map(ToOwned::to_owned);
                versions.push((
                    generation,
                    Version {
                        id: id.to_owned(),
                        time: item["timeCreated"]
                            .as_str()
                            .and_then(crate::rfc3339::system_time),
                        size: item["size"].as_str().and_then(|size| size.parse().ok()),
                        latest: item.get("timeDeleted").is_none(),
                        deleted: false,
                        extras: [
                            text("md5Hash").map(|md5| ("md5", md5)),
                            text("storageClass").map(|class| ("storage_class", class)),
                            text("timeDeleted").map(|time| ("noncurrent_since", time)),
                        ]
                        .into_iter()
                        .flatten()
                        .collect(),
                    },
                ));
            }
            let next = page["nextPageToken"]
                .as_str()
                .filter(|next| !next.is_empty())
                .map(ToOwned::to_owned);
            page_token = followed.next(next, pages, versions.len(), warnings)?;
            if page_token.is_none() {
                break;
            }
        }
        // Generations grow with each write: the highest is the newest.
        versions.sort_by_key(|(generation, _)| std::cmp::Reverse(*generation));
        Ok(versions.into_iter().map(|(_, version)| version).collect())
    }

    /// The bytes of generation `id` of the object.
    async fn generation(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        let object = &self.settings.object;
        let url = with_query(
            &self.object_url(object),
            &[("alt", "media"), ("generation", id)],
        );
        let key = self.settings.encryption_key.as_ref();
        let mut answer = self
            .call("reading a generation of the state", true, |client| {
                with_key(client.get(&url), key)
            })
            .await?;
        if let Some(read) = read_unit(
            &self.location,
            "generation",
            id,
            answer.status,
            &mut answer.body,
        ) {
            return read;
        }
        Err(self
            .refused(
                &answer,
                "read a generation of the state",
                object,
                "storage.objects.get",
            )
            .await)
    }
}
