//! The `s3` backend: the state object, its workspaces, Terraform's two lock kinds (the `.tflock`
//! object and the DynamoDB item), the DynamoDB digest, and the bucket's encryption kept on writes.
//! `settings` reads the arguments, `clients` builds the AWS clients, `object` reads and writes the
//! state, `lock` takes and releases the locks, `digest` keeps the DynamoDB MD5, `errors` words what
//! went wrong, `listing` finds every state below a prefix, `versions` lists and reads the versions a
//! versioned bucket keeps.

pub(crate) mod clients;
mod digest;
pub(crate) mod errors;
mod listing;
mod lock;
mod object;
pub(crate) mod registered;
pub(crate) mod settings;
mod versions;

use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState, StoreError};

use crate::config::BackendConfig;
use crate::runtime::Runtime;

use self::clients::Clients;
use self::errors::{Failure, Target};
use self::settings::Settings;

/// A state in an S3 bucket.
#[derive(Debug)]
pub struct S3State {
    backend: Backend,
    /// Shared by the states of one listing.
    runtime: std::sync::Arc<Runtime>,
}

/// The settings and clients the async operations share.
#[derive(Debug)]
struct Backend {
    settings: Settings,
    clients: Clients,
    location: String,
}

impl S3State {
    /// Reads the configuration and builds the clients; nothing is requested until the first call.
    pub fn open(config: &BackendConfig) -> Result<S3State, StoreError> {
        let settings = Settings::read(config)?;
        let location = settings.location();
        let runtime = Runtime::new().map_err(|error| {
            StoreError::new(format!("{location}: cannot start the S3 client: {error}"))
        })?;
        let clients = runtime.block_on(Clients::new(&settings, &location))?;
        Ok(S3State {
            backend: Backend {
                settings,
                clients,
                location,
            },
            runtime: std::sync::Arc::new(runtime),
        })
    }
}

impl RemoteState for S3State {
    fn location(&self) -> String {
        self.backend.location.clone()
    }

    /// The key's last segment: `terraform.tfstate` for `env:/dev/app/terraform.tfstate`.
    fn backup_name(&self) -> String {
        let key = &self.backend.settings.key;
        key.rsplit('/').next().unwrap_or(key).to_owned()
    }

    fn lock_path(&self) -> String {
        self.backend.settings.lock_path()
    }

    fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
        self.runtime.block_on(self.backend.get_checked())
    }

    fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
        self.runtime.block_on(self.backend.lock(info))
    }

    fn put(&self, bytes: &[u8], _lock: &LockInfo) -> Result<(), StoreError> {
        self.runtime.block_on(self.backend.put(bytes))
    }

    fn unlock(&self, lock: &LockInfo) -> Result<(), StoreError> {
        self.runtime.block_on(self.backend.unlock(&lock.id))
    }

    fn versions(&self) -> Option<&dyn statectl_state::state::store::versions::StateVersions> {
        Some(self)
    }
}

impl Backend {
    /// The error for a failed S3 request about `object`, with the caller's identity for an access
    /// denied (unless `skip_requesting_account_id` asks for no such call).
    async fn s3_error(
        &self,
        failure: &Failure,
        object: &str,
        doing: &str,
        action: &str,
    ) -> StoreError {
        let resource = format!("arn:aws:s3:::{}/{object}", self.settings.bucket);
        let target = Target {
            location: &self.location,
            service: "S3",
            bucket: &self.settings.bucket,
            object,
            doing,
            action,
            resource: &resource,
            region: &self.clients.region,
            endpoint: self.settings.endpoints.s3.as_deref(),
        };
        let identity = self.identity_for(failure).await;
        errors::describe(failure, &target, identity.as_deref())
    }

    /// The error for a failed DynamoDB request about item `item` of `table`.
    async fn dynamodb_error(
        &self,
        failure: &Failure,
        table: &str,
        item: &str,
        doing: &str,
        action: &str,
    ) -> StoreError {
        let resource = format!("arn:aws:dynamodb:{}:*:table/{table}", self.clients.region);
        let object = if failure.code_is("ResourceNotFoundException") {
            table
        } else {
            item
        };
        let target = Target {
            location: &self.location,
            service: "DynamoDB",
            bucket: &self.settings.bucket,
            object,
            doing,
            action,
            resource: &resource,
            region: &self.clients.region,
            endpoint: self.settings.endpoints.dynamodb.as_deref(),
        };
        let identity = self.identity_for(failure).await;
        errors::describe(failure, &target, identity.as_deref())
    }

    async fn identity_for(&self, failure: &Failure) -> Option<String> {
        let denied = failure.status == Some(403)
            || failure.code_is("AccessDenied")
            || failure.code_is("AccessDeniedException");
        if denied && !self.settings.credentials.skip_requesting_account_id {
            self.clients.caller_identity().await
        } else {
            None
        }
    }
}
