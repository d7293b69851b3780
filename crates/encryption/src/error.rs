//! Every way reading or writing an encrypted state can fail, each with what failed and where.

use std::fmt;

/// Why a state could not be decrypted, encrypted, or its encryption configured.
///
/// `Display` is one line naming what and where; [`Error::hint`] says what to change when there is
/// a fix. No variant carries a passphrase, a key or a decrypted byte.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes look like an encryption envelope but are not valid JSON (a cut-off file).
    #[error(
        "the encrypted state is truncated or damaged: {detail} at line {line}, column {column}"
    )]
    EnvelopeNotJson {
        line: usize,
        column: usize,
        detail: String,
    },
    /// The envelope's `encryption_version` is not one this build reads.
    #[error(
        "the encrypted state has encryption_version {found:?}; only \"v0\" is known (OpenTofu's \"invalid encrypted payload version\")"
    )]
    UnknownVersion { found: String },
    /// A key of the envelope is missing.
    #[error("the encrypted state has no {field:?}")]
    EnvelopeMissing { field: &'static str },
    /// A key of the envelope has the wrong JSON type.
    #[error("the encrypted state's {field} is not {expected}")]
    EnvelopeType {
        field: String,
        expected: &'static str,
    },
    /// A base64 field of the envelope does not decode.
    #[error(
        "the encrypted state's {field} is not valid base64 ({detail}); the file may be truncated or edited"
    )]
    BadBase64 { field: String, detail: String },
    /// The envelope's `serial` or `lineage` differs from the state inside it.
    #[error(
        "the encrypted state's {field} in clear ({outer}) differs from the {field} inside ({inner})"
    )]
    HeadMismatch {
        field: &'static str,
        outer: String,
        inner: String,
    },

    /// The `encryption` configuration itself is wrong.
    #[error("encryption configuration: {at}: {detail}")]
    Config { at: String, detail: String },
    /// A key provider type this build does not implement.
    #[error(
        "encryption configuration: {at}: key provider type {kind:?} is not supported; supported are {supported}"
    )]
    UnsupportedKeyProvider {
        at: String,
        kind: String,
        supported: String,
    },
    /// A method type this build does not implement.
    #[error(
        "encryption configuration: {at}: method type {kind:?} is not supported; supported are aes_gcm, unencrypted"
    )]
    UnsupportedMethod { at: String, kind: String },
    /// A pbkdf2 passphrase (or chained key) shorter than OpenTofu accepts.
    #[error(
        "encryption configuration: {at}: the passphrase is shorter than OpenTofu's minimum of {minimum} bytes"
    )]
    PassphraseTooShort { at: String, minimum: usize },
    /// Fewer pbkdf2 iterations than OpenTofu accepts.
    #[error(
        "encryption configuration: {at}: {found} iterations is below OpenTofu's minimum of {minimum}"
    )]
    TooFewIterations {
        at: String,
        found: i64,
        minimum: i64,
    },
    /// `enforced = true` with an `unencrypted` method in the target's chain.
    #[error(
        "encryption configuration: {target}: the unencrypted method {method} is forbidden because enforced = true"
    )]
    UnencryptedForbidden { target: String, method: String },

    /// The stored metadata of a key provider cannot be read.
    #[error("{provider}: the metadata stored in the encrypted state is invalid: {detail}")]
    InvalidMetadata { provider: String, detail: String },
    /// A key provider failed to produce a key (an external command that failed, hung or lied).
    #[error("{provider}: {detail}")]
    KeyProvider {
        provider: String,
        detail: String,
        /// What the command wrote on its standard error: kept apart from `Display` because it
        /// may hold key material; shown only where the caller decides to.
        stderr: Option<String>,
    },
    /// A key provider's service refused or could not be reached (a KMS key that does not exist,
    /// access denied, an endpoint that does not answer).
    #[error("{provider}: {detail}")]
    KeyService {
        provider: String,
        detail: String,
        /// What to change, when the service's answer tells.
        hint: Option<String>,
    },
    /// Every configured method failed to open the envelope.
    #[error("cannot decrypt the state: {}", Attempts(.attempts))]
    DecryptFailed { attempts: Vec<Attempt> },
    /// A plaintext state met a configuration without an `unencrypted` method.
    #[error(
        "the state is not encrypted, but the state encryption configuration has no unencrypted method to accept it"
    )]
    PlaintextRefused,
    /// An envelope met a configuration with no `state` target at all.
    #[error("the state is encrypted by OpenTofu, and no state encryption is configured to open it")]
    NotConfigured,
    /// Neither an envelope nor a state.
    #[error("the data is neither an encrypted OpenTofu state nor a state ({detail})")]
    NotAState { detail: String },
    /// Encrypting failed (randomness unavailable, or the plaintext is not a state).
    #[error("cannot encrypt the state: {detail}")]
    EncryptFailed { detail: String },
    /// The cipher refused (a bad key length, no randomness, too much data).
    #[error("cannot encrypt the state: {0}")]
    Seal(#[from] crate::aes_gcm::SealError),
}

