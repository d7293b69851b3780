//! Lifecycle rules evaluated over planned state mutations, before anything is written: the state's
//! own flags, the configuration's `lifecycle` blocks (`--config`), the remote status the scan catalog
//! reads, and a policy file's protections.

pub mod file;
pub mod lifecycle;
