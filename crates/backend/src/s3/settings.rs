//! The `s3` backend's arguments read as Terraform's S3 backend reads them (`Configure` and
//! `PrepareConfig` in `internal/backend/remote-state/s3/backend.go`): the object key of the selected
//! workspace, the endpoints with their deprecated spellings and environment variables in Terraform's
//! order, the encryption and lock settings, and the credential settings handed to the AWS SDK.

use base64::Engine as _;
use serde_json::{Map, Value};
use statectl_net::aws::{self, AssumeRole, Checks, RoleOptionError, WebIdentity};
use statectl_state::state::store::StoreError;

use crate::config::{BackendConfig, env};

/// Terraform's `defaultWorkspaceKeyPrefix`.
const DEFAULT_WORKSPACE_KEY_PREFIX: &str = "env:";

/// Terraform's `lockFileSuffix`.
pub(crate) const LOCK_FILE_SUFFIX: &str = ".tflock";

/// Everything the backend needs, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    pub bucket: String,
    /// The object key of the selected workspace's state.
    pub key: String,
    /// `None`: the SDK's region chain (environment, then the profile).
    pub region: Option<String>,
    pub endpoints: Endpoints,
    pub path_style: bool,
    pub encryption: Encryption,
    pub acl: Option<String>,
    pub skip_s3_checksum: bool,
    pub use_lockfile: bool,
    pub dynamodb_table: Option<String>,
    pub credentials: CredentialSettings,
}

/// Endpoint overrides; `None` is the SDK's default for the region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Endpoints {
    pub s3: Option<String>,
    pub dynamodb: Option<String>,
    pub sts: Option<String>,
}

/// How objects are encrypted on writes and read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Encryption {
    /// `encrypt` unset or false: the bucket's default applies.
    None,
    /// `encrypt = true` alone: `AES256`.
    S3Managed,
    /// `encrypt = true` with `kms_key_id`: `aws:kms` with that key.
    Kms(String),
    /// `encrypt = true` with `sse_customer_key` (or `AWS_SSE_CUSTOMER_KEY`): SSE-C, the key's
    /// 32 bytes.
    Customer(Vec<u8>),
}

/// What the credential chain is told, over its defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CredentialSettings {
    pub profile: Option<String>,
    pub shared_config_files: Vec<String>,
    pub shared_credentials_files: Vec<String>,
    /// `access_key` and `secret_key` (and `token`): static credentials, first in the chain.
    pub static_keys: Option<StaticKeys>,
    pub assume_role: Option<AssumeRole>,
    pub web_identity: Option<WebIdentity>,
    pub skip_metadata_api_check: bool,
    pub skip_requesting_account_id: bool,
}

/// Static credentials. `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct StaticKeys {
    pub access_key: String,
    pub secret_key: String,
    pub token: Option<String>,
}

impl std::fmt::Debug for StaticKeys {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("StaticKeys(..)")
    }
}

impl Settings {
    /// Reads `config`, with the environment as Terraform reads it.
    pub(crate) fn read(config: &BackendConfig) -> Result<Settings, StoreError> {
        Settings::read_with(config, &|name| env(name))
    }

