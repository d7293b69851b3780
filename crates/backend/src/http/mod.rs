//! The `http` backend (GitLab's managed state speaks it): GET, the update method, LOCK and UNLOCK,
//! `?ID=` while locked, credentials and client certificates, retries.

use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState, StoreError};

use crate::config::BackendConfig;

/// A state behind an HTTP backend.
#[derive(Debug)]
pub struct HttpState {
    location: String,
}

impl HttpState {
    pub fn open(config: &BackendConfig) -> Result<HttpState, StoreError> {
        Err(StoreError::new(format!(
            "{}: the http backend is not built yet",
            config.origin
        )))
    }
}

impl RemoteState for HttpState {
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
