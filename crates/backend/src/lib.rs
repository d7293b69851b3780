//! statectl's remote state backends: where `terraform init` said the state lives (`discover`), and the
//! backends that read, lock and replace it as Terraform's own backends do (`s3`, `gcs`, `azure`, `oci`,
//! `http`, `hcp`). Each backend
//! implements the store's [`RemoteState`](statectl_state::state::store::RemoteState) seam; the store
//! keeps the rules every write follows (lock, re-read and compare, backup, release).
//! `kms` is OpenTofu's `aws_kms` key provider for encrypted states: it talks to AWS KMS, so it
//! lives here, on the S3 backend's credential chain.

pub mod azure;
mod blocking;
mod client_error;
pub mod config;
mod debug;
pub mod discover;
mod escape;
pub mod gcs;
pub mod hcp;
pub mod http;
pub mod kms;
pub mod listing;
pub mod oci;
mod rfc3339;
pub mod runtime;
pub mod s3;
mod secret_settings;
mod version_pages;

pub use config::BackendConfig;
pub use listing::{DEFAULT_MAX_PAGES, ListOptions};

use std::sync::Arc;

use statectl_state::state::store::{RemoteState, StoreError};

/// Opens the backend `config` describes (its credentials registered with the run's masks first).
pub fn open(config: &BackendConfig) -> Result<Arc<dyn RemoteState>, StoreError> {
    secret_settings::register(config);
    match config.kind.as_str() {
        "s3" => Ok(Arc::new(s3::S3State::open(config)?)),
        "http" => Ok(Arc::new(http::HttpState::open(config)?)),
        "gcs" => Ok(Arc::new(gcs::GcsState::open(config)?)),
        "azurerm" => Ok(Arc::new(azure::AzureState::open(config)?)),
        "oci" => Ok(Arc::new(oci::OciState::open(config)?)),
        "cloud" | "remote" => Ok(Arc::new(hcp::HcpState::open(config)?)),
        other => Err(StoreError::new(format!(
            "{}: backend \"{other}\" is not supported yet; statectl reads the `local`, `s3`, `gcs`, `azurerm`, `oci`, `http`, `cloud` and `remote` backends",
            config.origin
        ))
        .with_hint("`terraform state pull | statectl list -` reads any backend through Terraform")),
    }
}

/// The states a prefix listing found: their keys, and how to open each one when it is read (the
/// states share the listing's clients; one is made only while it is read, so a hundred thousand
/// listed states cost their keys and no more).
pub struct Listing {
    /// The states' keys (object or blob names), in byte order, each once.
    pub keys: Vec<String>,
    /// What was odd about the listing, each line starting with the prefix (`s3://b/org/: ...`).
    pub warnings: Vec<String>,
    open: Opener,
}

/// Opens the listed state at a key, from the state the listing was made with.
type Opener = Box<dyn Fn(&str) -> Arc<dyn RemoteState> + Send + Sync>;

impl Listing {
    /// The state at `key` (one of [`Listing::keys`]).
    pub fn open(&self, key: &str) -> Arc<dyn RemoteState> {
        (self.open)(key)
    }
}

crate::debug::shown_in_debug!(Listing: keys.len(), warnings);

/// Every state below `prefix` in the backend `config` describes (s3, gcs, azurerm, oci), whose keys
/// `options` keeps, within its page limit.
pub fn states_under(
    config: &BackendConfig,
    prefix: &str,
    options: ListOptions<'_>,
) -> Result<Listing, StoreError> {
    secret_settings::register(config);
    list_states(config, prefix, options).map_err(|error| at_prefix(&config.origin, error))
}

/// A listing's error names the prefix the user gave (`s3://bucket/org/`), not the placeholder state
/// (`s3://bucket/org/terraform.tfstate`) the backend was opened at to list it.
fn at_prefix(origin: &str, mut error: StoreError) -> StoreError {
    if let Some((placeholder, after)) = error
        .message
        .strip_prefix(origin)
        .and_then(|rest| rest.split_once(": "))
        && !placeholder.contains('/')
    {
        error.message = format!("{origin}: {after}");
    }
    error
}

fn list_states(
    config: &BackendConfig,
    prefix: &str,
    options: ListOptions<'_>,
) -> Result<Listing, StoreError> {
    // Each backend that lists: opened at the placeholder state, its keys under the prefix, and
    // how to reopen it at one of them.
    macro_rules! listed {
        ($state:ty, $at:ident) => {{
            let base = <$state>::open(config)?;
            (
                base.keys_under(prefix, options)?,
                opener(base, <$state>::$at),
            )
        }};
    }
    let (listed, open): (_, Opener) = match config.kind.as_str() {
        "s3" => listed!(s3::S3State, at_key),
        "gcs" => listed!(gcs::GcsState, at_object),
        "azurerm" => listed!(azure::AzureState, at_blob),
        "oci" => listed!(oci::OciState, at_object),
        other => {
            return Err(StoreError::new(format!(
                "{}: listing the states of backend \"{other}\" is not supported; name each state",
                config.origin
            )));
        }
    };
    Ok(Listing {
        keys: listed.keys,
        warnings: listed
            .warnings
            .into_iter()
            .map(|warning| format!("{}: {warning}", config.origin))
            .collect(),
        open,
    })
}

/// Opens the listed state at a key with `at`, from the state the listing was made with.
fn opener<T: RemoteState + Send + Sync + 'static>(base: T, at: fn(&T, String) -> T) -> Opener {
    Box::new(move |key| Arc::new(at(&base, key.to_owned())) as Arc<dyn RemoteState>)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_error_names_the_prefix_not_the_placeholder_state() {
        let error = at_prefix(
            "s3://b/org/",
            StoreError::new("s3://b/org/terraform.tfstate: cannot reach S3: refused")
                .with_hint("h"),
        );
        assert_eq!(error.message, "s3://b/org/: cannot reach S3: refused");
        assert_eq!(error.hint.as_deref(), Some("h"));
        // Anything else is left as it is.
        for message in [
            "s3://b/org/team/x.tfstate: refused",
            "no location: here",
            "s3://b/other/terraform.tfstate: refused",
        ] {
            assert_eq!(
                at_prefix("s3://b/org/", StoreError::new(message)).message,
                message
            );
        }
    }
}
