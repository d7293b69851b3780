//! Every state below a prefix of a bucket, for `statectl scan gs://bucket/prefix/`: the object names
//! listed page by page (`pageToken`, each followed once, within the page limit), lock objects left
//! out, each name a state that shares the listing's client, token and runtime, so that a thousand
//! states cost one token.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use statectl_state::state::store::StoreError;

use super::settings::Settings;
use super::{Backend, GcsState, Reading, with_query};
use crate::listing::{ListOptions, Listed, Page, Pages};

impl GcsState {
    /// The names of the states under `prefix` that `options` keeps, in name order. Lock objects
    /// (`*.tflock`) are never states.
    pub fn keys_under(&self, prefix: &str, options: ListOptions<'_>) -> Result<Listed, StoreError> {
        let pages = Pages::new(&self.backend.location, options);
        let url = self.backend.objects_url();
        self.runtime
            .block_on(pages.read_all(|token| self.backend.names_page(&url, prefix, token)))
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
    /// The object names of the page of the listing under `prefix` that `page_token` names, from
    /// the objects' `url`.
    async fn names_page(
        &self,
        url: &str,
        prefix: &str,
        page_token: Option<String>,
    ) -> Result<Page, StoreError> {
        let mut query = vec![("prefix", prefix)];
        if let Some(token) = &page_token {
            query.push(("pageToken", token.as_str()));
        }
        let page_url = with_query(url, &query);
        let reading = Reading {
            doing: "listing the states",
            what: "list the states",
            object: &format!("{prefix}*"),
            permission: "storage.objects.list",
            document: "the object listing is",
        };
        let page = self.get_json(&page_url, reading).await?;
        let names = page["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item["name"].as_str())
            .filter(|name| !Settings::is_lock_object(name))
            .map(ToOwned::to_owned)
            .collect();
        Ok((names, page["nextPageToken"].as_str().map(ToOwned::to_owned)))
    }
}
