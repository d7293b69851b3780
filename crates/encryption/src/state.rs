//! The state target: which method writes, which methods (in fallback order) may read, whether a
//! plaintext state is accepted, as OpenTofu's `internal/encryption/{base,state,targets}.go`
//! decide it.

use std::collections::BTreeMap;
use std::ops::Deref;
use std::sync::Mutex;

use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};
use statectl_state::state::bytes::Bytes;

use crate::aes_gcm;
use crate::config::{EncryptionConfig, TargetConfig};
use crate::envelope::{self, Envelope};
use crate::error::{Attempt, AttemptFailure, Error};
use crate::keyprovider::Registry;
use crate::keyring::Keyring;
use crate::method::Method;
use statectl_net::Secret;

/// How a read went, as OpenTofu's `EncryptionStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Read with the primary method (or no encryption is configured): a write changes nothing
    /// about how it is stored.
    Satisfied,
    /// Read with a fallback (an old key, or plaintext being migrated): the next write stores it
    /// with the primary method.
    Migration,
}

/// What the envelope said in clear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeInfo {
    pub serial: Option<i64>,
    pub lineage: Option<String>,
    /// The metadata keys: which key providers wrote it.
    pub key_providers: Vec<String>,
}

/// A read's result: the plaintext state and how it was stored.
pub struct Decrypted {
    pub plaintext: Bytes,
    pub status: Status,
    /// `Some` when the bytes were an envelope.
    pub envelope: Option<EnvelopeInfo>,
    /// The method that opened it (`method.aes_gcm.<name>`), when one did.
    pub method: Option<String>,
}

impl std::fmt::Debug for Decrypted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The plaintext may hold secrets; only its size is shown.
        f.debug_struct("Decrypted")
            .field("plaintext", &format_args!("{} bytes", self.plaintext.len()))
            .field("status", &self.status)
            .field("envelope", &self.envelope)
            .field("method", &self.method)
            .finish()
    }
}

/// What a write stores: the plaintext state itself (no method encrypts), or a fresh envelope.
pub enum Sealed<'a> {
    Plaintext(&'a [u8]),
    Envelope(Vec<u8>),
}

impl Deref for Sealed<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Sealed::Plaintext(bytes) => bytes,
            Sealed::Envelope(bytes) => bytes,
        }
    }
}

impl std::fmt::Debug for Sealed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Plaintext may hold secrets; only the kind and size are shown.
        match self {
            Sealed::Plaintext(bytes) => write!(f, "Plaintext({} bytes)", bytes.len()),
            Sealed::Envelope(bytes) => write!(f, "Envelope({} bytes)", bytes.len()),
        }
    }
}

impl Sealed<'_> {
    /// The stored bytes in a `Vec` of their own.
    pub fn into_owned(self) -> Vec<u8> {
        match self {
            Sealed::Plaintext(bytes) => bytes.to_vec(),
            Sealed::Envelope(bytes) => bytes,
        }
    }
}

/// A key provider's answer for one method: the key, why this envelope cannot be opened this
/// way (a fallback may), or the provider's own failure.
type FoundKey = Result<Result<Secret, AttemptFailure>, Error>;

/// The key and metadata of this run's writes: derived once, as OpenTofu keeps one encryptor
/// per run.
type Encryptor = (Secret, BTreeMap<String, Vec<u8>>);

#[derive(Debug)]
struct Target {
    /// Primary first, then each fallback in order.
    chain: Vec<(String, Method)>,
    keyring: Keyring,
    encryptor: Mutex<Option<Encryptor>>,
}

/// Reads and writes states under one configuration's `state` target.
#[derive(Debug)]
pub struct StateEncryption {
    target: Option<Target>,
}

/// The top-level fields of a state that encryption looks at.
#[derive(Default)]
struct Head {
    serial: Option<i64>,
    lineage: Option<String>,
    terraform_version: Option<String>,
    /// Stopped early: what was asked for was found.
    stopped: bool,
}

/// Reads `serial`, `lineage` (and with `want_version`, `terraform_version`) from the top of a
/// state, stopping once they are found: Terraform and OpenTofu write them first, and the
/// other 50 MB are the caller's parser's business, so they are not scanned twice.
fn head(plaintext: &[u8], want_version: bool) -> Result<Head, serde_json::Error> {
    let mut head = Head::default();
    let mut de = serde_json::Deserializer::from_slice(plaintext);
    match (HeadSeed {
        head: &mut head,
        want_version,
    })
    .deserialize(&mut de)
    {
        Ok(()) => de.end().map(|()| head),
        Err(_) if head.stopped => Ok(head),
        Err(e) => Err(e),
    }
}

struct HeadSeed<'h> {
    head: &'h mut Head,
    want_version: bool,
}

