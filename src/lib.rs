//! statectl: find the asynchronous resources that a Terraform or OpenTofu state left half-created, ask
//! the providers about them, and rewrite the state safely.
//!
//! Dependencies point one way: `cli` uses the engines, the engines use `state`, and `state` uses `json`.
//! Only `cli` prints.

pub mod audit;
pub mod cli;
pub mod diff;
#[doc(hidden)]
pub mod fuzzing;
pub mod glob;
pub mod policy;
pub mod scan;
#[cfg(test)]
mod test_support;
mod toml_file;

// The state engine (crates/state) and the provider reconciliation (crates/reconcile) are crates of
// their own; their modules keep their paths here.
pub use statectl_reconcile::reconcile;
pub use statectl_state::{duration, json, state};
