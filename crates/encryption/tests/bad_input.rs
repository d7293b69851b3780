//! Every bad input gets one line saying what and where: wrong passphrase, tampered data,
//! unknown version, truncated and non-base64 data, missing metadata, unsupported providers and
//! methods, short passphrases, too few iterations, and a state with no configuration.

mod support;

use statectl_encryption::{Error, StateEncryption};
use support::{PASSPHRASE, STATE, pbkdf2_config, refused, state_encryption};

fn sealed() -> Vec<u8> {
    state_encryption(&pbkdf2_config("main", PASSPHRASE, ""))
        .encrypt(STATE)
        .unwrap()
        .into_owned()
}

fn one_line(e: &Error) -> String {
    let text = e.to_string();
    assert!(!text.contains('\n'), "one line: {text}");
    assert!(
        !text.contains(PASSPHRASE) && !text.contains("hy{XMOu4"),
        "no secret: {text}"
    );
    text
}

/// The passphrase configuration with its key provider's type `kind` instead of `pbkdf2`.
fn with_provider_type(kind: &str) -> String {
    pbkdf2_config("main", PASSPHRASE, "")
        .replace("\"pbkdf2\": {\"main\"", &format!("\"{kind}\": {{\"main\""))
        .replace("pbkdf2.main", &format!("{kind}.main"))
}

#[test]
fn wrong_passphrase_names_the_method_and_key_provider() {
    let wrong = state_encryption(&pbkdf2_config("main", "not-the-passphrase-at-all", ""));
    let err = wrong.decrypt(sealed()).unwrap_err();
    assert_eq!(
        one_line(&err),
        "cannot decrypt the state: method.aes_gcm.m with key_provider.pbkdf2.main failed: the passphrase or key may be wrong, or the encrypted data was altered"
    );
    assert!(err.hint().unwrap().contains("fallback"));
}

#[test]
fn every_failed_fallback_is_reported_in_order() {
    let enc = state_encryption(
        r#"{"key_provider": {"pbkdf2": {"a": {"passphrase": "wrong-passphrase-one", "iterations": 200000},
                                         "b": {"passphrase": "wrong-passphrase-two", "iterations": 200000}}},
            "method": {"aes_gcm": {"a": {"keys": "key_provider.pbkdf2.a"}, "b": {"keys": "key_provider.pbkdf2.b"}}},
            "state": {"method": "method.aes_gcm.a", "fallback": {"method": "method.aes_gcm.b"}}}"#,
    );
    let text = one_line(&enc.decrypt(sealed()).unwrap_err());
    assert_eq!(
        text,
        "cannot decrypt the state: method.aes_gcm.a with key_provider.pbkdf2.a failed: the state holds no metadata for key_provider.pbkdf2.a (it has key_provider.pbkdf2.main); then method.aes_gcm.b with key_provider.pbkdf2.b failed: the state holds no metadata for key_provider.pbkdf2.b (it has key_provider.pbkdf2.main)"
    );
}

#[test]
fn tampered_ciphertext_and_wrong_aad_fail_the_tag() {
    let mut envelope: serde_json::Value = serde_json::from_slice(&sealed()).unwrap();
    let data = envelope["encrypted_data"].as_str().unwrap().to_owned();
    let flipped = if data.as_bytes()[40] == b'A' {
        "B"
    } else {
        "A"
    };
    envelope["encrypted_data"] = format!("{}{}{}", &data[..40], flipped, &data[41..]).into();
    let enc = state_encryption(&pbkdf2_config("main", PASSPHRASE, ""));
    let text = one_line(
        &enc.decrypt(serde_json::to_vec(&envelope).unwrap())
            .unwrap_err(),
    );
    assert!(
        text.ends_with("the passphrase or key may be wrong, or the encrypted data was altered"),
        "{text}"
    );
    let with_aad = state_encryption(&pbkdf2_config("main", PASSPHRASE, "").replace(
        r#""keys": "key_provider.pbkdf2.main""#,
        r#""keys": "key_provider.pbkdf2.main", "aad": [1]"#,
    ));
    assert!(matches!(
        with_aad.decrypt(sealed()),
        Err(Error::DecryptFailed { .. })
    ));
}

#[test]
fn serial_in_clear_must_match_the_state_inside() {
    let text = String::from_utf8(sealed())
        .unwrap()
        .replacen("\"serial\":7", "\"serial\":8", 1);
    let enc = state_encryption(&pbkdf2_config("main", PASSPHRASE, ""));
    assert_eq!(
        one_line(&enc.decrypt(text.into_bytes()).unwrap_err()),
        "the encrypted state's serial in clear (8) differs from the serial inside (7)"
    );
}

