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

// The state engine lives in its own crate (crates/state); its modules keep their paths here.
pub use statectl_reconcile::reconcile;
pub use statectl_state::{duration, json, state};
