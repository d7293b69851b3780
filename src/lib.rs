//! statectl: find the asynchronous resources that a Terraform or OpenTofu state left half-created, ask
//! the providers about them, and rewrite the state safely.
//!
//! This package is the CLI (`cli`); the engines are crates of their own (ARCHITECTURE.md). Only
//! `cli` prints.

pub mod cli;
#[doc(hidden)]
pub mod fuzzing;

// The integration tests, the fuzz targets and the simulator's end-to-end tests reach the state
// engine and the provider reconciliation by these paths.
pub use statectl_reconcile::reconcile;
pub use statectl_state::{json, state};
