//! OpenTofu-encrypted states through the CLI binary: states encrypted by an implementation that
//! shares no code with statectl (`crates/encryption/testdata/oracle.py`, Python's `cryptography`)
//! are listed, shown, scanned, summarised, queried, diffed and audited as their plaintext is;
//! `taint` writes an envelope the oracle opens to exactly what `taint` writes on the plaintext
//! file; the key configuration comes from a `.tf` file (with `var.` from tfvars and `TF_VAR_`)
//! or `TF_ENCRYPTION`; a fallback migrates to a new key; `enforced`; an encrypted state in S3 on
//! moto; and every bad input is one line, exit 2, nothing written, no secret printed.
//!
//! The oracle's Python comes from `STATECTL_CRYPTO_PYTHON` (or scripts/install-crypto-oracle.sh's
//! place); without it these tests skip, except under CI, where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::builder::{Output, Test, assert_starts_with, root};
use crate::files::{file_names, folder_with};
use crate::moto::{Moto, moto_server};
use crate::skip::require_installed;

const PASSPHRASE: &str = "correct-horse-battery-staple";
const OTHER_PASSPHRASE: &str = "a-new-passphrase-after-rotation";
/// OpenTofu's minimum, to keep each key derivation short.
const ITERATIONS: &str = "200000";
const PROVIDER: &str = "key_provider.pbkdf2.main";

fn python() -> Option<PathBuf> {
    require_installed(
        "STATECTL_CRYPTO_PYTHON",
        "target/crypto-oracle/venv/bin/python",
    )
}

