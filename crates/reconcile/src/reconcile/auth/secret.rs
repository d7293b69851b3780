//! Secrets (tokens, passwords, private keys) wrapped so that `Debug` and `Display` print
//! `(redacted)`: a secret can reach a log line or an error message only by an explicit `expose`.

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
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
}
