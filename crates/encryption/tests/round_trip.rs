//! The crate against itself and OpenTofu's published facts: the PBKDF2 vector, round trips
//! under every key length, hash and aad, the envelope's exact bytes, fallbacks, the plaintext
//! rules and `enforced`.

mod support;

use std::num::NonZeroU32;

use base64::Engine as _;
use serde_json::Value;
use statectl_encryption::keyprovider::pbkdf2::{Hash, derive};
use statectl_encryption::{Registry, StateEncryption, Status};
use support::{PASSPHRASE, STATE, config, pbkdf2_config, refused, state_encryption};

#[test]
fn opentofu_published_pbkdf2_vector() {
    // keyprovider/pbkdf2/example_decrypt_test.go in OpenTofu.
    let salt = hex("10ec3d3fe02ad2bee6f1f5540f8e6bbe3b8b29445cf502d27d47ad554aa8971f");
    let key = derive(
        Hash::Sha512,
        PASSPHRASE.as_bytes(),
        &salt,
        NonZeroU32::new(600_000).unwrap(),
        32,
    );
    assert_eq!(
        key.expose(),
        hex("225872367198760137e0a18580433447bbf578fbe2b87ff36aef3c175fe5709c").as_slice()
    );
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn round_trips_every_key_length_hash_and_aad() {
    for (key_length, hash, aad) in [
        (16, "sha256", ""),
        (24, "sha512", ", \"aad\": [1, 2, 3]"),
        (32, "sha512", ""),
        (32, "sha256", ", \"aad\": [255, 0]"),
    ] {
        let json = format!(
            r#"{{"key_provider": {{"pbkdf2": {{"k": {{"passphrase": "{PASSPHRASE}", "iterations": 200000, "key_length": {key_length}, "hash_function": "{hash}", "salt_length": 12}}}}}},
                "method": {{"aes_gcm": {{"m": {{"keys": "key_provider.pbkdf2.k"{aad}}}}}}},
                "state": {{"method": "method.aes_gcm.m"}}}}"#
        );
        let enc = state_encryption(&json);
        let sealed = enc.encrypt(STATE).unwrap().into_owned();
        assert!(
            !sealed.windows(8).any(|w| w == b"hy{XMOu4"),
            "the secret is not in the envelope"
        );
        let opened = enc.decrypt(sealed.clone()).unwrap();
        assert_eq!(opened.plaintext, STATE, "{key_length} {hash} {aad}");
        assert_eq!(opened.status, Status::Satisfied);
        assert_eq!(opened.method.as_deref(), Some("method.aes_gcm.m"));
        let envelope: Value = serde_json::from_slice(&sealed).unwrap();
        let meta = base64::engine::general_purpose::STANDARD
            .decode(envelope["meta"]["key_provider.pbkdf2.k"].as_str().unwrap())
            .unwrap();
        let meta: Value = serde_json::from_slice(&meta).unwrap();
        assert_eq!(meta["key_length"], key_length);
        assert_eq!(meta["hash_function"], hash);
        assert_eq!(
            base64::engine::general_purpose::STANDARD
                .decode(meta["salt"].as_str().unwrap())
                .unwrap()
                .len(),
            12
        );
    }
}

