//! The DynamoDB digest item `<bucket>/<key>-md5`: with a `dynamodb_table`, Terraform records the MD5
//! of every state it writes there, and refuses to read a state whose MD5 differs (after retrying for
//! ten seconds, two seconds apart, in case S3 is still settling). statectl checks it the same way on
//! every read and records it on every write, so that Terraform's next run accepts what statectl wrote.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use md5::{Digest as _, Md5};
use statectl_state::duration::Deadline;
use statectl_state::state::store::StoreError;

use super::Backend;
use super::errors::Failure;

/// Terraform's `consistencyRetryTimeout` and `consistencyRetryPollInterval`.
const RETRY_FOR: Duration = Duration::from_secs(10);
const RETRY_EVERY: Duration = Duration::from_secs(2);

impl Backend {
    /// The state, checked against the digest item when a table is configured.
    pub(super) async fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let deadline = Deadline::after(RETRY_FOR);
        loop {
            let bytes = self.get_object().await?;
            let Some(table) = &self.settings.dynamodb_table else {
                return Ok(bytes);
            };
            // Terraform goes on without the check when the item cannot be read or holds no MD5.
            let Some(expected) = self.stored_digest(table).await else {
                return Ok(bytes);
            };
            let actual = bytes.as_deref().map(|bytes| Md5::digest(bytes).into());
            if actual == Some(expected) {
                return Ok(bytes);
            }
            if deadline.has_passed(Instant::now()) {
                return Err(mismatch(
                    &self.location,
                    table,
                    &self.settings.digest_id(),
                    actual.as_ref(),
                    &expected,
                ));
            }
            tracing::info!(
                "{}: the state's MD5 differs from the DynamoDB digest; retrying",
                self.location
            );
            tokio::time::sleep(RETRY_EVERY).await;
        }
    }

    /// The MD5 recorded in the digest item; `None` when there is none or it cannot be read.
    async fn stored_digest(&self, table: &str) -> Option<[u8; 16]> {
        let answer = self
            .read_row(table, self.settings.digest_id(), "Digest")
            .await;
        match answer {
            Ok(output) => match output.item.as_ref()?.get("Digest")? {
                AttributeValue::S(text) => parse_hex_md5(text),
                _ => None,
            },
            Err(error) => {
                tracing::warn!(
                    "{}: cannot read the state's digest from DynamoDB table {table}: {}",
                    self.location,
                    Failure::from_sdk(&error).detail
                );
                None
            }
        }
    }

    /// Records the MD5 of `bytes` in the digest item. As in Terraform, a failure here is logged, not
    /// returned: the state is already written.
    pub(super) async fn record_digest(&self, bytes: &[u8]) {
        let Some(table) = &self.settings.dynamodb_table else {
            return;
        };
        let answer = self
            .clients
            .dynamodb
            .put_item()
            .table_name(table)
            .item("LockID", AttributeValue::S(self.settings.digest_id()))
            .item("Digest", AttributeValue::S(hex(&Md5::digest(bytes))))
            .send()
            .await;
        if let Err(error) = answer {
            tracing::warn!(
                "{}: the state is written but its digest could not be recorded in DynamoDB table {table}: {}",
                self.location,
                Failure::from_sdk(&error).detail
            );
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

/// Go's `hex.DecodeString` of a 16-byte MD5, as Terraform's `getMD5` requires.
fn parse_hex_md5(text: &str) -> Option<[u8; 16]> {
    if text.len() != 32 || !text.is_ascii() {
        return None;
    }
    let mut sum = [0u8; 16];
    for (index, byte) in sum.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[index * 2..index * 2 + 2], 16).ok()?;
    }
    Some(sum)
}

/// Terraform's "state data in S3 does not have the expected content", in one line, with the fix.
fn mismatch(
    location: &str,
    table: &str,
    item: &str,
    actual: Option<&[u8; 16]>,
    expected: &[u8; 16],
) -> StoreError {
    let expected = hex(expected);
    match actual {
        Some(actual) => {
            let actual = hex(actual);
            StoreError::new(format!(
                "{location}: state data in S3 does not have the expected content: its MD5 is {actual} but DynamoDB table {table} records {expected} (Terraform refuses this state too)"
            ))
            .with_hint(format!(
                "if a write is still settling, wait a minute and retry; if the object in S3 is the right state, set the digest to its MD5: `aws dynamodb put-item --table-name {table} --item '{{\"LockID\":{{\"S\":\"{item}\"}},\"Digest\":{{\"S\":\"{actual}\"}}}}'`"
            ))
        }
        None => StoreError::new(format!(
            "{location}: there is no state object, but DynamoDB table {table} records the MD5 {expected} of one (Terraform refuses this too)"
        ))
        .with_hint(format!(
            "if the state was removed on purpose, remove its digest: `aws dynamodb delete-item --table-name {table} --key '{{\"LockID\":{{\"S\":\"{item}\"}}}}'`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_lowercase_hex_md5s_as_terraform_writes_them() {
        assert_eq!(hex(&Md5::digest(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            parse_hex_md5("d41d8cd98f00b204e9800998ecf8427e").map(|sum| hex(&sum)),
            Some("d41d8cd98f00b204e9800998ecf8427e".to_owned())
        );
        assert!(parse_hex_md5("D41D8CD98F00B204E9800998ECF8427E").is_some());
        assert_eq!(parse_hex_md5("d41d8cd9"), None);
        assert_eq!(parse_hex_md5("zz1d8cd98f00b204e9800998ecf8427e"), None);
    }

    #[test]
    fn a_mismatch_says_what_terraform_says_and_gives_the_digest_to_set() {
        let error = mismatch("s3://b/k", "locks", "b/k-md5", Some(&[1; 16]), &[2; 16]);
        assert_eq!(
            error.message,
            "s3://b/k: state data in S3 does not have the expected content: its MD5 is 01010101010101010101010101010101 but DynamoDB table locks records 02020202020202020202020202020202 (Terraform refuses this state too)"
        );
        assert!(error.hint.unwrap().contains(
            r#"--item '{"LockID":{"S":"b/k-md5"},"Digest":{"S":"01010101010101010101010101010101"}}'"#
        ));
        let gone = mismatch("s3://b/k", "locks", "b/k-md5", None, &[2; 16]);
        assert!(gone.hint.unwrap().contains("delete-item"));
    }
}