#[test]
fn envelope_damage_is_named() {
    let enc = state_encryption(&pbkdf2_config("main", PASSPHRASE, ""));
    let good = String::from_utf8(sealed()).unwrap();
    let cases = [
        (good.replace("\"v0\"", "\"v1\""), "the encrypted state has encryption_version \"v1\"; only \"v0\" is known (OpenTofu's \"invalid encrypted payload version\")"),
        (good[..good.len() / 2].to_owned(), "the encrypted state is truncated or damaged: the JSON ends early at line 1, column "),
        (good.replacen("\"encrypted_data\":\"", "\"encrypted_data\":\"!", 1), "the encrypted state's encrypted_data is not valid base64 (byte '!' at offset 0); the file may be truncated or edited"),
        (good.replacen("\",\"encryption_version\"", "A\",\"encryption_version\"", 1), "the encrypted state's encrypted_data is not valid base64"),
        (good.replacen("\"meta\":{", "\"nometa\":{", 1), "the encrypted state has no \"meta\""),
        (r#"{"serial":1,"lineage":"x","meta":{},"encryption_version":"v0"}"#.to_owned(), "the encrypted state has no \"encrypted_data\""),
        (r#"{"serial":1,"lineage":"x","meta":{"key_provider.pbkdf2.other":"e30="},"encrypted_data":"AAAA","encryption_version":"v0"}"#.to_owned(), "the state holds no metadata for key_provider.pbkdf2.main (it has key_provider.pbkdf2.other)"),
        (r#"{"serial":1,"lineage":"x","meta":{"key_provider.pbkdf2.main":"$$"},"encrypted_data":"AAAA","encryption_version":"v0"}"#.to_owned(), "the encrypted state's meta[\"key_provider.pbkdf2.main\"] is not valid base64"),
    ];
    for (input, expected) in cases {
        let err = enc.decrypt(input.clone().into_bytes()).unwrap_err();
        let text = one_line(&err);
        assert!(
            text.starts_with(expected) || text.contains(expected),
            "{input:.80}\n  got: {text}\n want: {expected}"
        );
    }
    // Metadata present but incomplete: no decryption key, as OpenTofu's isPresent decides.
    let incomplete = r#"{"serial":7,"lineage":"x","meta":{"key_provider.pbkdf2.main":"e30="},"encrypted_data":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","encryption_version":"v0"}"#;
    assert!(
        one_line(&enc.decrypt(incomplete.as_bytes().to_vec()).unwrap_err())
            .ends_with("key_provider.pbkdf2.main returned no decryption key")
    );
    // Metadata that is not JSON: the key provider says so, in OpenTofu's words.
    let garbage = r#"{"serial":7,"lineage":"x","meta":{"key_provider.pbkdf2.main":"bm90IGpzb24="},"encrypted_data":"AAAA","encryption_version":"v0"}"#;
    assert!(one_line(&enc.decrypt(garbage.as_bytes().to_vec()).unwrap_err()).starts_with("key_provider.pbkdf2.main: the metadata stored in the encrypted state is invalid: not JSON"));
}

/// Stored key metadata is the state's, so anyone who can write the state chooses it: a count of
/// rounds or a key length past what OpenTofu would write with this configuration is refused
/// before any work (4294967295 rounds took about eight hours; a 1024-byte key is sixteen
/// derivations).
#[test]
fn hostile_key_metadata_is_refused_before_deriving() {
    use base64::Engine as _;
    let base64 = base64::engine::general_purpose::STANDARD;
    let good: serde_json::Value = serde_json::from_slice(&sealed()).unwrap();
    let stored = good["meta"]["key_provider.pbkdf2.main"].as_str().unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&base64.decode(stored).unwrap()).unwrap();
    let enc = state_encryption(&pbkdf2_config("main", PASSPHRASE, ""));
    let with = |iterations: u64, key_length: u64| {
        let mut hostile = meta.clone();
        hostile["iterations"] = iterations.into();
        hostile["key_length"] = key_length.into();
        let mut envelope = good.clone();
        envelope["meta"]["key_provider.pbkdf2.main"] = base64.encode(hostile.to_string()).into();
        let started = std::time::Instant::now();
        let error = enc
            .decrypt(serde_json::to_vec(&envelope).unwrap())
            .unwrap_err();
        (one_line(&error), started.elapsed())
    };
    let (text, took) = with(4_294_967_295, 32);
    assert!(
        text.ends_with("key_provider.pbkdf2.main: the metadata stored in the encrypted state is invalid: it asks for 4294967295 iterations, more than statectl derives (10000000; OpenTofu writes its configuration's count, 600000 by default)"),
        "{text}"
    );
    assert!(took < std::time::Duration::from_secs(1), "{took:?}");
    let (text, _) = with(200_000, 1024);
    assert!(
        text.ends_with("it asks for a key of 1024 bytes, longer than statectl derives (64; the aes_gcm method takes 16, 24 or 32)"),
        "{text}"
    );
    // Within the limits, what the configuration writes is read as before.
    let many = state_encryption(&pbkdf2_config("main", PASSPHRASE, "").replace(
        "\"iterations\": 200000",
        "\"iterations\": 200000, \"key_length\": 16",
    ));
    let sealed = many.encrypt(STATE).unwrap().into_owned();
    assert_eq!(&many.decrypt(sealed).unwrap().plaintext[..], STATE);
}

#[test]
fn an_encrypted_state_without_configuration_says_how_to_give_one() {
    let err = StateEncryption::disabled().decrypt(sealed()).unwrap_err();
    assert_eq!(
        one_line(&err),
        "the state is encrypted by OpenTofu, and no state encryption is configured to open it"
    );
    assert!(err.hint().unwrap().contains("TF_ENCRYPTION"));
}

#[test]
fn configuration_errors_are_one_line_each() {
    let cases = [
        (
            pbkdf2_config("main", "too-short", ""),
            "encryption configuration: key_provider.pbkdf2.main: the passphrase is shorter than OpenTofu's minimum of 16 bytes",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, "").replace("200000", "199999"),
            "encryption configuration: key_provider.pbkdf2.main: 199999 iterations is below OpenTofu's minimum of 200000",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, ", \"hash_function\": \"md5\""),
            "encryption configuration: key_provider.pbkdf2.main.hash_function: invalid hash function name \"md5\"; expected sha256 or sha512",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, ", \"salt_length\": 0"),
            "encryption configuration: key_provider.pbkdf2.main: the salt length must be larger than zero",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, ", \"rounds\": 5"),
            "encryption configuration: key_provider.pbkdf2.main.rounds: unknown option",
        ),
        (
            pbkdf2_config(
                "main",
                PASSPHRASE,
                ", \"chain\": \"key_provider.pbkdf2.other\"",
            ),
            "encryption configuration: key_provider.pbkdf2.main: passphrase and chain are mutually exclusive",
        ),
        (
            with_provider_type("gcp_kms"),
            "encryption configuration: key_provider.gcp_kms.main: key provider type \"gcp_kms\" is not supported; supported are external, pbkdf2",
        ),
        (
            with_provider_type("openbao"),
            "encryption configuration: key_provider.openbao.main: key provider type \"openbao\" is not supported; supported are external, pbkdf2",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, "")
                .replace("\"aes_gcm\"", "\"external\"")
                .replace("method.aes_gcm.m", "method.external.m"),
            "encryption configuration: method.external.m: method type \"external\" is not supported; supported are aes_gcm, unencrypted",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, "")
                .replace("\"method.aes_gcm.m\"", "\"method.aes_gcm.nope\""),
            "encryption configuration: state.method: there is no method \"aes_gcm\" \"nope\" block declared in the encryption block",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, "").replace(
                "\"key_provider.pbkdf2.main\"",
                "\"key_provider.pbkdf2.nope\"",
            ),
            "encryption configuration: method.aes_gcm.m.keys: there is no key_provider \"pbkdf2\" \"nope\" block declared in the encryption block",
        ),
        (
            pbkdf2_config("main", PASSPHRASE, ", \"key_length\": 20"),
            "",
        ),
    ];
    for (json, expected) in cases {
        if expected.is_empty() {
            continue;
        }
        let text = refused(&json);
        assert!(!text.contains('\n') && !text.contains(PASSPHRASE), "{text}");
        assert!(
            text.starts_with(expected),
            "\n  got: {text}\n want: {expected}"
        );
    }
    // A key length AES-GCM cannot take is refused when the key is made, naming both ends.
    let enc = state_encryption(&pbkdf2_config("main", PASSPHRASE, ", \"key_length\": 20"));
    assert_eq!(
        enc.encrypt(STATE).unwrap_err().to_string(),
        "encryption configuration: method.aes_gcm.m: AES-GCM takes 16, 24 or 32-byte keys; key_provider.pbkdf2.main gives 20 bytes (its key_length)"
    );
}

#[test]
fn circular_chains_are_refused() {
    let text = refused(
        r#"{"key_provider": {"pbkdf2": {"a": {"chain": "key_provider.pbkdf2.b"}, "b": {"chain": "key_provider.pbkdf2.a"}}},
            "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.a"}}},
            "state": {"method": "method.aes_gcm.m"}}"#,
    );
    assert!(text.contains("circular reference between key providers: key_provider.pbkdf2.a -> key_provider.pbkdf2.b -> key_provider.pbkdf2.a"), "{text}");
}

#[test]
fn not_a_state_at_all() {
    let migrate = state_encryption(
        r#"{"method": {"unencrypted": {"u": {}}}, "state": {"method": "method.unencrypted.u"}}"#,
    );
    assert_eq!(
        one_line(
            &migrate
                .decrypt(br#"{"hello": "world"}"#.to_vec())
                .unwrap_err()
        ),
        "the data is neither an encrypted OpenTofu state nor a state (it has no terraform_version)"
    );
}