#[test]
fn envelope_is_written_as_opentofu_writes_it() {
    let enc = state_encryption(&pbkdf2_config("main", PASSPHRASE, ""));
    let sealed = enc.encrypt(STATE).unwrap().into_owned();
    let text = std::str::from_utf8(&sealed).unwrap();
    assert!(text.starts_with(r#"{"serial":7,"lineage":"2ce64317-825a-f8cd-b35e-84fa110b561f","meta":{"key_provider.pbkdf2.main":"eyJzYWx0Ijoi"#), "{text}");
    assert!(
        text.ends_with(r#"","encryption_version":"v0"}"#),
        "no trailing newline: {text}"
    );
    let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(text)
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        keys,
        [
            "serial",
            "lineage",
            "meta",
            "encrypted_data",
            "encryption_version"
        ]
    );
    let meta = base64::engine::general_purpose::STANDARD
        .decode(
            serde_json::from_str::<Value>(text).unwrap()["meta"]["key_provider.pbkdf2.main"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
    let meta = String::from_utf8(meta).unwrap();
    assert!(
        meta.starts_with(r#"{"salt":""#)
            && meta.ends_with(r#"","iterations":200000,"hash_function":"sha512","key_length":32}"#),
        "{meta}"
    );
    // Data: 12-byte nonce, the plaintext's length, a 16-byte tag.
    let data = base64::engine::general_purpose::STANDARD
        .decode(
            serde_json::from_str::<Value>(text).unwrap()["encrypted_data"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(data.len(), 12 + STATE.len() + 16);
}

#[test]
fn one_run_reuses_its_key_but_not_its_nonce_and_a_new_run_draws_a_new_salt() {
    let json = pbkdf2_config("main", PASSPHRASE, "");
    let enc = state_encryption(&json);
    let a: Value = serde_json::from_slice(&enc.encrypt(STATE).unwrap()).unwrap();
    let b: Value = serde_json::from_slice(&enc.encrypt(STATE).unwrap()).unwrap();
    assert_eq!(a["meta"], b["meta"], "one encryptor per run, as OpenTofu");
    assert_ne!(
        a["encrypted_data"], b["encrypted_data"],
        "fresh nonce per write"
    );
    let c: Value =
        serde_json::from_slice(&state_encryption(&json).encrypt(STATE).unwrap()).unwrap();
    assert_ne!(a["meta"], c["meta"], "fresh salt per run");
}

#[test]
fn a_key_change_reads_through_the_fallback_and_writes_with_the_new_key() {
    let old = state_encryption(&pbkdf2_config("old", "the-old-passphrase-1", ""));
    let sealed = old.encrypt(STATE).unwrap().into_owned();
    let migrating = state_encryption(
        r#"{"key_provider": {"pbkdf2": {"old": {"passphrase": "the-old-passphrase-1", "iterations": 200000},
                                         "new": {"passphrase": "the-new-passphrase-2", "iterations": 200000}}},
            "method": {"aes_gcm": {"old": {"keys": "key_provider.pbkdf2.old"}, "new": {"keys": "key_provider.pbkdf2.new"}}},
            "state": {"method": "method.aes_gcm.new", "fallback": {"method": "method.aes_gcm.old"}}}"#,
    );
    let opened = migrating.decrypt(sealed).unwrap();
    assert_eq!(opened.plaintext, STATE);
    assert_eq!(opened.status, Status::Migration);
    assert_eq!(opened.method.as_deref(), Some("method.aes_gcm.old"));
    assert_eq!(
        opened.envelope.unwrap().key_providers,
        ["key_provider.pbkdf2.old"]
    );
    let rewritten = migrating.encrypt(&opened.plaintext).unwrap().into_owned();
    let envelope: Value = serde_json::from_slice(&rewritten).unwrap();
    assert!(envelope["meta"].get("key_provider.pbkdf2.new").is_some());
    let opened = migrating.decrypt(rewritten).unwrap();
    assert_eq!(opened.status, Status::Satisfied);
}

#[test]
fn chained_pbkdf2_and_metadata_alias_round_trip() {
    let enc = state_encryption(
        r#"{"key_provider": {"pbkdf2": {"base": {"passphrase": "correct-horse-battery-staple", "iterations": 200000},
                                         "derived": {"chain": "${key_provider.pbkdf2.base}", "iterations": 200000, "encrypted_metadata_alias": "alias"}}},
            "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.derived"}}},
            "state": {"method": "method.aes_gcm.m"}}"#,
    );
    let sealed = enc.encrypt(STATE).unwrap().into_owned();
    let envelope: Value = serde_json::from_slice(&sealed).unwrap();
    let keys: Vec<&String> = envelope["meta"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["alias", "key_provider.pbkdf2.base"],
        "sorted as Go sorts map keys"
    );
    assert_eq!(enc.decrypt(sealed).unwrap().plaintext, STATE);
}

