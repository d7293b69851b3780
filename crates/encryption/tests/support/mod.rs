//! Helpers the encryption tests share: configurations from JSON text, a small real state.

#![allow(dead_code, reason = "each test binary uses a different part")]

use statectl_encryption::{EncryptionConfig, Registry, StateEncryption};

/// A state as Terraform writes it (pretty-printed, trailing newline), with a secret in it.
pub(crate) const STATE: &[u8] = br#"{
  "version": 4,
  "terraform_version": "1.9.0",
  "serial": 7,
  "lineage": "2ce64317-825a-f8cd-b35e-84fa110b561f",
  "outputs": {
    "password": {
      "value": "hy{XMOu4x{aNTit%",
      "type": "string",
      "sensitive": true
    }
  },
  "resources": [],
  "check_results": null
}
"#;

pub(crate) const PASSPHRASE: &str = "correct-horse-battery-staple";

pub(crate) fn config(json: &str) -> EncryptionConfig {
    EncryptionConfig::from_value(
        "test",
        &serde_json::from_str(json).expect("test config is JSON"),
    )
    .expect("test config is valid")
}

pub(crate) fn state_encryption(json: &str) -> StateEncryption {
    StateEncryption::new(Some(&config(json)), &Registry::default()).expect("configuration accepted")
}

/// The configuration error `json` gets, as its one line.
pub(crate) fn refused(json: &str) -> String {
    let config = match EncryptionConfig::from_value("test", &serde_json::from_str(json).unwrap()) {
        Ok(config) => config,
        Err(e) => return e.to_string(),
    };
    StateEncryption::new(Some(&config), &Registry::default())
        .expect_err("configuration refused")
        .to_string()
}

/// pbkdf2 (at OpenTofu's minimum iterations, to keep tests quick) + aes_gcm for the state.
pub(crate) fn pbkdf2_config(name: &str, passphrase: &str, extra: &str) -> String {
    format!(
        r#"{{
          "key_provider": {{"pbkdf2": {{"{name}": {{"passphrase": "{passphrase}", "iterations": 200000{extra}}}}}}},
          "method": {{"aes_gcm": {{"m": {{"keys": "key_provider.pbkdf2.{name}"}}}}}},
          "state": {{"method": "method.aes_gcm.m"}}
        }}"#
    )
}
