//! The `encryption` block as plain data (key providers, methods, targets), built from values
//! already evaluated, and the merge of `TF_ENCRYPTION` over the configuration's block exactly as
//! OpenTofu merges them (`internal/encryption/config/config_merge.go`).
//!
//! The input shape is the block in HCL's JSON syntax, which is also what an HCL evaluator turns
//! the native syntax into: labelled blocks as nested objects (or arrays of them), references
//! such as `key_provider.pbkdf2.main` as strings (a whole-string `${...}` is unwrapped).

use std::fmt;

use serde_json::{Map, Value};

use crate::error::Error;

/// The `terraform { encryption { ... } }` block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EncryptionConfig {
    pub key_providers: Vec<KeyProviderConfig>,
    pub methods: Vec<MethodConfig>,
    pub state: Option<EnforceableTarget>,
    pub plan: Option<EnforceableTarget>,
    pub remote: Option<RemoteConfig>,
}

/// `key_provider "<kind>" "<name>" { ... }`.
#[derive(Clone, PartialEq)]
pub struct KeyProviderConfig {
    pub kind: String,
    pub name: String,
    /// The key under which its metadata is stored instead of its address.
    pub encrypted_metadata_alias: Option<String>,
    /// The remaining attributes, evaluated (a passphrase among them: never printed).
    pub body: Map<String, Value>,
}

impl KeyProviderConfig {
    /// `key_provider.<kind>.<name>`.
    pub fn address(&self) -> String {
        format!("key_provider.{}.{}", self.kind, self.name)
    }

    /// The key of its metadata in the envelope.
    pub fn meta_key(&self) -> String {
        self.encrypted_metadata_alias
            .clone()
            .unwrap_or_else(|| self.address())
    }
}

impl fmt::Debug for KeyProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Only the option names: a passphrase is one of the values.
        f.debug_struct("KeyProviderConfig")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("encrypted_metadata_alias", &self.encrypted_metadata_alias)
            .field("options", &self.body.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A passphrase lives in the body as a JSON string: wiped with the configuration (and with each
/// copy of it), as keys are.
impl Drop for KeyProviderConfig {
    fn drop(&mut self) {
        self.body.values_mut().for_each(wipe);
    }
}

fn wipe(value: &mut Value) {
    use zeroize::Zeroize as _;
    match value {
        Value::String(text) => text.zeroize(),
        Value::Array(items) => items.iter_mut().for_each(wipe),
        Value::Object(members) => members.values_mut().for_each(wipe),
        _ => {}
    }
}

/// `method "<kind>" "<name>" { ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodConfig {
    pub kind: String,
    pub name: String,
    pub body: Map<String, Value>,
}

impl MethodConfig {
    /// `method.<kind>.<name>`.
    pub fn address(&self) -> String {
        format!("method.{}.{}", self.kind, self.name)
    }
}

/// A `fallback` block (and `remote_state_data_sources.default`): a method and its own fallback.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetConfig {
    /// `method.<kind>.<name>`, as written.
    pub method: Option<String>,
    pub fallback: Option<Box<TargetConfig>>,
}

/// The `state` and `plan` blocks: a target that can forbid an unencrypted method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnforceableTarget {
    pub enforced: bool,
    pub target: TargetConfig,
}

/// `remote_state_data_sources { default {...} remote_state_data_source "<name>" {...} }`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteConfig {
    pub default: Option<TargetConfig>,
    pub targets: Vec<NamedTarget>,
}

/// A `remote_state_data_source "<name>"` block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamedTarget {
    pub name: String,
    pub target: TargetConfig,
}

impl EncryptionConfig {
    /// Builds the model from the block's evaluated body. `source` names where it came from
    /// (`TF_ENCRYPTION`, `main.tf`) in errors.
    pub fn from_value(source: &str, value: &Value) -> Result<Self, Error> {
        let body = object(source, value)?;
        let mut config = EncryptionConfig::default();
        for (key, value) in body {
            let at = format!("{source}: {key}");
            match key.as_str() {
                "key_provider" => {
                    for (kind, name, body) in labelled(&at, value)? {
                        let mut body = body.clone();
                        let alias = match body.remove("encrypted_metadata_alias") {
                            None | Some(Value::Null) => None,
                            Some(Value::String(s)) => Some(s),
                            Some(_) => {
                                return Err(config_error(
                                    format!("{at}.{kind}.{name}"),
                                    "encrypted_metadata_alias must be a string",
                                ));
                            }
                        };
                        config.key_providers.push(KeyProviderConfig {
                            kind,
                            name,
                            encrypted_metadata_alias: alias,
                            body,
                        });
                    }
                }
                "method" => {
                    for (kind, name, body) in labelled(&at, value)? {
                        config.methods.push(MethodConfig {
                            kind,
                            name,
                            body: body.clone(),
                        });
                    }
                }
                "state" => config.state = Some(enforceable(&at, single(&at, value)?)?),
                "plan" => config.plan = Some(enforceable(&at, single(&at, value)?)?),
                "remote_state_data_sources" => {
                    config.remote = Some(remote(&at, single(&at, value)?)?);
                }
                _ => {
                    return Err(config_error(
                        at,
                        "unknown block or attribute; expected key_provider, method, state, plan or remote_state_data_sources",
                    ));
                }
            }
        }
        Ok(config)
    }

