//! Every state below a prefix of a bucket, for `statectl scan gs://bucket/prefix/`: the object names
//! listed page by page (`pageToken`, each followed once, within the page limit), lock objects left
//! out, each name a state that shares the listing's client, token and runtime, so that a thousand
//! states cost one token.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use statectl_state::state::store::StoreError;

use super::settings::Settings;
use super::{Backend, GcsState, with_query};
use crate::listing::{ListOptions, Listed, Pages};

impl GcsState {
    /// The names of the states under `prefix` that `options` keeps, in name order. Lock objects
    /// (`*.tflock`) are never states.
    pub fn keys_under(&self, prefix: &str, options: ListOptions<'_>) -> Result<Listed, StoreError> {
        self.runtime
            .block_on(self.backend.names_under(prefix, options))
    }

    /// The state at `object` of the same bucket, with the same settings, client and token.
    pub(crate) fn at_object(&self, object: String) -> GcsState {
        let settings = self.backend.settings.at_object(object);
        let location = settings.location();
        GcsState {
            backend: Backend {
                settings,
                http: self.backend.http.clone(),
                tokens: Arc::clone(&self.backend.tokens),
                location,
                generations: Mutex::new(HashMap::new()),
            },
            runtime: Arc::clone(&self.runtime),
        }
    }
}

impl Backend {
    /// Every object name under `prefix`, across pages.
    async fn names_under(
        &self,
        prefix: &str,
        options: ListOptions<'_>,
    ) -> Result<Listed, StoreError> {
        let url = self.objects_url();
        let mut pages = Pages::new(&self.location, options);
        let mut page_token: Option<String> = None;
        loop {
            let mut query = vec![("prefix", prefix)];
            if let Some(token) = &page_token {
                query.push(("pageToken", token.as_str()));
            }
            let page_url = with_query(&url, &query);
            let answer = self
                .call("listing the states", true, |client| client.get(&page_url))
                .await?;
            if answer.status != 200 {
                return Err(self
                    .refused(
                        &answer,
                        "list the states",
                        &format!("{prefix}*"),
                        "storage.objects.list",
                    )
                    .await);
            }
            let page: serde_json::Value = serde_json::from_slice(&answer.body).map_err(|_| {
                StoreError::new(format!("{}: the object listing is not JSON", self.location))
            })?;
            pages.page(
                page["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|item| item["name"].as_str())
                    .filter(|name| !Settings::is_lock_object(name))
                    .map(ToOwned::to_owned),
            );
            page_token = pages.next(page["nextPageToken"].as_str())?;
            if page_token.is_none() {
                break;
            }
        }
        Ok(pages.finish())
    }
}
