//! Finding OpenTofu's state encryption configuration as OpenTofu does: the root module's
//! `terraform { encryption { ... } }` block (`.tf` or `.tf.json`), and the `TF_ENCRYPTION`
//! environment variable (HCL, or JSON when it starts with `{`). Each is evaluated with the
//! module's [`Values`] into the block's JSON shape (labelled blocks as nested objects, references
//! such as `key_provider.pbkdf2.main` as strings), which the encryption crate builds and merges.

use std::path::Path;

use hcl::edit::Span;
use hcl::edit::structure::Body as EditBody;
use serde_json::{Map, Value};

use crate::ConfigError;
use crate::module::Module;
use crate::values::{Values, each_object, parse_native};

/// One evaluated `encryption` block and where it came from (`main.tf:3`, `TF_ENCRYPTION`).
#[derive(Clone, PartialEq)]
pub struct EncryptionBlock {
    pub source: String,
    pub body: Value,
}

impl std::fmt::Debug for EncryptionBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The body holds passphrases.
        f.debug_struct("EncryptionBlock")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// The `encryption` block of the root module `root`, if any: `Ok(None)` when it has no
/// configuration or no block. `values` is built only when a block is found (reading tfvars files
/// is needless otherwise).
pub fn read_block(
    root: &Module,
    values: impl FnOnce() -> Result<Values, ConfigError>,
) -> Result<Option<EncryptionBlock>, ConfigError> {
    let mut found: Option<(String, Found)> = None;
    for file in root.files() {
        // A file that cannot hold the block is not parsed: statectl also runs in folders whose
        // configuration uses syntax newer than its HCL parser, and only this block matters here.
        if !may_hold_block(&file.text) {
            continue;
        }
        let blocks = if file.is_json() {
            json_blocks(&file.path, file.json()?)
        } else {
            native_blocks(&file.path, &file.text, file.native()?)
        };
        for (place, block) in blocks {
            if let Some((first, _)) = &found {
                return Err(ConfigError::new(format!(
                    "{place}: a second `encryption` block (the first is at {first})"
                ))
                .with_hint("a root module has one `terraform { encryption { ... } }` block"));
            }
            found = Some((place, block));
        }
    }
    let Some((place, block)) = found else {
        return Ok(None);
    };
    let values = values()?;
    let body = match block {
        Found::Native(body) => native_body(&body, &values, &place)?,
        Found::Json(body) => json_value(&body, &values, &place)?,
    };
    Ok(Some(EncryptionBlock {
        source: place,
        body,
    }))
}

/// `TF_ENCRYPTION`'s text: JSON when it starts with `{`, else HCL (the block's body).
pub fn parse_env(text: &str, values: &Values) -> Result<EncryptionBlock, ConfigError> {
    const NAME: &str = "TF_ENCRYPTION";
    let body = if text.trim_start().starts_with('{') {
        let value: Value = serde_json::from_str(text).map_err(|error| {
            ConfigError::new(format!(
                "{NAME}:{}:{}: invalid JSON",
                error.line(),
                error.column()
            ))
        })?;
        json_value(&value, values, NAME)?
    } else {
        let body = parse_native(Path::new(NAME), text)?;
        native_body(&body, values, NAME)?
    };
    Ok(EncryptionBlock {
        source: NAME.to_owned(),
        body,
    })
}

/// Whether `text` has `encryption` followed by `{` or `"` and `:` (the JSON syntax's key).
fn may_hold_block(text: &str) -> bool {
    text.match_indices("encryption").any(|(at, word)| {
        let rest = text[at + word.len()..].trim_start_matches('"').trim_start();
        rest.starts_with('{') || rest.starts_with(':')
    })
}

enum Found {
    Native(hcl::Body),
    Json(Value),
}

/// hcl-edit's `body` keeps the spans that give the block its line; hcl-rs's structure evaluates.
fn native_blocks(file: &Path, text: &str, body: &EditBody) -> Vec<(String, Found)> {
    let mut out = Vec::new();
    for terraform in body.get_blocks("terraform") {
        for encryption in terraform.body.get_blocks("encryption") {
            let line = encryption
                .span()
                .map_or(0, |span| text[..span.start].matches('\n').count() + 1);
            let inner: hcl::Body = encryption.body.clone().into();
            out.push((format!("{}:{line}", file.display()), Found::Native(inner)));
        }
    }
    out
}

fn json_blocks(file: &Path, value: &Value) -> Vec<(String, Found)> {
    let mut out = Vec::new();
    for terraform in each_object(value.get("terraform")) {
        for encryption in each_object(terraform.get("encryption")) {
            out.push((
                file.display().to_string(),
                Found::Json(Value::Object(encryption.clone())),
            ));
        }
    }
    out
}

