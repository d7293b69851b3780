//! The `azurerm` backend, as Terraform's `internal/backend/remote-state/azure` does it: the state
//! is blob `key` in container `container_name` of storage account `storage_account_name` (workspace
//! `W`: `<key>env:W`), read and written with the Blob REST API; the lock is a lease on that blob
//! with the lock info in its metadata; with `snapshot = true` every write snapshots the blob first.
//!
//! `settings` reads the arguments and `ARM_*` variables, `credentials` gets Azure AD tokens (with a
//! CI's OIDC token from `federated`, or a managed identity's from `managed_identity`) and listed
//! keys, `shared_key` signs, `client` sends one request, `blob` is the Blob operations,
//! `lock` the lease, `errors` the wording, `listing` every state below a prefix, `versions` the blob
//! versions a versioned account keeps.

mod blob;
mod client;
mod credential_error;
mod credentials;
mod errors;
mod federated;
mod listing;
mod lock;
mod managed_identity;
mod settings;
mod shared_key;
mod versions;

use std::future::Future;
use std::sync::Arc;

use statectl_state::state::store::StoreError;

use self::client::{Answer, Client};
use self::settings::Settings;
use crate::config::{self, BackendConfig};

/// A state in an Azure Storage container.
#[derive(Debug)]
pub struct AzureState {
    backend: Backend,
}

/// The settings and the client the async operations share.
#[derive(Debug)]
struct Backend {
    settings: Settings,
    /// Shared by the states of one listing, with its token.
    client: Arc<Client>,
    location: String,
}

impl AzureState {
    /// The blob name of `config`'s workspace's state, as [`AzureState::open`] would read it.
    pub(crate) fn state_object(config: &BackendConfig) -> Result<String, StoreError> {
        Ok(Settings::read(config, &config::env)?.blob)
    }

    /// Reads the configuration with this process's `ARM_*` variables; nothing is requested until
    /// the first call.
    pub fn open(config: &BackendConfig) -> Result<AzureState, StoreError> {
        let settings = Settings::read(config, &config::env)?;
        let location = settings.location();
        let client = Client::new(&settings)
            .map_err(|problem| StoreError::new(format!("{location}: {problem}")))?;
        Ok(AzureState {
            backend: Backend {
                settings,
                client: Arc::new(client),
                location,
            },
        })
    }

    fn block_on<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        self.backend.client.runtime.block_on(future)
    }
}

crate::blocking::blocking_remote_state!(AzureState, object: blob, runtime: backend.client.runtime {
    fn missing_state_hint(&self) -> &'static str {
        "check the storage account, container and key (another workspace's state is `<key>env:<workspace>`); `terraform workspace list` shows the workspaces"
    }
});

impl Backend {
    fn target(&self) -> errors::Target<'_> {
        errors::Target {
            location: &self.location,
            account: &self.settings.account,
            container: &self.settings.container,
            service: self.client.service(),
            credential: &self.settings.credential,
        }
    }

    fn refused(&self, doing: &str, request: &str, answer: &Answer) -> StoreError {
        errors::refused(&self.target(), doing, request, answer)
    }

    /// Terraform's `Put`: the snapshot first when asked for, then the blob replaced under the lease
    /// with its metadata (the lock info among it) carried over.
    pub(super) async fn put(&self, bytes: &[u8], lease: &str) -> Result<(), StoreError> {
        let doing = "write the state";
        if self.settings.snapshot {
            self.snapshot(lease, doing).await?;
        }
        let metadata = self
            .properties(Some(lease), doing)
            .await?
            .map(|properties| properties.metadata)
            .unwrap_or_default();
        self.put_blob(bytes.to_vec(), &metadata, Some(lease), doing)
            .await
    }
}
