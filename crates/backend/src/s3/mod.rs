//! The `s3` backend: the state object, its workspaces, Terraform's two lock kinds (the `.tflock`
//! object and the DynamoDB item), the DynamoDB digest, and the bucket's encryption kept on writes.

use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState, StoreError};

use crate::config::BackendConfig;

/// A state in an S3 bucket.
#[derive(Debug)]
pub struct S3State {
    location: String,
}

impl S3State {
    pub fn open(config: &BackendConfig) -> Result<S3State, StoreError> {
        Err(StoreError::new(format!(
            "{}: the s3 backend is not built yet",
            config.origin
        )))
    }
}

impl RemoteState for S3State {
    fn location(&self) -> String {
        self.location.clone()
    }
    fn backup_name(&self) -> String {
        self.location.clone()
    }
    fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Err(StoreError::new("not built yet"))
    }
    fn lock(&self, _info: &LockInfo) -> Result<(), LockRefused> {
        Err(LockRefused::Failed(StoreError::new("not built yet")))
    }
    fn put(&self, _bytes: &[u8], _lock: &LockInfo) -> Result<(), StoreError> {
        Err(StoreError::new("not built yet"))
    }
    fn unlock(&self, _lock: &LockInfo) -> Result<(), StoreError> {
        Err(StoreError::new("not built yet"))
    }
}