/// Runs the oracle: `encrypt` a plaintext state or `decrypt` an envelope.
fn oracle(python: &Path, mode: &str, provider: &str, passphrase: &str, input: &[u8]) -> Vec<u8> {
    let out = crate::processes::fed(
        Command::new(python)
            .arg(root().join("crates/encryption/testdata/oracle.py"))
            .args([mode, "--provider", provider, "--iterations", ITERATIONS])
            .env("ORACLE_PASSPHRASE", passphrase),
        input,
    );
    assert!(
        out.status.success(),
        "oracle {mode}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `clean.tfstate` as the oracle encrypts it with [`PROVIDER`] and [`PASSPHRASE`].
fn clean_envelope(python: &Path) -> Vec<u8> {
    oracle(
        python,
        "encrypt",
        PROVIDER,
        PASSPHRASE,
        &fixture("clean.tfstate"),
    )
}

/// Writes [`clean_envelope`] to `enc.tfstate` in `dir`, and returns it.
fn encrypted_clean_state(python: &Path, dir: &Path) -> Vec<u8> {
    let envelope = clean_envelope(python);
    std::fs::write(dir.join("enc.tfstate"), &envelope).unwrap();
    envelope
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(root().join("testdata/scan").join(name)).unwrap()
}

/// The encryption block of OpenTofu's documentation, its passphrase from `var.passphrase`.
const MAIN_TF: &str = r#"variable "passphrase" {
  type      = string
  sensitive = true
}

terraform {
  encryption {
    key_provider "pbkdf2" "main" {
      passphrase = var.passphrase
      iterations = local.iterations
    }
    method "aes_gcm" "main" {
      keys = key_provider.pbkdf2.main
    }
    state {
      method = method.aes_gcm.main
    }
  }
}

locals {
  iterations = 200000
}
"#;

/// A root module with [`MAIN_TF`] and the passphrase in `terraform.tfvars`.
fn module() -> tempfile::TempDir {
    let dir = folder_with("main.tf", MAIN_TF);
    std::fs::write(
        dir.path().join("terraform.tfvars"),
        format!("passphrase = \"{PASSPHRASE}\"\n"),
    )
    .unwrap();
    dir
}

fn statectl(dir: &Path, args: &[&str]) -> Output {
    Test::new().current_dir(dir).args(args).run()
}

/// Neither the passphrase nor any decrypted secret in anything statectl printed.
#[track_caller]
fn no_secret(output: &Output) {
    for secret in [PASSPHRASE, OTHER_PASSPHRASE, "hunter2"] {
        assert!(
            !output.stdout.contains(secret) && !output.stderr.contains(secret),
            "{secret} printed:\n{}\n{}",
            output.stdout,
            output.stderr
        );
    }
}

#[test]
fn an_oracle_encrypted_state_reads_as_its_plaintext_in_every_reading_command() {
    let Some(python) = python() else { return };
    let dir = module();
    // The same names in a folder without any configuration, for the plaintext.
    let bare = tempfile::tempdir().unwrap();
    for name in ["clean.tfstate", "cf-tainted-in-progress.tfstate"] {
        let plain = fixture(name);
        std::fs::write(bare.path().join(name), &plain).unwrap();
        let envelope = oracle(&python, "encrypt", PROVIDER, PASSPHRASE, &plain);
        assert!(envelope.starts_with(b"{\"serial\":"));
        std::fs::write(dir.path().join(name), &envelope).unwrap();
    }
    let same = |args: &[&str], state: &str| {
        let mut args = args.to_vec();
        args.push(state);
        let plain = statectl(bare.path(), &args);
        let encrypted = statectl(dir.path(), &args);
        assert_eq!(
            encrypted.code, plain.code,
            "{args:?}: {}\n{}",
            encrypted.stderr, plain.stderr
        );
        assert_eq!(encrypted.stdout, plain.stdout, "{args:?}");
        assert_eq!(encrypted.stderr, plain.stderr, "{args:?}");
        no_secret(&encrypted);
    };
    same(&["list"], "clean.tfstate");
    same(&["show", "aws_db_instance.orders"], "clean.tfstate");
    same(&["query", "$.resources[*].type"], "clean.tfstate");
    same(&["summary"], "clean.tfstate");
    // The module declares no resource: its lifecycle rules are left out on both sides.
    same(
        &["audit", "--format", "json", "--no-config"],
        "clean.tfstate",
    );
    same(
        &["scan", "--format", "json"],
        "cf-tainted-in-progress.tfstate",
    );
    same(&["scan"], "cf-tainted-in-progress.tfstate");
    // Two encryptions of one state (each its own salt and nonce) hold the same content; another
    // state differs. (A plaintext state beside them is refused, as OpenTofu refuses it.)
    std::fs::write(
        dir.path().join("again.tfstate"),
        oracle(
            &python,
            "encrypt",
            PROVIDER,
            PASSPHRASE,
            &fixture("clean.tfstate"),
        ),
    )
    .unwrap();
    statectl(dir.path(), &["diff", "clean.tfstate", "again.tfstate"])
        .code(0)
        .stdout("");
    statectl(
        dir.path(),
        &[
            "diff",
            "clean.tfstate",
            "cf-tainted-in-progress.tfstate",
            "--stat",
        ],
    )
    .code(1);
    // Standard input too, and the configuration through `--config` from elsewhere.
    let envelope = std::fs::read(dir.path().join("clean.tfstate")).unwrap();
    let listed = Test::new()
        .args(["list", "-", "--config"])
        .arg(dir.path())
        .stdin(envelope)
        .run()
        .code(0);
    assert_eq!(
        listed.stdout,
        statectl(bare.path(), &["list", "clean.tfstate"]).stdout
    );
}

#[test]
fn taint_writes_an_envelope_the_oracle_opens_to_what_taint_writes_on_the_plaintext() {
    let Some(python) = python() else { return };
    let dir = module();
    let bare = tempfile::tempdir().unwrap();
    let plain = fixture("clean.tfstate");
    let envelope = oracle(&python, "encrypt", PROVIDER, PASSPHRASE, &plain);
    std::fs::write(bare.path().join("plain.tfstate"), &plain).unwrap();
    std::fs::write(dir.path().join("enc.tfstate"), &envelope).unwrap();
    let address = "aws_security_group.db";
    let tainted_plain = statectl(
        bare.path(),
        &["taint", address, "plain.tfstate", "--backup", "-"],
    )
    .code(0);
    let tainted = statectl(
        dir.path(),
        &["taint", address, "enc.tfstate", "--backup", "enc.backup"],
    )
    .code(0);
    no_secret(&tainted);
    // Read and written with the primary method: no migration to mention.
    assert!(tainted.stderr.ends_with("38 -> 39; backup `enc.backup`\n"));
    assert_eq!(
        tainted.stdout, tainted_plain.stdout,
        "the same diff of the change"
    );
    let written = std::fs::read(dir.path().join("enc.tfstate")).unwrap();
    let expected = std::fs::read(bare.path().join("plain.tfstate")).unwrap();
    let opened = oracle(&python, "decrypt", PROVIDER, PASSPHRASE, &written);
    assert_eq!(
        String::from_utf8(opened).unwrap(),
        String::from_utf8(expected.clone()).unwrap()
    );
    // The envelope in OpenTofu's key order, serial and lineage those of the state inside, a
    // fresh salt; the backup is the stored envelope, and no plaintext was left on disk.
    let outer: Value = serde_json::from_slice(&written).unwrap();
    let inner: Value = serde_json::from_slice(&expected).unwrap();
    assert!(written.starts_with(b"{\"serial\":39,\"lineage\":"));
    assert_eq!(outer["serial"], inner["serial"]);
    assert_eq!(outer["lineage"], inner["lineage"]);
    let before: Value = serde_json::from_slice(&envelope).unwrap();
    assert_ne!(outer["meta"][PROVIDER], before["meta"][PROVIDER]);
    assert_eq!(
        std::fs::read(dir.path().join("enc.backup")).unwrap(),
        envelope
    );
    assert_eq!(
        file_names(dir.path()),
        ["enc.backup", "enc.tfstate", "main.tf", "terraform.tfvars"]
    );
    // `-o -` puts the envelope on stdout (the diff on stderr); it opens to the same state.
    let untainted_plain = statectl(
        bare.path(),
        &["untaint", address, "plain.tfstate", "-o", "-"],
    )
    .code(0);
    let piped = statectl(dir.path(), &["untaint", address, "enc.tfstate", "-o", "-"]).code(0);
    no_secret(&piped);
    assert!(piped.stdout.starts_with("{\"serial\":40,"));
    assert_eq!(
        String::from_utf8(oracle(
            &python,
            "decrypt",
            PROVIDER,
            PASSPHRASE,
            piped.stdout.as_bytes()
        ))
        .unwrap(),
        untainted_plain.stdout
    );
    // A no-op `-o -` (tainting what is tainted already) gives back the stored bytes.
    let unchanged = statectl(dir.path(), &["taint", address, "enc.tfstate", "-o", "-"]).code(0);
    assert_eq!(unchanged.stdout.as_bytes(), &written[..]);
    // Untainting what is not tainted is refused, as `terraform untaint` refuses it: nothing out.
    let refused = statectl(
        dir.path(),
        &[
            "untaint",
            "aws_db_instance.orders",
            "enc.tfstate",
            "-o",
            "-",
        ],
    )
    .code(1);
    assert_eq!(refused.stdout, "");
    // Nor in the `-vv` log of a read and a write.
    let dry_run = ["-vv", "untaint", address, "enc.tfstate", "--dry-run"];
    no_secret(&statectl(dir.path(), &["-vv", "list", "enc.tfstate"]).code(0));
    no_secret(&statectl(dir.path(), &dry_run).code(1));
    // forget too, read back by statectl itself.
    statectl(
        dir.path(),
        &[
            "forget",
            "terraform_data.release",
            "enc.tfstate",
            "--backup",
            "-",
        ],
    )
    .code(0);
    let listed = statectl(dir.path(), &["list", "enc.tfstate"]).code(0);
    assert!(!listed.stdout.contains("terraform_data.release"));
    assert!(listed.stdout.contains(address));
}

#[test]
fn the_passphrase_comes_from_tf_var_over_tfvars_and_var_over_both() {
    let Some(python) = python() else { return };
    let dir = module();
    // tfvars holds a wrong passphrase; TF_VAR_ is below tfvars in OpenTofu's order, --var above.
    std::fs::write(
        dir.path().join("terraform.tfvars"),
        "passphrase = \"not-the-passphrase-at-all\"\n",
    )
    .unwrap();
    encrypted_clean_state(&python, dir.path());
    let with_env = Test::new()
        .current_dir(dir.path())
        .args(["list", "enc.tfstate"])
        .env("TF_VAR_passphrase", PASSPHRASE)
        .run();
    with_env.refused("the passphrase or key may be wrong");
    statectl(
        dir.path(),
        &[
            "list",
            "enc.tfstate",
            "--var",
            &format!("passphrase={PASSPHRASE}"),
        ],
    )
    .code(0);
    // Without the tfvars file, TF_VAR_ gives it.
    std::fs::remove_file(dir.path().join("terraform.tfvars")).unwrap();
    Test::new()
        .current_dir(dir.path())
        .args(["list", "enc.tfstate"])
        .env("TF_VAR_passphrase", PASSPHRASE)
        .run()
        .code(0);
    // A --var-file.
    std::fs::write(
        dir.path().join("secret.tfvars"),
        format!("passphrase = \"{PASSPHRASE}\"\n"),
    )
    .unwrap();
    statectl(
        dir.path(),
        &["list", "enc.tfstate", "--var-file", "secret.tfvars"],
    )
    .code(0);
    // And with none, the variable is named.
    statectl(dir.path(), &["list", "enc.tfstate"])
        .refused("the variable `var.passphrase` has no value");
}

#[test]
fn tf_encryption_alone_in_hcl_or_json_configures_it() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    encrypted_clean_state(&python, dir.path());
    let hcl = format!(
        "key_provider \"pbkdf2\" \"main\" {{\n  passphrase = \"{PASSPHRASE}\"\n  iterations = {ITERATIONS}\n}}\nmethod \"aes_gcm\" \"main\" {{\n  keys = key_provider.pbkdf2.main\n}}\nstate {{\n  method = method.aes_gcm.main\n}}\n"
    );
    let json = format!(
        r#"{{"key_provider": {{"pbkdf2": {{"main": {{"passphrase": "${{var.passphrase}}", "iterations": {ITERATIONS}}}}}}},
            "method": {{"aes_gcm": {{"main": {{"keys": "${{key_provider.pbkdf2.main}}"}}}}}},
            "state": {{"method": "method.aes_gcm.main"}}}}"#
    );
    let expected = statectl(root().as_path(), &["list", "testdata/scan/clean.tfstate"]).stdout;
    for (text, env) in [(hcl, None), (json, Some(PASSPHRASE))] {
        let mut test = Test::new()
            .current_dir(dir.path())
            .args(["list", "enc.tfstate"])
            .env("TF_ENCRYPTION", &text);
        if let Some(passphrase) = env {
            test = test.env("TF_VAR_passphrase", passphrase);
        }
        let output = test.run().code(0);
        assert_eq!(output.stdout, expected);
        no_secret(&output);
    }
}

