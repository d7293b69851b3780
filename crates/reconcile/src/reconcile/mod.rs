//! Reconciling stale instances with what the providers say: one seam, two readers (HTTP provider
//! profiles that speak the async protocols directly, and the provider plugins over gRPC), both returning
//! the same per-instance outcome. The only module that talks to the network.

pub mod credentials;
pub mod engine;
pub mod http;
pub mod outcome;
pub mod plugin;
pub mod poll;
pub mod profile;
pub mod progress;
pub mod rate;