/// Whether `text` is a reference to another part of the block (`key_provider.x.y`,
/// `method.x.y`), which the encryption crate resolves, rather than a value.
fn is_reference(text: &str) -> bool {
    let text = text.trim();
    let text = text
        .strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
        .unwrap_or(text)
        .trim();
    (text.starts_with("key_provider.") || text.starts_with("method."))
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A native-syntax body in the JSON shape: attributes evaluated, blocks nested by label.
fn native_body(body: &hcl::Body, values: &Values, at: &str) -> Result<Value, ConfigError> {
    let mut out = Map::new();
    for attribute in body.attributes() {
        let here = format!("{at}: {}", attribute.key());
        let value = match attribute.expr() {
            expr @ hcl::Expression::Traversal(_) if is_reference(&expr.to_string()) => {
                Value::String(expr.to_string())
            }
            expr => values.evaluate(expr, &here)?,
        };
        out.insert(attribute.key().to_owned(), value);
    }
    for block in body.blocks() {
        let mut here = format!("{at}: {}", block.identifier());
        for label in block.labels() {
            here.push('.');
            here.push_str(label.as_str());
        }
        let mut value = native_body(block.body(), values, &here)?;
        for label in block.labels().iter().rev() {
            let mut wrapped = Map::new();
            wrapped.insert(label.as_str().to_owned(), value);
            value = Value::Object(wrapped);
        }
        match out.get_mut(block.identifier()) {
            None => {
                out.insert(block.identifier().to_owned(), value);
            }
            Some(Value::Array(items)) => items.push(value),
            Some(existing) => {
                let first = existing.take();
                *existing = Value::Array(vec![first, value]);
            }
        }
    }
    Ok(Value::Object(out))
}

/// A JSON-syntax body with its strings evaluated as templates (references left as written).
fn json_value(value: &Value, values: &Values, at: &str) -> Result<Value, ConfigError> {
    Ok(match value {
        Value::String(text) if is_reference(text) => value.clone(),
        Value::String(text) => values.evaluate_template(text, at)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| json_value(item, values, at))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(object) => {
            let mut out = Map::new();
            for (key, item) in object {
                out.insert(
                    key.clone(),
                    json_value(item, values, &format!("{at}: {key}"))?,
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::values::Inputs;

    #[test]
    fn the_native_block_becomes_the_json_shape_with_values_evaluated() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("main.tf"),
            r#"variable "passphrase" {}
locals { rounds = 600000 }
terraform {
  encryption {
    key_provider "pbkdf2" "main" {
      passphrase = var.passphrase
      iterations = local.rounds
    }
    method "aes_gcm" "main" { keys = key_provider.pbkdf2.main }
    method "unencrypted" "migrate" {}
    state {
      method = method.aes_gcm.main
      fallback { method = method.unencrypted.migrate }
    }
  }
}
"#,
        )
        .unwrap();
        let inputs = Inputs {
            env: vec![("passphrase".into(), "correct-horse-battery-staple".into())],
            ..Inputs::default()
        };
        let root = Module::read(dir.path()).unwrap();
        let block = read_block(&root, || Values::load(&root, &inputs))
            .unwrap()
            .unwrap();
        assert!(block.source.ends_with("main.tf:4"), "{}", block.source);
        assert_eq!(
            block.body,
            json!({
                "key_provider": {"pbkdf2": {"main": {
                    "passphrase": "correct-horse-battery-staple", "iterations": 600_000}}},
                "method": [
                    {"aes_gcm": {"main": {"keys": "key_provider.pbkdf2.main"}}},
                    {"unencrypted": {"migrate": {}}}
                ],
                "state": {"method": "method.aes_gcm.main",
                          "fallback": {"method": "method.unencrypted.migrate"}}
            })
        );
    }

    #[test]
    fn tf_encryption_json_strings_are_templates_and_references_stay() {
        let values = Values::empty();
        let block = parse_env(
            r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "${\"a\"}bcdefghijklmnopq"}}},
                "method": {"aes_gcm": {"m": {"keys": "${key_provider.pbkdf2.k}"}}}}"#,
            &values,
        )
        .unwrap();
        assert_eq!(
            block.body["key_provider"]["pbkdf2"]["k"]["passphrase"],
            "abcdefghijklmnopq"
        );
        assert_eq!(
            block.body["method"]["aes_gcm"]["m"]["keys"],
            "${key_provider.pbkdf2.k}"
        );
    }

    #[test]
    fn a_file_that_cannot_hold_the_block_is_not_parsed() {
        let dir = tempfile::tempdir().unwrap();
        // Syntax this parser may not know, in a file without the block: no error.
        std::fs::write(
            dir.path().join("main.tf"),
            "resource \"x\" \"y\" { server_side_encryption = true\n",
        )
        .unwrap();
        assert!(
            read_block(&Module::read(dir.path()).unwrap(), || unreachable!())
                .unwrap()
                .is_none()
        );
        std::fs::write(dir.path().join("main.tf"), "terraform {\n  encryption {\n").unwrap();
        let error = read_block(&Module::read(dir.path()).unwrap(), || unreachable!()).unwrap_err();
        assert!(error.message.contains("main.tf:"), "{}", error.message);
    }

    #[test]
    fn no_configuration_is_no_block() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            read_block(&Module::read(dir.path()).unwrap(), || unreachable!(
                "no block, no values"
            ))
            .unwrap()
            .is_none()
        );
    }
}