#[test]
fn a_fallback_opens_the_old_key_and_the_write_moves_to_the_new_one() {
    let Some(python) = python() else { return };
    let dir = folder_with(
        "main.tf",
        format!(
            r#"terraform {{
  encryption {{
    key_provider "pbkdf2" "old" {{
      passphrase = "{PASSPHRASE}"
      iterations = {ITERATIONS}
    }}
    key_provider "pbkdf2" "new" {{
      passphrase = "{OTHER_PASSPHRASE}"
      iterations = {ITERATIONS}
    }}
    method "aes_gcm" "old" {{ keys = key_provider.pbkdf2.old }}
    method "aes_gcm" "new" {{ keys = key_provider.pbkdf2.new }}
    state {{
      method = method.aes_gcm.new
      fallback {{ method = method.aes_gcm.old }}
    }}
  }}
}}
"#
        ),
    );
    let plain = fixture("clean.tfstate");
    let envelope = oracle(
        &python,
        "encrypt",
        "key_provider.pbkdf2.old",
        PASSPHRASE,
        &plain,
    );
    std::fs::write(dir.path().join("enc.tfstate"), &envelope).unwrap();
    std::fs::write(dir.path().join("plain.tfstate"), &plain).unwrap();
    let tainted = statectl(
        dir.path(),
        &[
            "taint",
            "aws_security_group.db",
            "enc.tfstate",
            "--backup",
            "-",
        ],
    )
    .code(0)
    .stderr_contains("serial 38 -> 39; no backup; re-encrypted with the primary method's key\n");
    no_secret(&tainted);
    let written = std::fs::read(dir.path().join("enc.tfstate")).unwrap();
    let outer: Value = serde_json::from_slice(&written).unwrap();
    assert_eq!(
        outer["meta"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["key_provider.pbkdf2.new"]
    );
    Test::new()
        .args(["taint", "aws_security_group.db", "--backup", "-"])
        .arg(dir.path().join("plain.tfstate"))
        .run()
        .code(0);
    assert_eq!(
        oracle(
            &python,
            "decrypt",
            "key_provider.pbkdf2.new",
            OTHER_PASSPHRASE,
            &written
        ),
        std::fs::read(dir.path().join("plain.tfstate")).unwrap()
    );
}

