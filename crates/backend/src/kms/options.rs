//! The `aws_kms` key provider's options, read as OpenTofu reads them
//! (`internal/encryption/keyprovider/aws_kms/config*.go`): the key and its spec, the encryption
//! context, and the S3 backend's AWS settings that OpenTofu mirrors there, with the same
//! environment fallbacks. Options statectl cannot honour are refused, never ignored.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use statectl_encryption::Error;

use statectl_net::aws::{self, Checks, RoleOptionError};

use crate::s3::clients::AwsSettings;
use crate::s3::settings::{StaticKeys, with_scheme};

/// The data key specs `GenerateDataKey` takes (the SDK's `DataKeySpec` values).
pub(crate) const KEY_SPECS: [&str; 2] = ["AES_256", "AES_128"];

/// Everything the provider needs, checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub key_id: String,
    pub key_spec: String,
    /// Sorted, as Go's `json.Marshal` writes a map.
    pub encryption_context: BTreeMap<String, String>,
    /// The S3 backend's AWS settings; the region always set.
    pub aws: AwsSettings,
    /// `AWS_ENDPOINT_URL_KMS`, else `AWS_ENDPOINT_URL` (the AWS SDK's own variables; OpenTofu's
    /// `endpoints` block has no KMS entry).
    pub kms_endpoint: Option<String>,
    pub allowed_account_ids: Vec<String>,
    pub forbidden_account_ids: Vec<String>,
}

impl Options {
    /// The region, which reading the options always sets.
    pub(crate) fn region(&self) -> &str {
        self.aws.region.as_deref().unwrap_or_default()
    }
}

/// Options OpenTofu takes that change only how it reaches AWS, which statectl's HTTP client does
/// not offer: refused with what to do instead, so that no setting is silently dropped.
const UNSUPPORTED: [(&str, &str); 7] = [
    (
        "http_proxy",
        "set HTTP_PROXY / HTTPS_PROXY in the environment instead",
    ),
    (
        "https_proxy",
        "set HTTP_PROXY / HTTPS_PROXY in the environment instead",
    ),
    ("no_proxy", "set NO_PROXY in the environment instead"),
    (
        "custom_ca_bundle",
        "add the CA to the system's trust store instead",
    ),
    (
        "ec2_metadata_service_endpoint",
        "set AWS_EC2_METADATA_SERVICE_ENDPOINT instead",
    ),
    (
        "ec2_metadata_service_endpoint_mode",
        "set AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE instead",
    ),
    ("insecure", "remove it: statectl always verifies TLS"),
];

/// Options that only tune calls statectl never makes (the credential check at start-up through
/// STS, the account lookup through IAM): accepted, checked for type, without effect.
const NO_EFFECT: [&str; 2] = ["skip_credentials_validation", "skip_requesting_account_id"];

struct Reader<'a> {
    at: &'a str,
}

