//! Every state below a prefix of a bucket, for `statectl scan s3://bucket/prefix/`: the keys listed
//! page by page (`ListObjectsV2`, each continuation token followed once, within the page limit),
//! lock objects left out, each key a state that shares the listing's clients and runtime, so that
//! a thousand states cost one credential lookup.

use std::sync::Arc;

use statectl_state::state::store::StoreError;

use super::settings::LOCK_FILE_SUFFIX;
use super::{About, Backend, S3State};
use crate::listing::{ListOptions, Listed, Page, Pages};

impl S3State {
    /// The keys of the states under `prefix` that `options` keeps. Lock objects (`*.tflock`) are
    /// never states.
    pub fn keys_under(&self, prefix: &str, options: ListOptions<'_>) -> Result<Listed, StoreError> {
        let pages = Pages::new(&self.backend.location, options);
        self.runtime
            .block_on(pages.read_all(|token| self.backend.keys_page(prefix, token)))
    }

    /// The state at `key` of the same bucket, with the same settings and clients.
    pub(crate) fn at_key(&self, key: String) -> S3State {
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
    /// The object keys of the page of the listing under `prefix` that `token` names. The SDK's
    /// paginator stops only on a token repeated at once; a server alternating two would keep it
    /// going, so the pages are asked for one by one.
    async fn keys_page(&self, prefix: &str, token: Option<String>) -> Result<Page, StoreError> {
        let page = self
            .aws_output(
                self.clients
                    .s3
                    .list_objects_v2()
                    .bucket(&self.settings.bucket)
                    .prefix(prefix)
                    .set_continuation_token(token)
                    .send(),
                About::Object(&format!("{prefix}*")),
                "listing the states",
                "s3:ListBucket",
            )
            .await?;
        let keys = page
            .contents()
            .iter()
            .filter_map(|object| object.key())
            .filter(|key| !key.ends_with(LOCK_FILE_SUFFIX))
            .map(ToOwned::to_owned)
            .collect();
        // As the SDK's paginator: a page without a next token is the last.
        let next = page
            .next_continuation_token()
            .filter(|_| page.is_truncated() != Some(false));
        Ok((keys, next.map(ToOwned::to_owned)))
    }
}
