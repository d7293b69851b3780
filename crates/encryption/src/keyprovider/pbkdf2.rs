//! The pbkdf2 key provider: a key derived from a passphrase (or a chained key provider's key)
//! with PBKDF2-HMAC, a fresh salt per write, and the derivation's parameters stored as metadata
//! (`internal/encryption/keyprovider/pbkdf2/`).

use std::fmt::Write as _;
use std::num::NonZeroU32;

use aws_lc_rs::pbkdf2 as lc;
use serde::Deserialize;
use serde_json::Value;

use super::{KeyProvider, integer, string};
use crate::config::{KeyProviderConfig, reference};
use crate::error::Error;
use crate::gojson::{decode_base64, encode_base64};
use statectl_net::Secret;

/// OpenTofu's `MinimumPassphraseLength`, in bytes (Go's `len` of a string).
pub const MINIMUM_PASSPHRASE_LENGTH: usize = 16;
/// OpenTofu's `MinimumIterations`.
pub const MINIMUM_ITERATIONS: i64 = 200_000;
pub const DEFAULT_ITERATIONS: u32 = 600_000;
pub const DEFAULT_KEY_LENGTH: usize = 32;
pub const DEFAULT_SALT_LENGTH: usize = 32;
/// Stored metadata asking for a longer key (or than the configuration's `key_length`) is refused
/// before deriving: the aes_gcm method takes 16, 24 or 32 bytes, and a chained key provider's
/// passphrase gains nothing past the hash's block; each block more is another full derivation.
pub const MAXIMUM_STORED_KEY_LENGTH: i64 = 64;
/// Stored metadata asking for more rounds (or than the configuration's `iterations`) is refused
/// before deriving: OpenTofu writes its configuration's count (600,000 by default; its own reader
/// sets no ceiling, so a state's four bytes could ask for hours of work). Ten million rounds of
/// SHA-512 take a few seconds.
pub const MAXIMUM_STORED_ITERATIONS: i64 = 10_000_000;

/// PBKDF2's pseudo-random function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hash {
    Sha256,
    Sha512,
}

impl Hash {
    fn parse(name: &str) -> Option<Hash> {
        match name {
            "sha256" => Some(Hash::Sha256),
            "sha512" => Some(Hash::Sha512),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Hash::Sha256 => "sha256",
            Hash::Sha512 => "sha512",
        }
    }

    fn algorithm(self) -> lc::Algorithm {
        match self {
            Hash::Sha256 => lc::PBKDF2_HMAC_SHA256,
            Hash::Sha512 => lc::PBKDF2_HMAC_SHA512,
        }
    }
}

/// PBKDF2-HMAC(`hash`, `passphrase`, `salt`, `iterations`) to `key_length` bytes.
pub fn derive(
    hash: Hash,
    passphrase: &[u8],
    salt: &[u8],
    iterations: NonZeroU32,
    key_length: usize,
) -> Secret {
    Secret::filled(key_length, |out| {
        lc::derive(hash.algorithm(), iterations, salt, passphrase, out);
    })
}

/// A configured pbkdf2 key provider.
#[derive(Debug)]
pub struct Pbkdf2 {
    at: String,
    passphrase: Option<Secret>,
    chain: Option<String>,
    key_length: usize,
    iterations: NonZeroU32,
    hash: Hash,
    salt_length: usize,
}

