//! The key providers one target's methods use, built once, and the keys they give for one read
//! or one write: chains resolved upstream first, metadata read from and written to the envelope
//! under each provider's address or alias (`internal/encryption/keyprovider.go`).

use std::collections::BTreeMap;

use crate::config::EncryptionConfig;
use crate::error::{AttemptFailure, Error};
use crate::keyprovider::{KeyProvider, Registry};
use statectl_net::Secret;

#[derive(Debug)]
struct Entry {
    meta_key: String,
    provider: Box<dyn KeyProvider>,
}

/// Built key providers by address (`key_provider.<type>.<name>`).
#[derive(Debug, Default)]
pub(crate) struct Keyring {
    entries: BTreeMap<String, Entry>,
}

impl Keyring {
    /// Builds every key provider reachable from `roots` (and their chains), refusing undeclared,
    /// unsupported, misconfigured and circular ones.
    pub(crate) fn build(
        config: &EncryptionConfig,
        registry: &Registry,
        roots: &[(String, String)],
    ) -> Result<Keyring, Error> {
        let mut keyring = Keyring::default();
        for (at, address) in roots {
            keyring.add(config, registry, at, address, &mut Vec::new())?;
        }
        Ok(keyring)
    }

    fn add(
        &mut self,
        config: &EncryptionConfig,
        registry: &Registry,
        at: &str,
        address: &str,
        stack: &mut Vec<String>,
    ) -> Result<(), Error> {
        if stack.iter().any(|a| a == address) {
            stack.push(address.to_owned());
            return Err(Error::Config {
                at: at.to_owned(),
                detail: format!(
                    "circular reference between key providers: {}",
                    stack.join(" -> ")
                ),
            });
        }
        if self.entries.contains_key(address) {
            return Ok(());
        }
        let mut parts = address.splitn(3, '.');
        let (Some("key_provider"), Some(kind), Some(name)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(Error::Config {
                at: at.to_owned(),
                detail: format!(
                    "{address:?} is not a key provider reference (key_provider.<type>.<name>)"
                ),
            });
        };
        let Some(kp) = config.key_provider(kind, name) else {
            return Err(Error::Config {
                at: at.to_owned(),
                detail: format!(
                    "there is no key_provider {kind:?} {name:?} block declared in the encryption block"
                ),
            });
        };
        let provider = registry.build(kp)?;
        if let Some(chain) = provider.chain().map(str::to_owned) {
            stack.push(address.to_owned());
            self.add(config, registry, &format!("{address}.chain"), &chain, stack)?;
            stack.pop();
        }
        self.entries.insert(
            address.to_owned(),
            Entry {
                meta_key: kp.meta_key(),
                provider,
            },
        );
        Ok(())
    }

    fn entry(&self, address: &str) -> &Entry {
        // Every address used was added by `build`.
        &self.entries[address]
    }

    /// Whether the key of `address`, and of every provider it chains from, is made by
    /// computation alone ([`KeyProvider::is_computed_locally`]).
    pub(crate) fn is_computed_locally(&self, address: &str) -> bool {
        let provider = &self.entry(address).provider;
        provider.is_computed_locally()
            && provider
                .chain()
                .is_none_or(|chain| self.is_computed_locally(chain))
    }

    /// The key that opens data whose envelope holds `meta`; an `AttemptFailure` when this
    /// envelope cannot be opened this way (the next fallback may), an `Error` when the
    /// configuration or the key provider itself failed.
    pub(crate) fn decryption_key(
        &self,
        address: &str,
        meta: &BTreeMap<String, Vec<u8>>,
    ) -> Result<Result<Secret, AttemptFailure>, Error> {
        let entry = self.entry(address);
        let upstream = match entry.provider.chain() {
            Some(chain) => match self.decryption_key(chain, meta)? {
                Ok(key) => Some(key),
                Err(failure) => return Ok(Err(failure)),
            },
            None => None,
        };
        let Some(stored) = meta.get(&entry.meta_key) else {
            return Ok(Err(AttemptFailure::NoMetadata {
                provider: entry.meta_key.clone(),
                present: meta.keys().cloned().collect(),
            }));
        };
        Ok(entry
            .provider
            .decryption_key(stored, upstream.as_ref())?
            .ok_or(AttemptFailure::NoDecryptionKey {
                provider: address.to_owned(),
            }))
    }

    /// A fresh key for a write; each provider's metadata goes into `meta_out`.
    pub(crate) fn encryption_key(
        &self,
        address: &str,
        meta_out: &mut BTreeMap<String, Vec<u8>>,
    ) -> Result<Secret, Error> {
        let entry = self.entry(address);
        let upstream = match entry.provider.chain() {
            Some(chain) => Some(self.encryption_key(chain, meta_out)?),
            None => None,
        };
        let (key, meta) = entry.provider.encryption_key(upstream.as_ref())?;
        if meta_out.insert(entry.meta_key.clone(), meta).is_some() {
            return Err(Error::Config {
                at: address.to_owned(),
                detail: format!(
                    "the metadata key {} is used by more than one key provider of the method; give each an encrypted_metadata_alias",
                    entry.meta_key
                ),
            });
        }
        Ok(key)
    }

    /// The addresses a key's derivation involves, outermost first (for error messages).
    pub(crate) fn lineage_of(&self, address: &str) -> Vec<String> {
        let mut out = vec![address.to_owned()];
        let mut at = address;
        while let Some(chain) = self.entries.get(at).and_then(|e| e.provider.chain()) {
            if out.iter().any(|a| a == chain) {
                break;
            }
            out.push(chain.to_owned());
            at = chain;
        }
        out
    }
}
