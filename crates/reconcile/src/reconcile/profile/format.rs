//! The profile file's TOML shape, as serde reads it (documented for users in `profiles/FORMAT.md`,
//! which `statectl refresh --profiles-format` prints). Every value that is checked after parsing keeps its span, so
//! a bad template, JSONPath or duration is reported at its line and column. Unknown keys are errors: a
//! misspelt `pendng` must not silently mean "no pending values".

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// A profile file: `[[profile]]` tables.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    #[serde(default)]
    pub profile: Vec<ProfileFile>,
}

/// One `[[profile]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProfileFile {
    /// The resource type it reconciles.
    #[serde(rename = "type")]
    pub type_name: Spanned<String>,
    pub description: Option<String>,
    /// Another profile (built-in or earlier) whose requests, status, gone rules and mappings this one
    /// reuses; it may change only the type, variables, endpoint, auth, poll and limits.
    pub extends: Option<Spanned<String>>,
    /// The endpoint's name, for `--endpoint NAME=URL` and `STATECTL_ENDPOINT_<NAME>`.
    pub endpoint: Option<Spanned<String>>,
    /// The endpoint's URL when neither overrides it; a template (attributes, variables, environment).
    pub default_url: Option<Spanned<String>>,
    pub auth: Option<Spanned<AuthFile>>,
    #[serde(default)]
    pub variables: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    pub request: Vec<Spanned<RequestFile>>,
    pub status: Option<Spanned<StatusFile>>,
    /// Status code (`"404"`) to a rule.
    pub gone: Option<BTreeMap<Spanned<String>, Spanned<GoneRuleFile>>>,
    #[serde(default)]
    pub map: Vec<MapFile>,
    pub poll: Option<PollFile>,
    pub limits: Option<LimitsFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AuthFile {
    pub scheme: Spanned<String>,
    pub token_env: Option<Spanned<String>>,
    pub username_env: Option<Spanned<String>>,
    pub password_env: Option<Spanned<String>>,
    pub header: Option<Spanned<String>>,
    pub value_env: Option<Spanned<String>>,
    pub config_file: Option<Spanned<String>>,
    pub config_profile: Option<Spanned<String>>,
}

impl AuthFile {
    /// The settings given, by name, for the per-scheme checks.
    pub(super) fn given(&self) -> Vec<(&'static str, &Spanned<String>)> {
        [
            ("token_env", &self.token_env),
            ("username_env", &self.username_env),
            ("password_env", &self.password_env),
            ("header", &self.header),
            ("value_env", &self.value_env),
            ("config_file", &self.config_file),
            ("config_profile", &self.config_profile),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.as_ref().map(|value| (name, value)))
        .collect()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RequestFile {
    pub name: Spanned<String>,
    pub method: Option<Spanned<String>>,
    pub url: Spanned<String>,
    #[serde(default)]
    pub query: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    pub headers: BTreeMap<Spanned<String>, Spanned<String>>,
    pub body: Option<Spanned<String>>,
    /// `always` (the default) or `target`: only once the status reached a target value.
    pub when: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StatusFile {
    pub request: Spanned<String>,
    pub path: Spanned<String>,
    #[serde(default)]
    pub pending: Vec<String>,
    #[serde(default)]
    pub target: Vec<String>,
    #[serde(default)]
    pub failed: Vec<String>,
    #[serde(default)]
    pub gone: Vec<String>,
    pub message: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GoneRuleFile {
    pub create: Option<Spanned<String>>,
    pub update: Option<Spanned<String>>,
    pub delete: Option<Spanned<String>>,
    pub read: Option<Spanned<String>>,
    pub default: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MapFile {
    pub request: Spanned<String>,
    pub from: Spanned<String>,
    pub to: Spanned<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PollFile {
    pub initial_delay: Option<Spanned<String>>,
    pub interval: Option<Spanned<String>>,
    pub max_interval: Option<Spanned<String>>,
    pub multiplier: Option<Spanned<f64>>,
    pub jitter: Option<Spanned<String>>,
    pub timeout: Option<Spanned<String>>,
    pub consecutive_targets: Option<Spanned<u32>>,
    pub not_found_checks: Option<Spanned<u32>>,
    pub max_polling_duration: Option<Spanned<String>>,
    pub retry_after: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LimitsFile {
    pub concurrency: Option<Spanned<usize>>,
    pub per_host: Option<Spanned<usize>>,
    pub rate_per_second: Option<Spanned<f64>>,
}