#[test]
fn plaintext_states_follow_opentofus_rule() {
    // No state target: read and written as they are.
    let none = StateEncryption::new(
        Some(&config(r#"{"plan": {"method": "method.x.y"}}"#)),
        &Registry::default(),
    )
    .unwrap();
    assert!(!none.is_configured());
    assert_eq!(
        none.decrypt(STATE.to_vec()).unwrap().status,
        Status::Satisfied
    );
    assert_eq!(&*none.encrypt(STATE).unwrap(), STATE);
    // An encrypting target without unencrypted: refused.
    let strict = state_encryption(&pbkdf2_config("main", PASSPHRASE, ""));
    let err = strict.decrypt(STATE.to_vec()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the state is not encrypted, but the state encryption configuration has no unencrypted method to accept it"
    );
    assert!(err.hint().unwrap().contains("fallback"));
    // Unencrypted as a fallback: a migration, written encrypted next.
    let migrate = state_encryption(
        r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "correct-horse-battery-staple", "iterations": 200000}}},
            "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.k"}}, "unencrypted": {"u": {}}},
            "state": {"method": "method.aes_gcm.m", "fallback": {"method": "method.unencrypted.u"}}}"#,
    );
    let read = migrate.decrypt(STATE.to_vec()).unwrap();
    assert_eq!(read.status, Status::Migration);
    assert!(
        migrate
            .encrypt(STATE)
            .unwrap()
            .starts_with(b"{\"serial\":7,")
    );
    // Unencrypted primary (decrypting away): plaintext written, the old envelope still read.
    let away = state_encryption(
        r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "correct-horse-battery-staple", "iterations": 200000}}},
            "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.k"}}, "unencrypted": {"u": {}}},
            "state": {"method": "method.unencrypted.u", "fallback": {"method": "method.aes_gcm.m"}}}"#,
    );
    assert_eq!(
        away.decrypt(STATE.to_vec()).unwrap().status,
        Status::Satisfied
    );
    let sealed = migrate.encrypt(STATE).unwrap().into_owned();
    let opened = away.decrypt(sealed).unwrap();
    assert_eq!(
        (&opened.plaintext[..], opened.status),
        (STATE, Status::Migration)
    );
    assert_eq!(&*away.encrypt(STATE).unwrap(), STATE);
}

#[test]
fn enforced_refuses_any_unencrypted_method_in_the_chain() {
    let message = refused(
        r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "correct-horse-battery-staple"}}},
            "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.k"}}, "unencrypted": {"u": {}}},
            "state": {"method": "method.aes_gcm.m", "enforced": true, "fallback": {"method": "method.unencrypted.u"}}}"#,
    );
    assert_eq!(
        message,
        "encryption configuration: state: the unencrypted method method.unencrypted.u is forbidden because enforced = true"
    );
    let message = refused(
        r#"{"method": {"unencrypted": {"u": {}}}, "state": {"method": "method.unencrypted.u", "enforced": true}}"#,
    );
    assert!(
        message.contains("forbidden because enforced = true"),
        "{message}"
    );
}

#[test]
fn tf_encryption_merges_block_by_block() {
    let file = config(
        r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "from-the-configuration", "iterations": 300000, "encrypted_metadata_alias": "file-alias"}}},
            "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.k"}}},
            "state": {"method": "method.aes_gcm.m", "enforced": true, "fallback": {"method": "method.aes_gcm.m"}}}"#,
    );
    let env = config(
        r#"{"key_provider": [{"pbkdf2": {"k": {"passphrase": "from-tf-encryption-env", "encrypted_metadata_alias": "env-alias"}}},
                             {"pbkdf2": {"extra": {"passphrase": "another-passphrase-x"}}}],
            "method": {"aes_gcm": {"n": {"keys": "key_provider.pbkdf2.extra"}}},
            "state": {"method": "method.aes_gcm.n", "enforced": false}}"#,
    );
    let merged = file.merge(env);
    let k = merged.key_provider("pbkdf2", "k").unwrap();
    assert_eq!(
        k.body["passphrase"], "from-tf-encryption-env",
        "attribute by attribute, the override wins"
    );
    assert_eq!(
        k.body["iterations"], 300_000,
        "attributes the override lacks stay"
    );
    assert_eq!(
        k.encrypted_metadata_alias.as_deref(),
        Some("file-alias"),
        "OpenTofu merges only the body"
    );
    assert_eq!(merged.key_providers.len(), 2);
    assert_eq!(
        merged
            .methods
            .iter()
            .map(statectl_encryption::config::MethodConfig::address)
            .collect::<Vec<_>>(),
        ["method.aes_gcm.m", "method.aes_gcm.n"]
    );
    let state = merged.state.clone().unwrap();
    assert_eq!(state.target.method.as_deref(), Some("method.aes_gcm.n"));
    assert!(state.enforced, "either side enforces");
    assert_eq!(
        state.target.fallback.unwrap().method.as_deref(),
        Some("method.aes_gcm.m"),
        "no override fallback: the configuration's stays"
    );
    let debug = format!("{k:?}");
    assert!(
        !debug.contains("from-tf-encryption-env"),
        "Debug never shows a passphrase: {debug}"
    );
}

