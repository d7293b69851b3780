//! Key providers: the trait a provider implements (pbkdf2 and external here, aws_kms next), and
//! the registry that builds them from their configuration by type.

pub mod external;
pub mod pbkdf2;

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::config::KeyProviderConfig;
use crate::error::Error;
use statectl_net::Secret;

/// A source of keys, as OpenTofu's `keyprovider.KeyProvider`, split in its two uses so that a
/// read derives only the key it needs.
pub trait KeyProvider: fmt::Debug + Send + Sync {
    /// The address of the key provider whose output this one takes as its input (pbkdf2's
    /// `chain`), resolved first and passed in as `upstream`.
    fn chain(&self) -> Option<&str> {
        None
    }

    /// Whether a key is made by computation alone: no process started, no network call, no one
    /// asked for anything. Only such a key may be made before it is known to be needed (a
    /// write's, while the state is read).
    fn is_computed_locally(&self) -> bool {
        false
    }

    /// A fresh key for a write, and the metadata to store beside it (JSON, as OpenTofu's
    /// provider marshals it).
    fn encryption_key(&self, upstream: Option<&Secret>) -> Result<(Secret, Vec<u8>), Error>;

    /// The key that opens data written with `stored` metadata; `Ok(None)` when the metadata
    /// is incomplete and no key can be made (OpenTofu then reports "no decryption key").
    fn decryption_key(
        &self,
        stored: &[u8],
        upstream: Option<&Secret>,
    ) -> Result<Option<Secret>, Error>;
}

/// Builds a key provider from its configuration block.
pub type Factory =
    Box<dyn Fn(&KeyProviderConfig) -> Result<Box<dyn KeyProvider>, Error> + Send + Sync>;

/// The key provider types this build can use, by OpenTofu's type name.
pub struct Registry {
    factories: BTreeMap<String, Factory>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("kinds", &self.factories.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::with_external_deadline(external::DEFAULT_DEADLINE)
    }
}

impl Registry {
    /// pbkdf2 and external, the external command given `deadline` (OpenTofu's is one minute).
    pub fn with_external_deadline(deadline: Duration) -> Self {
        let mut registry = Registry {
            factories: BTreeMap::new(),
        };
        registry.register(
            "pbkdf2",
            Box::new(|cfg| Ok(Box::new(pbkdf2::Pbkdf2::from_config(cfg)?))),
        );
        registry.register(
            "external",
            Box::new(move |cfg| Ok(Box::new(external::External::from_config(cfg, deadline)?))),
        );
        registry
    }

    /// Adds (or replaces) the factory for `kind`: how aws_kms plugs in.
    pub fn register(&mut self, kind: &str, factory: Factory) {
        self.factories.insert(kind.to_owned(), factory);
    }

    /// Builds the key provider `config` describes.
    pub fn build(&self, config: &KeyProviderConfig) -> Result<Box<dyn KeyProvider>, Error> {
        match self.factories.get(&config.kind) {
            Some(factory) => factory(config),
            None => Err(Error::UnsupportedKeyProvider {
                at: config.address(),
                kind: config.kind.clone(),
                supported: self
                    .factories
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

/// Reads an option that must be a whole number.
pub(crate) fn integer(at: &str, key: &str, value: &Value) -> Result<i64, Error> {
    value.as_i64().ok_or_else(|| Error::Config {
        at: format!("{at}.{key}"),
        detail: "expected a whole number".into(),
    })
}

/// Reads an option that must be a string.
pub(crate) fn string<'a>(at: &str, key: &str, value: &'a Value) -> Result<&'a str, Error> {
    value.as_str().ok_or_else(|| Error::Config {
        at: format!("{at}.{key}"),
        detail: "expected a string".into(),
    })
}
