//! The state object: read with `alt=media` (a missing object is no state yet, unless the bucket
//! is missing), written as one multipart upload as Terraform's storage client writes a small
//! object (its metadata, then the bytes as `text/plain; charset=utf-8`, the type Go's client
//! sniffs for a state), both with the customer-supplied key's headers, the write with `kmsKeyName`.

use statectl_state::state::store::StoreError;

use super::{Backend, with_key, with_query};

/// What Go's `http.DetectContentType` makes of a state, and so what Terraform's writes carry.
const CONTENT_TYPE: &str = "text/plain; charset=utf-8";

impl Backend {
    pub(super) async fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let doing = "reading the state";
        let url = with_query(&self.object_url(&self.settings.object), &[("alt", "media")]);
        let key = self.settings.encryption_key.as_ref();
        let answer = self
            .call(doing, true, |client| with_key(client.get(&url), key))
            .await?;
        match answer.status {
            200 => Ok(Some(answer.body)),
            404 if self.bucket_missing().await => Err(self.no_bucket()),
            404 => Ok(None),
            _ => Err(self
                .refused(
                    &answer,
                    "read the state",
                    &self.settings.object,
                    "storage.objects.get",
                )
                .await),
        }
    }

    /// Replaces the state object; the lock is its own object, nothing of it goes with the write.
    pub(super) async fn put(&self, bytes: &[u8], _lock_id: &str) -> Result<(), StoreError> {
        let object = &self.settings.object;
        let mut query = vec![("uploadType", "multipart"), ("name", object.as_str())];
        if let Some(kms) = &self.settings.kms_key_name {
            query.push(("kmsKeyName", kms.as_str()));
        }
        let answer = self
            .upload(
                "writing the state",
                &query,
                bytes,
                self.settings.encryption_key.as_ref(),
            )
            .await?;
        match answer.status {
            200 => Ok(()),
            _ => Err(self
                .refused(
                    &answer,
                    "write the state",
                    object,
                    "storage.objects.create` and `storage.objects.delete",
                )
                .await),
        }
    }

    /// One multipart upload of `bytes` with the `query` given (`name`, conditions, the KMS key).
    pub(super) async fn upload(
        &self,
        doing: &str,
        query: &[(&str, &str)],
        bytes: &[u8],
        key: Option<&statectl_net::Secret>,
    ) -> Result<super::Answer, StoreError> {
        let name = query
            .iter()
            .find(|(field, _)| *field == "name")
            .map_or("", |(_, value)| *value);
        let (content_type, body) = multipart(name, bytes);
        let url = with_query(&self.upload_url(), query);
        let body = bytes::Bytes::from(body);
        self.call(doing, true, |client| {
            with_key(client.post(&url), key)
                .header(reqwest::header::CONTENT_TYPE, content_type.as_str())
                .body(body.clone())
        })
        .await
    }
}

/// A `multipart/related` body: the object's metadata, then its bytes; the boundary is one the bytes
/// do not hold.
fn multipart(name: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let metadata = serde_json::json!({"name": name, "contentType": CONTENT_TYPE}).to_string();
    let mut seed = bytes.len() as u64 ^ 0x9e37_79b9_7f4a_7c15;
    let boundary = loop {
        let candidate = format!("statectl-{seed:016x}");
        if !bytes
            .windows(candidate.len())
            .any(|window| window == candidate.as_bytes())
        {
            break candidate;
        }
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    };
    let mut body = Vec::with_capacity(bytes.len() + metadata.len() + 256);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{metadata}\r\n--{boundary}\r\nContent-Type: {CONTENT_TYPE}\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/related; boundary={boundary}"), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multipart_boundary_never_occurs_in_the_bytes() {
        let (_, first) = multipart("a.tfstate", b"{}");
        let boundary = String::from_utf8_lossy(&first[2..27]).into_owned();
        // A state that holds the first boundary gets another one.
        let hostile = format!("{{\"x\": \"{boundary}\"}}");
        let (content_type, body) = multipart("a.tfstate", hostile.as_bytes());
        let chosen = content_type
            .strip_prefix("multipart/related; boundary=")
            .unwrap();
        assert_ne!(chosen, boundary);
        let text = String::from_utf8(body).unwrap();
        assert_eq!(text.matches(chosen).count(), 3, "{text}");
        assert!(text.contains(&format!("\r\n\r\n{hostile}\r\n--{chosen}--\r\n")));
        assert!(text.contains(r#"{"name":"a.tfstate","contentType":"text/plain; charset=utf-8"}"#));
    }
}
