//! The `aws_kms` key provider against moto's KMS (scripts/install-moto.sh): a state encrypted and
//! read back; the envelope's metadata in OpenTofu's shape, opened independently with boto3 and
//! Python's `cryptography` (a data key KMS really made, AES-GCM as OpenTofu lays it out); a state
//! sealed the way OpenTofu seals one, read; and a missing key, access denied and a dead endpoint,
//! one bounded line each.

#![allow(
    clippy::print_stderr,
    reason = "a skipped test says why, and --nocapture shows each error line a user would read"
)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::Value;
use statectl_encryption::{EncryptionConfig, Error, Registry, StateEncryption};

/// A state as Terraform writes it, with a secret in it.
const STATE: &[u8] = br#"{
  "version": 4,
  "terraform_version": "1.9.0",
  "serial": 3,
  "lineage": "0c1d8a5e-7bd6-4a5b-9a3c-6b0b3c2f9e11",
  "outputs": {
    "db_password": {
      "value": "kms-guarded-Zq81",
      "type": "string",
      "sensitive": true
    }
  },
  "resources": [],
  "check_results": null
}
"#;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// moto's server on a free loopback port; killed when dropped.
struct Moto {
    child: Child,
    port: u16,
    python: PathBuf,
}

impl Moto {
    /// `None` (the test skips) when moto is not installed, except under CI.
    fn start() -> Option<Moto> {
        let server = std::env::var_os("STATECTL_MOTO_SERVER").map_or_else(
            || workspace_root().join("target/moto/venv/bin/moto_server"),
            PathBuf::from,
        );
        if !server.exists() {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must provide {} (scripts/install-moto.sh)",
                server.display()
            );
            eprintln!(
                "skipped: no {}; run scripts/install-moto.sh",
                server.display()
            );
            return None;
        }
        let port = free_port();
        let child = Command::new(&server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "moto did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(Moto {
            child,
            port,
            python: server.with_file_name("python"),
        })
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Runs `script` with boto3 from moto's venv (`kms` is a client of this server).
    fn python(&self, script: &str) -> String {
        let prelude = format!(
            "import boto3, base64, json, os\n\
             kms = boto3.client('kms', endpoint_url='{}', region_name='us-east-1', aws_access_key_id='testing', aws_secret_access_key='testing')\n",
            self.url()
        );
        let output = Command::new(&self.python)
            .args(["-c", &format!("{prelude}{script}")])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "python failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    fn create_key(&self) -> String {
        self.python("print(kms.create_key()['KeyMetadata']['KeyId'])")
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// aes_gcm over aws_kms `k`, as a `terraform { encryption {} }` block evaluates to.
fn config(key_id: &str, extra: &str) -> EncryptionConfig {
    let json = format!(
        r#"{{
          "key_provider": {{"aws_kms": {{"k": {{"kms_key_id": "{key_id}", "key_spec": "AES_256", "region": "us-east-1",
                                               "access_key": "testing", "secret_key": "testing"{extra}}}}}}},
          "method": {{"aes_gcm": {{"m": {{"keys": "key_provider.aws_kms.k"}}}}}},
          "state": {{"method": "method.aes_gcm.m"}}
        }}"#
    );
    EncryptionConfig::from_value("test", &serde_json::from_str(&json).unwrap()).unwrap()
}

/// The registry with aws_kms pointed at `endpoint` (as `AWS_ENDPOINT_URL_KMS` would).
fn registry(endpoint: &str) -> Registry {
    let endpoint = endpoint.to_owned();
    let mut registry = Registry::default();
    statectl_backend::kms::register_with_env(
        &mut registry,
        Arc::new(move |name| (name == "AWS_ENDPOINT_URL_KMS").then(|| endpoint.clone())),
    );
    registry
}

fn encryption(endpoint: &str, key_id: &str, extra: &str) -> StateEncryption {
    StateEncryption::new(Some(&config(key_id, extra)), &registry(endpoint)).unwrap()
}

fn b64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

/// One line, a hint, and the words `expected`.
fn assert_one_line(error: &Error, expected: &str) {
    let text = error.to_string();
    // Shown with --nocapture: the line a user would read, and its hint.
    eprintln!("{text}\nhint: {}", error.hint().unwrap_or_default());
    assert!(text.contains(expected), "{text}");
    assert!(!text.contains('\n'), "{text}");
    assert!(error.hint().is_some(), "no hint for {text}");
}

