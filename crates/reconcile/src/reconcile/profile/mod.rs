//! Provider profiles: per resource type, the HTTP requests that ask a provider's API about one
//! instance, where the answer keeps the status and what its values mean, what "not found" means, which
//! response values go back into the state, and how to poll. The format is TOML and documented in
//! `../profiles/FORMAT.md` ([`FORMAT`], which `statectl refresh --profiles-format` prints); the
//! built-in profiles (OCI, Cloud Foundry, Open Service Broker) are written in it too.
//!
//! Everything here is pure: a profile plus an instance's attributes become concrete requests
//! ([`Context::render`]), and responses become a [`Status`] and a [`Patch`] of the attributes.
//! Sending, signing and the poll loop live elsewhere in `reconcile`.
//!
//! A profile is checked whole when it loads (templates, JSONPaths, durations, names, which request
//! reads which), so a mistake is one `file:line:column` message before any request is sent.
//!
//! The format's documentation follows (the same text as `FORMAT.md`).
#![doc = ""]
#![doc = include_str!("../profiles/FORMAT.md")]

mod auth;
mod builtin;
mod compile;
mod context;
mod encode;
mod endpoint;
mod format;
mod gone;
mod limits;
mod mapping;
mod path;
mod poll;
mod query;
mod status;
mod template;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use serde_json::Value;

pub use auth::Auth;
pub use context::{Context, RenderError, ResponseError};
pub use endpoint::{
    Endpoint, EndpointError, base_url, env_name as endpoint_env_name,
    parse_override as parse_endpoint_override,
};
pub use gone::{GoneAction, GoneRule, GoneRules};
pub use limits::Limits;
pub use mapping::{AttributeChange, Mapping, Patch, Skipped, apply as apply_mappings};
pub use path::PathError;
pub use poll::{JitterAmount, PollSettings, PollValueError, parse_duration, parse_jitter};
pub use status::{ListedAs, Status, StatusError, StatusRule};
pub use template::{LookupError, Template, TemplateError};

use crate::state::operation::Operation;

/// A loaded, checked profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The resource type it reconciles.
    pub type_name: String,
    pub description: Option<String>,
    /// Where it was defined (`built-in oci_core_instance.toml`, or a file path), for messages.
    pub origin: String,
    /// The endpoint's name (`--endpoint NAME=URL`), when its URLs use `{endpoint}`.
    pub endpoint: Option<String>,
    pub default_url: Option<Template>,
    pub auth: Auth,
    pub variables: BTreeMap<String, Template>,
    /// In order: a request reads only earlier responses.
    pub requests: Vec<RequestTemplate>,
    pub status: StatusRule,
    pub gone: GoneRules,
    pub mappings: Vec<Mapping>,
    pub poll: PollSettings,
    pub limits: Limits,
}

/// One HTTP request of a profile.
#[derive(Debug, Clone)]
pub struct RequestTemplate {
    pub name: String,
    pub method: reqwest::Method,
    pub url: Template,
    /// Sent in name order; a parameter that renders empty is left out.
    pub query: Vec<(String, Template)>,
    /// A header that renders empty is not sent; one that reads the environment is sent as a secret.
    pub headers: Vec<(String, Template)>,
    /// A JSON template; sent with `Content-Type: application/json` unless the headers say otherwise.
    pub body: Option<Template>,
    pub when: When,
}

/// When a request runs within one poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    /// Only once the status request's answer is a target value (OCI's IPs exist only then).
    Target,
}