/// A plaintext state stays plaintext without a configuration; with one whose fallback is
/// `unencrypted`, the next write encrypts it (OpenTofu's migration); without that fallback it
/// is refused; `enforced = true` refuses an unencrypted method outright.
#[test]
fn plaintext_is_migrated_refused_or_kept_as_opentofu_decides() {
    let Some(python) = python() else { return };
    let dir = module();
    let plain = fixture("clean.tfstate");
    std::fs::write(dir.path().join("plain.tfstate"), &plain).unwrap();
    statectl(dir.path(), &["list", "plain.tfstate"]).refused(
        "plain.tfstate: the state is not encrypted, but the state encryption configuration has no unencrypted method to accept it",
    );
    let migrating = MAIN_TF.replace(
        "      method = method.aes_gcm.main\n",
        "      method = method.aes_gcm.main\n      fallback {\n        method = method.unencrypted.migrate\n      }\n",
    )
    .replace(
        "    state {",
        "    method \"unencrypted\" \"migrate\" {}\n    state {",
    );
    std::fs::write(dir.path().join("main.tf"), &migrating).unwrap();
    statectl(dir.path(), &["list", "plain.tfstate"]).code(0);
    statectl(
        dir.path(),
        &[
            "taint",
            "aws_security_group.db",
            "plain.tfstate",
            "--backup",
            "-",
        ],
    )
    .code(0)
    .stderr_contains("; no backup; now stored encrypted\n");
    let written = std::fs::read(dir.path().join("plain.tfstate")).unwrap();
    assert!(written.starts_with(b"{\"serial\":39,"));
    let opened = oracle(&python, "decrypt", PROVIDER, PASSPHRASE, &written);
    assert!(String::from_utf8(opened).unwrap().contains("\"tainted\""));

    let enforced = migrating.replace("    state {\n", "    state {\n      enforced = true\n");
    std::fs::write(dir.path().join("main.tf"), &enforced).unwrap();
    statectl(
        dir.path(),
        &["untaint", "aws_security_group.db", "plain.tfstate"],
    )
    .refused(
        "the unencrypted method method.unencrypted.migrate is forbidden because enforced = true",
    );
    assert_eq!(
        std::fs::read(dir.path().join("plain.tfstate")).unwrap(),
        written
    );

    // No configuration at all: plaintext in, plaintext out.
    let bare = folder_with("plain.tfstate", &plain);
    statectl(
        bare.path(),
        &[
            "taint",
            "aws_security_group.db",
            "plain.tfstate",
            "--backup",
            "-",
        ],
    )
    .code(0);
    assert!(
        std::fs::read(bare.path().join("plain.tfstate"))
            .unwrap()
            .starts_with(b"{\n")
    );
}

