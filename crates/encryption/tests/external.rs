//! The external key provider against bash scripts speaking (and breaking) OpenTofu's protocol.

mod support;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use statectl_encryption::{EncryptionConfig, Error, Registry, StateEncryption, Status};
use support::STATE;

fn script(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "testdata", "external", name]
        .iter()
        .collect();
    path.to_string_lossy().into_owned()
}

fn external(name: &str, deadline: Duration) -> Result<StateEncryption, Error> {
    external_with(&[], name, deadline)
}

/// `prefix` goes before `bash SCRIPT` in the command (an `env VAR=value` for the script).
fn external_with(
    prefix: &[&str],
    name: &str,
    deadline: Duration,
) -> Result<StateEncryption, Error> {
    let prefix = prefix.iter().fold(String::new(), |mut out, p| {
        let _ = write!(out, "{p:?}, ");
        out
    });
    let json = format!(
        r#"{{"key_provider": {{"external": {{"cmd": {{"command": [{prefix}"bash", "{}"]}}}}}},
            "method": {{"aes_gcm": {{"m": {{"keys": "key_provider.external.cmd"}}}}}},
            "state": {{"method": "method.aes_gcm.m"}}}}"#,
        script(name)
    );
    let config =
        EncryptionConfig::from_value("test", &serde_json::from_str(&json).unwrap()).unwrap();
    StateEncryption::new(Some(&config), &Registry::with_external_deadline(deadline))
}

#[test]
fn a_script_provider_round_trips_and_gets_its_metadata_back() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let record = format!("EXTERNAL_INPUT_LOG={}", log.path().display());
    let enc = external_with(&["env", &record], "provider.sh", Duration::from_secs(20)).unwrap();
    let sealed = enc.encrypt(STATE).unwrap().into_owned();
    let envelope: serde_json::Value = serde_json::from_slice(&sealed).unwrap();
    let meta = base64_decode(
        envelope["meta"]["key_provider.external.cmd"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(
        meta, br#"{"external_data":{"key_id":"k1","rounds":1}}"#,
        "stored as Go marshals MetadataV1"
    );
    let opened = enc.decrypt(sealed).unwrap();
    assert_eq!(
        (&opened.plaintext[..], opened.status),
        (STATE, Status::Satisfied)
    );
    let inputs = std::fs::read_to_string(log.path()).unwrap();
    assert_eq!(
        inputs, "null\n{\"external_data\":{\"key_id\":\"k1\",\"rounds\":1}}\n",
        "a write sends null, a read the metadata"
    );
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

#[test]
fn a_failing_script_is_one_line_and_its_stderr_is_kept_apart() {
    let enc = external("fails.sh", Duration::from_secs(20)).unwrap();
    let err = enc.encrypt(STATE).unwrap_err();
    let text = err.to_string();
    assert_eq!(
        text,
        "key_provider.external.cmd: the external command exited with exit status: 3"
    );
    let Error::KeyProvider {
        stderr: Some(stderr),
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(
        stderr.contains("vault said no"),
        "available to a caller that chooses to show it"
    );
    assert!(!text.contains("SECRET-TOKEN"));
    assert!(err.hint().unwrap().contains("by hand"));
}

#[test]
fn a_hanging_script_is_stopped_at_the_deadline() {
    let enc = external("hangs.sh", Duration::from_millis(500)).unwrap();
    let started = Instant::now();
    let err = enc.encrypt(STATE).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        err.to_string(),
        "key_provider.external.cmd: the external command did not finish within 0.5 s and was stopped"
    );
}

#[test]
fn protocol_violations_are_named_without_echoing_the_answer() {
    let err = external("bad-header.sh", Duration::from_secs(20))
        .unwrap()
        .encrypt(STATE)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key_provider.external.cmd: invalid magic \"Something-Else\" in the external command's header; expected \"OpenTofu-External-Key-Provider\""
    );
    let err = external("extra-field.sh", Duration::from_secs(20))
        .unwrap()
        .encrypt(STATE)
        .unwrap_err();
    let text = err.to_string();
    assert_eq!(
        text,
        "key_provider.external.cmd: the external command returned an invalid JSON response (unknown field \"passphrase\")"
    );
    assert!(!text.contains("leak-me-not"));
}

#[test]
fn a_missing_command_is_a_configuration_error() {
    let json = r#"{"key_provider": {"external": {"cmd": {"command": []}}},
                   "method": {"aes_gcm": {"m": {"keys": "key_provider.external.cmd"}}},
                   "state": {"method": "method.aes_gcm.m"}}"#;
    let config =
        EncryptionConfig::from_value("test", &serde_json::from_str(json).unwrap()).unwrap();
    let err = StateEncryption::new(Some(&config), &Registry::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "encryption configuration: key_provider.external.cmd: the command option is required"
    );
}

#[test]
fn a_write_key_is_made_ahead_only_by_computation_never_by_a_command() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let record = format!("EXTERNAL_INPUT_LOG={}", log.path().display());
    let enc = external_with(&["env", &record], "provider.sh", Duration::from_secs(20)).unwrap();
    assert!(
        !enc.make_write_key_ahead(),
        "a command is run only when a write needs it"
    );
    assert_eq!(std::fs::read_to_string(log.path()).unwrap(), "");

    // A pbkdf2 key whose passphrase comes from the command: not made ahead either.
    let chained = format!(
        r#"{{"key_provider": {{
              "external": {{"cmd": {{"command": ["env", "{record}", "bash", "{}"]}}}},
              "pbkdf2": {{"k": {{"chain": "key_provider.external.cmd", "iterations": 200000}}}}}},
            "method": {{"aes_gcm": {{"m": {{"keys": "key_provider.pbkdf2.k"}}}}}},
            "state": {{"method": "method.aes_gcm.m"}}}}"#,
        script("provider.sh")
    );
    let config =
        EncryptionConfig::from_value("test", &serde_json::from_str(&chained).unwrap()).unwrap();
    let enc = StateEncryption::new(Some(&config), &Registry::default()).unwrap();
    assert!(!enc.make_write_key_ahead());
    assert_eq!(std::fs::read_to_string(log.path()).unwrap(), "");
    // The write itself still gets its key from the chain.
    let sealed = enc.encrypt(STATE).unwrap().into_owned();
    assert_eq!(&enc.decrypt(sealed).unwrap().plaintext[..], STATE);
    assert!(!std::fs::read_to_string(log.path()).unwrap().is_empty());
}
