//! Every state below a prefix of a bucket, for `statectl scan oci://namespace/bucket/prefix/`: the
//! objects listed page by page (ListObjects with `prefix`, `start` and the answer's
//! `nextStartWith`, which must move forward, within the page limit), lock objects (`*.lock`) left
//! out, each object a state sharing the listing's client, key and runtime.

use statectl_state::state::store::StoreError;

use super::OciState;
use super::client::{self, Call};
use super::settings::LOCK_FILE_SUFFIX;
use crate::listing::{ListOptions, Listed, Pages};

/// Objects asked for a page, as Terraform asks.
const PAGE: u32 = 1000;

impl OciState {
    /// The names of the states under `prefix` that `options` keeps, in name order.
    pub fn keys_under(&self, prefix: &str, options: ListOptions<'_>) -> Result<Listed, StoreError> {
        let location = self.settings.location_of(&format!("{prefix}*"));
        let mut pages = Pages::new(&location, options);
        let mut start: Option<String> = None;
        loop {
            let mut call = Call::new(
                "GET",
                format!(
                    "{}/o",
                    client::bucket_path(&self.settings.namespace, &self.settings.bucket)
                ),
            );
            call.query.push(("prefix", prefix.to_owned()));
            if let Some(start) = &start {
                call.query.push(("start", start.clone()));
            }
            call.query.push(("limit", PAGE.to_string()));
            call.query.push(("fields", "name".to_owned()));
            let doing = super::errors::Doing {
                location: &location,
                what: "list the states",
                request: "ListObjects".to_owned(),
                key: &self.key,
            };
            let answer = self.expect(&call, &doing, &[200])?;
            let page: Page = serde_json::from_slice(&answer.body).map_err(|error| {
                StoreError::new(format!(
                    "{location}: cannot list the states: the ListObjects answer is not the service's JSON: {error}"
                ))
            })?;
            pages.page(
                page.objects
                    .into_iter()
                    .map(|object| object.name)
                    .filter(|name| !name.ends_with(LOCK_FILE_SUFFIX)),
            );
            let next = page.next_start_with.filter(|next| !next.is_empty());
            // Names are listed in order: a next page that does not start after this one's start
            // would list them again.
            if let (Some(next), Some(start)) = (&next, &start)
                && next <= start
            {
                pages.went_round();
                break;
            }
            start = pages.next(next.as_deref())?;
            if start.is_none() {
                break;
            }
        }
        Ok(pages.finish())
    }

    /// The state `object` of the same bucket, with the same settings and client.
    pub(crate) fn at_object(&self, object: String) -> OciState {
        let mut settings = self.settings.clone();
        settings.object = object;
        let location = settings.location();
        OciState {
            settings,
            client: self.client.shared(),
            location,
            key: self.key.clone(),
        }
    }
}

/// A ListObjects answer.
#[derive(serde::Deserialize)]
struct Page {
    #[serde(default)]
    objects: Vec<Summary>,
    #[serde(rename = "nextStartWith")]
    next_start_with: Option<String>,
}

#[derive(serde::Deserialize)]
struct Summary {
    name: String,
}
