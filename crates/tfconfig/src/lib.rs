//! statectl's reader of Terraform and OpenTofu configuration, without running either: the
//! `lifecycle` and `removed` blocks that say what may be destroyed (`lifecycle`), the values of
//! `var.` and `local.` that can be known statically (`values`), the root module's `provider` blocks
//! (`providers`) and its `encryption` block (`encryption`). Every reader takes its files from one
//! loader (`module`), which reads a module folder's files once and parses each at most once.
//!
//! No network, no async runtime: the compiler holds this crate to the state engine, hcl-rs and
//! serde_json.

pub mod encryption;
mod error;
mod lifecycle;
mod module;
mod providers;
pub mod values;

pub use error::ConfigError;
pub use lifecycle::{Config, ConfigResource, RemovedBlock, SkippedModule};
pub use module::{Module, holds_configuration};
pub use providers::{ProviderBlock, read_provider_blocks};
