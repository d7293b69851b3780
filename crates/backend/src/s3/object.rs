//! The state object itself: read with the SSE-C key when one is configured, written as Terraform's
//! `RemoteClient.put` writes it (`application/json`, a SHA-256 checksum unless `skip_s3_checksum`,
//! the backend's encryption and ACL), then the DynamoDB digest recorded.

use aws_sdk_s3::operation::get_object::builders::GetObjectFluentBuilder;
use aws_sdk_s3::operation::put_object::builders::PutObjectFluentBuilder;
use aws_sdk_s3::types::{ChecksumAlgorithm, ObjectCannedAcl, ServerSideEncryption};
use base64::Engine as _;
use md5::{Digest as _, Md5};
use statectl_state::state::store::StoreError;

use super::errors::Failure;
use super::settings::{Encryption, Settings};
use super::{About, Backend};

/// `AES256`, Terraform's `s3EncryptionAlgorithm`, for S3-managed keys and SSE-C alike.
const AES256: &str = "AES256";

/// The SSE-C headers' values: algorithm, key and key MD5, both base64.
pub(super) fn customer_key_headers(settings: &Settings) -> Option<(String, String, String)> {
    let Encryption::Customer(key) = &settings.encryption else {
        return None;
    };
    let engine = base64::engine::general_purpose::STANDARD;
    Some((
        AES256.to_owned(),
        engine.encode(key),
        engine.encode(Md5::digest(key)),
    ))
}

impl Backend {
    /// A `PutObject` of `key` in the bucket, with the encryption, ACL and checksum Terraform sets
    /// on the state and on the lock object alike.
    pub(super) fn put_request(&self, key: &str) -> PutObjectFluentBuilder {
        let settings = &self.settings;
        let mut request = self
            .clients
            .s3
            .put_object()
            .bucket(&settings.bucket)
            .key(key)
            .content_type("application/json");
        if !settings.skip_s3_checksum {
            request = request.checksum_algorithm(ChecksumAlgorithm::Sha256);
        }
        match &settings.encryption {
            Encryption::None => {}
            Encryption::S3Managed => {
                request = request.server_side_encryption(ServerSideEncryption::Aes256);
            }
            Encryption::Kms(kms_key) => {
                request = request
                    .server_side_encryption(ServerSideEncryption::AwsKms)
                    .ssekms_key_id(kms_key);
            }
            Encryption::Customer(_) => {
                if let Some((algorithm, customer_key, md5)) = customer_key_headers(settings) {
                    request = request
                        .sse_customer_algorithm(algorithm)
                        .sse_customer_key(customer_key)
                        .sse_customer_key_md5(md5);
                }
            }
        }
        if let Some(acl) = &settings.acl {
            request = request.acl(ObjectCannedAcl::from(acl.as_str()));
        }
        request
    }

    /// A `GetObject` of `key` in the bucket, with the SSE-C key when one is configured.
    pub(super) fn get_request(&self, key: &str) -> GetObjectFluentBuilder {
        let request = self
            .clients
            .s3
            .get_object()
            .bucket(&self.settings.bucket)
            .key(key);
        match customer_key_headers(&self.settings) {
            Some((algorithm, customer_key, md5)) => request
                .sse_customer_algorithm(algorithm)
                .sse_customer_key(customer_key)
                .sse_customer_key_md5(md5),
            None => request,
        }
    }

    /// The state's bytes; `None` when the object does not exist or is empty (Terraform treats an
    /// empty object as no state).
    pub(super) async fn get_object(&self) -> Result<Option<Vec<u8>>, StoreError> {
        self.get_object_version(None).await
    }

    /// [`Backend::get_object`] of the version `version` (an id `ListObjectVersions` gave), or of
    /// the current one.
    pub(super) async fn get_object_version(
        &self,
        version: Option<&str>,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let settings = &self.settings;
        let answer = self
            .get_request(&settings.key)
            .set_version_id(version.map(ToOwned::to_owned))
            .send()
            .await;
        let output = match answer {
            Ok(output) => output,
            Err(error) => {
                if error
                    .as_service_error()
                    .is_some_and(aws_sdk_s3::operation::get_object::GetObjectError::is_no_such_key)
                {
                    return Ok(None);
                }
                let failure = Failure::from_sdk(&error);
                let (doing, action) = match version {
                    None => ("reading the state", "s3:GetObject"),
                    Some(_) => ("reading a version of the state", "s3:GetObjectVersion"),
                };
                return Err(self
                    .aws_error(&failure, About::Object(&settings.key), doing, action)
                    .await);
            }
        };
        // Into one buffer of the announced size, chunk by chunk: collecting into the SDK's
        // segmented buffer and copying it out costs a second pass over 50 MB.
        let expected = output
            .content_length()
            .and_then(|length| usize::try_from(length).ok())
            .unwrap_or(0);
        let mut bytes = Vec::with_capacity(expected);
        let mut body = output.body;
        loop {
            match body.try_next().await {
                Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
                Ok(None) => break,
                Err(error) => {
                    return Err(StoreError::new(format!(
                        "{}: the state's download broke off after {} bytes: {error}",
                        self.location,
                        bytes.len()
                    ))
                    .with_hint("try again; check the network"));
                }
            }
        }
        Ok((!bytes.is_empty()).then_some(bytes))
    }

    /// Replaces the state object, then records its MD5 for Terraform's consistency check. The
    /// lock is held apart (the lock object, the DynamoDB item): nothing of it goes with the write.
    pub(super) async fn put(&self, bytes: &[u8], _lock_id: &str) -> Result<(), StoreError> {
        let settings = &self.settings;
        let request = self.put_request(&settings.key).body(bytes.to_vec().into());
        self.aws_output(
            // Boxed: the SDK's put future is tens of kilobytes.
            Box::pin(request.send()),
            About::Object(&settings.key),
            "writing the state",
            "s3:PutObject",
        )
        .await?;
        self.record_digest(bytes).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_c_headers_carry_the_key_and_its_md5_in_base64() {
        let mut settings = crate::s3::settings::tests_support::settings();
        assert_eq!(customer_key_headers(&settings), None);
        settings.encryption = Encryption::Customer(b"0123456789abcdef0123456789abcdef".to_vec());
        let (algorithm, key, md5) = customer_key_headers(&settings).unwrap();
        assert_eq!(algorithm, "AES256");
        assert_eq!(key, "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=");
        // MD5 of the 32 raw bytes (not of the base64 text), base64: what S3 checks the key against.
        assert_eq!(md5, "hRasmdxgYDKV3nvbahU1MA==");
    }
}