    /// Reads `config` with `env` for the environment (tests pass their own).
    pub(crate) fn read_with(
        config: &BackendConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, StoreError> {
        let bucket = config
            .string("bucket")
            .ok_or_else(|| config.missing("bucket"))?;
        let key = config.string("key").ok_or_else(|| config.missing("key"))?;
        if key.starts_with('/') || key.ends_with('/') || key.contains("//") {
            return Err(config.invalid(
                "key",
                "an S3 key that neither starts nor ends with `/` and has no `//`",
            ));
        }
        let prefix = match config.values.get("workspace_key_prefix") {
            // An explicit empty prefix is allowed: the workspace then sits at the bucket's root.
            Some(Value::String(prefix)) => prefix.clone(),
            _ => DEFAULT_WORKSPACE_KEY_PREFIX.to_owned(),
        };
        if prefix.starts_with('/') || prefix.ends_with('/') {
            return Err(config.invalid(
                "workspace_key_prefix",
                "a prefix that neither starts nor ends with `/`",
            ));
        }
        let key = workspace_key(&prefix, &config.workspace, &key);

        let endpoints_object = config.object("endpoints")?;
        let endpoint = |field: &str, legacy: &str, variables: [&str; 2]| {
            endpoints_object
                .and_then(|object| nested_string(object, field))
                .or_else(|| config.string(legacy))
                .or_else(|| variables.iter().find_map(|name| env(name)))
                .map(|url| with_scheme(&url))
        };
        let endpoints = Endpoints {
            s3: endpoint("s3", "endpoint", ["AWS_ENDPOINT_URL_S3", "AWS_S3_ENDPOINT"]),
            dynamodb: endpoint(
                "dynamodb",
                "dynamodb_endpoint",
                ["AWS_ENDPOINT_URL_DYNAMODB", "AWS_DYNAMODB_ENDPOINT"],
            ),
            sts: endpoint(
                "sts",
                "sts_endpoint",
                ["AWS_ENDPOINT_URL_STS", "AWS_STS_ENDPOINT"],
            ),
        };
        // `use_path_style` wins over the deprecated `force_path_style` (Terraform applies them in
        // that order).
        let path_style = config
            .bool("use_path_style")?
            .or(config.bool("force_path_style")?)
            .unwrap_or(false);

        let encryption = encryption(config, env)?;
        let static_keys = match (config.string("access_key"), config.string("secret_key")) {
            (Some(access_key), Some(secret_key)) => Some(StaticKeys {
                access_key,
                secret_key,
                token: config.string("token"),
            }),
            (None, None) => None,
            (Some(_), None) => return Err(config.missing("secret_key")),
            (None, Some(_)) => return Err(config.missing("access_key")),
        };
        let mut shared_credentials_files = config.strings("shared_credentials_files")?;
        if shared_credentials_files.is_empty() {
            shared_credentials_files = config
                .string("shared_credentials_file")
                .into_iter()
                .collect();
        }
        let credentials = CredentialSettings {
            profile: config.string("profile"),
            shared_config_files: config.strings("shared_config_files")?,
            shared_credentials_files,
            static_keys,
            assume_role: assume_role(config)?,
            web_identity: web_identity(config, env)?,
            skip_metadata_api_check: config.bool("skip_metadata_api_check")?.unwrap_or(false),
            skip_requesting_account_id: config.bool("skip_requesting_account_id")?.unwrap_or(false),
        };
        Ok(Settings {
            bucket,
            key,
            region: config.string("region"),
            endpoints,
            path_style,
            encryption,
            acl: config.string("acl"),
            skip_s3_checksum: config.bool("skip_s3_checksum")?.unwrap_or(false),
            use_lockfile: config.bool("use_lockfile")?.unwrap_or(false),
            dynamodb_table: config.string("dynamodb_table"),
            credentials,
        })
    }

    /// `s3://bucket/key`.
    pub(crate) fn location(&self) -> String {
        format!("s3://{}/{}", self.bucket, self.key)
    }

    /// Terraform's `lockPath()`: the lock info's `Path`, the DynamoDB lock item's `LockID`.
    pub(crate) fn lock_path(&self) -> String {
        format!("{}/{}", self.bucket, self.key)
    }

    /// The DynamoDB item that holds the state's MD5 (`stateIDSuffix`).
    pub(crate) fn digest_id(&self) -> String {
        format!("{}-md5", self.lock_path())
    }

    /// The `.tflock` object's key.
    pub(crate) fn lock_object_key(&self) -> String {
        format!("{}{LOCK_FILE_SUFFIX}", self.key)
    }
}

/// Terraform's `Backend.path`: the key itself for `default`, else `path.Join(prefix, workspace, key)`.
pub(crate) fn workspace_key(prefix: &str, workspace: &str, key: &str) -> String {
    if workspace == "default" {
        return key.to_owned();
    }
    clean_join(&[prefix, workspace, key])
}

/// Go's `path.Join`: the non-empty parts joined with `/`, then `.`, `..` and doubled slashes
/// resolved.
fn clean_join(parts: &[&str]) -> String {
    let joined = parts
        .iter()
        .filter(|part| !part.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/");
    let rooted = joined.starts_with('/');
    let mut segments: Vec<&str> = Vec::new();
    for segment in joined.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.last().is_some_and(|last| *last != "..") {
                    segments.pop();
                } else if !rooted {
                    segments.push("..");
                }
            }
            other => segments.push(other),
        }
    }
    let body = segments.join("/");
    if rooted { format!("/{body}") } else { body }
}

/// Terraform's endpoints accept a bare host (the legacy form); the SDK needs a URL.
pub(crate) fn with_scheme(url: &str) -> String {
    if url.contains("://") {
        url.to_owned()
    } else {
        format!("https://{url}")
    }
}

