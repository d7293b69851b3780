//! Proof against an independent implementation: `testdata/oracle.py` (Python's `cryptography`,
//! written from OpenTofu's sources) encrypts states this crate decrypts, and decrypts what this
//! crate encrypts, plaintexts compared byte for byte.
//!
//! The Python comes from `STATECTL_CRYPTO_PYTHON` (`scripts/install-crypto-oracle.sh` prints
//! it). Without it the tests fail under CI and skip with a line elsewhere.

mod support;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use support::{PASSPHRASE, STATE, state_encryption};

#[allow(
    clippy::print_stderr,
    reason = "a skipped test says so on the test's output"
)]
fn python() -> Option<String> {
    match std::env::var("STATECTL_CRYPTO_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must export STATECTL_CRYPTO_PYTHON (scripts/install-crypto-oracle.sh prints it)"
            );
            eprintln!(
                "skipped: STATECTL_CRYPTO_PYTHON is not set (run scripts/install-crypto-oracle.sh)"
            );
            None
        }
    }
}

fn oracle(python: &str, mode: &str, args: &[&str], input: &[u8]) -> Vec<u8> {
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "testdata", "oracle.py"]
        .iter()
        .collect();
    let mut child = Command::new(python)
        .arg(script)
        .arg(mode)
        .args(args)
        .env("ORACLE_PASSPHRASE", PASSPHRASE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the oracle runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "oracle {mode} {args:?} failed");
    out.stdout
}

/// The configurations both sides use: (crate's pbkdf2 options, crate's aes_gcm options, oracle's).
const CASES: &[(&str, &str, &[&str])] = &[
    ("", "", &["--hash", "sha512", "--iterations", "200000"]),
    (
        r#", "hash_function": "sha256""#,
        "",
        &["--hash", "sha256", "--iterations", "200000"],
    ),
    (
        "",
        r#", "aad": [1, 2, 3, 250]"#,
        &[
            "--hash",
            "sha512",
            "--iterations",
            "200000",
            "--aad",
            "010203fa",
        ],
    ),
    (
        r#", "hash_function": "sha256", "key_length": 16, "salt_length": 8"#,
        r#", "aad": [0]"#,
        &[
            "--hash",
            "sha256",
            "--iterations",
            "200000",
            "--key-length",
            "16",
            "--salt-length",
            "8",
            "--aad",
            "00",
        ],
    ),
];

fn config(pbkdf2: &str, aes: &str) -> String {
    format!(
        r#"{{"key_provider": {{"pbkdf2": {{"main": {{"passphrase": "{PASSPHRASE}", "iterations": 200000{pbkdf2}}}}}}},
            "method": {{"aes_gcm": {{"m": {{"keys": "key_provider.pbkdf2.main"{aes}}}}}}},
            "state": {{"method": "method.aes_gcm.m"}}}}"#
    )
}

#[test]
fn states_the_oracle_encrypts_are_decrypted() {
    let Some(python) = python() else { return };
    for (pbkdf2, aes, args) in CASES {
        let mut args = args.to_vec();
        args.extend(["--provider", "key_provider.pbkdf2.main"]);
        let sealed = oracle(&python, "encrypt", &args, STATE);
        let opened = state_encryption(&config(pbkdf2, aes))
            .decrypt(sealed)
            .expect("the crate opens the oracle's envelope");
        assert_eq!(opened.plaintext, STATE, "{args:?}");
        assert_eq!(opened.envelope.unwrap().serial, Some(7));
    }
}

#[test]
fn states_the_crate_encrypts_are_decrypted_by_the_oracle() {
    let Some(python) = python() else { return };
    for (pbkdf2, aes, args) in CASES {
        let sealed = state_encryption(&config(pbkdf2, aes))
            .encrypt(STATE)
            .unwrap()
            .into_owned();
        let mut args = args.to_vec();
        args.extend(["--provider", "key_provider.pbkdf2.main"]);
        assert_eq!(
            oracle(&python, "decrypt", &args, &sealed),
            STATE,
            "{args:?}"
        );
    }
}

#[test]
fn the_oracle_refuses_what_the_wrong_passphrase_sealed() {
    // The oracle is not a yes-machine: a state sealed under another passphrase fails there too.
    let Some(python) = python() else { return };
    let sealed = state_encryption(&config("", "").replace(PASSPHRASE, "some-other-passphrase"))
        .encrypt(STATE)
        .unwrap()
        .into_owned();
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "testdata", "oracle.py"]
        .iter()
        .collect();
    let mut child = Command::new(&python)
        .args([
            script.to_str().unwrap(),
            "decrypt",
            "--provider",
            "key_provider.pbkdf2.main",
        ])
        .env("ORACLE_PASSPHRASE", PASSPHRASE)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&sealed).unwrap();
    assert!(!child.wait().unwrap().success());
}
