//! State encryption: the passphrase given every way OpenTofu takes it (`TF_VAR_`, a tfvars file,
//! `--var-file <(...)`, `--var`), through a migration that writes the envelope and the reads and
//! writes of it in every format, a wrong passphrase, and `--var-file` naming a pipe (process
//! substitution), which both the `encryption` block and `TF_ENCRYPTION` read; and the `aws_kms` key
//! provider's AWS credentials against a KMS that echoes each request in its errors.

use std::path::Path;
use std::process::Command;

use super::echo::{Echo, Reply};
use super::{Run, assert_nothing_shown, marker, run};
use crate::builder::{assert_contains, root};
use crate::files::folder_with_copy;

const ADDRESS: &str = "aws_security_group.db";

/// OpenTofu's documented block, `var.passphrase` its passphrase; `migrating` adds the unencrypted
/// fallback that lets a write encrypt a plaintext state.
fn main_tf(migrating: bool) -> String {
    let (fallback, unencrypted) = if migrating {
        (
            "      fallback {\n        method = method.unencrypted.migrate\n      }\n",
            "    method \"unencrypted\" \"migrate\" {}\n",
        )
    } else {
        ("", "")
    };
    format!(
        "variable \"passphrase\" {{\n  type      = string\n  sensitive = true\n}}\n\nterraform {{\n  encryption {{\n    key_provider \"pbkdf2\" \"main\" {{\n      passphrase = var.passphrase\n      iterations = 200000\n    }}\n    method \"aes_gcm\" \"main\" {{\n      keys = key_provider.pbkdf2.main\n    }}\n{unencrypted}    state {{\n      method = method.aes_gcm.main\n{fallback}    }}\n  }}\n}}\n"
    )
}

/// A folder with the plaintext fixture as `terraform.tfstate` and `main_tf(migrating)`.
fn module(migrating: bool) -> tempfile::TempDir {
    let folder = folder_with_copy(root().join("testdata/scan/clean.tfstate"));
    std::fs::write(folder.path().join("main.tf"), main_tf(migrating)).unwrap();
    folder
}

/// `statectl ARGS` through bash, with the passphrase from process substitution.
fn through_a_pipe(folder: &Path, passphrase: &str, args: &str, env: &[(&str, &str)]) -> Run {
    let statectl = env!("CARGO_BIN_EXE_statectl");
    let output = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "exec {statectl} {args} --var-file <(printf 'passphrase = \"%s\"\\n' \"$PASSPHRASE\")"
        ))
        .current_dir(folder)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", folder)
        .env("PASSPHRASE", passphrase)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    Run {
        label: format!("{args} --var-file <(...)"),
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        files: Vec::new(),
    }
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn a_passphrase_given_every_way_is_never_shown() {
    let passphrase = marker("tofuPASSPHRASE", 40);
    let wrong = marker("wrongPASSPHRASE", 40);
    let tfvars = format!("passphrase = \"{passphrase}\"\n");
    let variable = format!("passphrase={passphrase}");
    let mut runs = Vec::new();
    for way in ["TF_VAR_passphrase", "--var-file", "--var"] {
        let folder = module(true);
        std::fs::write(folder.path().join("secret.tfvars"), &tfvars).unwrap();
        let (env, flags): (Vec<(&str, &str)>, Vec<&str>) = match way {
            "TF_VAR_passphrase" => (vec![("TF_VAR_passphrase", &passphrase)], Vec::new()),
            "--var-file" => (Vec::new(), vec!["--var-file", "secret.tfvars"]),
            _ => (Vec::new(), vec!["--var", &variable]),
        };
        let inputs = ["secret.tfvars"];
        let with = |args: &[&str]| -> Vec<String> {
            args.iter()
                .chain(&flags)
                .map(|arg| (*arg).to_owned())
                .collect()
        };
        // The migration writes the envelope; then the fallback is gone and it is read as such.
        let migrated = run(
            folder.path(),
            &strs(&with(&["taint", ADDRESS, "--backup", "-", "-vv"])),
            &env,
            &inputs,
        );
        assert_eq!(migrated.code, 0, "{}{}", migrated.stdout, migrated.stderr);
        runs.push(migrated);
        std::fs::write(folder.path().join("main.tf"), main_tf(false)).unwrap();
        let mut commands: Vec<Vec<&str>> = vec![
            vec!["list", "-vv"],
            vec!["show", ADDRESS, "--format", "json", "-v"],
            vec!["untaint", ADDRESS, "-vv", "--backup", "-"],
            vec!["taint", ADDRESS, "-o", "-"],
            vec!["taint", ADDRESS, "--dry-run", "-vv"],
        ];
        for format in ["table", "json", "sarif", "github", "junit", "markdown"] {
            commands.push(vec!["scan", "--format", format]);
        }
        for command in &commands {
            let one = run(folder.path(), &strs(&with(command)), &env, &inputs);
            assert!(one.code < 2, "{}: {}{}", one.label, one.stdout, one.stderr);
            runs.push(one);
        }
        // A wrong passphrase: refused in one line, neither passphrase shown.
        let refused = run(
            folder.path(),
            &["list", "-vv"],
            &[("TF_VAR_passphrase", &wrong)],
            &inputs,
        );
        assert_eq!(refused.code, 2, "{}", refused.stderr);
        runs.push(refused);
    }
    assert_nothing_shown(&runs, &[passphrase, wrong]);
}

