//! The methods a target can name: aes_gcm (with its key provider and `aad`) and unencrypted,
//! read from their configuration blocks.

use serde_json::Value;

use crate::config::{MethodConfig, reference};
use crate::error::Error;

/// A configured method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    AesGcm {
        /// `key_provider.<type>.<name>` whose key it uses.
        keys: String,
        /// Additional authenticated data (empty: none).
        aad: Vec<u8>,
    },
    /// Reads and writes plaintext; only for migrations.
    Unencrypted,
}

impl Method {
    pub fn from_config(config: &MethodConfig) -> Result<Method, Error> {
        let at = config.address();
        match config.kind.as_str() {
            // OpenTofu reads no option of the unencrypted method.
            "unencrypted" => Ok(Method::Unencrypted),
            "aes_gcm" => {
                let mut keys = None;
                let mut aad = Vec::new();
                for (key, value) in &config.body {
                    let at = format!("{at}.{key}");
                    match key.as_str() {
                        "keys" => keys = Some(reference(&at, value)?),
                        "aad" => aad = bytes(&at, value)?,
                        _ => {
                            return Err(Error::Config {
                                at,
                                detail: "unknown option; aes_gcm takes keys and aad".into(),
                            });
                        }
                    }
                }
                let keys = keys.ok_or_else(|| Error::Config {
                    at: at.clone(),
                    detail: "keys is required (keys = key_provider.<type>.<name>)".into(),
                })?;
                if !keys.starts_with("key_provider.") || keys.split('.').count() != 3 {
                    return Err(Error::Config {
                        at: format!("{at}.keys"),
                        detail: format!(
                            "{keys:?} is not a key provider reference (key_provider.<type>.<name>)"
                        ),
                    });
                }
                Ok(Method::AesGcm { keys, aad })
            }
            kind => Err(Error::UnsupportedMethod {
                at,
                kind: kind.to_owned(),
            }),
        }
    }
}

/// `aad = [1, 2, 3]`: a list of byte values, as OpenTofu decodes it into `[]byte`.
fn bytes(at: &str, value: &Value) -> Result<Vec<u8>, Error> {
    let bad = || Error::Config {
        at: at.to_owned(),
        detail: "expected a list of numbers from 0 to 255".into(),
    };
    value
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|v| {
            v.as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(bad)
        })
        .collect()
}
