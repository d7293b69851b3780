//! The aes_gcm method's cipher: AES-GCM with a 16, 24 or 32-byte key, output
//! `nonce (12 bytes) || ciphertext || tag (16 bytes)`, optional additional authenticated data
//! (`internal/encryption/method/aesgcm/`).

pub(crate) use aws_lc_rs::aead::NONCE_LEN;
use aws_lc_rs::aead::{AES_128_GCM, AES_192_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};

use statectl_state::state::bytes::Bytes;

use crate::error::AttemptFailure;
use statectl_net::Secret;

pub(crate) const TAG_LEN: usize = 16;

/// Why a key cannot be used: its length (in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadKeyLength(pub(crate) usize);

/// Why AES-GCM did not encrypt.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("AES-GCM takes 16, 24 or 32-byte keys, not {0}")]
    KeyLength(usize),
    #[error("could not generate a nonce")]
    Nonce,
    #[error("AES-GCM refused the data (too long?)")]
    Refused,
}

fn key(key: &Secret) -> Result<LessSafeKey, BadKeyLength> {
    let algorithm = match key.len() {
        16 => &AES_128_GCM,
        24 => &AES_192_GCM,
        32 => &AES_256_GCM,
        n => return Err(BadKeyLength(n)),
    };
    let unbound = UnboundKey::new(algorithm, key.expose()).map_err(|_| BadKeyLength(key.len()))?;
    Ok(LessSafeKey::new(unbound))
}

/// Checks a key's length without using it.
pub(crate) fn check_key(k: &Secret) -> Result<(), BadKeyLength> {
    key(k).map(|_| ())
}

/// Encrypts `plaintext` under a fresh random nonce into a buffer of its own (the tests'; a
/// write seals the state's own buffer through [`seal_in_place`]).
#[cfg(test)]
pub(crate) fn seal(k: &Secret, aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, SealError> {
    let mut data = plaintext.to_vec();
    let nonce = seal_in_place(k, aad, &mut data)?;
    Ok([&nonce[..], &data].concat())
}

/// Encrypts `data` where it lies under a fresh random nonce and appends the tag, so that `data`
/// becomes `ciphertext || tag`; returns the nonce, which goes before them in the stored bytes.
/// The plaintext is never copied: no second copy of it is left behind in memory.
pub(crate) fn seal_in_place(
    k: &Secret,
    aad: &[u8],
    data: &mut Vec<u8>,
) -> Result<[u8; NONCE_LEN], SealError> {
    let k = key(k).map_err(|BadKeyLength(n)| SealError::KeyLength(n))?;
    let mut nonce = [0u8; NONCE_LEN];
    aws_lc_rs::rand::fill(&mut nonce).map_err(|_| SealError::Nonce)?;
    let tag = k
        .seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad), data)
        .map_err(|_| SealError::Refused)?;
    data.extend_from_slice(tag.as_ref());
    Ok(nonce)
}

/// Decrypts `nonce || ciphertext || tag` in place: the 50 MB of a large state are not copied.
pub(crate) fn open(k: &Secret, aad: &[u8], mut data: Bytes) -> Result<Bytes, AttemptFailure> {
    let k = key(k).map_err(|_| AttemptFailure::WrongKeyOrTampered)?;
    if data.len() < NONCE_LEN + TAG_LEN {
        return Err(AttemptFailure::TooShort { length: data.len() });
    }
    let mut nonce = [0u8; NONCE_LEN];
    nonce.copy_from_slice(&data[..NONCE_LEN]);
    let len = k
        .open_within(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(aad),
            &mut data,
            NONCE_LEN..,
        )
        .map_err(|_| AttemptFailure::WrongKeyOrTampered)?
        .len();
    data.truncate(len);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_every_key_length_and_aad() {
        for len in [16u8, 24, 32] {
            let k = Secret::key((0..len).collect());
            let sealed = seal(&k, b"aad", b"{\"version\":4}").unwrap();
            assert_eq!(sealed.len(), NONCE_LEN + 13 + TAG_LEN);
            assert_eq!(
                &open(&k, b"aad", Bytes::from(sealed.clone())).unwrap()[..],
                b"{\"version\":4}"
            );
            assert_eq!(
                open(&k, b"other", Bytes::from(sealed.clone())),
                Err(AttemptFailure::WrongKeyOrTampered)
            );
            assert_eq!(
                open(&k, b"", Bytes::from(sealed)),
                Err(AttemptFailure::WrongKeyOrTampered)
            );
        }
    }

    #[test]
    fn nonces_are_fresh_and_bad_lengths_refused() {
        let k = Secret::key(vec![7; 32]);
        assert_ne!(
            seal(&k, b"", b"x").unwrap()[..NONCE_LEN],
            seal(&k, b"", b"x").unwrap()[..NONCE_LEN]
        );
        assert_eq!(check_key(&Secret::key(vec![1; 20])), Err(BadKeyLength(20)));
        assert_eq!(
            open(&k, b"", Bytes::from(vec![0; 27])),
            Err(AttemptFailure::TooShort { length: 27 })
        );
    }
}
