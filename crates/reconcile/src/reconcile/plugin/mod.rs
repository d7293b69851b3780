//! Reading resources through the real provider plugins, over Terraform's plugin protocol: find the
//! provider binary and verify it against the lock file, launch it the way Terraform does, shake
//! hands over mutual TLS, and speak gRPC (protocol 5 or 6) to it. The cty values it exchanges are encoded by `value`.

pub mod channel;
pub mod cliconfig;
pub mod client;
pub mod diagnostics;
pub mod discover;
pub mod handshake;
pub mod launch;
pub mod proto;
pub mod reader;
pub mod schema;
pub mod tls;
pub mod value;
pub mod verify;