impl<'de> DeserializeSeed<'de> for HeadSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HeadSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a state (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "serial" => self.head.serial = map.next_value()?,
                "lineage" => self.head.lineage = map.next_value()?,
                "terraform_version" => self.head.terraform_version = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if self.head.serial.is_some()
                && self.head.lineage.is_some()
                && (!self.want_version || self.head.terraform_version.is_some())
            {
                self.head.stopped = true;
                return Err(A::Error::custom("found"));
            }
        }
        Ok(())
    }
}

impl StateEncryption {
    /// No encryption: states are read and written as they are.
    pub fn disabled() -> Self {
        StateEncryption { target: None }
    }

    /// The `state` target of `config` (merged with `TF_ENCRYPTION` already). Every method of the
    /// chain and every key provider they use is checked now, so a bad option is reported before
    /// any state is read.
    pub fn new(config: Option<&EncryptionConfig>, registry: &Registry) -> Result<Self, Error> {
        let Some((config, state)) = config.and_then(|c| c.state.as_ref().map(|s| (c, s))) else {
            return Ok(Self::disabled());
        };
        let mut chain = Vec::new();
        let mut at = "state".to_owned();
        let mut link: Option<TargetConfig> = Some(state.target.clone());
        while let Some(t) = link {
            let Some(reference) = t.method.as_deref() else {
                return Err(Error::Config {
                    at,
                    detail: "method is required (method = method.<type>.<name>)".into(),
                });
            };
            let mut parts = reference.splitn(3, '.');
            let (Some("method"), Some(kind), Some(name)) =
                (parts.next(), parts.next(), parts.next())
            else {
                return Err(Error::Config {
                    at: format!("{at}.method"),
                    detail: format!(
                        "{reference:?} is not a method reference (method.<type>.<name>)"
                    ),
                });
            };
            let Some(mc) = config.method(kind, name) else {
                return Err(Error::Config {
                    at: format!("{at}.method"),
                    detail: format!(
                        "there is no method {kind:?} {name:?} block declared in the encryption block"
                    ),
                });
            };
            chain.push((mc.address(), Method::from_config(mc)?));
            at.push_str(".fallback");
            link = t.fallback.map(|b| *b);
        }
        if let Some((address, _)) = chain
            .iter()
            .find(|(_, m)| state.enforced && *m == Method::Unencrypted)
        {
            return Err(Error::UnencryptedForbidden {
                target: "state".into(),
                method: address.clone(),
            });
        }
        let roots: Vec<(String, String)> = chain
            .iter()
            .filter_map(|(address, m)| match m {
                Method::AesGcm { keys, .. } => Some((format!("{address}.keys"), keys.clone())),
                Method::Unencrypted => None,
            })
            .collect();
        let keyring = Keyring::build(config, registry, &roots)?;
        Ok(StateEncryption {
            target: Some(Target {
                chain,
                keyring,
                encryptor: Mutex::new(None),
            }),
        })
    }

    /// Whether a `state` target is configured at all.
    pub fn is_configured(&self) -> bool {
        self.target.is_some()
    }

    /// Whether a write stores plaintext (no target, or an unencrypted primary method).
    pub fn writes_plaintext(&self) -> bool {
        self.target
            .as_ref()
            .is_none_or(|t| t.chain[0].1 == Method::Unencrypted)
    }

    /// The stored bytes to the plaintext state. An envelope is opened by the primary method,
    /// else each fallback in order; a plaintext state is accepted only when no target is
    /// configured or an unencrypted method is in the chain. The data is decoded and opened
    /// within `stored`'s own buffer (no fresh 50 MB to touch), while the primary method's key is
    /// found.
    pub fn decrypt(&self, stored: impl Into<Bytes>) -> Result<Decrypted, Error> {
        let stored = stored.into();
        // Here only for a plaintext state; an envelope returns from its match arm.
        let plaintext = match &self.target {
            None => match envelope::parse_owned(stored)? {
                Ok(_) => return Err(Error::NotConfigured),
                Err(stored) => stored,
            },
            Some(target) => {
                match envelope::parse_owned_alongside(stored, |meta| target.first_key(meta))? {
                    Ok((envelope, first)) => return target.open_with(envelope, first),
                    Err(stored) => {
                        target.accept_plaintext(&stored)?;
                        stored
                    }
                }
            }
        };
        Ok(Decrypted {
            plaintext,
            status: self.plaintext_status(),
            envelope: None,
            method: None,
        })
    }

