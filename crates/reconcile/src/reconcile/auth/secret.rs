//! Secrets (tokens, passwords, private keys) wrapped so that `Debug` and `Display` print
//! `(redacted)`: a secret can reach a log line or an error message only by an explicit `expose`. A
//! secret made with [`Secret::new`] is registered with the run's masks
//! (`statectl_state::secrets`), so that an echo of it in an answer is masked wherever it is shown.

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A credential, registered with the run's masks.
    pub fn new(value: impl Into<String>) -> Secret {
        let value = value.into();
        statectl_state::secrets::register(&value);
        Secret(value)
    }

    /// A header value whose secret part was registered on its own (a request's signature, good for
    /// that request only, among the framing that is no secret).
    pub fn registered_apart(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("(redacted)")
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
        let secret = Secret::new("hunter2");
        assert_eq!(
            format!("{secret} {secret:?} {:?}", Some(&secret)),
            "(redacted) (redacted) Some((redacted))"
        );
        assert_eq!(secret.expose(), "hunter2");
    }

    #[test]
    fn a_new_secret_is_masked_in_every_output() {
        let _secret = Secret::new("reconcile-secret-marker");
        assert_eq!(
            statectl_state::secrets::mask("echo: reconcile-secret-marker"),
            "echo: ***"
        );
    }
}