fn nested_string(object: &Map<String, Value>, key: &str) -> Option<String> {
    match object.get(key)? {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        _ => None,
    }
}

/// `encrypt`, `kms_key_id` and the customer key (`sse_customer_key`, else `AWS_SSE_CUSTOMER_KEY`),
/// checked as Terraform checks them. Terraform uses a customer key only with `encrypt = true`, and
/// prefers the KMS key when both are somehow given.
fn encryption(
    config: &BackendConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Encryption, StoreError> {
    let kms_key_id = config.string("kms_key_id");
    let customer = match config.string("sse_customer_key") {
        Some(key) => {
            if kms_key_id.is_some() {
                return Err(
                    config.error("`kms_key_id` and `sse_customer_key` cannot be set together")
                );
            }
            Some(customer_key(&key).map_err(|problem| {
                config.invalid(
                    "sse_customer_key",
                    &format!("{problem} (got {} characters)", key.len()),
                )
            })?)
        }
        None => match env("AWS_SSE_CUSTOMER_KEY") {
            Some(_) if kms_key_id.is_some() => {
                return Err(config.error(
                    "`kms_key_id` is set and so is the environment variable AWS_SSE_CUSTOMER_KEY; only one encryption key can apply",
                )
                .with_hint("unset AWS_SSE_CUSTOMER_KEY, or remove `kms_key_id`"));
            }
            Some(key) => Some(customer_key(&key).map_err(|problem| {
                config.error(format_args!(
                    "the environment variable AWS_SSE_CUSTOMER_KEY must be {problem}"
                ))
            })?),
            None => None,
        },
    };
    if !config.bool("encrypt")?.unwrap_or(false) {
        return Ok(Encryption::None);
    }
    Ok(match (kms_key_id, customer) {
        (Some(kms), _) => Encryption::Kms(kms),
        (None, Some(key)) => Encryption::Customer(key),
        (None, None) => Encryption::S3Managed,
    })
}

/// An SSE-C key as Terraform takes it: 44 characters of standard base64 (32 bytes).
fn customer_key(text: &str) -> Result<Vec<u8>, &'static str> {
    if text.len() != 44 {
        return Err("44 characters of base64 (a 256-bit key)");
    }
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| "base64-encoded (44 characters, a 256-bit key)")
}

/// The `assume_role` block (Terraform 1.5 and older took `role_arn` and friends at the top level;
/// 1.6+ only the block).
fn assume_role(config: &BackendConfig) -> Result<Option<AssumeRole>, StoreError> {
    let Some(block) = config.object("assume_role")? else {
        return Ok(None);
    };
    aws::assume_role(block, Checks::Lenient)
        .map(Some)
        .map_err(|error| role_option_error(config, &error))
}