    /// [`StateEncryption::decrypt`] without taking the bytes: `Ok(None)` when they are a
    /// plaintext state to use as they are (a memory-mapped file is then never copied), with
    /// [`StateEncryption::plaintext_status`] as its status.
    pub fn decrypt_slice(&self, stored: &[u8]) -> Result<Option<Decrypted>, Error> {
        let Some(target) = &self.target else {
            return match envelope::parse(stored)? {
                None => Ok(None),
                Some(_) => Err(Error::NotConfigured),
            };
        };
        // The primary method's key is found while the data is decoded.
        match envelope::parse_alongside(stored, |meta| target.first_key(meta))? {
            None => target.accept_plaintext(stored).map(|()| None),
            Some((envelope, first)) => target.open_with(envelope, first).map(Some),
        }
    }

    /// How a plaintext state read under this configuration stands: a migration when the
    /// primary method encrypts (the next write encrypts it).
    pub fn plaintext_status(&self) -> Status {
        if self.writes_plaintext() {
            Status::Satisfied
        } else {
            Status::Migration
        }
    }

    /// Makes this run's write key now, when it comes from computation alone (pbkdf2, whose
    /// 600,000 rounds by default are the slowest step of a write): called on a thread of its
    /// own as a write starts, it runs beside the read, and the write finds the key made. `false`
    /// when there was nothing to make ahead: no encrypting primary method, or a key provider
    /// that starts a process or calls a service (it is asked only when the write happens). A
    /// failure is left for the write to meet and report.
    pub fn make_write_key_ahead(&self) -> bool {
        let Some(target) = &self.target else {
            return false;
        };
        let (address, Method::AesGcm { keys, .. }) = &target.chain[0] else {
            return false;
        };
        if !target.keyring.is_computed_locally(keys) {
            return false;
        }
        // Made and cached; a failure caches nothing, and the write meets it again and says it.
        drop(target.encryptor(address, keys));
        true
    }

    /// The plaintext state to the bytes to store: an envelope by the primary method (a fresh
    /// nonce; the salt of this run's key), `serial` and `lineage` read from the state; the
    /// plaintext itself when the primary method is unencrypted or nothing is configured.
    pub fn encrypt<'a>(&self, plaintext: &'a [u8]) -> Result<Sealed<'a>, Error> {
        if self.writes_plaintext() {
            return Ok(Sealed::Plaintext(plaintext));
        }
        let head = head(plaintext, false).map_err(|e| Error::EncryptFailed {
            detail: format!("the plaintext is not a state ({e})"),
        })?;
        self.encrypt_owned(
            plaintext.to_vec(),
            head.serial,
            head.lineage.as_deref().unwrap_or(""),
        )
        .map(Sealed::Envelope)
    }

    /// [`StateEncryption::encrypt`] for a caller that owns the new state and already knows its
    /// `serial` and `lineage` (it just wrote them): the envelope is made in the state's own
    /// buffer, encrypted where it lies and then turned into base64, so no second buffer of the
    /// state's size is made and no plaintext copy is left behind. Without an encrypting primary
    /// method, the state comes back as it is.
    pub fn encrypt_owned(
        &self,
        plaintext: Vec<u8>,
        serial: Option<i64>,
        lineage: &str,
    ) -> Result<Vec<u8>, Error> {
        let Some(target) = &self.target else {
            return Ok(plaintext);
        };
        let (address, method) = &target.chain[0];
        let Method::AesGcm { keys, aad } = method else {
            return Ok(plaintext);
        };
        let cached = target.encryptor(address, keys)?;
        let (key, meta) = cached.as_ref().expect("filled by Target::encryptor");
        let mut data = plaintext;
        // The envelope's whole length reserved now: the buffer grows once (a large one is
        // remapped, not copied).
        let envelope_len = envelope::in_place_len(
            serial,
            lineage,
            meta,
            aes_gcm::NONCE_LEN,
            data.len() + aes_gcm::TAG_LEN,
        );
        data.reserve_exact(envelope_len.saturating_sub(data.len()));
        let nonce = aes_gcm::seal_in_place(key, aad, &mut data)?;
        Ok(envelope::write_in_place(
            serial, lineage, meta, &nonce, data,
        ))
    }
}

fn check_length(method: &str, keys: &str, key: &Secret) -> Result<(), Error> {
    aes_gcm::check_key(key).map_err(|aes_gcm::BadKeyLength(n)| Error::Config {
        at: method.to_owned(),
        detail: format!(
            "AES-GCM takes 16, 24 or 32-byte keys; {keys} gives {n} bytes (its key_length)"
        ),
    })
}