#[test]
fn a_var_file_from_process_substitution_is_read_once_for_every_reader() {
    let folder = module(true);
    let passphrase = marker("pipePASSPHRASE", 40);
    // The block and TF_ENCRYPTION both need `var.passphrase`: the pipe is read once for both.
    let overlay = "key_provider \"pbkdf2\" \"main\" {\n  passphrase = var.passphrase\n  iterations = 200000\n}\n";
    let env = [("TF_ENCRYPTION", overlay)];
    let runs = vec![
        through_a_pipe(
            folder.path(),
            &passphrase,
            &format!("taint {ADDRESS} --backup -"),
            &env,
        ),
        through_a_pipe(folder.path(), &passphrase, "list -vv", &env),
    ];
    for one in &runs {
        assert_eq!(one.code, 0, "{}: {}{}", one.label, one.stdout, one.stderr);
    }
    assert_contains(&runs[1].stdout, ADDRESS);
    let stored = std::fs::read_to_string(folder.path().join("terraform.tfstate")).unwrap();
    assert!(
        stored.contains("\"encryption_version\""),
        "not encrypted: {stored}"
    );
    assert_nothing_shown(&runs, &[passphrase]);
}

#[test]
fn a_missing_passphrase_is_asked_for_by_the_ways_that_keep_it_out_of_ps() {
    let folder = module(true);
    let missing = run(folder.path(), &["list"], &[], &[]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    let hint = missing
        .stderr
        .lines()
        .find(|line| line.starts_with("hint: "))
        .unwrap_or_default();
    assert!(
        hint.starts_with(
            "hint: set `TF_VAR_passphrase`, or give a tfvars file with `--var-file FILE`"
        ),
        "{}",
        missing.stderr
    );
}

#[test]
fn aws_kms_credentials_echoed_back_are_never_shown() {
    let folder = module(false);
    std::fs::remove_file(folder.path().join("main.tf")).unwrap();
    let echo = Echo::start(|received| Reply::echo_json(400, received));
    let (secret, session) = (marker("kmsSECRET", 40), marker("kmsSESSION", 100));
    let config = "key_provider \"aws_kms\" \"main\" {\n  kms_key_id = \"alias/state\"\n  key_spec = \"AES_256\"\n  region = \"us-east-1\"\n}\nmethod \"aes_gcm\" \"main\" {\n  keys = key_provider.aws_kms.main\n}\nmethod \"unencrypted\" \"old\" {}\nstate {\n  method = method.aes_gcm.main\n  fallback {\n    method = method.unencrypted.old\n  }\n}\n";
    let env = [
        ("TF_ENCRYPTION", config),
        ("AWS_ENDPOINT_URL_KMS", echo.url.as_str()),
        ("AWS_ENDPOINT_URL_STS", echo.url.as_str()),
        ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", secret.as_str()),
        ("AWS_SESSION_TOKEN", session.as_str()),
    ];
    let mut runs = Vec::new();
    for args in [
        &["taint", ADDRESS, "--backup", "-", "-vv"][..],
        &["taint", ADDRESS, "-o", "-", "-v"],
    ] {
        let one = run(folder.path(), args, &env, &[]);
        assert_eq!(one.code, 2, "{}: {}{}", one.label, one.stdout, one.stderr);
        assert!(
            one.stderr.contains("aws_kms"),
            "{}: {}",
            one.label,
            one.stderr
        );
        runs.push(one);
    }
    let mut secrets = vec![secret, session];
    secrets.extend(echo.credentials());
    assert!(secrets.len() > 2, "KMS saw no signature");
    assert_nothing_shown(&runs, &secrets);
}