/// The `assume_role_with_web_identity` block; its role and token file default to `AWS_ROLE_ARN` and
/// `AWS_WEB_IDENTITY_TOKEN_FILE`, as in Terraform.
fn web_identity(
    config: &BackendConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<WebIdentity>, StoreError> {
    let Some(block) = config.object("assume_role_with_web_identity")? else {
        return Ok(None);
    };
    aws::web_identity(block, Checks::Lenient, env)
        .map(Some)
        .map_err(|error| role_option_error(config, &error))
}

/// A role option that cannot be used, in this backend's words.
fn role_option_error(config: &BackendConfig, error: &RoleOptionError) -> StoreError {
    match error {
        RoleOptionError::NoRoleArn => config.invalid("assume_role", "an object with `role_arn` set"),
        RoleOptionError::NoWebIdentity { inline } => config.error(format_args!(
            "`assume_role_with_web_identity` needs `role_arn` and `web_identity_token_file` (or AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE){}",
            if *inline { "; statectl does not take the token inline" } else { "" }
        ))
        .with_hint("write the token to a file and set `web_identity_token_file` (or AWS_WEB_IDENTITY_TOKEN_FILE)"),
        // Lenient reading leaves out what it cannot use; these come only from strict checks.
        RoleOptionError::Invalid { .. } | RoleOptionError::InlineToken => {
            config.error(error)
        }
    }
}

/// Settings for other modules' tests.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::Settings;

    /// `bucket = "b"`, `key = "k"`, the default workspace, nothing else.
    pub(crate) fn settings() -> Settings {
        let serde_json::Value::Object(values) = serde_json::json!({"bucket": "b", "key": "k"})
        else {
            unreachable!()
        };
        let config = crate::config::BackendConfig {
            kind: "s3".to_owned(),
            values,
            workspace: "default".to_owned(),
            origin: "test".to_owned(),
        };
        Settings::read_with(&config, &|_| None).expect("valid settings")
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    fn config(values: Value, workspace: &str) -> BackendConfig {
        let Value::Object(values) = values else {
            panic!("test values are an object")
        };
        BackendConfig {
            kind: "s3".to_owned(),
            values,
            workspace: workspace.to_owned(),
            origin: ".terraform/terraform.tfstate".to_owned(),
        }
    }

    fn read(values: Value, workspace: &str, env: &[(&str, &str)]) -> Result<Settings, StoreError> {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        Settings::read_with(&config(values, workspace), &move |name| {
            env.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        })
    }

    #[test]
    fn workspaces_sit_under_the_prefix_as_terraform_puts_them() {
        let base = json!({"bucket": "b", "key": "app/terraform.tfstate"});
        let default = read(base.clone(), "default", &[]).unwrap();
        assert_eq!(default.key, "app/terraform.tfstate");
        assert_eq!(default.location(), "s3://b/app/terraform.tfstate");
        assert_eq!(default.lock_path(), "b/app/terraform.tfstate");
        assert_eq!(default.lock_object_key(), "app/terraform.tfstate.tflock");
        assert_eq!(default.digest_id(), "b/app/terraform.tfstate-md5");
        let prefixed = |prefix: &str| json!({"bucket": "b", "key": "k.tfstate", "workspace_key_prefix": prefix});
        for (values, workspace, key) in [
            (base, "dev", "env:/dev/app/terraform.tfstate"),
            (prefixed("teams/a"), "prod", "teams/a/prod/k.tfstate"),
            // An empty prefix puts the workspace at the root (Go's path.Join drops the empty part).
            (prefixed(""), "prod", "prod/k.tfstate"),
        ] {
            assert_eq!(
                read(values, workspace, &[]).unwrap().key,
                key,
                "{workspace}"
            );
        }
    }

    #[test]
    fn bucket_and_key_are_required_and_keys_are_checked() {
        let error = read(json!({"key": "k"}), "default", &[]).unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: backend \"s3\": `bucket` is not set"
        );
        assert!(read(json!({"bucket": "b", "key": "/k"}), "default", &[]).is_err());
        assert!(read(json!({"bucket": "b", "key": "a//k"}), "default", &[]).is_err());
    }

    #[test]
    fn endpoints_follow_terraforms_order_block_then_legacy_then_environment() {
        let settings = read(
            json!({"bucket": "b", "key": "k", "endpoints": {"s3": "http://127.0.0.1:9000"},
                   "dynamodb_endpoint": "ddb.example:8000"}),
            "default",
            &[
                ("AWS_ENDPOINT_URL_S3", "http://ignored"),
                ("AWS_ENDPOINT_URL_DYNAMODB", "http://ignored"),
                ("AWS_STS_ENDPOINT", "http://sts.local"),
            ],
        )
        .unwrap();
        assert_eq!(
            settings.endpoints.s3.as_deref(),
            Some("http://127.0.0.1:9000")
        );
        assert_eq!(
            settings.endpoints.dynamodb.as_deref(),
            Some("https://ddb.example:8000")
        );
        assert_eq!(settings.endpoints.sts.as_deref(), Some("http://sts.local"));
        let from_env = read(
            json!({"bucket": "b", "key": "k"}),
            "default",
            &[
                ("AWS_ENDPOINT_URL_S3", "http://s3.local"),
                ("AWS_S3_ENDPOINT", "http://old"),
            ],
        )
        .unwrap();
        assert_eq!(from_env.endpoints.s3.as_deref(), Some("http://s3.local"));
    }

    #[test]
    fn path_style_prefers_the_new_name() {
        let both = read(
            json!({"bucket": "b", "key": "k", "force_path_style": true, "use_path_style": false}),
            "default",
            &[],
        )
        .unwrap();
        assert!(!both.path_style);
        let legacy = read(
            json!({"bucket": "b", "key": "k", "force_path_style": "true"}),
            "default",
            &[],
        )
        .unwrap();
        assert!(legacy.path_style);
    }

    #[test]
    fn encryption_applies_only_with_encrypt_and_prefers_kms() {
        let key = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
        let plain = read(json!({"bucket": "b", "key": "k"}), "default", &[]).unwrap();
        assert_eq!(plain.encryption, Encryption::None);
        let aes = read(
            json!({"bucket": "b", "key": "k", "encrypt": true}),
            "default",
            &[],
        )
        .unwrap();
        assert_eq!(aes.encryption, Encryption::S3Managed);
        let kms = read(
            json!({"bucket": "b", "key": "k", "encrypt": true, "kms_key_id": "alias/state"}),
            "default",
            &[],
        )
        .unwrap();
        assert_eq!(kms.encryption, Encryption::Kms("alias/state".to_owned()));
        let customer = read(
            json!({"bucket": "b", "key": "k", "encrypt": true}),
            "default",
            &[("AWS_SSE_CUSTOMER_KEY", key)],
        )
        .unwrap();
        assert_eq!(
            customer.encryption,
            Encryption::Customer(b"0123456789abcdef0123456789abcdef".to_vec())
        );
        let short = read(
            json!({"bucket": "b", "key": "k", "encrypt": true, "sse_customer_key": "abc"}),
            "default",
            &[],
        )
        .unwrap_err();
        assert_eq!(
            short.message,
            ".terraform/terraform.tfstate: backend \"s3\": `sse_customer_key` must be 44 characters of base64 (a 256-bit key) (got 3 characters)"
        );
        assert!(
            read(
                json!({"bucket": "b", "key": "k", "encrypt": true, "kms_key_id": "k1"}),
                "default",
                &[("AWS_SSE_CUSTOMER_KEY", key)],
            )
            .is_err()
        );
    }

    #[test]
    fn credentials_settings_are_read_and_secrets_never_shown() {
        let settings = read(
            json!({"bucket": "b", "key": "k", "access_key": "AKIA1", "secret_key": "s3cr3t",
                   "profile": "ci", "shared_config_files": ["/etc/aws/config"],
                   "assume_role": {"role_arn": "arn:aws:iam::1:role/r", "duration": "1h30m",
                                   "external_id": "x", "policy_arns": ["arn:p"], "tags": {"a": "b"}},
                   "assume_role_with_web_identity": {"role_arn": "arn:aws:iam::1:role/w",
                                                     "web_identity_token_file": "/tok"},
                   "skip_metadata_api_check": true}),
            "default",
            &[],
        )
        .unwrap();
        let credentials = &settings.credentials;
        assert_eq!(credentials.profile.as_deref(), Some("ci"));
        assert_eq!(credentials.shared_config_files, ["/etc/aws/config"]);
        assert!(credentials.skip_metadata_api_check);
        let role = credentials.assume_role.as_ref().unwrap();
        assert_eq!(role.session.duration, Some(Duration::from_secs(5400)));
        assert_eq!(role.tags, [("a".to_owned(), "b".to_owned())]);
        assert_eq!(role.session.policy_arns, ["arn:p"]);
        let web = credentials.web_identity.as_ref().unwrap();
        assert_eq!(web.token_file, "/tok");
        // The role and the token file may come from the environment, as CI's OIDC sets them.
        let from_env = read(
            json!({"bucket": "b", "key": "k", "assume_role_with_web_identity": {"session_name": "ci"}}),
            "default",
            &[("AWS_ROLE_ARN", "arn:aws:iam::1:role/oidc"), ("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token")],
        )
        .unwrap();
        let web = from_env.credentials.web_identity.unwrap();
        assert_eq!(
            (web.session.role_arn.as_str(), web.token_file.as_str()),
            ("arn:aws:iam::1:role/oidc", "/var/run/token")
        );
        let inline = read(
            json!({"bucket": "b", "key": "k", "assume_role_with_web_identity": {"role_arn": "arn:r", "web_identity_token": "eyJ"}}),
            "default",
            &[],
        )
        .unwrap_err();
        assert!(
            inline
                .message
                .ends_with("statectl does not take the token inline"),
            "{}",
            inline.message
        );
        assert!(!format!("{settings:?}").contains("s3cr3t"));
        assert!(
            read(
                json!({"bucket": "b", "key": "k", "access_key": "A"}),
                "default",
                &[]
            )
            .is_err()
        );
    }

    #[test]
    fn go_path_join() {
        assert_eq!(clean_join(&["env:", "dev", "a/./b/../k"]), "env:/dev/a/k");
        assert_eq!(clean_join(&["", "dev", "k"]), "dev/k");
    }
}
