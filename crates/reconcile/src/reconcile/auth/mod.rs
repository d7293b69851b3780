//! Authenticating requests to provider APIs: OCI's HTTP signatures from an API key, bearer tokens,
//! basic auth and arbitrary headers. Every secret lives in a [`Secret`], which never prints.

pub mod oci_config;
pub mod oci_signature;
pub mod secret;

pub use secret::Secret;
