//! The one secret type: a token, password, private key or key material, zeroised when dropped and
//! never printed (`Debug` shows its length, `Display` `(redacted)`); it reaches a request or a
//! cipher only by an explicit `expose`. Every way to make one registers it with the run's masks
//! ([`crate::secrets`]), so that an echo of it in an answer is masked wherever it is shown.

use std::fmt;

use zeroize::Zeroizing;

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Zeroizing<Vec<u8>>);

impl Secret {
    /// A text credential (a token, a password, a header's value, a PEM key), registered as text.
    pub fn new(value: impl Into<String>) -> Secret {
        let value = value.into();
        crate::secrets::register(&value);
        Secret(Zeroizing::new(value.into_bytes()))
    }

    /// Key material (a derived key, a passphrase's bytes), registered by the spellings bytes take in
    /// text (base64, base64url, hex) and as text when it is UTF-8.
    pub fn key(bytes: Vec<u8>) -> Secret {
        crate::secrets::register_bytes(&bytes);
        Secret(Zeroizing::new(bytes))
    }

    /// `length` bytes that `fill` writes (a derivation's output), registered as [`Secret::key`] once
    /// filled.
    pub fn filled(length: usize, fill: impl FnOnce(&mut [u8])) -> Secret {
        let mut bytes = Zeroizing::new(vec![0; length]);
        fill(&mut bytes);
        crate::secrets::register_bytes(&bytes);
        Secret(bytes)
    }

    /// A header value whose secret part was registered on its own (a request's signature, good for
    /// that request only, among the framing that is no secret).
    pub fn registered_apart(value: impl Into<String>) -> Secret {
        Secret(Zeroizing::new(value.into().into_bytes()))
    }

    /// The secret's bytes, for the one place that must send or use them.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }

    /// The secret as text: what [`Secret::new`] was given (empty for key material that is not
    /// UTF-8, which has no text to send).
    pub fn expose_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "Secret({} bytes)", self.0.len())
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("(redacted)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_the_secret() {
        let secret = Secret::new("hunter2-and-more");
        assert_eq!(
            format!("{secret} {secret:?} {:?}", Some(&secret)),
            "(redacted) Secret(16 bytes) Some(Secret(16 bytes))"
        );
        assert_eq!(secret.expose_str(), "hunter2-and-more");
    }

    #[test]
    fn a_new_secret_is_masked_in_every_output() {
        let _secret = Secret::new("net-secret-marker");
        assert_eq!(crate::secrets::mask("echo: net-secret-marker"), "echo: ***");
    }

    #[test]
    fn key_material_is_masked_by_its_text_and_its_spellings() {
        let key = Secret::key(b"correct-horse-battery-staple".to_vec());
        assert_eq!(format!("{key:?}"), "Secret(28 bytes)");
        assert_eq!(
            crate::secrets::mask("echo correct-horse-battery-staple"),
            "echo ***"
        );
        let filled = Secret::filled(16, |out| out.fill(0xab));
        assert_eq!(filled.expose(), &[0xab; 16]);
        assert_eq!(
            crate::secrets::mask("hex abababababababababababababababab"),
            "hex ***"
        );
    }
}
