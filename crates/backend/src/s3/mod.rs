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

use statectl_state::state::store::StoreError;

use crate::config::BackendConfig;
use crate::runtime::Runtime;

use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};

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
    /// The object key of `config`'s workspace's state, as [`S3State::open`] would read it.
    pub(crate) fn state_object(config: &BackendConfig) -> Result<String, StoreError> {
        Ok(Settings::read(config)?.key)
    }

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

crate::blocking::blocking_remote_state!(S3State, object: key, runtime: runtime {
    fn missing_state_hint(&self) -> &'static str {
        "check the bucket and key (another workspace's state is under `workspace_key_prefix`, `env:` by default); `terraform workspace list` shows the workspaces"
    }
});

/// What a failed request was about: an object of the bucket, or an item of a DynamoDB table.
#[derive(Clone, Copy)]
enum About<'a> {
    Object(&'a str),
    Item { table: &'a str, item: &'a str },
}

impl Backend {
    /// The error for a failed request about `about`, with the caller's identity for an access
    /// denied (unless `skip_requesting_account_id` asks for no such call).
    async fn aws_error(
        &self,
        failure: &Failure,
        about: About<'_>,
        doing: &str,
        action: &str,
    ) -> StoreError {
        let (service, object, resource, endpoint) = match about {
            About::Object(object) => (
                "S3",
                object,
                format!("arn:aws:s3:::{}/{object}", self.settings.bucket),
                &self.settings.endpoints.s3,
            ),
            About::Item { table, item } => (
                "DynamoDB",
                // A missing table is named, not the item looked for in it.
                if failure.code_is("ResourceNotFoundException") {
                    table
                } else {
                    item
                },
                format!("arn:aws:dynamodb:{}:*:table/{table}", self.clients.region),
                &self.settings.endpoints.dynamodb,
            ),
        };
        let target = Target {
            location: &self.location,
            service,
            bucket: &self.settings.bucket,
            object,
            doing,
            action,
            resource: &resource,
            region: &self.clients.region,
            endpoint: endpoint.as_deref(),
        };
        let identity = self.identity_for(failure).await;
        errors::describe(failure, &target, identity.as_deref())
    }

    /// The output of the request `sending`, about `about`, or its error as [`Backend::aws_error`]
    /// tells it.
    async fn aws_output<T, E>(
        &self,
        sending: impl Future<Output = Result<T, SdkError<E, HttpResponse>>>,
        about: About<'_>,
        doing: &str,
        action: &str,
    ) -> Result<T, StoreError>
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        match sending.await {
            Ok(output) => Ok(output),
            Err(error) => {
                let failure = Failure::from_sdk(&error);
                Err(self.aws_error(&failure, about, doing, action).await)
            }
        }
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
