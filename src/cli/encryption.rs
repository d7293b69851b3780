//! The state encryption of one run, built once from where OpenTofu finds it (the root module's
//! `encryption` block in `--config DIR` or the working directory, merged with `TF_ENCRYPTION`),
//! and the two places it acts: between a read and the parse (the stored bytes to the plaintext
//! state, which stays in memory) and just before a write (the new plaintext to what is stored).
//! The state crate never sees a key; the store keeps comparing and backing up the stored bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use statectl_encryption::{EncryptionConfig, Registry, StateEncryption, Status};
use statectl_tfconfig::encryption::{EncryptionBlock, parse_env, read_block};
use statectl_tfconfig::values::{Inputs, Values};
use statectl_tfconfig::{ConfigError, Module};

use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::state::bytes::Bytes;
use crate::state::source::Source;

/// The root module and its variables: where the lifecycle blocks and the state encryption
/// configuration are read, on every command that reads a state.
#[derive(Clone, Default, clap::Args)]
pub struct ConfigArgs {
    /// The root module's folder (default: the working directory). Its `terraform { encryption
    /// { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh`
    /// and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out).
    #[arg(long, value_name = "DIR")]
    pub config: Option<PathBuf>,

    /// A value for a variable the configuration's encryption block uses, as `tofu -var`;
    /// repeatable; later ones win.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,

    /// A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars`
    /// and `*.auto.tfvars` in the configuration folder are read without it.
    #[arg(long = "var-file", value_name = "FILE")]
    pub var_files: Vec<PathBuf>,
}

impl std::fmt::Debug for ConfigArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `--var` values may be passphrases: the variables' names only.
        f.debug_struct("ConfigArgs")
            .field("config", &self.config)
            .field(
                "vars",
                &self
                    .vars
                    .iter()
                    .map(|raw| raw.split_once('=').map_or("?", |(name, _)| name))
                    .collect::<Vec<_>>(),
            )
            .field("var_files", &self.var_files)
            .finish()
    }
}

/// The key provider types this build has: the crate's own (pbkdf2, external) and `aws_kms`, which
/// talks to KMS and so lives with the backends.
fn registry() -> Registry {
    let mut registry = Registry::default();
    statectl_backend::kms::register(&mut registry);
    registry
}

/// The state encryption the configuration and `TF_ENCRYPTION` describe; disabled when neither
/// says anything. Every key provider and method is checked now, before any state is read.
pub(crate) fn load(args: &ConfigArgs) -> Result<Arc<StateEncryption>, CliError> {
    let env = std::env::var("TF_ENCRYPTION")
        .ok()
        .filter(|text| !text.trim().is_empty());
    load_with(args, env.as_deref()).map(Arc::new)
}

fn load_with(args: &ConfigArgs, env: Option<&str>) -> Result<StateEncryption, CliError> {
    let dir = args.config.as_deref().unwrap_or(Path::new("."));
    if args.config.is_some() && !dir.is_dir() {
        return Err(CliError::new(format!(
            "{}: --config: no such folder",
            sanitize(&dir.display().to_string())
        ))
        .with_hint("--config takes the root module's folder"));
    }
    let inputs = Inputs::from_flags(&args.vars, &args.var_files);
    let root = Module::read_if_listable(dir).map_err(config_error)?;
    let block = read_block(&root, || Values::load(&root, &inputs)).map_err(config_error)?;
    let over = match env {
        Some(text) => {
            let values = Values::load(&root, &inputs).map_err(config_error)?;
            Some(parse_env(text, &values).map_err(config_error)?)
        }
        None => None,
    };
    let config = match (block, over) {
        (None, None) => return Ok(StateEncryption::disabled()),
        (Some(block), None) => build(&block)?,
        (None, Some(over)) => build(&over)?,
        (Some(block), Some(over)) => build(&block)?.merge(build(&over)?),
    };
    StateEncryption::new(Some(&config), &registry()).map_err(|error| encryption_error(None, &error))
}

fn build(block: &EncryptionBlock) -> Result<EncryptionConfig, CliError> {
    EncryptionConfig::from_value(&block.source, &block.body)
        .map_err(|error| encryption_error(None, &error))
}

fn config_error(error: ConfigError) -> CliError {
    CliError::said(&error.message, error.hint)
}

/// One line naming the state (when there is one) and what failed, with the crate's hint. The
/// crate's errors carry no key material; a key provider's own stderr is never shown.
pub(crate) fn encryption_error(
    source: Option<&Source>,
    error: &statectl_encryption::Error,
) -> CliError {
    let message = match source {
        Some(source) => format!("{source}: {error}"),
        None => error.to_string(),
    };
    CliError {
        message: sanitize(&message),
        hint: error.hint(),
        code: ExitStatus::Error,
    }
}

