//! The Blob service operations Terraform's azurerm client uses on the state blob (giovanni's
//! `blobs` client): Get Blob, Get Blob Properties (the lease status and the metadata), Put Blob (a
//! block blob, `application/json`, the metadata carried over), Set Blob Metadata, Snapshot Blob, and
//! Lease Blob (acquire with a proposed ID and no expiry, release). Each answer's status is checked
//! here; the error wording is in `errors`.

use statectl_state::state::store::StoreError;

use super::Backend;
use super::client::{Answer, Request};

/// A blob's properties as the lock needs them.
#[derive(Debug, Default)]
pub(super) struct Properties {
    /// `x-ms-lease-status: locked`.
    pub leased: bool,
    /// The `x-ms-meta-*` pairs, names without the prefix (as the service gives them back: lower
    /// case over HTTP).
    pub metadata: Vec<(String, String)>,
}

const META: &str = "x-ms-meta-";

fn lease_header(lease: Option<&str>) -> Vec<(String, String)> {
    lease
        .map(|id| vec![("x-ms-lease-id".to_owned(), id.to_owned())])
        .unwrap_or_default()
}

impl Backend {
    async fn blob_request(
        &self,
        request: Request<'_>,
        doing: &str,
        name: &str,
    ) -> Result<Answer, StoreError> {
        self.client
            .send(request)
            .await
            .map_err(|failure| super::errors::failed(&self.target(), doing, name, &failure))
    }

    /// The blob's bytes; `None` when there is no blob (or an empty one: Terraform's lock creates it
    /// empty).
    pub(super) async fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let doing = "read the state";
        let request = Request {
            method: "GET",
            blob: Some(&self.settings.blob),
            ..Request::default()
        };
        let answer = self.blob_request(request, doing, "Get Blob").await?;
        match answer.status {
            200 if answer.body.is_empty() => Ok(None),
            200 => Ok(Some(answer.body)),
            404 if answer.code() == "BlobNotFound" => Ok(None),
            _ => Err(self.refused(doing, "Get Blob", &answer)),
        }
    }

    /// The blob's properties; `None` when there is no blob.
    pub(super) async fn properties(
        &self,
        lease: Option<&str>,
        doing: &str,
    ) -> Result<Option<Properties>, StoreError> {
        let request = Request {
            method: "HEAD",
            blob: Some(&self.settings.blob),
            headers: lease_header(lease),
            ..Request::default()
        };
        let answer = self
            .blob_request(request, doing, "Get Blob Properties")
            .await?;
        match answer.status {
            200 => {}
            404 if answer.code() == "BlobNotFound" => return Ok(None),
            // A HEAD answer has no body; should a server leave out the code header too, Get
            // Container Properties tells a missing blob from a missing container.
            404 if answer.code().is_empty() => {
                return self.container_exists(doing).await.map(|()| None);
            }
            _ => return Err(self.refused(doing, "Get Blob Properties", &answer)),
        }
        let metadata = answer
            .headers
            .iter()
            .filter_map(|(name, value)| {
                let name = name.as_str().strip_prefix(META)?;
                Some((name.to_owned(), value.to_str().ok()?.to_owned()))
            })
            .collect();
        Ok(Some(Properties {
            leased: answer.header("x-ms-lease-status") == Some("locked"),
            metadata,
        }))
    }

    /// Whether the container exists; a missing one is the error.
    async fn container_exists(&self, doing: &str) -> Result<(), StoreError> {
        let request = Request {
            method: "HEAD",
            query: vec![("restype", "container".to_owned())],
            ..Request::default()
        };
        let answer = self
            .blob_request(request, doing, "Get Container Properties")
            .await?;
        match answer.status {
            200 => Ok(()),
            404 => {
                let missing = Answer {
                    status: 404,
                    headers: {
                        let mut headers = answer.headers;
                        headers.insert(
                            "x-ms-error-code",
                            reqwest::header::HeaderValue::from_static("ContainerNotFound"),
                        );
                        headers
                    },
                    body: Vec::new(),
                };
                Err(self.refused(doing, "Get Container Properties", &missing))
            }
            _ => Err(self.refused(doing, "Get Container Properties", &answer)),
        }
    }

    /// Puts `bytes` as the blob, with `metadata`, under `lease`.
    pub(super) async fn put_blob(
        &self,
        bytes: Vec<u8>,
        metadata: &[(String, String)],
        lease: Option<&str>,
        doing: &str,
    ) -> Result<(), StoreError> {
        let mut headers = lease_header(lease);
        headers.push(("x-ms-blob-type".to_owned(), "BlockBlob".to_owned()));
        headers.push(("content-type".to_owned(), "application/json".to_owned()));
        headers.extend(metadata_headers(metadata));
        let request = Request {
            method: "PUT",
            blob: Some(&self.settings.blob),
            headers,
            body: Some(bytes),
            ..Request::default()
        };
        self.expect(request, 201, doing, "Put Blob").await
    }

    /// Replaces the blob's metadata with `metadata`, under `lease`.
    pub(super) async fn set_metadata(
        &self,
        metadata: &[(String, String)],
        lease: &str,
        doing: &str,
    ) -> Result<(), StoreError> {
        let mut headers = lease_header(Some(lease));
        headers.extend(metadata_headers(metadata));
        let request = self.blob_put("metadata", headers);
        self.expect(request, 200, doing, "Set Blob Metadata").await
    }

    /// Snapshots the blob as it is, under `lease`.
    pub(super) async fn snapshot(&self, lease: &str, doing: &str) -> Result<(), StoreError> {
        let request = self.blob_put("snapshot", lease_header(Some(lease)));
        self.expect(request, 201, doing, "Snapshot Blob").await
    }

    /// A PUT of the blob's `comp` (`metadata`, `snapshot`, `lease`) with `headers`.
    fn blob_put(&self, comp: &str, headers: Vec<(String, String)>) -> Request<'_> {
        Request {
            method: "PUT",
            blob: Some(&self.settings.blob),
            query: vec![("comp", comp.to_owned())],
            headers,
            ..Request::default()
        }
    }

    /// Sends `request` (the Blob operation `operation`), whose one good answer is `status`.
    async fn expect(
        &self,
        request: Request<'_>,
        status: u16,
        doing: &str,
        operation: &str,
    ) -> Result<(), StoreError> {
        let answer = self.blob_request(request, doing, operation).await?;
        if answer.status == status {
            Ok(())
        } else {
            Err(self.refused(doing, operation, &answer))
        }
    }

    /// Lease Blob with `action` (`acquire` with the proposed `id` and no expiry, or `release`);
    /// the answer, whatever its status.
    pub(super) async fn lease(
        &self,
        action: &'static str,
        id: &str,
        doing: &str,
    ) -> Result<Answer, StoreError> {
        let mut headers = vec![("x-ms-lease-action".to_owned(), action.to_owned())];
        if action == "acquire" {
            headers.push(("x-ms-lease-duration".to_owned(), "-1".to_owned()));
            headers.push(("x-ms-proposed-lease-id".to_owned(), id.to_owned()));
        } else {
            headers.push(("x-ms-lease-id".to_owned(), id.to_owned()));
        }
        let request = self.blob_put("lease", headers);
        self.blob_request(request, doing, "Lease Blob").await
    }
}

/// The `x-ms-meta-*` headers that store `metadata`.
fn metadata_headers(metadata: &[(String, String)]) -> impl Iterator<Item = (String, String)> + '_ {
    metadata
        .iter()
        .map(|(name, value)| (format!("{META}{name}"), value.clone()))
}