#[test]
fn every_bad_input_is_one_line_and_writes_nothing() {
    let Some(python) = python() else { return };
    let dir = module();
    let envelope = clean_envelope(&python);
    let text = String::from_utf8(envelope.clone()).unwrap();
    let outer: Value = serde_json::from_str(&text).unwrap();
    let data = outer["encrypted_data"].as_str().unwrap();
    // The last base64 character before the padding changed: the tag no longer verifies.
    let mut tampered_data = data.to_owned();
    let at = tampered_data.trim_end_matches('=').len() - 2;
    let swapped = if &tampered_data[at..=at] == "A" {
        "B"
    } else {
        "A"
    };
    tampered_data.replace_range(at..=at, swapped);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "tampered",
            text.replace(data, &tampered_data),
            "error: tampered.tfstate: cannot decrypt the state: method.aes_gcm.main with key_provider.pbkdf2.main failed: the passphrase or key may be wrong, or the encrypted data was altered",
        ),
        (
            "version",
            text.replace(
                "\"encryption_version\":\"v0\"",
                "\"encryption_version\":\"v9\"",
            ),
            "encryption_version \"v9\"; only \"v0\" is known",
        ),
        (
            "truncated",
            text[..text.len() / 2].to_owned(),
            "the encrypted state is truncated or damaged",
        ),
        (
            "base64",
            text.replace(data, &format!("!!{}", &data[2..])),
            "is not valid base64",
        ),
    ];
    for (name, bytes, expected) in &cases {
        let file = format!("{name}.tfstate");
        std::fs::write(dir.path().join(&file), bytes).unwrap();
        for args in [
            vec!["list", file.as_str()],
            vec!["taint", "aws_security_group.db", file.as_str()],
        ] {
            let output = statectl(dir.path(), &args).refused(expected);
            no_secret(&output);
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&file)).unwrap(),
            *bytes
        );
    }
}