impl Pbkdf2 {
    /// Reads and checks the options in OpenTofu's order (`Config.Build`), so the first problem
    /// reported is the one OpenTofu reports.
    #[allow(
        clippy::too_many_lines,
        reason = "one check per OpenTofu rule, in OpenTofu's order"
    )]
    pub fn from_config(config: &KeyProviderConfig) -> Result<Self, Error> {
        let at = config.address();
        let mut passphrase = None;
        let mut chain = None;
        let mut key_length = i64::try_from(DEFAULT_KEY_LENGTH).unwrap_or(32);
        let mut iterations = i64::from(DEFAULT_ITERATIONS);
        let mut hash_name = "sha512".to_owned();
        let mut salt_length = i64::try_from(DEFAULT_SALT_LENGTH).unwrap_or(32);
        for (key, value) in &config.body {
            match key.as_str() {
                "passphrase" => passphrase = Some(string(&at, key, value)?.as_bytes().to_vec()),
                "chain" => chain = Some(reference(&format!("{at}.chain"), value)?),
                "key_length" => key_length = integer(&at, key, value)?,
                "iterations" => iterations = integer(&at, key, value)?,
                "hash_function" => string(&at, key, value)?.clone_into(&mut hash_name),
                "salt_length" => salt_length = integer(&at, key, value)?,
                _ => {
                    return Err(Error::Config {
                        at: format!("{at}.{key}"),
                        detail: "unknown option; pbkdf2 takes passphrase, chain, key_length, iterations, hash_function, salt_length".into(),
                    });
                }
            }
        }
        let passphrase = passphrase.filter(|p| !p.is_empty()).map(Secret::key);
        let bad = |detail: &str| Error::Config {
            at: at.clone(),
            detail: detail.to_owned(),
        };
        match (&passphrase, &chain) {
            (None, None) => {
                return Err(bad(
                    "no passphrase given and no chain to another key provider",
                ));
            }
            (Some(_), Some(_)) => return Err(bad("passphrase and chain are mutually exclusive")),
            _ => {}
        }
        if let Some(chain) = chain
            .as_ref()
            .filter(|c| !c.starts_with("key_provider.") || c.split('.').count() != 3)
        {
            return Err(Error::Config {
                at: format!("{at}.chain"),
                detail: format!(
                    "{chain:?} is not a key provider reference (key_provider.<type>.<name>)"
                ),
            });
        }
        if passphrase
            .as_ref()
            .is_some_and(|p| p.len() < MINIMUM_PASSPHRASE_LENGTH)
        {
            return Err(Error::PassphraseTooShort {
                at,
                minimum: MINIMUM_PASSPHRASE_LENGTH,
            });
        }
        if key_length <= 0 {
            return Err(bad("the key length must be larger than zero"));
        }
        if iterations <= 0 {
            return Err(bad("the number of iterations must be larger than zero"));
        }
        if iterations < MINIMUM_ITERATIONS {
            return Err(Error::TooFewIterations {
                at,
                found: iterations,
                minimum: MINIMUM_ITERATIONS,
            });
        }
        if salt_length <= 0 {
            return Err(bad("the salt length must be larger than zero"));
        }
        let Some(hash) = Hash::parse(&hash_name) else {
            return Err(Error::Config {
                at: format!("{at}.hash_function"),
                detail: format!(
                    "invalid hash function name {hash_name:?}; expected sha256 or sha512"
                ),
            });
        };
        let too_big = |what: &str| Error::Config {
            at: at.clone(),
            detail: format!("{what} is too large"),
        };
        Ok(Pbkdf2 {
            passphrase,
            chain,
            key_length: usize::try_from(key_length)
                .ok()
                .filter(|n| *n <= 1024)
                .ok_or_else(|| too_big("key_length"))?,
            iterations: u32::try_from(iterations)
                .ok()
                .and_then(NonZeroU32::new)
                .ok_or_else(|| too_big("iterations"))?,
            hash,
            salt_length: usize::try_from(salt_length)
                .ok()
                .filter(|n| *n <= 1024)
                .ok_or_else(|| too_big("salt_length"))?,
            at,
        })
    }

    fn passphrase<'a>(
        &'a self,
        upstream: Option<&'a Secret>,
        which: &str,
    ) -> Result<&'a [u8], Error> {
        if let Some(p) = &self.passphrase {
            return Ok(p.expose());
        }
        let upstream = upstream.ok_or_else(|| Error::Config {
            at: self.at.clone(),
            detail: format!("no {which} key provided from the chained key provider"),
        })?;
        if upstream.len() < MINIMUM_PASSPHRASE_LENGTH {
            return Err(Error::PassphraseTooShort {
                at: format!("{} (the {which} key of its chain)", self.at),
                minimum: MINIMUM_PASSPHRASE_LENGTH,
            });
        }
        Ok(upstream.expose())
    }
}

/// The metadata as OpenTofu's `Metadata` struct: Go ignores unknown keys and zero-fills
/// missing ones.
#[derive(Deserialize, Default)]
#[serde(default)]
struct StoredMeta {
    salt: Option<String>,
    iterations: Option<i64>,
    hash_function: Option<String>,
    key_length: Option<i64>,
}

