//! statectl's network and credentials, shared by every crate that talks to a server (reconcile, the
//! backends, the network key providers): the run's secret registry that every output is masked
//! against (`secrets`) and the one zeroizing [`Secret`]; the pieces of an HTTP exchange (`http`:
//! bounded bodies, status and error text, `Retry-After`); and the credentials read as the tools
//! that made them read them (`oci`: the config file and request signing; `cliconfig`: Terraform's
//! CLI configuration and its host credentials; `aws`: the assume-role options of the AWS provider).

pub mod aws;
pub mod cliconfig;
#[cfg(feature = "http")]
pub mod http;
pub mod oci;
pub mod secret;
pub mod secrets;

pub use secret::Secret;