impl Profile {
    /// Where `{endpoint}` points: `--endpoint NAME=URL` (the last one given wins), else
    /// `STATECTL_ENDPOINT_<NAME>`, else the profile's `default_url`.
    pub fn endpoint(
        &self,
        overrides: &[(String, String)],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Endpoint, ProfileError> {
        let Some(name) = &self.endpoint else {
            return Ok(Endpoint::Unused);
        };
        if let Some((_, url)) = overrides
            .iter()
            .rev()
            .find(|(candidate, _)| candidate.eq_ignore_ascii_case(name))
        {
            return base_url(url)
                .map(Endpoint::Fixed)
                .map_err(|problem| ProfileError::new(format!("--endpoint {name}: {problem}")));
        }
        let variable = endpoint_env_name(name);
        if let Some(url) = env(&variable).filter(|url| !url.trim().is_empty()) {
            return base_url(url.trim())
                .map(Endpoint::Fixed)
                .map_err(|problem| ProfileError::new(format!("{variable}: {problem}")));
        }
        if let Some(template) = &self.default_url {
            return Ok(Endpoint::PerInstance(template.clone()));
        }
        Err(ProfileError::new(format!(
            "endpoint `{name}` (profile `{}`) has no URL",
            self.type_name
        ))
        .with_hint(format!(
            "give `--endpoint {name}=https://...` or set `{variable}`"
        )))
    }

    /// A fresh context for one poll of one instance: `attributes` is the instance's decoded attributes
    /// object, `env` reads environment variables (`|name| std::env::var(name).ok()`).
    pub fn context<'a>(
        &'a self,
        attributes: &'a Value,
        endpoint: &'a Endpoint,
        env: &'a (dyn Fn(&str) -> Option<String> + Sync),
    ) -> Context<'a> {
        Context::new(self, attributes, endpoint, env)
    }

    /// What an answer with HTTP `status` to the status request means during `operation`.
    pub fn gone_action(&self, status: u16, operation: Operation) -> Option<GoneAction> {
        self.gone.action(status, operation)
    }

    pub fn request(&self, name: &str) -> Option<&RequestTemplate> {
        self.requests.iter().find(|request| request.name == name)
    }
}

/// The profiles in force: the built-in ones, with user files merged over them (a file's profile for a
/// type replaces the built-in one for that type).
#[derive(Debug, Clone, Default)]
pub struct Profiles {
    by_type: BTreeMap<String, Profile>,
}

impl Profiles {
    /// The built-in profiles. Each is checked by a test, so failing here is a build defect.
    pub fn builtin() -> Profiles {
        let mut profiles = Profiles::default();
        for (name, text) in builtin::FILES {
            profiles
                .add_str(text, &format!("built-in {name}"))
                .unwrap_or_else(|error| panic!("the built-in profile {name} loads: {error}"));
        }
        profiles
    }

    /// The built-in profiles with the profile file at `path` merged over them.
    pub fn load(path: &Path) -> Result<Profiles, ProfileError> {
        let mut profiles = Profiles::builtin();
        profiles.add_file(path)?;
        Ok(profiles)
    }

    /// Merges the profile file at `path` over these profiles.
    pub fn add_file(&mut self, path: &Path) -> Result<(), ProfileError> {
        let text = crate::state::bytes::read_text(path).map_err(|error| {
            ProfileError::new(format!(
                "{}: cannot read the profile file: {error}",
                path.display()
            ))
        })?;
        self.add_str(&text, &path.display().to_string())
    }

    /// Merges profiles from TOML `text`; `origin` names it in messages. Nothing changes on an error.
    pub fn add_str(&mut self, text: &str, origin: &str) -> Result<(), ProfileError> {
        let source = compile::ProfileText { origin, text };
        let file: format::File = toml::from_str(text).map_err(|error| source.toml(&error))?;
        let mut staged: BTreeMap<String, Profile> = BTreeMap::new();
        for profile in file.profile {
            let span = profile.type_name.span();
            let compiled = compile::profile(&profile, &source, &|name: &str| {
                staged.get(name).or_else(|| self.by_type.get(name))
            })?;
            if staged.contains_key(&compiled.type_name) {
                return Err(source.error(
                    span,
                    format!("a second profile for `{}` in one file", compiled.type_name),
                ));
            }
            staged.insert(compiled.type_name.clone(), compiled);
        }
        self.by_type.extend(staged);
        Ok(())
    }

    pub fn for_type(&self, type_name: &str) -> Option<&Profile> {
        self.by_type.get(type_name)
    }