#[test]
fn a_wrong_key_a_missing_or_bad_configuration_and_an_encrypted_plan_are_one_line() {
    let Some(python) = python() else { return };
    let dir = module();
    let envelope = encrypted_clean_state(&python, dir.path());
    // The wrong passphrase names the key provider and says the passphrase may be wrong.
    let wrong = statectl(
        dir.path(),
        &[
            "list",
            "enc.tfstate",
            "--var",
            "passphrase=hunter2hunter2hunter2",
        ],
    )
    .refused("enc.tfstate: cannot decrypt the state: method.aes_gcm.main with key_provider.pbkdf2.main failed: the passphrase or key may be wrong");
    no_secret(&wrong);
    // An encrypted state with no configuration: where to give one.
    let bare = folder_with("enc.tfstate", &envelope);
    let none = statectl(bare.path(), &["scan", "enc.tfstate"]);
    assert_eq!(none.code, 2);
    assert!(
        none.stderr.contains(
            "the state is encrypted by OpenTofu, and no state encryption is configured to open it"
        ) && none
            .stderr
            .contains("hint: give the encryption configuration: run in (or point --config at)")
            && none.stderr.contains("TF_ENCRYPTION"),
        "{}",
        none.stderr
    );
    // Configuration errors, before any state is read.
    let configs = [
        (
            MAIN_TF
                .replace("\"pbkdf2\" \"main\"", "\"gcp_kms\" \"main\"")
                .replace("key_provider.pbkdf2.main", "key_provider.gcp_kms.main"),
            "key provider type \"gcp_kms\" is not supported; supported are",
        ),
        (
            MAIN_TF
                .replace("\"aes_gcm\" \"main\"", "\"aes_cbc\" \"main\"")
                .replace("method.aes_gcm.main", "method.aes_cbc.main"),
            "method type \"aes_cbc\" is not supported; supported are aes_gcm, unencrypted",
        ),
        (
            MAIN_TF.replace("iterations = 200000", "iterations = 1000"),
            "1000 iterations is below OpenTofu's minimum of 200000",
        ),
    ];
    for (config, expected) in configs {
        std::fs::write(dir.path().join("main.tf"), config).unwrap();
        let output = statectl(dir.path(), &["list", "enc.tfstate"]).refused(expected);
        no_secret(&output);
    }
    std::fs::write(dir.path().join("main.tf"), MAIN_TF).unwrap();
    let short = statectl(
        dir.path(),
        &[
            "taint",
            "aws_security_group.db",
            "enc.tfstate",
            "--var",
            "passphrase=hunter2",
        ],
    )
    .refused("the passphrase is shorter than OpenTofu's minimum of 16 bytes");
    no_secret(&short);
    assert_eq!(
        std::fs::read(dir.path().join("enc.tfstate")).unwrap(),
        envelope
    );
    // An encrypted plan file given to audit.
    let plan_envelope = r#"{"meta":{"key_provider.pbkdf2.main":"e30="},"encrypted_data":"AAAA","encryption_version":"v0"}"#;
    std::fs::write(dir.path().join("plan.tfplan"), plan_envelope).unwrap();
    statectl(
        dir.path(),
        &["audit", "enc.tfstate", "--plan", "plan.tfplan"],
    )
    .refused("it is an OpenTofu-encrypted plan file")
    .stderr_contains("hint: `tofu show -json PLAN > plan.json`");
}