#[test]
fn a_fallback_after_a_failed_tag_still_gets_the_intact_data() {
    // Both methods use the same key provider; the primary adds aad the writer did not use, so
    // its tag check fails on the data the fallback must then open.
    let plain = state_encryption(&pbkdf2_config("k", PASSPHRASE, ""));
    let sealed = plain.encrypt(STATE).unwrap().into_owned();
    let enc = state_encryption(
        r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "correct-horse-battery-staple", "iterations": 200000}}},
            "method": {"aes_gcm": {"with_aad": {"keys": "key_provider.pbkdf2.k", "aad": [9]}, "m": {"keys": "key_provider.pbkdf2.k"}}},
            "state": {"method": "method.aes_gcm.with_aad", "fallback": {"method": "method.aes_gcm.m"}}}"#,
    );
    let opened = enc.decrypt(sealed).unwrap();
    assert_eq!(
        (&opened.plaintext[..], opened.status),
        (STATE, Status::Migration)
    );
    assert_eq!(opened.method.as_deref(), Some("method.aes_gcm.m"));
}

#[test]
fn decrypt_slice_leaves_a_plaintext_state_where_it_is() {
    let migrate = state_encryption(
        r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "correct-horse-battery-staple", "iterations": 200000}}},
            "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.k"}}, "unencrypted": {"u": {}}},
            "state": {"method": "method.aes_gcm.m", "fallback": {"method": "method.unencrypted.u"}}}"#,
    );
    assert!(migrate.decrypt_slice(STATE).unwrap().is_none());
    assert_eq!(migrate.plaintext_status(), Status::Migration);
    let sealed = migrate.encrypt(STATE).unwrap().into_owned();
    assert_eq!(
        migrate.decrypt_slice(&sealed).unwrap().unwrap().plaintext,
        STATE
    );
    assert!(
        StateEncryption::disabled()
            .decrypt_slice(STATE)
            .unwrap()
            .is_none()
    );
    assert_eq!(
        StateEncryption::disabled().plaintext_status(),
        Status::Satisfied
    );
}

#[test]
fn a_pbkdf2_write_key_made_ahead_is_the_one_the_write_uses() {
    let enc = state_encryption(&pbkdf2_config("k", PASSPHRASE, ""));
    // Made on another thread, as the CLI makes it while the state is read.
    let made = std::thread::scope(|scope| scope.spawn(|| enc.make_write_key_ahead()).join());
    assert!(made.unwrap());
    let salt_of = |sealed: &[u8]| {
        let envelope: Value = serde_json::from_slice(sealed).unwrap();
        let meta = base64::engine::general_purpose::STANDARD
            .decode(envelope["meta"]["key_provider.pbkdf2.k"].as_str().unwrap())
            .unwrap();
        serde_json::from_slice::<Value>(&meta).unwrap()["salt"].clone()
    };
    let first = enc.encrypt(STATE).unwrap().into_owned();
    let second = enc.encrypt(STATE).unwrap().into_owned();
    // One key per run, as OpenTofu keeps one: the salt made ahead is the salt of every write.
    assert_eq!(salt_of(&first), salt_of(&second));
    assert_ne!(first, second, "a fresh nonce each time");
    assert_eq!(&enc.decrypt(first).unwrap().plaintext[..], STATE);
    // Nothing to make when the primary method writes plaintext, or nothing is configured.
    assert!(!StateEncryption::disabled().make_write_key_ahead());
    let unencrypted = state_encryption(
        r#"{"method": {"unencrypted": {"u": {}}}, "state": {"method": "method.unencrypted.u"}}"#,
    );
    assert!(!unencrypted.make_write_key_ahead());
}

#[test]
fn a_large_state_opens_alike_in_its_own_buffer_and_from_a_borrowed_one() {
    // Megabytes of data: decoded on a thread of its own while the key is derived.
    let padding = "x".repeat(3 << 20);
    let large = String::from_utf8(STATE.to_vec()).unwrap().replace(
        "\"resources\": []",
        &format!("\"resources\": [],\n  \"padding\": \"{padding}\""),
    );
    let enc = state_encryption(&pbkdf2_config("k", PASSPHRASE, ""));
    let sealed = enc.encrypt(large.as_bytes()).unwrap().into_owned();
    assert!(sealed.len() > 4 << 20);
    let borrowed = enc.decrypt_slice(&sealed).unwrap().expect("an envelope");
    let owned = enc.decrypt(sealed).unwrap();
    assert_eq!(&borrowed.plaintext[..], large.as_bytes());
    assert_eq!(&owned.plaintext[..], large.as_bytes());
    assert_eq!(
        (owned.status, owned.method.as_deref()),
        (Status::Satisfied, Some("method.aes_gcm.m"))
    );
}
