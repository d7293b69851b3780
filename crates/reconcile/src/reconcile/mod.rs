//! Reconciling stale instances with what the providers say: one seam, two readers (HTTP provider
//! profiles that speak the async protocols directly, and the provider plugins over gRPC), both returning
//! the same per-instance outcome. With `statectl-backend`, the only code that talks to the network (its
//! clients, bounded bodies and credentials come from `statectl-net`).

pub mod credentials;
pub mod engine;
pub mod http;
pub mod outcome;
pub mod plugin;
pub mod poll;
pub mod profile;
pub mod progress;
pub mod rate;
#[cfg(test)]
mod test_support;
