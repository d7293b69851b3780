//! Terraform's azurerm lock (`Lock`, `Unlock`, `writeLockInfo` and `getLockInfo` in
//! `internal/backend/remote-state/azure/client.go`): an infinite lease on the state blob whose
//! proposed ID is the lock ID (the blob created empty first when there is none), the lock info as
//! base64 JSON in the blob's `terraformlockid` metadata; a lease held by someone else is named from
//! that metadata. Unlocking checks the ID against the metadata, clears it, and releases the lease.
//! Unlike Terraform, a lease taken whose lock info cannot be written is released again, so that a
//! failed lock never leaves a lease behind.

use base64::Engine as _;
use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, StoreError};

use super::Backend;
use super::blob::Properties;

/// Terraform's `lockInfoMetaKey` (lower case: the service gives metadata names back that way).
pub(super) const LOCK_INFO_KEY: &str = "terraformlockid";

/// The lock info a blob's metadata carries, as Terraform writes it.
pub(super) fn lock_info(properties: &Properties) -> Option<LockInfo> {
    let raw = properties
        .metadata
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(LOCK_INFO_KEY))
        .map(|(_, value)| value)?;
    let json = base64::engine::general_purpose::STANDARD
        .decode(raw.trim())
        .ok()?;
    LockInfo::parse(&json)
}

/// `metadata` without the lock info, then with `info` when given.
fn with_lock_info(metadata: &[(String, String)], info: Option<&LockInfo>) -> Vec<(String, String)> {
    let mut metadata: Vec<(String, String)> = metadata
        .iter()
        .filter(|(name, _)| !name.eq_ignore_ascii_case(LOCK_INFO_KEY))
        .cloned()
        .collect();
    if let Some(info) = info {
        metadata.push((
            LOCK_INFO_KEY.to_owned(),
            base64::engine::general_purpose::STANDARD.encode(info.to_json()),
        ));
    }
    metadata
}

impl Backend {
    pub(super) async fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
        let doing = "lock the state";
        match self
            .properties(None, doing)
            .await
            .map_err(LockRefused::Failed)?
        {
            // Terraform creates the blob empty, to have something to lease.
            None => self
                .put_blob(Vec::new(), &[], None, doing)
                .await
                .map_err(LockRefused::Failed)?,
            Some(properties) if properties.leased => {
                return Err(held(lock_info(&properties)));
            }
            Some(_) => {}
        }
        let answer = self
            .lease("acquire", &info.id, doing)
            .await
            .map_err(LockRefused::Failed)?;
        match answer.status {
            200 | 201 => {}
            // LeaseAlreadyPresent: someone took it between the two requests.
            409 => {
                let holder = self
                    .properties(None, doing)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|properties| lock_info(&properties));
                return Err(held(holder));
            }
            _ => {
                return Err(LockRefused::Failed(self.refused(
                    doing,
                    "Lease Blob (acquire)",
                    &answer,
                )));
            }
        }
        if let Err(error) = self.write_lock_info(Some(info), &info.id, doing).await {
            let released = self.lease("release", &info.id, doing).await;
            let error = match released {
                Ok(answer) if answer.status == 200 => error,
                _ => error.with_hint(format!(
                    "the blob's lease stayed; once nobody else is working on this state, `az storage blob lease break --account-name {} --container-name {} --blob-name {}` removes it",
                    self.settings.account, self.settings.container, self.settings.blob
                )),
            };
            return Err(LockRefused::Failed(error));
        }
        Ok(())
    }

    /// Replaces the lock info in the metadata (removes it when `info` is `None`), keeping the rest.
    async fn write_lock_info(
        &self,
        info: Option<&LockInfo>,
        lease: &str,
        doing: &str,
    ) -> Result<(), StoreError> {
        let properties = self
            .properties(Some(lease), doing)
            .await?
            .unwrap_or_default();
        let metadata = with_lock_info(&properties.metadata, info);
        self.set_metadata(&metadata, lease, doing).await
    }

    pub(super) async fn unlock(&self, id: &str) -> Result<(), StoreError> {
        let doing = "unlock the state";
        let location = &self.location;
        let Some(properties) = self.properties(None, doing).await? else {
            return Err(StoreError::new(format!(
                "{location}: cannot unlock the state: the blob is gone"
            )));
        };
        let Some(holder) = lock_info(&properties) else {
            return Err(StoreError::new(format!(
                "{location}: cannot unlock the state: the blob's `{LOCK_INFO_KEY}` metadata holds no lock info{}",
                if properties.leased {
                    ""
                } else {
                    ", and the blob is not leased"
                }
            )));
        };
        if holder.id != id {
            return Err(StoreError::new(format!(
                "{location}: cannot unlock the state: lock ID {id} does not match the lock on the blob, held by {holder}"
            )));
        }
        self.write_lock_info(None, id, doing).await?;
        let answer = self.lease("release", id, doing).await?;
        match answer.status {
            200 => Ok(()),
            _ => Err(self.refused(doing, "Lease Blob (release)", &answer)),
        }
    }
}

/// Held by someone; named when their lock info says who (a lease taken by another tool has none).
fn held(holder: Option<LockInfo>) -> LockRefused {
    LockRefused::Held(holder.filter(|info| !info.id.is_empty()).map(Box::new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_info_is_base64_json_in_the_metadata_and_replaced_whole() {
        let info = LockInfo::new("apply", std::path::Path::new("tfstate/prod.tfstate"));
        let metadata = vec![("owner".to_owned(), "team-a".to_owned())];
        let locked = with_lock_info(&metadata, Some(&info));
        assert_eq!(locked.len(), 2);
        assert_eq!(locked[0], metadata[0]);
        assert_eq!(locked[1].0, "terraformlockid");
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(&locked[1].1)
            .unwrap();
        assert_eq!(decoded, info.to_json().as_bytes());
        let properties = Properties {
            leased: true,
            metadata: locked.clone(),
        };
        assert_eq!(lock_info(&properties).unwrap().id, info.id);
        assert_eq!(with_lock_info(&locked, None), metadata);
    }

    #[test]
    fn terraforms_own_lock_info_is_read() {
        // As Terraform 1.15 writes it: Go's json.Marshal of statemgr.LockInfo, base64.
        let json = r#"{"ID":"8c6b1b7e-0f0b-4a8e-9d55-7a3b1f0c2d11","Operation":"OperationTypeApply","Info":"","Who":"ci@runner","Version":"1.15.5","Created":"2026-11-22T07:00:00.123456Z","Path":"tfstate/prod.tfstate"}"#;
        let properties = Properties {
            leased: true,
            metadata: vec![(
                "terraformlockid".to_owned(),
                base64::engine::general_purpose::STANDARD.encode(json),
            )],
        };
        let info = lock_info(&properties).unwrap();
        assert_eq!(info.who, "ci@runner");
        assert_eq!(info.operation, "OperationTypeApply");
        assert!(lock_info(&Properties::default()).is_none());
    }
}