impl Reader<'_> {
    fn error(&self, key: &str, detail: impl Into<String>) -> Error {
        Error::Config {
            at: format!("{}.{key}", self.at),
            detail: detail.into(),
        }
    }

    fn string(&self, key: &str, value: &Value) -> Result<Option<String>, Error> {
        match value {
            Value::Null => Ok(None),
            Value::String(text) if text.is_empty() => Ok(None),
            Value::String(text) => Ok(Some(text.clone())),
            _ => Err(self.error(key, "expected a string")),
        }
    }

    fn bool(&self, key: &str, value: &Value) -> Result<bool, Error> {
        match value {
            Value::Null => Ok(false),
            Value::Bool(flag) => Ok(*flag),
            _ => Err(self.error(key, "expected true or false")),
        }
    }

    fn strings(&self, key: &str, value: &Value) -> Result<Vec<String>, Error> {
        match value {
            Value::Null => Ok(Vec::new()),
            Value::Array(items) => {
                aws::all_strings(items).ok_or_else(|| self.error(key, "expected a list of strings"))
            }
            _ => Err(self.error(key, "expected a list of strings")),
        }
    }

    fn string_map(&self, key: &str, value: &Value) -> Result<BTreeMap<String, String>, Error> {
        match value {
            Value::Null => Ok(BTreeMap::new()),
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|v| (k.clone(), v.to_owned()))
                        .ok_or_else(|| self.error(&format!("{key}.{k}"), "expected a string"))
                })
                .collect(),
            _ => Err(self.error(key, "expected a map of strings")),
        }
    }

    /// A nested block or object attribute: an object, or a list of exactly one (how a block
    /// decodes from JSON).
    fn object<'v>(
        &self,
        key: &str,
        value: &'v Value,
    ) -> Result<Option<&'v Map<String, Value>>, Error> {
        match value {
            Value::Null => Ok(None),
            Value::Object(map) => Ok(Some(map)),
            Value::Array(items) if items.is_empty() => Ok(None),
            Value::Array(items) if items.len() == 1 && items[0].is_object() => {
                Ok(items[0].as_object())
            }
            // OpenTofu's own words for two `endpoints` blocks.
            Value::Array(items) if key == "endpoints" && items.iter().all(Value::is_object) => {
                Err(self.error(
                    key,
                    "expected single aws_kms endpoints block, multiple provided",
                ))
            }
            _ => Err(self.error(key, "expected a block (an object)")),
        }
    }

    /// The keys of a nested block, each known.
    fn nested(
        &self,
        key: &str,
        block: &Map<String, Value>,
        known: &[&str],
    ) -> Result<BTreeMap<String, Value>, Error> {
        let mut out = BTreeMap::new();
        for (name, value) in block {
            if !known.contains(&name.as_str()) {
                return Err(self.error(
                    &format!("{key}.{name}"),
                    format!("unknown option; {key} takes {}", known.join(", ")),
                ));
            }
            out.insert(name.clone(), value.clone());
        }
        Ok(out)
    }
}