    /// `self` with `over` (from `TF_ENCRYPTION`) merged on top, block by block as OpenTofu does.
    #[must_use]
    pub fn merge(self, over: EncryptionConfig) -> EncryptionConfig {
        EncryptionConfig {
            key_providers: merge_key_providers(self.key_providers, over.key_providers),
            methods: merge_methods(self.methods, over.methods),
            state: merge_enforceable(self.state, over.state),
            plan: merge_enforceable(self.plan, over.plan),
            remote: merge_remote(self.remote, over.remote),
        }
    }

    pub fn key_provider(&self, kind: &str, name: &str) -> Option<&KeyProviderConfig> {
        self.key_providers
            .iter()
            .find(|k| k.kind == kind && k.name == name)
    }

    pub fn method(&self, kind: &str, name: &str) -> Option<&MethodConfig> {
        self.methods
            .iter()
            .find(|m| m.kind == kind && m.name == name)
    }
}

/// OpenTofu merges a body attribute by attribute, the override's winning (`hcl2shim.MergeBodies`).
fn merge_body(mut base: Map<String, Value>, over: Map<String, Value>) -> Map<String, Value> {
    for (key, value) in over {
        // A replaced value may be a passphrase (a key provider's body): wiped, not just freed.
        if let Some(mut replaced) = base.insert(key, value) {
            wipe(&mut replaced);
        }
    }
    base
}

fn merge_key_providers(
    mut merged: Vec<KeyProviderConfig>,
    over: Vec<KeyProviderConfig>,
) -> Vec<KeyProviderConfig> {
    for mut o in over {
        if let Some(existing) = merged
            .iter_mut()
            .find(|k| k.kind == o.kind && k.name == o.name)
        {
            // Only the body is merged: OpenTofu decodes `encrypted_metadata_alias` out of the
            // body before merging, so the configuration's alias stays.
            let body = std::mem::take(&mut existing.body);
            existing.body = merge_body(body, std::mem::take(&mut o.body));
        } else {
            merged.push(o);
        }
    }
    merged
}

fn merge_methods(mut merged: Vec<MethodConfig>, over: Vec<MethodConfig>) -> Vec<MethodConfig> {
    for o in over {
        if let Some(existing) = merged
            .iter_mut()
            .find(|m| m.kind == o.kind && m.name == o.name)
        {
            let body = std::mem::take(&mut existing.body);
            existing.body = merge_body(body, o.body);
        } else {
            merged.push(o);
        }
    }
    merged
}

fn merge_target(base: Option<TargetConfig>, over: Option<TargetConfig>) -> Option<TargetConfig> {
    match (base, over) {
        (None, over) => over,
        (base, None) => base,
        (Some(base), Some(over)) => Some(TargetConfig {
            method: over.method.or(base.method),
            // The override's fallback chain replaces the whole chain, not link by link.
            fallback: over.fallback.or(base.fallback),
        }),
    }
}

fn merge_enforceable(
    base: Option<EnforceableTarget>,
    over: Option<EnforceableTarget>,
) -> Option<EnforceableTarget> {
    match (base, over) {
        (None, over) => over,
        (base, None) => base,
        (Some(base), Some(over)) => {
            Some(EnforceableTarget {
                // Either side can enforce; neither can lift the other's enforcement.
                enforced: base.enforced || over.enforced,
                target: merge_target(Some(base.target), Some(over.target)).unwrap_or_default(),
            })
        }
    }
}

fn merge_remote(base: Option<RemoteConfig>, over: Option<RemoteConfig>) -> Option<RemoteConfig> {
    match (base, over) {
        (None, over) => over,
        (base, None) => base,
        (Some(base), Some(over)) => {
            let mut targets = base.targets;
            for o in over.targets {
                if let Some(t) = targets.iter_mut().find(|t| t.name == o.name) {
                    let base = std::mem::take(&mut t.target);
                    t.target = merge_target(Some(base), Some(o.target)).unwrap_or_default();
                } else {
                    targets.push(o);
                }
            }
            Some(RemoteConfig {
                default: merge_target(base.default, over.default),
                targets,
            })
        }
    }
}

fn config_error(at: impl Into<String>, detail: impl Into<String>) -> Error {
    Error::Config {
        at: at.into(),
        detail: detail.into(),
    }
}

fn object<'a>(at: &str, value: &'a Value) -> Result<&'a Map<String, Value>, Error> {
    value
        .as_object()
        .ok_or_else(|| config_error(at, "expected a block (an object)"))
}

/// A block that may appear once: an object, or HCL JSON's one-element array of objects.
fn single<'a>(at: &str, value: &'a Value) -> Result<&'a Map<String, Value>, Error> {
    match value {
        Value::Array(items) if items.len() == 1 => object(at, &items[0]),
        Value::Array(_) => Err(config_error(at, "the block may appear only once")),
        value => object(at, value),
    }
}

