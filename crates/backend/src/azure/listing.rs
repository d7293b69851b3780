//! Every state below a prefix of a container, for `statectl scan azurerm://account/container/prefix/`:
//! the blob names listed page by page (List Blobs with `prefix` and `marker`, each marker followed
//! once, within the page limit), each a state that shares the listing's client, so that a thousand
//! states cost one credential.

use std::sync::Arc;

use statectl_state::state::store::StoreError;

use super::client::Request;
use super::{AzureState, Backend};
use crate::listing::{ListOptions, Listed, Page, Pages};

impl AzureState {
    /// The blob names of the states under `prefix` that `options` keeps, in name order.
    pub fn keys_under(&self, prefix: &str, options: ListOptions<'_>) -> Result<Listed, StoreError> {
        let pages = Pages::new(&self.backend.location, options);
        self.block_on(pages.read_all(|marker| self.backend.names_page(prefix, marker)))
    }

    /// The state in blob `name` of the same container, with the same settings and client.
    pub(crate) fn at_blob(&self, name: String) -> AzureState {
        let mut settings = self.backend.settings.clone();
        settings.blob = name;
        let location = settings.location();
        AzureState {
            backend: Backend {
                settings,
                client: Arc::clone(&self.backend.client),
                location,
            },
        }
    }
}

impl Backend {
    /// The blob names of the page of the listing under `prefix` that `marker` names.
    async fn names_page(&self, prefix: &str, marker: Option<String>) -> Result<Page, StoreError> {
        let text = self
            .list_blobs("list the states", prefix, None, marker)
            .await?;
        let page = parse_names(&text);
        Ok((page.names, page.next_marker))
    }

    /// The text of one page of List Blobs under `prefix` (with `include` when given, from
    /// `marker` when there is one), for the listing of states and of a blob's versions.
    pub(super) async fn list_blobs(
        &self,
        doing: &str,
        prefix: &str,
        include: Option<&str>,
        marker: Option<String>,
    ) -> Result<String, StoreError> {
        let mut query = vec![
            ("restype", "container".to_owned()),
            ("comp", "list".to_owned()),
            ("prefix", prefix.to_owned()),
        ];
        query.extend(include.map(|include| ("include", include.to_owned())));
        query.extend(marker.map(|marker| ("marker", marker)));
        let request = Request {
            method: "GET",
            query,
            ..Request::default()
        };
        let answer = self.client.send(request).await.map_err(|failure| {
            super::errors::failed(&self.target(), doing, "List Blobs", &failure)
        })?;
        if answer.status != 200 {
            return Err(self.refused(doing, "List Blobs", &answer));
        }
        Ok(String::from_utf8_lossy(&answer.body).into_owned())
    }
}

/// The names on one page of a List Blobs answer.
#[derive(Debug, PartialEq, Eq)]
struct Names {
    names: Vec<String>,
    next_marker: Option<String>,
}

/// The `<Blob><Name>` texts and the `<NextMarker>` of an `EnumerationResults` document. The
/// answer's layout is fixed by the service, so the elements are found by name.
fn parse_names(xml: &str) -> Names {
    let mut names = Vec::new();
    for blob in elements(xml, "Blob") {
        if let Some(name) = elements(blob, "Name").next() {
            names.push(unescape(name));
        }
    }
    let next_marker = elements(xml, "NextMarker").next().map(unescape);
    Names { names, next_marker }
}

/// The contents of every `<tag>...</tag>` (and nothing for `<tag />`).
pub(super) fn elements<'a>(xml: &'a str, tag: &str) -> impl Iterator<Item = &'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut rest = xml;
    std::iter::from_fn(move || {
        let start = rest.find(&open)? + open.len();
        let end = rest[start..].find(&close)? + start;
        let found = &rest[start..end];
        rest = &rest[end + close.len()..];
        Some(found)
    })
}

/// XML's five entities and numeric references.
pub(super) fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';') else { break };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                .and_then(char::from_u32),
        };
        if let Some(c) = decoded {
            out.push(c);
            rest = &rest[end + 1..];
        } else {
            out.push('&');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_gives_its_blob_names_unescaped_and_the_next_marker() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://127.0.0.1:10000/devstoreaccount1" ContainerName="tfstate"><Prefix>app/</Prefix><Blobs><Blob><Name>app/a&amp;b.tfstate</Name><Properties><Content-Length>10</Content-Length></Properties><Metadata /></Blob><Blob><Name>app/prod.tfstateenv:dev</Name><Properties /></Blob></Blobs><NextMarker>2!84!MDAw</NextMarker></EnumerationResults>"#;
        assert_eq!(
            parse_names(xml),
            Names {
                names: vec![
                    "app/a&b.tfstate".to_owned(),
                    "app/prod.tfstateenv:dev".to_owned()
                ],
                next_marker: Some("2!84!MDAw".to_owned()),
            }
        );
        let last = "<EnumerationResults><Blobs /><NextMarker /></EnumerationResults>";
        assert_eq!(
            parse_names(last),
            Names {
                names: vec![],
                next_marker: None
            }
        );
        assert_eq!(unescape("a&#x41;&#66;&lt;&bogus;"), "aAB<&bogus;");
    }
}