/// Reads a key provider's body; `env` is the process environment (tests pass their own).
#[allow(
    clippy::too_many_lines,
    reason = "one arm per option OpenTofu's Config has, in its order"
)]
pub(crate) fn read(
    at: &str,
    body: &Map<String, Value>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Options, Error> {
    crate::secret_settings::register_arguments(body);
    let r = Reader { at };
    let mut options = Options::default();
    let mut access_key = None;
    let mut secret_key = None;
    let mut token = None;
    let mut assume_role_block = None;
    let mut web_identity_block = None;
    let mut endpoints_block = None;
    let mut region = None;
    for (key, value) in body {
        match key.as_str() {
            "kms_key_id" => options.key_id = r.string(key, value)?.unwrap_or_default(),
            "key_spec" => options.key_spec = r.string(key, value)?.unwrap_or_default(),
            "encryption_context" => options.encryption_context = r.string_map(key, value)?,
            "region" => region = r.string(key, value)?,
            "profile" => options.aws.credentials.profile = r.string(key, value)?,
            "access_key" => access_key = r.string(key, value)?,
            "secret_key" => secret_key = r.string(key, value)?,
            "token" => token = r.string(key, value)?,
            "shared_credentials_files" => {
                options.aws.credentials.shared_credentials_files = r.strings(key, value)?;
            }
            "shared_config_files" => {
                options.aws.credentials.shared_config_files = r.strings(key, value)?;
            }
            "skip_metadata_api_check" => {
                options.aws.credentials.skip_metadata_api_check = r.bool(key, value)?;
            }
            "sts_region" => options.aws.sts_region = r.string(key, value)?,
            // `null`, and 0 (Go's zero value), keep the default.
            "max_retries" if value.is_null() => {}
            "max_retries" => {
                let n = value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| r.error(key, "expected a whole number, 0 or more"))?;
                if n > 0 {
                    options.aws.max_attempts = n;
                }
            }
            "retry_mode" => {
                options.aws.adaptive_retry = match r.string(key, value)?.as_deref() {
                    None | Some("standard") => false,
                    Some("adaptive") => true,
                    Some(other) => {
                        return Err(r.error(
                            key,
                            format!("unknown retry mode {other:?}: expected \"standard\" or \"adaptive\""),
                        ));
                    }
                };
            }
            "use_fips_endpoint" => options.aws.use_fips = r.bool(key, value)?,
            "use_dualstack_endpoint" => options.aws.use_dual_stack = r.bool(key, value)?,
            "allowed_account_ids" => options.allowed_account_ids = r.strings(key, value)?,
            "forbidden_account_ids" => options.forbidden_account_ids = r.strings(key, value)?,
            "assume_role" => assume_role_block = r.object(key, value)?,
            "assume_role_with_web_identity" => web_identity_block = r.object(key, value)?,
            "endpoints" => endpoints_block = r.object(key, value)?,
            other if NO_EFFECT.contains(&other) => {
                r.bool(key, value)?;
            }
            other => {
                if let Some((_, instead)) = UNSUPPORTED.iter().find(|(name, _)| *name == other) {
                    let set = match value {
                        Value::Null | Value::Bool(false) => false,
                        Value::String(text) => !text.is_empty(),
                        _ => true,
                    };
                    if set {
                        return Err(r.error(
                            key,
                            format!("statectl does not support this option of aws_kms; {instead}"),
                        ));
                    }
                    continue;
                }
                return Err(r.error(
                    key,
                    "unknown option; aws_kms takes kms_key_id, key_spec, encryption_context, region, profile, access_key, secret_key, token, endpoints, assume_role, assume_role_with_web_identity and the other settings of OpenTofu's S3 backend",
                ));
            }
        }
    }
    if options.key_id.is_empty() {
        return Err(Error::Config {
            at: at.to_owned(),
            detail: "no kms_key_id provided".into(),
        });
    }
    if options.key_spec.is_empty() {
        return Err(Error::Config {
            at: at.to_owned(),
            detail: format!("no key_spec provided (one of {})", KEY_SPECS.join(", ")),
        });
    }
    if !KEY_SPECS.contains(&options.key_spec.as_str()) {
        return Err(r.error(
            "key_spec",
            format!(
                "invalid key_spec {}, expected one of {}",
                options.key_spec,
                KEY_SPECS.join(", ")
            ),
        ));
    }
    if !options.allowed_account_ids.is_empty() && !options.forbidden_account_ids.is_empty() {
        return Err(Error::Config {
            at: at.to_owned(),
            detail: "conflicting config attributes: only allowed_account_ids or forbidden_account_ids can be specified, not both".into(),
        });
    }
    // OpenTofu asks for the region itself, not the profile's (its check runs before the SDK's).
    let region = region
        .or_else(|| env("AWS_REGION"))
        .or_else(|| env("AWS_DEFAULT_REGION"))
        .ok_or_else(|| Error::Config {
            at: at.to_owned(),
            detail: "the \"region\" attribute or the \"AWS_REGION\" or \"AWS_DEFAULT_REGION\" environment variables must be set".into(),
        })?;
    options.aws.region = Some(region);
    options.aws.credentials.static_keys = match (access_key, secret_key) {
        (Some(access_key), Some(secret_key)) => Some(StaticKeys {
            access_key,
            secret_key,
            token,
        }),
        (None, None) => None,
        (Some(_), None) => {
            return Err(r.error("secret_key", "access_key is set without secret_key"));
        }
        (None, Some(_)) => {
            return Err(r.error("access_key", "secret_key is set without access_key"));
        }
    };
    if options.aws.credentials.shared_credentials_files.is_empty() {
        options.aws.credentials.shared_credentials_files =
            env("AWS_SHARED_CREDENTIALS_FILE").into_iter().collect();
    }
    if options.aws.credentials.shared_config_files.is_empty() {
        options.aws.credentials.shared_config_files =
            env("AWS_SHARED_CONFIG_FILE").into_iter().collect();
    }
    if let Some(block) = endpoints_block {
        let block = r.nested("endpoints", block, &["iam", "sts"])?;
        // `iam` is read and checked only: statectl never calls IAM.
        if let Some(iam) = block.get("iam") {
            r.string("endpoints.iam", iam)?;
        }
        if let Some(sts) = block.get("sts") {
            options.aws.sts_endpoint = r.string("endpoints.sts", sts)?;
        }
    }
    options.aws.sts_endpoint = options
        .aws
        .sts_endpoint
        .or_else(|| env("AWS_ENDPOINT_URL_STS"))
        .map(|url| with_scheme(&url));
    options.kms_endpoint = env("AWS_ENDPOINT_URL_KMS").or_else(|| env("AWS_ENDPOINT_URL"));
    if let Some(block) = assume_role_block {
        options.aws.credentials.assume_role = Some(
            aws::assume_role(block, Checks::Strict)
                .map_err(|error| role_option_error(&r, error))?,
        );
    }
    if let Some(block) = web_identity_block {
        options.aws.credentials.web_identity = Some(
            aws::web_identity(block, Checks::Strict, env)
                .map_err(|error| role_option_error(&r, error))?,
        );
    }
    Ok(options)
}