/// The stored bytes of `source` as the parser needs them, for a command that only reads: the
/// plaintext of an envelope, decoded and decrypted within the buffer just read (the stored bytes
/// are not kept), or a plaintext state as it is, never copied.
pub(crate) fn open(
    encryption: &StateEncryption,
    source: &Source,
    stored: Bytes,
) -> Result<Bytes, CliError> {
    encryption
        .decrypt(stored)
        .map(|decrypted| decrypted.plaintext)
        .map_err(|error| open_error(encryption, source, error))
}

/// [`open`] for a write, which keeps the stored bytes (the commit compares them and backs them
/// up): `(plaintext, Some(stored))` for an envelope, `(stored, None)` for a plaintext state,
/// and whether the next write stores the state differently (OpenTofu's migration: plaintext to
/// encrypted, a fallback key to the primary one, or encrypted to plaintext).
pub(crate) fn open_status(
    encryption: &StateEncryption,
    source: &Source,
    stored: Bytes,
) -> Result<(Bytes, Option<Bytes>, bool), CliError> {
    match encryption.decrypt_slice(&stored) {
        Ok(None) => Ok((
            stored,
            None,
            encryption.plaintext_status() == Status::Migration,
        )),
        Ok(Some(decrypted)) => Ok((
            decrypted.plaintext,
            Some(stored),
            decrypted.status == Status::Migration || encryption.writes_plaintext(),
        )),
        Err(error) => Err(open_error(encryption, source, error)),
    }
}

/// One line for a state that cannot be opened.
fn open_error(
    encryption: &StateEncryption,
    source: &Source,
    error: statectl_encryption::Error,
) -> CliError {
    match error {
        // Without a key, what matters is how to give one, not what is odd about the envelope's
        // fields (old OpenTofu builds wrote other shapes); a cut or newer envelope is still said.
        error @ (statectl_encryption::Error::EnvelopeNotJson { .. }
        | statectl_encryption::Error::UnknownVersion { .. }) => {
            encryption_error(Some(source), &error)
        }
        _ if !encryption.is_configured() => {
            encryption_error(Some(source), &statectl_encryption::Error::NotConfigured)
        }
        error => encryption_error(Some(source), &error),
    }
}

/// How a migrating write changed the storage, for the closing line.
pub(crate) fn migration_note(encryption: &StateEncryption, was_encrypted: bool) -> &'static str {
    match (was_encrypted, encryption.writes_plaintext()) {
        (false, _) => "now stored encrypted",
        (true, true) => "now stored unencrypted",
        (true, false) => "re-encrypted with the primary method's key",
    }
}

/// What a write stores for the new plaintext state (`serial` and `lineage` are the new state's):
/// an envelope by the primary method, made in the new state's own buffer (so the plaintext is
/// overwritten as it is sealed), or the plaintext itself when it writes plaintext.
pub(crate) fn seal(
    encryption: &StateEncryption,
    source: &Source,
    plaintext: String,
    serial: u64,
    lineage: &str,
) -> Result<Vec<u8>, CliError> {
    encryption
        .encrypt_owned(plaintext.into_bytes(), i64::try_from(serial).ok(), lineage)
        .map_err(|error| encryption_error(Some(source), &error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_a_var_value() {
        let args = ConfigArgs {
            vars: vec!["passphrase=hunter2hunter2hunter2".into()],
            ..ConfigArgs::default()
        };
        let shown = format!("{args:?}");
        assert!(
            shown.contains("passphrase") && !shown.contains("hunter2"),
            "{shown}"
        );
    }

    #[test]
    fn nothing_configured_is_disabled() {
        let dir = tempfile::tempdir().unwrap();
        let args = ConfigArgs {
            config: Some(dir.path().to_owned()),
            ..ConfigArgs::default()
        };
        assert!(!load_with(&args, None).unwrap().is_configured());
    }

    #[test]
    fn tf_encryption_is_merged_over_the_block() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("main.tf"),
            r#"terraform {
  encryption {
    key_provider "pbkdf2" "k" { passphrase = "short" }
    method "aes_gcm" "m" { keys = key_provider.pbkdf2.k }
    state { method = method.aes_gcm.m }
  }
}
"#,
        )
        .unwrap();
        let args = ConfigArgs {
            config: Some(dir.path().to_owned()),
            ..ConfigArgs::default()
        };
        // The file's passphrase alone is too short.
        let error = load_with(&args, None).unwrap_err();
        assert!(error.message.contains("shorter than"), "{}", error.message);
        assert!(!error.message.contains("short\""), "{}", error.message);
        let merged = load_with(
            &args,
            Some(r#"key_provider "pbkdf2" "k" { passphrase = "a-long-enough-passphrase" }"#),
        )
        .unwrap();
        assert!(merged.is_configured() && !merged.writes_plaintext());
    }
}
