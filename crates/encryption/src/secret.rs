//! Key material: zeroised when dropped, never printed, and registered with the run's masks
//! (`statectl_state::secrets`: a passphrase as text, a key by its base64 and hex spellings), so that
//! an echo of it (a key provider's output, a server's answer) is masked wherever it is shown.

use std::fmt;
use zeroize::Zeroizing;

/// A key, passphrase or chained key provider output. `Debug` shows only its length.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Zeroizing<Vec<u8>>);

impl Secret {
    /// Takes ownership of `bytes`; they are wiped when the secret is dropped.
    pub fn new(bytes: Vec<u8>) -> Self {
        statectl_state::secrets::register_bytes(&bytes);
        Secret(Zeroizing::new(bytes))
    }

    /// `length` bytes that `fill` writes (a derivation's output), registered once filled.
    pub(crate) fn filled(length: usize, fill: impl FnOnce(&mut [u8])) -> Self {
        let mut bytes = Zeroizing::new(vec![0; length]);
        fill(&mut bytes);
        statectl_state::secrets::register_bytes(&bytes);
        Secret(bytes)
    }

    /// The key's bytes, for the cipher or the derivation that consumes them.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({} bytes)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn debug_never_shows_the_bytes() {
        let secret = Secret::new(b"correct-horse-battery-staple".to_vec());
        let shown = format!("{secret:?}");
        assert_eq!(shown, "Secret(28 bytes)");
        assert!(!shown.contains("horse"));
        assert_eq!(
            statectl_state::secrets::mask("echo correct-horse-battery-staple"),
            "echo ***"
        );
    }
}
