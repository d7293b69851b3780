//! Every state below a prefix of a bucket, for `statectl scan oci://namespace/bucket/prefix/`: the
//! objects listed page by page (ListObjects with `prefix`, `start` and the answer's
//! `nextStartWith`), lock objects (`*.lock`) left out, each object a state sharing the listing's
//! client, key and runtime.

use statectl_state::state::store::StoreError;

use super::OciState;
use super::client::{self, Call};
use super::settings::LOCK_FILE_SUFFIX;

/// Objects asked for a page, as Terraform asks.
const PAGE: u32 = 1000;
/// A listing stops here rather than follow a server that never ends its pages.
const MAX_PAGES: u32 = 100_000;

impl OciState {
    /// The states under `prefix` whose object names `keep` accepts, in name order.
    pub fn states_under(
        &self,
        prefix: &str,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<OciState>, StoreError> {
        Ok(self
            .objects_under(prefix)?
            .into_iter()
            .filter(|name| !name.ends_with(LOCK_FILE_SUFFIX) && keep(name))
            .map(|name| self.at_object(name))
            .collect())
    }

    /// The state `object` of the same bucket, with the same settings and client.
    fn at_object(&self, object: String) -> OciState {
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

    /// Every object name under `prefix`, across pages.
    fn objects_under(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let location = self.settings.location_of(&format!("{prefix}*"));
        let mut names = Vec::new();
        let mut start: Option<String> = None;
        for _ in 0..MAX_PAGES {
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
            let answer = self
                .client
                .send(&call)
                .map_err(|failure| doing.failed(failure))?;
            if answer.status != 200 {
                return Err(doing.refused(&answer));
            }
            let page: Page = serde_json::from_slice(&answer.body).map_err(|error| {
                StoreError::new(format!(
                    "{location}: cannot list the states: the ListObjects answer is not the service's JSON: {error}"
                ))
            })?;
            names.extend(page.objects.into_iter().map(|object| object.name));
            match page.next_start_with {
                // A next page must start after this one's start, or the listing would go round.
                Some(next)
                    if !next.is_empty() && start.as_ref().is_none_or(|start| next > *start) =>
                {
                    start = Some(next);
                }
                Some(next) if !next.is_empty() => {
                    return Err(StoreError::new(format!(
                        "{location}: cannot list the states: the service's next page starts at `{next}` again"
                    )));
                }
                _ => {
                    names.sort();
                    names.dedup();
                    return Ok(names);
                }
            }
        }
        Err(StoreError::new(format!(
            "{location}: cannot list the states: more than {MAX_PAGES} pages"
        )))
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