impl Target {
    /// This run's write key and its metadata, made on first use (the lock held meanwhile, so a
    /// write waits for a key being made ahead rather than making a second one).
    fn encryptor(
        &self,
        address: &str,
        keys: &str,
    ) -> Result<std::sync::MutexGuard<'_, Option<Encryptor>>, Error> {
        let mut cached = self
            .encryptor
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cached.is_none() {
            let mut meta = BTreeMap::new();
            let key = self.keyring.encryption_key(keys, &mut meta)?;
            check_length(address, keys, &key)?;
            *cached = Some((key, meta));
        }
        Ok(cached)
    }

    fn accept_plaintext(&self, stored: &[u8]) -> Result<(), Error> {
        // OpenTofu's validator: a state has a non-empty terraform_version.
        match head(stored, true) {
            Ok(h)
                if h.terraform_version
                    .as_deref()
                    .is_some_and(|v| !v.is_empty()) => {}
            Ok(_) => {
                return Err(Error::NotAState {
                    detail: "it has no terraform_version".into(),
                });
            }
            Err(e) => {
                return Err(Error::NotAState {
                    detail: format!("it is not JSON: {e}"),
                });
            }
        }
        if self.chain.iter().any(|(_, m)| *m == Method::Unencrypted) {
            Ok(())
        } else {
            Err(Error::PlaintextRefused)
        }
    }

    /// The key of the first method that can open an envelope, found from its metadata: the
    /// method's place in the chain and what its key providers gave. `None` when no method of
    /// the chain encrypts.
    fn first_key(&self, meta: &BTreeMap<String, Vec<u8>>) -> Option<(usize, FoundKey)> {
        self.chain
            .iter()
            .enumerate()
            .find_map(|(i, (_, method))| match method {
                Method::AesGcm { keys, .. } => Some((i, self.keyring.decryption_key(keys, meta))),
                Method::Unencrypted => None,
            })
    }

    /// Opens `envelope` by each method in turn; `first` is a key already found for one of them
    /// ([`Target::first_key`]).
    fn open_with(
        &self,
        mut envelope: Envelope,
        mut first: Option<(usize, FoundKey)>,
    ) -> Result<Decrypted, Error> {
        let mut attempts = Vec::new();
        // The last method that can try gets the data itself; earlier ones a copy, since a
        // failed attempt leaves its buffer unusable.
        let last = self
            .chain
            .iter()
            .rposition(|(_, m)| *m != Method::Unencrypted);
        for (i, (address, method)) in self.chain.iter().enumerate() {
            let Method::AesGcm { keys, aad } = method else {
                // The unencrypted method cannot open an envelope.
                continue;
            };
            let found = match first.take_if(|(at, _)| *at == i) {
                Some((_, found)) => found,
                None => self.keyring.decryption_key(keys, &envelope.meta),
            };
            let failure = match found? {
                Ok(key) => {
                    check_length(address, keys, &key)?;
                    let data = if Some(i) == last {
                        std::mem::take(&mut envelope.encrypted_data)
                    } else {
                        envelope.encrypted_data.clone()
                    };
                    match aes_gcm::open(&key, aad, data) {
                        Ok(plaintext) => {
                            check_head(&envelope, &plaintext)?;
                            return Ok(Decrypted {
                                plaintext,
                                status: if i == 0 {
                                    Status::Satisfied
                                } else {
                                    Status::Migration
                                },
                                envelope: Some(EnvelopeInfo {
                                    serial: envelope.serial,
                                    lineage: envelope.lineage.clone(),
                                    key_providers: envelope.meta.keys().cloned().collect(),
                                }),
                                method: Some(address.clone()),
                            });
                        }
                        Err(failure) => failure,
                    }
                }
                Err(failure) => failure,
            };
            attempts.push(Attempt {
                method: address.clone(),
                key_providers: self.keyring.lineage_of(keys),
                reason: failure,
            });
        }
        Err(Error::DecryptFailed { attempts })
    }
}

/// OpenTofu refuses an envelope whose clear `serial`/`lineage` differ from the state inside.
fn check_head(envelope: &Envelope, plaintext: &[u8]) -> Result<(), Error> {
    if envelope.serial.is_none() && envelope.lineage.as_deref().is_none_or(str::is_empty) {
        return Ok(());
    }
    let inner = head(plaintext, false).map_err(|e| Error::NotAState {
        detail: format!("the decrypted data is not JSON: {e}"),
    })?;
    if let (Some(outer), Some(inner)) = (envelope.serial, inner.serial)
        && outer != inner
    {
        return Err(Error::HeadMismatch {
            field: "serial",
            outer: outer.to_string(),
            inner: inner.to_string(),
        });
    }
    if let Some(outer) = envelope.lineage.as_deref().filter(|l| !l.is_empty()) {
        let inner = inner.lineage.unwrap_or_default();
        if outer != inner {
            return Err(Error::HeadMismatch {
                field: "lineage",
                outer: outer.to_owned(),
                inner,
            });
        }
    }
    Ok(())
}