/// The envelope is what S3 stores: read and tainted through the backend on moto, the object
/// stays an envelope the oracle opens, and the DynamoDB digest is the stored bytes' MD5.
#[test]
fn an_encrypted_state_in_s3_is_read_and_tainted() {
    let Some(python) = python() else { return };
    let Some(server) = moto_server() else { return };
    let dir = module();
    let moto = Moto::start(&server, dir.path());
    moto.python(
        "client('s3').create_bucket(Bucket='tfstate')\n\
         client('dynamodb').create_table(TableName='locks', KeySchema=[{'AttributeName': 'LockID', 'KeyType': 'HASH'}], AttributeDefinitions=[{'AttributeName': 'LockID', 'AttributeType': 'S'}], BillingMode='PAY_PER_REQUEST')\n",
    );
    let plain = fixture("clean.tfstate");
    let envelope = oracle(&python, "encrypt", PROVIDER, PASSPHRASE, &plain);
    let upload = dir.path().join("upload.bin");
    std::fs::write(&upload, &envelope).unwrap();
    moto.python(&format!(
        "client('s3').put_object(Bucket='tfstate', Key='app.tfstate', Body=open('{}', 'rb').read())\n",
        upload.display()
    ));
    std::fs::remove_file(&upload).unwrap();
    let endpoints = format!(
        "endpoints={{ s3 = \"{0}\", dynamodb = \"{0}\" }}",
        moto.url()
    );
    let run = |args: &[&str]| {
        Test::new()
            .current_dir(dir.path())
            .args(args)
            .args(["s3://tfstate/app.tfstate", "--backend-config", &endpoints])
            .backend_config("use_path_style=true")
            .backend_config("region=us-east-1")
            .backend_config("dynamodb_table=locks")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("HOME", dir.path())
            .run()
    };
    let listed = run(&["list"]).code(0);
    no_secret(&listed);
    assert!(listed.stdout.contains("aws_security_group.db"));
    let tainted = run(&["taint", "aws_security_group.db", "--backup", "-"]).code(0);
    no_secret(&tainted);
    let printed = moto.python(
        "import hashlib, base64\n\
         body = client('s3').get_object(Bucket='tfstate', Key='app.tfstate')['Body'].read()\n\
         item = client('dynamodb').get_item(TableName='locks', Key={'LockID': {'S': 'tfstate/app.tfstate-md5'}})['Item']\n\
         print(hashlib.md5(body).hexdigest(), item['Digest']['S'], base64.b64encode(body).decode())\n",
    );
    let words: Vec<&str> = printed.split_whitespace().collect();
    assert_eq!(words[0], words[1], "the digest is of the stored bytes");
    let stored = base64_decode(words[2]);
    assert!(stored.starts_with(b"{\"serial\":39,"));
    let opened =
        String::from_utf8(oracle(&python, "decrypt", PROVIDER, PASSPHRASE, &stored)).unwrap();
    assert!(opened.contains("\"status\": \"tainted\""));
    // statectl reads its own write back.
    run(&["show", "aws_security_group.db"])
        .code(0)
        .stdout_contains("tainted");
}

