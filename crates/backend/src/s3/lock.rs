//! Terraform's two S3 lock kinds, alone or together as `RemoteClient.Lock` takes them: the
//! `<key>.tflock` object put with `If-None-Match: *` (`use_lockfile`), and the DynamoDB item
//! `LockID = <bucket>/<key>` put with `attribute_not_exists(LockID)` (`dynamodb_table`). Both: the
//! object first, then the item, the object removed again when the item is refused. Each holds the
//! lock info JSON, so either tool names the other as the holder. Unlocking checks the ID first.

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::get_item::{GetItemError, GetItemOutput};
use aws_sdk_dynamodb::types::AttributeValue;
use statectl_state::state::store::lock_info::{LockInfo, MAX_LOCK_INFO};
use statectl_state::state::store::{LockRefused, StoreError};

use super::errors::Failure;
use super::{About, Backend};

impl Backend {
    pub(super) async fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
        let settings = &self.settings;
        if settings.use_lockfile {
            self.lock_object(info).await?;
        }
        let Some(table) = &settings.dynamodb_table else {
            return Ok(());
        };
        let Err(refused) = self.lock_item(table, info).await else {
            return Ok(());
        };
        if settings.use_lockfile
            && let Err(error) = self.unlock_object(&info.id).await
        {
            let first = match &refused {
                LockRefused::Failed(first) => first.message.clone(),
                LockRefused::Held(_) => format!("{}: the DynamoDB lock is held", self.location),
            };
            return Err(LockRefused::Failed(
                StoreError::new(format!(
                    "{first}; and the lock object taken before could not be removed again: {}",
                    error.message
                ))
                .with_hint(format!(
                    "once nobody else is working on this state, `terraform force-unlock {}` removes it",
                    info.id
                )),
            ));
        }
        Err(refused)
    }

    pub(super) async fn unlock(&self, id: &str) -> Result<(), StoreError> {
        let settings = &self.settings;
        let object = if settings.use_lockfile {
            self.unlock_object(id).await
        } else {
            Ok(())
        };
        let item = match &settings.dynamodb_table {
            Some(table) => self.unlock_item(table, id).await,
            None => Ok(()),
        };
        match (object, item) {
            (Ok(()), Ok(())) => Ok(()),
            (Err(error), Ok(())) | (Ok(()), Err(error)) => Err(error),
            (Err(object), Err(item)) => Err(StoreError::new(format!(
                "{}; {}",
                object.message,
                item.message
                    .strip_prefix(&format!("{}: ", self.location))
                    .unwrap_or(&item.message)
            ))),
        }
    }

    /// Puts the `.tflock` object unless it exists; a 412 means someone holds it.
    async fn lock_object(&self, info: &LockInfo) -> Result<(), LockRefused> {
        let key = self.settings.lock_object_key();
        let request = self
            .put_request(&key)
            .if_none_match("*")
            .body(info.to_json().into_bytes().into());
        let Err(error) = request.send().await else {
            return Ok(());
        };
        let failure = Failure::from_sdk(&error);
        // 412: the object exists. 409: another conditional write to it is under way.
        if matches!(failure.status, Some(412 | 409))
            || failure.code_is("PreconditionFailed")
            || failure.code_is("ConditionalRequestConflict")
        {
            let holder = self.object_holder(&key).await;
            // The SDK retries a put whose answer was lost: the first attempt may have written
            // our own lock, which the retry then meets. That lock is ours.
            if holder.as_ref().is_some_and(|holder| holder.id == info.id) {
                return Ok(());
            }
            return Err(LockRefused::Held(holder.map(Box::new)));
        }
        Err(LockRefused::Failed(
            self.aws_error(
                &failure,
                About::Object(&key),
                "taking the lock (the .tflock object)",
                "s3:PutObject",
            )
            .await,
        ))
    }

    /// The lock info in the `.tflock` object, if it can be read.
    async fn object_holder(&self, key: &str) -> Option<LockInfo> {
        let output = self.get_lock_object(key).await.ok()?;
        lock_info_in(output.body).await
    }

    /// Gets the `.tflock` object `key` with the settings every read takes.
    async fn get_lock_object(
        &self,
        key: &str,
    ) -> Result<
        aws_sdk_s3::operation::get_object::GetObjectOutput,
        aws_sdk_s3::error::SdkError<aws_sdk_s3::operation::get_object::GetObjectError>,
    > {
        self.get_request(key).send().await
    }

    /// Removes the `.tflock` object if it still holds lock `id`.
    async fn unlock_object(&self, id: &str) -> Result<(), StoreError> {
        let settings = &self.settings;
        let key = settings.lock_object_key();
        let holder = match self.get_lock_object(&key).await {
            Ok(output) => lock_info_in(output.body).await,
            Err(error) => {
                if error
                    .as_service_error()
                    .is_some_and(aws_sdk_s3::operation::get_object::GetObjectError::is_no_such_key)
                {
                    // Nothing left to release: someone removed it (force-unlock).
                    tracing::warn!("{}: the lock object {key} was already gone", self.location);
                    return Ok(());
                }
                let failure = Failure::from_sdk(&error);
                return Err(self
                    .aws_error(
                        &failure,
                        About::Object(&key),
                        "reading the lock before releasing it",
                        "s3:GetObject",
                    )
                    .await);
            }
        };
        check_holder(&self.location, holder.as_ref(), id, "lock object")?;
        self.aws_output(
            self.clients
                .s3
                .delete_object()
                .bucket(&settings.bucket)
                .key(&key)
                .send(),
            About::Object(&key),
            "releasing the lock",
            "s3:DeleteObject",
        )
        .await
        .map(drop)
    }

    /// Puts the DynamoDB lock item unless it exists.
    async fn lock_item(&self, table: &str, info: &LockInfo) -> Result<(), LockRefused> {
        let lock_id = self.settings.lock_path();
        let answer = self
            .clients
            .dynamodb
            .put_item()
            .table_name(table)
            .item("LockID", AttributeValue::S(lock_id.clone()))
            .item("Info", AttributeValue::S(info.to_json()))
            .condition_expression("attribute_not_exists(LockID)")
            .send()
            .await;
        let Err(error) = answer else {
            return Ok(());
        };
        if error
            .as_service_error()
            .is_some_and(aws_sdk_dynamodb::operation::put_item::PutItemError::is_conditional_check_failed_exception)
        {
            let holder = self.item_holder(table).await.ok().flatten();
            // As for the lock object: a retried put that meets our own first attempt holds it.
            if holder.as_ref().is_some_and(|holder| holder.id == info.id) {
                return Ok(());
            }
            return Err(LockRefused::Held(holder.map(Box::new)));
        }
        let failure = Failure::from_sdk(&error);
        Err(LockRefused::Failed(
            self.aws_error(
                &failure,
                About::Item {
                    table,
                    item: &lock_id,
                },
                "taking the DynamoDB lock",
                "dynamodb:PutItem",
            )
            .await,
        ))
    }

    /// The row `id` of the DynamoDB `table` (the lock item or the digest item), as it is now:
    /// its `LockID` and `field`.
    pub(super) async fn read_row(
        &self,
        table: &str,
        id: String,
        field: &str,
    ) -> Result<GetItemOutput, SdkError<GetItemError, HttpResponse>> {
        self.clients
            .dynamodb
            .get_item()
            .table_name(table)
            .key("LockID", AttributeValue::S(id))
            .projection_expression(format!("LockID, {field}"))
            .consistent_read(true)
            .send()
            .await
    }

    /// The lock info in the DynamoDB lock item: `Ok(None)` when there is no item.
    async fn item_holder(&self, table: &str) -> Result<Option<LockInfo>, StoreError> {
        let lock_id = self.settings.lock_path();
        let output = self
            .aws_output(
                self.read_row(table, lock_id.clone(), "Info"),
                About::Item {
                    table,
                    item: &lock_id,
                },
                "reading the DynamoDB lock",
                "dynamodb:GetItem",
            )
            .await?;
        Ok(output.item.and_then(|item| match item.get("Info") {
            Some(AttributeValue::S(info)) => LockInfo::parse(info.as_bytes()),
            // An item without readable info still is a lock.
            _ => Some(LockInfo {
                id: String::new(),
                operation: String::new(),
                info: String::new(),
                who: String::new(),
                version: String::new(),
                created: String::new(),
                path: String::new(),
            }),
        }))
    }

    /// Deletes the DynamoDB lock item if it still holds lock `id`.
    async fn unlock_item(&self, table: &str, id: &str) -> Result<(), StoreError> {
        let lock_id = self.settings.lock_path();
        let Some(holder) = self.item_holder(table).await? else {
            tracing::warn!("{}: the DynamoDB lock item was already gone", self.location);
            return Ok(());
        };
        check_holder(&self.location, Some(&holder), id, "DynamoDB lock")?;
        self.aws_output(
            self.clients
                .dynamodb
                .delete_item()
                .table_name(table)
                .key("LockID", AttributeValue::S(lock_id.clone()))
                .send(),
            About::Item {
                table,
                item: &lock_id,
            },
            "releasing the DynamoDB lock",
            "dynamodb:DeleteItem",
        )
        .await
        .map(drop)
    }
}

