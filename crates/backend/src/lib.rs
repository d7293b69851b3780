//! statectl's remote state backends: where `terraform init` said the state lives (`discover`), and the
//! backends that read, lock and replace it as Terraform's own backends do (`s3`, `http`). Each backend
//! implements the store's [`RemoteState`](statectl_state::state::store::RemoteState) seam; the store
//! keeps the rules every write follows (lock, re-read and compare, backup, release).

pub mod config;
pub mod discover;
pub mod http;
pub mod oci;
pub mod runtime;
pub mod s3;

pub use config::BackendConfig;

use std::sync::Arc;

use statectl_state::state::store::{RemoteState, StoreError};

/// Opens the backend `config` describes.
pub fn open(config: &BackendConfig) -> Result<Arc<dyn RemoteState>, StoreError> {
    match config.kind.as_str() {
        "s3" => Ok(Arc::new(s3::S3State::open(config)?)),
        "http" => Ok(Arc::new(http::HttpState::open(config)?)),
        "oci" => Ok(Arc::new(oci::OciState::open(config)?)),
        other => Err(StoreError::new(format!(
            "{}: backend \"{other}\" is not supported yet; statectl reads the `local`, `s3` and `http` backends",
            config.origin
        ))
        .with_hint("`terraform state pull | statectl list -` reads any backend through Terraform")),
    }
}

/// Every state below `prefix` in the backend `config` describes (S3 only, so far), whose keys `keep`
/// accepts; they share one set of clients.
pub fn states_under(
    config: &BackendConfig,
    prefix: &str,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<Arc<dyn RemoteState>>, StoreError> {
    match config.kind.as_str() {
        "s3" => Ok(s3::S3State::open(config)?
            .states_under(prefix, keep)?
            .into_iter()
            .map(|state| Arc::new(state) as Arc<dyn RemoteState>)
            .collect()),
        "oci" => Ok(oci::OciState::open(config)?
            .states_under(prefix, keep)?
            .into_iter()
            .map(|state| Arc::new(state) as Arc<dyn RemoteState>)
            .collect()),
        other => Err(StoreError::new(format!(
            "{}: listing the states of backend \"{other}\" is not supported; name each state",
            config.origin
        ))),
    }
}
