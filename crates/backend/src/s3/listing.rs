//! Every state below a prefix of a bucket, for `statectl scan s3://bucket/prefix/`: the keys listed
//! page by page (`ListObjectsV2`), lock objects left out, each key a state that shares the listing's
//! clients and runtime, so that a thousand states cost one credential lookup.

use std::sync::Arc;

use statectl_state::state::store::StoreError;

use super::errors::Failure;
use super::settings::LOCK_FILE_SUFFIX;
use super::{Backend, S3State};

impl S3State {
    /// The states under `prefix` whose keys `keep` accepts, in key order. Lock objects
    /// (`*.tflock`) are never states.
    pub fn states_under(
        &self,
        prefix: &str,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<S3State>, StoreError> {
        let keys = self.runtime.block_on(self.backend.keys_under(prefix))?;
        Ok(keys
            .into_iter()
            .filter(|key| !key.ends_with(LOCK_FILE_SUFFIX) && keep(key))
            .map(|key| self.at_key(key))
            .collect())
    }

    /// The state at `key` of the same bucket, with the same settings and clients.
    fn at_key(&self, key: String) -> S3State {
        let mut settings = self.backend.settings.clone();
        settings.key = key;
        let location = settings.location();
        S3State {
            backend: Backend {
                settings,
                clients: self.backend.clients.clone(),
                location,
            },
            runtime: Arc::clone(&self.runtime),
        }
    }
}

impl Backend {
    /// Every object key under `prefix`, across pages.
    async fn keys_under(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let mut keys = Vec::new();
        let mut pages = self
            .clients
            .s3
            .list_objects_v2()
            .bucket(&self.settings.bucket)
            .prefix(prefix)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let page = match page {
                Ok(page) => page,
                Err(error) => {
                    let failure = Failure::from_sdk(&error);
                    return Err(self
                        .s3_error(
                            &failure,
                            &format!("{prefix}*"),
                            "listing the states",
                            "s3:ListBucket",
                        )
                        .await);
                }
            };
            keys.extend(
                page.contents()
                    .iter()
                    .filter_map(|object| object.key().map(ToOwned::to_owned)),
            );
        }
        Ok(keys)
    }
}