/// A labelled block: its type label, its name label, its body.
type Labelled<'a> = (String, String, &'a Map<String, Value>);

/// `{"<kind>": {"<name>": {body}}}`, where each level may also be an array of such objects.
fn labelled<'a>(at: &str, value: &'a Value) -> Result<Vec<Labelled<'a>>, Error> {
    let mut out = Vec::new();
    for kinds in each(at, value)? {
        for (kind, names) in kinds {
            let at = format!("{at}.{kind}");
            for names in each(&at, names)? {
                for (name, body) in names {
                    out.push((
                        kind.clone(),
                        name.clone(),
                        single(&format!("{at}.{name}"), body)?,
                    ));
                }
            }
        }
    }
    Ok(out)
}

fn each<'a>(at: &str, value: &'a Value) -> Result<Vec<&'a Map<String, Value>>, Error> {
    match value {
        Value::Array(items) => items.iter().map(|v| object(at, v)).collect(),
        value => Ok(vec![object(at, value)?]),
    }
}

/// A reference written as a string; HCL JSON's whole-string template `${...}` is unwrapped.
pub(crate) fn reference(at: &str, value: &Value) -> Result<String, Error> {
    let Value::String(s) = value else {
        return Err(config_error(
            at,
            "expected a reference such as method.aes_gcm.example",
        ));
    };
    let s = s.trim();
    Ok(s.strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .unwrap_or(s)
        .trim()
        .to_owned())
}

fn target(at: &str, body: &Map<String, Value>) -> Result<TargetConfig, Error> {
    let mut out = TargetConfig::default();
    for (key, value) in body {
        let at = format!("{at}.{key}");
        match key.as_str() {
            "method" => out.method = Some(reference(&at, value)?),
            "fallback" => out.fallback = Some(Box::new(target(&at, single(&at, value)?)?)),
            _ => {
                return Err(config_error(
                    at,
                    "unknown attribute; expected method or fallback",
                ));
            }
        }
    }
    Ok(out)
}

fn enforceable(at: &str, body: &Map<String, Value>) -> Result<EnforceableTarget, Error> {
    let mut rest = body.clone();
    let enforced = match rest.remove("enforced") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => {
            return Err(config_error(
                format!("{at}.enforced"),
                "expected true or false",
            ));
        }
    };
    Ok(EnforceableTarget {
        enforced,
        target: target(at, &rest)?,
    })
}

fn remote(at: &str, body: &Map<String, Value>) -> Result<RemoteConfig, Error> {
    let mut out = RemoteConfig::default();
    for (key, value) in body {
        let at = format!("{at}.{key}");
        match key.as_str() {
            "default" => out.default = Some(target(&at, single(&at, value)?)?),
            "remote_state_data_source" => {
                for names in each(&at, value)? {
                    for (name, body) in names {
                        out.targets.push(NamedTarget {
                            name: name.clone(),
                            target: target(&format!("{at}.{name}"), single(&at, body)?)?,
                        });
                    }
                }
            }
            _ => {
                return Err(config_error(
                    at,
                    "unknown block; expected default or remote_state_data_source",
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn remote_of(value: &Value) -> RemoteConfig {
        let body = json!({ "remote_state_data_sources": value });
        EncryptionConfig::from_value("test", &body)
            .unwrap()
            .remote
            .unwrap()
    }

    fn methods(target: &TargetConfig) -> Vec<&str> {
        let mut out = vec![target.method.as_deref().unwrap_or("-")];
        let mut link = target.fallback.as_deref();
        while let Some(next) = link {
            out.push(next.method.as_deref().unwrap_or("-"));
            link = next.fallback.as_deref();
        }
        out
    }

    #[test]
    fn named_remote_targets_merge_by_name_an_override_chain_replacing_the_whole_chain() {
        let base = remote_of(&json!({
            "default": {"method": "method.m.d"},
            "remote_state_data_source": {
                "a": {"method": "method.m.a", "fallback": {"method": "method.m.f"}},
                "b": {"method": "method.m.b", "fallback": {"method": "method.m.g"}},
            },
        }));
        let over = remote_of(&json!({
            "remote_state_data_source": [
                {"a": {"fallback": {"method": "method.m.o"}}},
                {"c": {"method": "method.m.c"}},
            ],
        }));
        let merged = merge_remote(Some(base), Some(over)).unwrap();
        assert_eq!(methods(merged.default.as_ref().unwrap()), ["method.m.d"]);
        let named: Vec<(&str, Vec<&str>)> = merged
            .targets
            .iter()
            .map(|named| (named.name.as_str(), methods(&named.target)))
            .collect();
        assert_eq!(
            named,
            [
                ("a", vec!["method.m.a", "method.m.o"]),
                ("b", vec!["method.m.b", "method.m.g"]),
                ("c", vec!["method.m.c"]),
            ]
        );
    }
}