/// Terraform refuses to remove a lock whose ID is not the one it took.
fn check_holder(
    location: &str,
    holder: Option<&LockInfo>,
    id: &str,
    what: &str,
) -> Result<(), StoreError> {
    match holder {
        Some(holder) if holder.id == id => Ok(()),
        Some(holder) => Err(StoreError::new(format!(
            "{location}: the {what} is now held by {holder}, not by lock {id}; it was left in place"
        ))),
        None => Err(StoreError::new(format!(
            "{location}: the {what} holds no lock info statectl can read; it was left in place"
        ))),
    }
}

/// The lock info a `.tflock` object's body holds, read no further than [`MAX_LOCK_INFO`] bytes: a
/// lock object of hundreds of megabytes is not one.
async fn lock_info_in(mut body: aws_sdk_s3::primitives::ByteStream) -> Option<LockInfo> {
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.ok()?;
        if bytes.len() + chunk.len() > MAX_LOCK_INFO {
            return None;
        }
        bytes.extend_from_slice(&chunk);
    }
    LockInfo::parse(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_lock_with_our_id_is_removed() {
        let mut holder = LockInfo::new("apply", std::path::Path::new("b/k"));
        holder.id = "theirs".to_owned();
        holder.who = "ana@ci".to_owned();
        holder.version = "1.15.5".to_owned();
        holder.created = "2026-11-25T00:00:00Z".to_owned();
        assert!(check_holder("s3://b/k", Some(&holder), "theirs", "lock object").is_ok());
        let error = check_holder("s3://b/k", Some(&holder), "ours", "lock object").unwrap_err();
        assert_eq!(
            error.message,
            "s3://b/k: the lock object is now held by `ana@ci` (Terraform 1.15.5, operation `apply`, since 2026-11-25T00:00:00Z, lock ID theirs), not by lock ours; it was left in place"
        );
        assert!(check_holder("s3://b/k", None, "ours", "DynamoDB lock").is_err());
    }
}