#[test]
fn a_state_encrypted_with_aws_kms_is_read_back_and_opentofus_shape_opens_it() {
    let Some(moto) = Moto::start() else { return };
    let key_id = moto.create_key();
    let enc = encryption(
        &moto.url(),
        &key_id,
        r#", "encryption_context": {"purpose": "state", "env": "<prod>"}"#,
    );
    let sealed = enc.encrypt(STATE).unwrap().into_owned();
    assert!(!sealed.windows(16).any(|w| w == b"kms-guarded-Zq81"));
    let opened = enc.decrypt(sealed.clone()).unwrap();
    assert_eq!(opened.plaintext, STATE);

    // The metadata, byte for byte as Go marshals OpenTofu's keyMeta.
    let envelope: Value = serde_json::from_slice(&sealed).unwrap();
    let meta = b64(envelope["meta"]["key_provider.aws_kms.k"].as_str().unwrap());
    let meta = String::from_utf8(meta).unwrap();
    let blob = meta
        .strip_prefix(r#"{"ciphertext_blob":""#)
        .and_then(|rest| {
            rest.strip_suffix(
                r#"","encryption_context":{"env":"\u003cprod\u003e","purpose":"state"}}"#,
            )
        })
        .unwrap_or_else(|| panic!("not OpenTofu's keyMeta: {meta}"));
    // The next run (the next command) asks KMS for a fresh data key.
    let next_run = encryption(
        &moto.url(),
        &key_id,
        r#", "encryption_context": {"purpose": "state", "env": "<prod>"}"#,
    );
    let again: Value = serde_json::from_slice(&next_run.encrypt(STATE).unwrap()).unwrap();
    assert_ne!(again["meta"], envelope["meta"]);

    // Independently: KMS decrypts the stored data key (with the stored context), and that key
    // opens the data as OpenTofu's aes_gcm lays it out (nonce, ciphertext, tag).
    let data = envelope["encrypted_data"].as_str().unwrap();
    let plaintext = moto.python(&format!(
        "from cryptography.hazmat.primitives.ciphers.aead import AESGCM\n\
         key = kms.decrypt(CiphertextBlob=base64.b64decode('{blob}'), EncryptionContext={{'purpose': 'state', 'env': '<prod>'}})['Plaintext']\n\
         assert len(key) == 32\n\
         data = base64.b64decode('{data}')\n\
         print(base64.b64encode(AESGCM(key).decrypt(data[:12], data[12:], None)).decode())"
    ));
    assert_eq!(b64(&plaintext), STATE);
}

#[test]
fn a_state_sealed_as_opentofu_seals_it_is_read() {
    let Some(moto) = Moto::start() else { return };
    let key_id = moto.create_key();
    let state = base64::engine::general_purpose::STANDARD.encode(STATE);
    // GenerateDataKey with AES_128, aes_gcm with a random nonce, the envelope as OpenTofu writes it.
    let sealed = moto.python(&format!(
        "from cryptography.hazmat.primitives.ciphers.aead import AESGCM\n\
         out = kms.generate_data_key(KeyId='{key_id}', KeySpec='AES_128')\n\
         nonce = os.urandom(12)\n\
         data = nonce + AESGCM(out['Plaintext']).encrypt(nonce, base64.b64decode('{state}'), None)\n\
         meta = json.dumps({{'ciphertext_blob': base64.b64encode(out['CiphertextBlob']).decode()}}, separators=(',', ':'))\n\
         print(json.dumps({{'serial': 3, 'lineage': '0c1d8a5e-7bd6-4a5b-9a3c-6b0b3c2f9e11', 'meta': {{'key_provider.aws_kms.k': base64.b64encode(meta.encode()).decode()}}, 'encrypted_data': base64.b64encode(data).decode(), 'encryption_version': 'v0'}}))"
    ));
    let enc = encryption(&moto.url(), &key_id, "");
    let opened = enc.decrypt(sealed.into_bytes()).unwrap();
    assert_eq!(opened.plaintext, STATE);
}

#[test]
fn a_key_that_does_not_exist_and_access_denied_are_one_line_each() {
    let Some(moto) = Moto::start() else { return };
    let missing = encryption(&moto.url(), "8c3b1f4e-0000-4000-8000-000000000000", "");
    let error = missing.encrypt(STATE).unwrap_err();
    assert_one_line(
        &error,
        "key_provider.aws_kms.k: the KMS key 8c3b1f4e-0000-4000-8000-000000000000 does not exist in us-east-1",
    );

    // Written with one key, read with a configuration naming another: KMS refuses the caller.
    let first = moto.create_key();
    let other = moto.create_key();
    let sealed = encryption(&moto.url(), &first, "")
        .encrypt(STATE)
        .unwrap()
        .into_owned();
    let error = encryption(&moto.url(), &other, "")
        .decrypt(sealed)
        .unwrap_err();
    assert_one_line(&error, "access denied while decrypting the stored data key");
    assert!(error.hint().unwrap().contains("kms:Decrypt"));
}

#[test]
fn a_dead_endpoint_fails_in_one_line_within_seconds() {
    // A port nothing listens on: connections are refused at once, and the retries are bounded.
    let port = free_port();
    let enc = encryption(&format!("http://127.0.0.1:{port}"), "alias/state", "");
    let started = Instant::now();
    let error = enc.encrypt(STATE).unwrap_err();
    let elapsed = started.elapsed();
    assert_one_line(
        &error,
        &format!(
            "key_provider.aws_kms.k: cannot reach AWS KMS at http://127.0.0.1:{port} while generating a data key"
        ),
    );
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
}
