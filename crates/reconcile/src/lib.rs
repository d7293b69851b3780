//! statectl's reconciliation. It asks provider APIs about stale instances through HTTP profiles
//! (the poller, retries, credentials) and reads instances through the provider plugins themselves
//! (go-plugin handshake, gRPC over mutual TLS, the cty value codec). It depends on the state engine
//! and on `statectl-net` (the HTTP pieces, the one `Secret`, OCI request signing, Terraform's CLI
//! configuration); the `statectl` package re-exports it as `statectl::reconcile`.

pub mod reconcile;

// The state engine's modules under the paths this crate's code names them by.
pub(crate) use statectl_state::{duration, json, state};
