//! Envelopes OpenTofu wrote, found in public repositories (`testdata/public/SOURCES.md`): their
//! structure is recognised; without their keys, a read fails naming what was tried.

mod support;

use std::path::PathBuf;

use serde_json::Value;
use statectl_encryption::{Error, StateEncryption, envelope};

fn public(name: &str) -> Vec<u8> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "testdata", "public", name]
        .iter()
        .collect();
    std::fs::read(path).unwrap()
}

#[test]
fn public_envelopes_are_recognised() {
    for (name, serial, lineage, provider, data_len) in [
        (
            "openbao-blog.tfstate",
            1,
            "210a8601-69dd-14a4-7e7f-76bb4290bc7b",
            "key_provider.openbao.openbao",
            679,
        ),
        (
            "gitea-pbkdf2-foo.tfstate",
            1,
            "4dad5e35-cbd5-ca2f-3c20-97c5e13b7033",
            "key_provider.pbkdf2.foo",
            4037,
        ),
        (
            "go-test-pbkdf2-local.tfstate",
            1,
            "2ce64317-825a-f8cd-b35e-84fa110b561f",
            "key_provider.pbkdf2.local",
            179,
        ),
    ] {
        let bytes = public(name);
        let env = envelope::parse(&bytes)
            .unwrap()
            .unwrap_or_else(|| panic!("{name} is an envelope"));
        assert_eq!(env.serial, Some(serial), "{name}");
        assert_eq!(env.lineage.as_deref(), Some(lineage), "{name}");
        assert_eq!(
            env.key_providers().collect::<Vec<_>>(),
            [provider],
            "{name}"
        );
        assert_eq!(env.encrypted_data.len(), data_len, "{name}");
        // Nonce and tag at least; the rest is the state.
        assert!(env.encrypted_data.len() > 28);
        let meta: Value = serde_json::from_slice(&env.meta[provider]).unwrap();
        if provider.starts_with("key_provider.pbkdf2.") {
            // OpenTofu's pbkdf2 metadata, in Go's field order, with its defaults.
            let keys: Vec<&String> = meta.as_object().unwrap().keys().collect();
            assert_eq!(
                keys,
                ["salt", "iterations", "hash_function", "key_length"],
                "{name}"
            );
            assert_eq!(
                (
                    meta["iterations"].as_i64(),
                    meta["hash_function"].as_str(),
                    meta["key_length"].as_i64()
                ),
                (Some(600_000), Some("sha512"), Some(32))
            );
        } else {
            assert!(
                meta["ciphertext"].is_string(),
                "{name}: openbao stores the wrapped data key"
            );
        }
    }
}

#[test]
fn the_compact_public_envelope_is_byte_for_byte_what_the_writer_makes() {
    // OpenTofu's own output (the blog's `cat terraform.tfstate`): re-writing its parts must give
    // the same bytes, which pins key order, compactness and the missing trailing newline.
    let bytes = public("openbao-blog.tfstate");
    let env = envelope::parse(&bytes).unwrap().unwrap();
    let rewritten = envelope::write(
        env.serial,
        env.lineage.as_deref().unwrap(),
        &env.meta,
        &env.encrypted_data,
    );
    assert_eq!(
        String::from_utf8(rewritten).unwrap(),
        String::from_utf8(bytes).unwrap()
    );
}

#[test]
fn a_state_opentofu_wrote_is_decrypted_with_its_passphrase() {
    // gitea's fixture was written by OpenTofu 1.11.5 with OpenTofu's documented example
    // passphrase (found by trying it; the Python oracle opens it too).
    let bytes = public("gitea-pbkdf2-foo.tfstate");
    let enc = support::state_encryption(
        &support::pbkdf2_config("foo", support::PASSPHRASE, "")
            .replace("\"iterations\": 200000", "\"iterations\": 600000"),
    );
    let opened = enc.decrypt(bytes).unwrap();
    let state: Value = serde_json::from_slice(&opened.plaintext).unwrap();
    assert_eq!(state["terraform_version"], "1.11.5");
    assert_eq!(state["serial"], 1);
    assert_eq!(state["lineage"], "4dad5e35-cbd5-ca2f-3c20-97c5e13b7033");
    assert!(
        opened
            .plaintext
            .starts_with(br#"{"version":4,"terraform_version":"1.11.5","serial":1,"#)
    );
}

#[test]
fn without_configuration_or_with_the_wrong_key_a_public_state_is_refused_clearly() {
    let bytes = public("gitea-pbkdf2-foo.tfstate");
    assert!(matches!(
        StateEncryption::disabled().decrypt(bytes.clone()),
        Err(Error::NotConfigured)
    ));
    let enc = support::state_encryption(&support::pbkdf2_config(
        "foo",
        "not-the-passphrase-used",
        "",
    ));
    let err = enc.decrypt(bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decrypt the state: method.aes_gcm.m with key_provider.pbkdf2.foo failed: the passphrase or key may be wrong, or the encrypted data was altered"
    );
}