    /// Every profile, by type name.
    pub fn iter(&self) -> impl Iterator<Item = &Profile> {
        self.by_type.values()
    }

    /// The endpoint names the profiles use.
    pub fn endpoint_names(&self) -> BTreeSet<&str> {
        self.by_type
            .values()
            .filter_map(|profile| profile.endpoint.as_deref())
            .collect()
    }

    /// Refuses `--endpoint` names no profile uses: a typo would otherwise send requests to the
    /// default URL instead.
    pub fn check_overrides(&self, overrides: &[(String, String)]) -> Result<(), ProfileError> {
        let known = self.endpoint_names();
        for (name, _) in overrides {
            if !known
                .iter()
                .any(|candidate| candidate.eq_ignore_ascii_case(name))
            {
                let list: Vec<String> = known.iter().map(|name| format!("`{name}`")).collect();
                return Err(ProfileError::new(format!(
                    "--endpoint {name}: no profile uses an endpoint named `{name}`"
                ))
                .with_hint(format!("endpoints: {}", list.join(", "))));
            }
        }
        Ok(())
    }
}

/// A profile that cannot load or an endpoint that cannot resolve: one line saying what and where,
/// and a hint when there is a fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    pub message: String,
    pub hint: Option<String>,
}

impl ProfileError {
    pub fn new(message: impl Into<String>) -> ProfileError {
        ProfileError {
            message: message.into(),
            hint: None,
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> ProfileError {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for ProfileError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for ProfileError {}

/// The profile format's documentation (`profiles/FORMAT.md`), for a user who has only the binary.
pub const FORMAT: &str = include_str!("../profiles/FORMAT.md");

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    /// The ```toml blocks of FORMAT.md.
    fn documented_examples() -> Vec<&'static str> {
        FORMAT
            .split("```toml\n")
            .skip(1)
            .map(|block| &block[..block.find("```").expect("closed block")])
            .collect()
    }

    #[test]
    fn every_example_in_the_format_document_loads() {
        let examples = documented_examples();
        assert_eq!(examples.len(), 4);
        for example in examples {
            let mut profiles = Profiles::builtin();
            profiles
                .add_str(example, "FORMAT.md")
                .unwrap_or_else(|error| panic!("{error}\n{example}"));
        }
    }

    #[test]
    fn endpoint_precedence_is_flag_then_environment_then_default() {
        let profiles = Profiles::builtin();
        let oci = profiles.for_type("oci_core_instance").unwrap();
        let env = |name: &str| {
            (name == "STATECTL_ENDPOINT_OCI").then(|| "https://from-env.example.com".to_owned())
        };
        let flag = [
            ("OCI".to_owned(), "https://first.example.com".to_owned()),
            ("oci".to_owned(), "https://from-flag.example.com".to_owned()),
        ];
        let fixed = |endpoint: Endpoint| match endpoint {
            Endpoint::Fixed(url) => url.host_str().unwrap().to_owned(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            fixed(oci.endpoint(&flag, &env).unwrap()),
            "from-flag.example.com"
        );
        assert_eq!(
            fixed(oci.endpoint(&[], &env).unwrap()),
            "from-env.example.com"
        );
        assert!(matches!(
            oci.endpoint(&[], &no_env).unwrap(),
            Endpoint::PerInstance(_)
        ));
        let bad = [("oci".to_owned(), "https://user:pw@example.com".to_owned())];
        let error = oci.endpoint(&bad, &no_env).unwrap_err();
        assert!(
            error
                .message
                .starts_with("--endpoint oci: an endpoint URL cannot hold credentials"),
            "{error}"
        );
        let env = |_: &str| Some("not a url".to_owned());
        let error = oci.endpoint(&[], &env).unwrap_err();
        assert!(
            error
                .message
                .starts_with("STATECTL_ENDPOINT_OCI: `not a url` is not a URL"),
            "{error}"
        );
    }

    #[test]
    fn an_endpoint_name_no_profile_uses_is_an_error() {
        let profiles = Profiles::builtin();
        assert!(
            profiles
                .check_overrides(&[("OSB".to_owned(), "https://x".to_owned())])
                .is_ok()
        );
        let error = profiles
            .check_overrides(&[("ocl".to_owned(), "https://x".to_owned())])
            .unwrap_err();
        assert_eq!(
            error.message,
            "--endpoint ocl: no profile uses an endpoint named `ocl`"
        );
        assert_eq!(error.hint.as_deref(), Some("endpoints: `cf`, `oci`, `osb`"));
    }

    #[test]
    fn a_user_file_replaces_the_builtin_profile_for_its_type() {
        let (folder, file) = crate::reconcile::test_support::file_in_temp_folder(
            "profiles.toml",
            &documented_examples()[2].replace("acme_database", "oci_core_instance"),
        );
        let profiles = Profiles::load(&file).unwrap();
        let oci = profiles.for_type("oci_core_instance").unwrap();
        assert_eq!(oci.endpoint.as_deref(), Some("acme"));
        assert_eq!(oci.origin, file.display().to_string());
        assert!(profiles.for_type("cloudfoundry_service_instance").is_some());
        let error = Profiles::load(&folder.path().join("missing.toml")).unwrap_err();
        assert!(
            error
                .message
                .contains("missing.toml: cannot read the profile file"),
            "{error}"
        );
    }

    #[test]
    fn renders_a_post_body_and_keeps_environment_headers_secret() {
        let mut profiles = Profiles::default();
        profiles
            .add_str(
                r#"
[[profile]]
type = "acme_cluster"
endpoint = "acme"
default_url = "https://api.acme.example"

[[profile.request]]
name = "describe"
method = "POST"
url = "{endpoint}/v1/clusters:describe"
headers = { X-Tenant = "{env.ACME_TENANT}", X-Trace = "statectl" }
body = '{"clusterId": "{attr.id}", "size": {attr.size}, "labels": {attr.labels}}'

[profile.status]
request = "describe"
path = "$.cluster.state"
target = ["active"]
"#,
                "acme.toml",
            )
            .unwrap();
        let profile = profiles.for_type("acme_cluster").unwrap();
        let endpoint = profile.endpoint(&[], &no_env).unwrap();
        let attributes = json!({"id": "c-\"1\"", "size": 3, "labels": {"team": "db"}});
        let env = |name: &str| (name == "ACME_TENANT").then(|| "tenant-7".to_owned());
        let request = profile
            .context(&attributes, &endpoint, &env)
            .render(&profile.requests[0])
            .unwrap();
        assert_eq!(request.method, reqwest::Method::POST);
        assert_eq!(
            request.url.as_str(),
            "https://api.acme.example/v1/clusters:describe"
        );
        assert_eq!(
            String::from_utf8(request.body.unwrap()).unwrap(),
            r#"{"clusterId": "c-\"1\"", "size": 3, "labels": {"team":"db"}}"#
        );
        assert_eq!(
            request.headers,
            [
                ("X-Trace".to_owned(), "statectl".to_owned()),
                ("Accept".to_owned(), "application/json".to_owned()),
                ("Content-Type".to_owned(), "application/json".to_owned()),
            ]
        );
        assert_eq!(request.secret_headers.len(), 1);
        assert_eq!(
            format!("{:?}", request.secret_headers),
            r#"[("X-Tenant", Secret(8 bytes))]"#
        );
    }

    #[test]
    fn a_response_that_is_not_json_is_an_error_naming_the_request() {
        let profiles = Profiles::builtin();
        let cf = profiles.for_type("cloudfoundry_service_instance").unwrap();
        let endpoint = Endpoint::Fixed(reqwest::Url::parse("https://api.example.com").unwrap());
        let attributes = json!({"id": "x"});
        let mut context = cf.context(&attributes, &endpoint, &no_env);
        let error = context
            .record(&cf.requests[0], b"<html>502 Bad Gateway</html>")
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("profile `cloudfoundry_service_instance`, response to `instance`: the body is not JSON"),
            "{error}"
        );
        assert!(context.status().is_none());
    }
}