/// One method's failed attempt at opening an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// `method.<type>.<name>`.
    pub method: String,
    /// The key providers whose keys the method used.
    pub key_providers: Vec<String>,
    /// What went wrong, without key material.
    pub reason: AttemptFailure,
}

/// Why one method could not open the envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptFailure {
    /// AES-GCM's tag did not verify: a wrong key (passphrase) or altered data.
    WrongKeyOrTampered,
    /// The envelope holds no metadata for the key provider, so no decryption key can be made.
    NoMetadata {
        provider: String,
        present: Vec<String>,
    },
    /// The data is shorter than a nonce and a tag.
    TooShort { length: usize },
    /// The key provider produced no decryption key.
    NoDecryptionKey { provider: String },
}

impl fmt::Display for Attempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.method)?;
        if !self.key_providers.is_empty() {
            write!(f, " with {}", self.key_providers.join(" + "))?;
        }
        match &self.reason {
            AttemptFailure::WrongKeyOrTampered => write!(
                f,
                " failed: the passphrase or key may be wrong, or the encrypted data was altered"
            ),
            AttemptFailure::NoMetadata { provider, present } => {
                write!(
                    f,
                    " failed: the state holds no metadata for {provider} (it has "
                )?;
                if present.is_empty() {
                    write!(f, "none)")
                } else {
                    write!(f, "{})", present.join(", "))
                }
            }
            AttemptFailure::TooShort { length } => write!(
                f,
                " failed: the encrypted data is {length} bytes, too short for a nonce and a tag (truncated?)"
            ),
            AttemptFailure::NoDecryptionKey { provider } => {
                write!(f, " failed: {provider} returned no decryption key")
            }
        }
    }
}

struct Attempts<'a>(&'a [Attempt]);

impl fmt::Display for Attempts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return write!(f, "no encrypting method is configured for the state");
        }
        for (i, attempt) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, "; then ")?;
            }
            write!(f, "{attempt}")?;
        }
        Ok(())
    }
}

impl Error {
    /// What the user can change, when there is a fix.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::DecryptFailed { .. } => Some(
                "check the passphrase or key the key provider gets (the configuration's encryption block or TF_ENCRYPTION); after a key change, keep the old key in a fallback block"
                    .into(),
            ),
            Error::NotConfigured => Some(
                "give the encryption configuration: run in (or point --config at) the directory whose terraform { encryption { ... } } block wrote it, or set TF_ENCRYPTION"
                    .into(),
            ),
            Error::PlaintextRefused => Some(
                "to migrate a plaintext state, add method \"unencrypted\" \"migrate\" {} and a fallback { method = method.unencrypted.migrate } to the state block"
                    .into(),
            ),
            Error::PassphraseTooShort { minimum, .. } => {
                Some(format!("use a passphrase of at least {minimum} bytes"))
            }
            Error::TooFewIterations { minimum, .. } => {
                Some(format!("set iterations to at least {minimum} (OpenTofu's default is 600000)"))
            }
            Error::UnencryptedForbidden { .. } => Some(
                "remove the unencrypted method from the chain, or enforced = true while migrating".into(),
            ),
            Error::UnknownVersion { .. } => {
                Some("a newer OpenTofu wrote it; read it with that OpenTofu".into())
            }
            Error::KeyService { hint, .. } => hint.clone(),
            Error::KeyProvider { stderr: Some(_), .. } => {
                Some("run the key provider's command by hand to see its error output".into())
            }
            _ => None,
        }
    }
}
