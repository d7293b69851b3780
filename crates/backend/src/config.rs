//! A backend's configuration as Terraform recorded it: its type, its arguments (the backend cache's
//! `config` object after every `-backend-config` merge, nulls for unset arguments), and the workspace.

use std::fmt;

use serde_json::{Map, Value};

use statectl_state::state::store::StoreError;

/// One backend, configured.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendConfig {
    /// `s3`, `http`, ...: the name in `backend "<type>" {}`.
    pub kind: String,
    /// The arguments; an argument Terraform recorded as `null` is the same as one not given.
    pub values: Map<String, Value>,
    /// The selected workspace (`default` unless one was chosen).
    pub workspace: String,
    /// Where this configuration was found, for messages: `.terraform/terraform.tfstate`, or the URL
    /// given on the command line.
    pub origin: String,
}

impl BackendConfig {
    /// The argument `key` as text: strings as they are, numbers and booleans spelled out (Terraform
    /// converts `-backend-config` values to the argument's type the same way); `None` when unset,
    /// null, or an empty string.
    pub fn string(&self, key: &str) -> Option<String> {
        match self.values.get(key)? {
            Value::String(text) if text.is_empty() => None,
            Value::String(text) => Some(text.clone()),
            Value::Number(number) => Some(number.to_string()),
            Value::Bool(flag) => Some(flag.to_string()),
            _ => None,
        }
    }

    /// The argument `key` as a boolean: `true`/`false`, or the strings Go's `strconv.ParseBool`
    /// takes.
    pub fn bool(&self, key: &str) -> Result<Option<bool>, StoreError> {
        match self.values.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(Value::String(text)) => parse_bool(text)
                .map(Some)
                .ok_or_else(|| self.invalid(key, "a boolean (`true` or `false`)")),
            Some(_) => Err(self.invalid(key, "a boolean (`true` or `false`)")),
        }
    }

    /// The argument `key` as a whole number.
    pub fn integer(&self, key: &str) -> Result<Option<i64>, StoreError> {
        match self.values.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => number
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.invalid(key, "a whole number")),
            Some(Value::String(text)) => text
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| self.invalid(key, "a whole number")),
            Some(_) => Err(self.invalid(key, "a whole number")),
        }
    }

    /// The argument `key` as a list of strings (`shared_config_files = ["..."]`).
    pub fn strings(&self, key: &str) -> Result<Vec<String>, StoreError> {
        match self.values.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text.clone()),
                    _ => Err(self.invalid(key, "a list of strings")),
                })
                .collect(),
            Some(Value::String(text)) => Ok(vec![text.clone()]),
            Some(_) => Err(self.invalid(key, "a list of strings")),
        }
    }

    /// The argument `key` as an object (`endpoints`, `assume_role`); `None` when unset or null.
    pub fn object(&self, key: &str) -> Result<Option<&Map<String, Value>>, StoreError> {
        match self.values.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(object)) => Ok(Some(object)),
            // A single nested block may be recorded as a one-element list.
            Some(Value::Array(items)) if items.len() == 1 && items[0].is_object() => {
                Ok(items[0].as_object())
            }
            Some(Value::Array(items)) if items.is_empty() => Ok(None),
            Some(_) => Err(self.invalid(key, "an object (`{ ... }`)")),
        }
    }

    /// An error in this backend's configuration: `<origin>: backend "<kind>": <problem>`. Every
    /// backend's configuration errors are built here, so the prefix is written once.
    pub fn error(&self, problem: impl fmt::Display) -> StoreError {
        backend_error(&self.origin, &self.kind, problem)
    }

    /// The error for an argument of the wrong kind, naming it and where it came from.
    pub fn invalid(&self, key: &str, expected: &str) -> StoreError {
        self.error(format_args!("`{key}` must be {expected}"))
    }

    /// The error for a required argument that is missing.
    pub fn missing(&self, key: &str) -> StoreError {
        self.error(format_args!("`{key}` is not set"))
            .with_hint(format!("add `--backend-config {key}=VALUE`"))
    }
}

/// `<at>: backend "<kind>": <problem>`, the one shape of a backend's own errors, for those raised
/// where only the state's location is at hand (after the configuration was read).
pub(crate) fn backend_error(at: &str, kind: &str, problem: impl fmt::Display) -> StoreError {
    StoreError::new(format!("{at}: backend \"{kind}\": {problem}"))
}

/// Go's `strconv.ParseBool`.
fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

impl BackendConfig {
    /// A configuration of backend `kind` with `values` (a JSON object), for tests.
    #[cfg(test)]
    pub(crate) fn for_tests(kind: &str, values: Value) -> BackendConfig {
        let Value::Object(values) = values else {
            panic!("test values are an object")
        };
        BackendConfig {
            kind: kind.to_owned(),
            values,
            workspace: "default".to_owned(),
            origin: ".terraform/terraform.tfstate".to_owned(),
        }
    }
}

/// An environment variable, `None` when unset or empty (Terraform's backends treat both alike).
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config(values: Value) -> BackendConfig {
        BackendConfig::for_tests("s3", values)
    }

    #[test]
    fn nulls_and_empty_strings_are_unset() {
        let config = config(json!({"bucket": null, "key": "", "region": "eu-west-1"}));
        assert_eq!(config.string("bucket"), None);
        assert_eq!(config.string("key"), None);
        assert_eq!(config.string("region").as_deref(), Some("eu-west-1"));
        assert_eq!(config.string("absent"), None);
    }

    #[test]
    fn booleans_and_numbers_take_go_spellings_and_refuse_the_rest() {
        let config =
            config(json!({"a": true, "b": "F", "c": "yes", "n": "3", "m": 5, "x": "five"}));
        assert_eq!(config.bool("a").unwrap(), Some(true));
        assert_eq!(config.bool("b").unwrap(), Some(false));
        assert_eq!(
            config.bool("c").unwrap_err().message,
            ".terraform/terraform.tfstate: backend \"s3\": `c` must be a boolean (`true` or `false`)"
        );
        assert_eq!(config.integer("n").unwrap(), Some(3));
        assert_eq!(config.integer("m").unwrap(), Some(5));
        assert!(config.integer("x").is_err());
    }

    #[test]
    fn a_block_recorded_as_a_one_element_list_is_an_object() {
        let config =
            config(json!({"assume_role": [{"role_arn": "arn:aws:iam::1:role/x"}], "e": []}));
        let role = config.object("assume_role").unwrap().unwrap();
        assert_eq!(role["role_arn"], "arn:aws:iam::1:role/x");
        assert_eq!(config.object("e").unwrap(), None);
    }
}