/// A role option that cannot be used, in this key provider's words.
fn role_option_error(r: &Reader<'_>, error: RoleOptionError) -> Error {
    match error {
        RoleOptionError::Invalid { key, detail } => r.error(&key, detail),
        RoleOptionError::NoRoleArn => r.error("assume_role.role_arn", error.to_string()),
        RoleOptionError::NoWebIdentity { .. } => r.error(
            "assume_role_with_web_identity",
            "needs role_arn and web_identity_token_file (or AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE)",
        ),
        RoleOptionError::InlineToken => Error::KeyService {
            provider: r.at.to_owned(),
            detail: error.to_string(),
            hint: Some(
                "write the token to a file and set web_identity_token_file (or AWS_WEB_IDENTITY_TOKEN_FILE)".into(),
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    const AT: &str = "key_provider.aws_kms.k";

    fn read_json(body: Value, env: &[(&str, &str)]) -> Result<Options, Error> {
        let Value::Object(body) = body else {
            panic!("test bodies are objects")
        };
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        read(AT, &body, &move |name| {
            env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    fn message(result: Result<Options, Error>) -> String {
        result.expect_err("refused").to_string()
    }

    #[test]
    fn the_key_and_its_spec_are_required_and_checked_as_opentofu_checks_them() {
        assert_eq!(
            message(read_json(json!({}), &[])),
            "encryption configuration: key_provider.aws_kms.k: no kms_key_id provided"
        );
        assert_eq!(
            message(read_json(json!({"kms_key_id": "alias/s"}), &[])),
            "encryption configuration: key_provider.aws_kms.k: no key_spec provided (one of AES_256, AES_128)"
        );
        assert_eq!(
            message(read_json(
                json!({"kms_key_id": "alias/s", "key_spec": "BROKEN STUFF"}),
                &[]
            )),
            "encryption configuration: key_provider.aws_kms.k.key_spec: invalid key_spec BROKEN STUFF, expected one of AES_256, AES_128"
        );
        assert!(
            message(read_json(
                json!({"kms_key_id": "alias/s", "key_spec": "AES_256", "unknown_property": "foo"}),
                &[("AWS_REGION", "eu-west-1")]
            ))
            .starts_with(
                "encryption configuration: key_provider.aws_kms.k.unknown_property: unknown option"
            )
        );
    }

    #[test]
    fn the_region_comes_from_the_option_or_the_environment_only() {
        let base = json!({"kms_key_id": "alias/s", "key_spec": "AES_128"});
        assert!(message(read_json(base.clone(), &[])).contains("\"AWS_REGION\""));
        let from_env = read_json(base.clone(), &[("AWS_DEFAULT_REGION", "eu-west-3")]).unwrap();
        assert_eq!(from_env.region(), "eu-west-3");
        let mut set = base;
        set["region"] = json!("us-east-2");
        let set = read_json(set, &[("AWS_REGION", "eu-west-3")]).unwrap();
        assert_eq!(set.region(), "us-east-2");
    }

    #[test]
    fn s3_backend_settings_are_read_with_opentofus_fallbacks() {
        let options = read_json(
            json!({"kms_key_id": "k", "key_spec": "AES_256", "region": "us-east-1",
                   "access_key": "AKIA", "secret_key": "s3cr3t", "profile": "ci",
                   "encryption_context": {"b": "2", "a": "1"},
                   "endpoints": [{"sts": "sts.local:4566", "iam": "http://iam"}],
                   "max_retries": 7, "retry_mode": "adaptive", "use_fips_endpoint": true,
                   "skip_credentials_validation": true,
                   "assume_role": {"role_arn": "arn:aws:iam::1:role/r", "duration": "1h",
                                   "policy_arns": ["arn:aws:iam::aws:policy/ReadOnlyAccess"],
                                   "tags": {"team": "infra"}}}),
            &[
                ("AWS_ENDPOINT_URL_KMS", "http://127.0.0.1:5000"),
                ("AWS_SHARED_CONFIG_FILE", "/etc/aws"),
            ],
        )
        .unwrap();
        assert_eq!(
            options.encryption_context.keys().collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(
            options.aws.sts_endpoint.as_deref(),
            Some("https://sts.local:4566")
        );
        assert_eq!(
            options.kms_endpoint.as_deref(),
            Some("http://127.0.0.1:5000")
        );
        assert_eq!(options.aws.max_attempts, 7);
        assert!(options.aws.adaptive_retry && options.aws.use_fips && !options.aws.use_dual_stack);
        assert_eq!(options.aws.credentials.shared_config_files, ["/etc/aws"]);
        let role = options.aws.credentials.assume_role.as_ref().unwrap();
        assert_eq!(role.session.duration, Some(Duration::from_secs(3600)));
        assert_eq!(role.tags, [("team".to_owned(), "infra".to_owned())]);
        assert!(!format!("{options:?}").contains("s3cr3t"));
    }

    #[test]
    fn wrong_settings_get_one_line_each() {
        let base = |extra: Value| {
            let mut body = json!({"kms_key_id": "k", "key_spec": "AES_256", "region": "us-east-1"});
            for (k, v) in extra.as_object().unwrap() {
                body[k] = v.clone();
            }
            message(read_json(body, &[]))
        };
        for (extra, expected) in [
            (
                json!({"allowed_account_ids": ["1"], "forbidden_account_ids": ["2"]}),
                "only allowed_account_ids or forbidden_account_ids",
            ),
            (
                json!({"assume_role": {"role_arn": "r", "duration": "1m"}}),
                "assume_role.duration: assume_role duration must be between 15m0s and 12h0m0s, had 1m",
            ),
            (
                json!({"assume_role": {"role_arn": "r", "policy_arns": ["arn:aws:iam::1:role/x"]}}),
                "arn must be a valid IAM Policy ARN",
            ),
            (
                json!({"assume_role": {"duration": "1h"}}),
                "the role_arn of assume_role is required",
            ),
            (
                json!({"allowed_account_ids": ["1", 2]}),
                "allowed_account_ids: expected a list of strings",
            ),
            (
                json!({"assume_role": {"role_arn": "r", "policy_arns": [1]}}),
                "assume_role.policy_arns: expected a list of strings",
            ),
            (
                json!({"endpoints": [{"sts": "a"}, {"sts": "b"}]}),
                "expected single aws_kms endpoints block, multiple provided",
            ),
            (
                json!({"endpoints": {"kms": "http://x"}}),
                "endpoints.kms: unknown option; endpoints takes iam, sts",
            ),
            (
                json!({"retry_mode": "fast"}),
                "expected \"standard\" or \"adaptive\"",
            ),
            (
                json!({"https_proxy": "http://proxy:3128"}),
                "https_proxy: statectl does not support this option",
            ),
            (
                json!({"access_key": "AKIA"}),
                "access_key is set without secret_key",
            ),
            (
                json!({"assume_role_with_web_identity": {"role_arn": "r", "web_identity_token": "t", "web_identity_token_file": "/f"}}),
                "only web_identity_token or web_identity_token_file",
            ),
            (
                json!({"max_retries": -1}),
                "max_retries: expected a whole number",
            ),
        ] {
            let text = base(extra);
            assert!(text.contains(expected), "{text}");
            assert!(!text.contains('\n'), "{text}");
        }
        // Off or empty, an unsupported option asks for nothing and passes.
        assert!(
            read_json(
                json!({"kms_key_id": "k", "key_spec": "AES_256", "region": "r", "insecure": false, "http_proxy": null}),
                &[]
            )
            .is_ok()
        );
    }
}
