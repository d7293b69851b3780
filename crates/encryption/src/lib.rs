//! OpenTofu's state encryption, read and written as OpenTofu does: the envelope, the
//! `encryption` configuration and its `TF_ENCRYPTION` merge, the pbkdf2 and external key
//! providers, the aes_gcm and unencrypted methods, and the fallback and plaintext rules.
//!
//! No network, no printing: errors are values whose `Display` is one line, with a hint.
//! Key material lives in [`Secret`] (zeroised on drop, never in `Debug`).

mod aes_gcm;
pub mod config;
pub mod envelope;
mod error;
pub mod gojson;
pub mod keyprovider;
mod keyring;
mod method;

mod state;

pub use aes_gcm::SealError;
pub use config::EncryptionConfig;
pub use envelope::Envelope;
pub use error::{Attempt, AttemptFailure, Error};
pub use keyprovider::{KeyProvider, Registry};
pub use method::Method;
pub use state::{Decrypted, EnvelopeInfo, Sealed, StateEncryption, Status};
pub use statectl_net::Secret;