impl KeyProvider for Pbkdf2 {
    fn chain(&self) -> Option<&str> {
        self.chain.as_deref()
    }

    fn is_computed_locally(&self) -> bool {
        // Rounds of a hash over the passphrase (or the chained key, whose provider the keyring
        // asks in turn).
        true
    }

    fn encryption_key(&self, upstream: Option<&Secret>) -> Result<(Secret, Vec<u8>), Error> {
        let passphrase = self.passphrase(upstream, "encryption")?;
        let mut salt = vec![0; self.salt_length];
        aws_lc_rs::rand::fill(&mut salt).map_err(|_| Error::KeyProvider {
            provider: self.at.clone(),
            detail: format!("failed to obtain {} bytes of random data", self.salt_length),
            stderr: None,
        })?;
        let key = derive(
            self.hash,
            passphrase,
            &salt,
            self.iterations,
            self.key_length,
        );
        // Go marshals the Metadata struct in field order: salt, iterations, hash_function,
        // key_length.
        let mut meta = String::from("{\"salt\":\"");
        encode_base64(&salt, &mut meta);
        let _ = write!(
            meta,
            "\",\"iterations\":{},\"hash_function\":\"{}\",\"key_length\":{}}}",
            self.iterations,
            self.hash.name(),
            self.key_length
        );
        Ok((key, meta.into_bytes()))
    }

    fn decryption_key(
        &self,
        stored: &[u8],
        upstream: Option<&Secret>,
    ) -> Result<Option<Secret>, Error> {
        let invalid = |detail: String| Error::InvalidMetadata {
            provider: self.at.clone(),
            detail,
        };
        let meta: StoredMeta = match serde_json::from_slice::<Value>(stored) {
            Ok(Value::Null) => StoredMeta::default(),
            Ok(value) => serde_json::from_value(value).map_err(|e| invalid(e.to_string()))?,
            Err(e) => return Err(invalid(format!("not JSON ({e})"))),
        };
        let salt = match meta.salt.as_deref() {
            None => Vec::new(),
            Some(text) => decode_base64(text.as_bytes())
                .map_err(|e| invalid(format!("the salt is not valid base64 ({e})")))?,
        };
        let iterations = meta.iterations.unwrap_or(0);
        let key_length = meta.key_length.unwrap_or(0);
        let hash_name = meta.hash_function.unwrap_or_default();
        // OpenTofu's `isPresent`: without all four, there is no decryption key to make.
        if salt.is_empty() || iterations == 0 || hash_name.is_empty() || key_length == 0 {
            return Ok(None);
        }
        if iterations < 0 {
            return Err(invalid(format!(
                "invalid number of iterations ({iterations})"
            )));
        }
        if key_length < 0 {
            return Err(invalid(format!("invalid key length ({key_length})")));
        }
        // What this configuration would write, or the ceiling: past it, refused before any work.
        let most_iterations = MAXIMUM_STORED_ITERATIONS.max(i64::from(self.iterations.get()));
        if iterations > most_iterations {
            return Err(invalid(format!(
                "it asks for {iterations} iterations, more than statectl derives ({most_iterations}; OpenTofu writes its configuration's count, {DEFAULT_ITERATIONS} by default)"
            )));
        }
        let longest = MAXIMUM_STORED_KEY_LENGTH
            .max(i64::try_from(self.key_length).unwrap_or(MAXIMUM_STORED_KEY_LENGTH));
        if key_length > longest {
            return Err(invalid(format!(
                "it asks for a key of {key_length} bytes, longer than statectl derives ({longest}; the aes_gcm method takes 16, 24 or 32)"
            )));
        }
        let hash = Hash::parse(&hash_name)
            .ok_or_else(|| invalid(format!("invalid hash function name {hash_name:?}")))?;
        // The stored count is used as stored, even below today's minimum: OpenTofu reads what
        // it once wrote.
        let iterations = u32::try_from(iterations)
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or_else(|| invalid(format!("invalid number of iterations ({iterations})")))?;
        let passphrase = self.passphrase(upstream, "decryption")?;
        Ok(Some(derive(
            hash,
            passphrase,
            &salt,
            iterations,
            usize::try_from(key_length).unwrap_or(0),
        )))
    }
}