/// Standard base64, for the object moto hands back.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let mut buffer = 0u32;
    let mut bits = 0;
    for byte in text.bytes().filter(|&b| b != b'=') {
        let value = ALPHABET.iter().position(|&c| c == byte).unwrap() as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    out
}

/// `aws_kms` through the CLI, on moto's KMS: a plaintext state migrated to an aws_kms envelope by a
/// taint (the `unencrypted` fallback), then read back with the fallback gone.
#[test]
fn an_aws_kms_key_encrypts_a_migrated_state_and_reads_it_back() {
    let Some(server) = moto_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let moto = Moto::start(&server, dir.path());
    let key_id = moto.python("print(client('kms').create_key()['KeyMetadata']['KeyId'])\n");
    let key_id = key_id.trim();
    std::fs::write(
        dir.path().join("terraform.tfstate"),
        fixture("clean.tfstate"),
    )
    .unwrap();
    let provider = format!(
        "key_provider \"aws_kms\" \"main\" {{\n  kms_key_id = \"{key_id}\"\n  key_spec = \"AES_256\"\n  region = \"us-east-1\"\n}}\nmethod \"aes_gcm\" \"main\" {{\n  keys = key_provider.aws_kms.main\n}}\n"
    );
    let migrating = format!(
        "{provider}method \"unencrypted\" \"old\" {{}}\nstate {{\n  method = method.aes_gcm.main\n  fallback {{\n    method = method.unencrypted.old\n  }}\n}}\n"
    );
    let encrypted_only = format!("{provider}state {{\n  method = method.aes_gcm.main\n}}\n");
    let run = |config: &str, args: &[&str]| {
        Test::new()
            .current_dir(dir.path())
            .args(args)
            .env("TF_ENCRYPTION", config)
            .env("AWS_ENDPOINT_URL_KMS", moto.url())
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("HOME", dir.path())
            .run()
    };
    run(
        &migrating,
        &["taint", "aws_security_group.db", "--backup", "-"],
    )
    .code(0);
    let stored = std::fs::read(dir.path().join("terraform.tfstate")).unwrap();
    let envelope: Value = serde_json::from_slice(&stored).unwrap();
    assert_eq!(envelope["encryption_version"], "v0");
    let meta = envelope["meta"].as_object().unwrap();
    assert_eq!(
        meta.keys().collect::<Vec<_>>(),
        ["key_provider.aws_kms.main"]
    );
    let metadata = String::from_utf8(base64_decode(
        meta["key_provider.aws_kms.main"].as_str().unwrap(),
    ))
    .unwrap();
    assert_starts_with(&metadata, "{\"ciphertext_blob\":\"");
    run(&encrypted_only, &["show", "aws_security_group.db"])
        .code(0)
        .stdout_contains("tainted");
    // Without the key configuration, the envelope is refused in one line with the hint.
    Test::new()
        .current_dir(dir.path())
        .args(["list"])
        .env("HOME", dir.path())
        .run()
        .code(2)
        .stderr_contains("TF_ENCRYPTION");
}
