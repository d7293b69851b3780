//! The gcs backend's arguments as Terraform's `Configure` reads them: `bucket`, `prefix` (leading
//! slashes dropped, a trailing one added), the workspace's objects `<prefix><name>.tfstate` and
//! `.tflock`, where the credentials come from (`access_token`, then `credentials`, then
//! GOOGLE_BACKEND_CREDENTIALS, then GOOGLE_CREDENTIALS, else Google's default credentials),
//! `impersonate_service_account`, the customer-supplied `encryption_key` or the
//! `kms_encryption_key` (never both), and `storage_custom_endpoint`; each with the variables
//! Terraform's gcs backend falls back to. STORAGE_EMULATOR_HOST, which Google's storage client
//! honours under Terraform too, names an emulator: its address is the endpoint unless
//! `storage_custom_endpoint` names another, and requests carry no credentials at all.

use base64::Engine as _;
use url::Url;

use statectl_net::Secret;
use statectl_state::state::store::StoreError;

use crate::config::BackendConfig;

/// The JSON API's address when `storage_custom_endpoint` is not set.
const DEFAULT_ENDPOINT: &str = "https://storage.googleapis.com/storage/v1/";
const STATE_SUFFIX: &str = ".tfstate";
const LOCK_SUFFIX: &str = ".tflock";

/// Everything the gcs backend needs, checked.
#[derive(Clone)]
pub(super) struct Settings {
    pub bucket: String,
    /// The state object's name: `<prefix><workspace>.tfstate`, or a listed object's own name.
    pub object: String,
    /// The lock object beside it: `<prefix><workspace>.tflock`.
    pub lock_object: String,
    pub credentials: Source,
    /// `impersonate_service_account` and its delegation chain.
    pub impersonate: Option<(String, Vec<String>)>,
    /// The customer-supplied AES-256 key: sent with every read and write of the state object.
    pub encryption_key: Option<Secret>,
    /// The Cloud KMS key new state objects are written with.
    pub kms_key_name: Option<String>,
    /// The JSON API's base (ending in `/`); uploads go to `/upload/storage/v1/` on the same host.
    pub endpoint: Url,
    /// STORAGE_EMULATOR_HOST, when set: no credential is looked for or sent.
    pub emulator: Option<String>,
}

/// Where the credentials come from, as Terraform chooses.
#[derive(Clone)]
pub(super) enum Source {
    /// A ready OAuth2 access token; `from` names the argument or variable.
    AccessToken { token: Secret, from: &'static str },
    /// A credentials JSON (a file's contents, or the text itself).
    Json { json: String, from: String },
    /// Google's application default credentials.
    Default,
}

// Not derived: the keys and tokens must never reach a log line.
crate::debug::shown_in_debug!(
    Settings: bucket, object, lock_object, impersonate, kms_key_name, endpoint.as_str(), emulator
);

/// One argument: the configuration's value unless unset or empty, else the first variable set.
fn lookup(
    config: &BackendConfig,
    key: &str,
    variables: &[&'static str],
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, &'static str)> {
    if let Some(value) = config.string(key) {
        return Some((value, ""));
    }
    variables
        .iter()
        .find_map(|variable| env(variable).map(|value| (value, *variable)))
}

impl Settings {
    /// Reads the arguments of `config`, with `env` for the `GOOGLE_*` variables.
    pub(super) fn read(
        config: &BackendConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, StoreError> {
        let bucket = config.string("bucket").ok_or_else(|| {
            config
                .missing("bucket")
                .with_hint("set `bucket` in the backend block, or `--backend-config bucket=NAME`")
        })?;
        if bucket.contains('/') {
            return Err(config.invalid("bucket", "a bucket name, without `/`"));
        }
        let prefix = normal_prefix(&config.string("prefix").unwrap_or_default());
        let object = join(&prefix, &format!("{}{STATE_SUFFIX}", config.workspace));
        let lock_object = join(&prefix, &format!("{}{LOCK_SUFFIX}", config.workspace));

        let credentials = credentials(config, env)?;
        let impersonate = match lookup(
            config,
            "impersonate_service_account",
            &[
                "GOOGLE_BACKEND_IMPERSONATE_SERVICE_ACCOUNT",
                "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT",
            ],
            env,
        ) {
            Some((target, _)) => Some((
                target,
                config.strings("impersonate_service_account_delegates")?,
            )),
            None => None,
        };

        // Terraform refuses both keys in the configuration, even both empty.
        let set = |key: &str| config.values.get(key).is_some_and(|value| !value.is_null());
        if set("encryption_key") && set("kms_encryption_key") {
            return Err(config.error("can't set both `encryption_key` and `kms_encryption_key`")
            .with_hint("a state object is encrypted with a customer-supplied key or a Cloud KMS key, not both"));
        }
        let encryption_key = lookup(config, "encryption_key", &["GOOGLE_ENCRYPTION_KEY"], env)
            .map(|(value, _)| encryption_key(config, &value, env))
            .transpose()?;
        let kms_key_name = lookup(
            config,
            "kms_encryption_key",
            &["GOOGLE_KMS_ENCRYPTION_KEY"],
            env,
        )
        .map(|(value, _)| value);
        if encryption_key.is_some() && kms_key_name.is_some() {
            return Err(config.error("can't set both `encryption_key` and `kms_encryption_key` (one comes from a GOOGLE_* variable)"));
        }

        let emulator = env("STORAGE_EMULATOR_HOST");
        let endpoint = match (
            lookup(
                config,
                "storage_custom_endpoint",
                &[
                    "GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT",
                    "GOOGLE_STORAGE_CUSTOM_ENDPOINT",
                ],
                env,
            ),
            &emulator,
        ) {
            (Some((text, _)), _) => endpoint(config, &text)?,
            (None, Some(host)) => emulator_endpoint(host)?,
            (None, None) => Url::parse(DEFAULT_ENDPOINT).expect("the default endpoint is a URL"),
        };

        Ok(Settings {
            bucket,
            object,
            lock_object,
            credentials,
            impersonate,
            encryption_key,
            kms_key_name,
            endpoint,
            emulator,
        })
    }

    /// `gs://bucket/object`: the state's name in every message, as Terraform's own messages write it.
    pub(super) fn location(&self) -> String {
        format!("gs://{}/{}", self.bucket, self.object)
    }

    /// `gs://bucket/<prefix><workspace>.tflock`: the lock info's `Path`, as Terraform writes it.
    pub(super) fn lock_path(&self) -> String {
        format!("gs://{}/{}", self.bucket, self.lock_object)
    }

    /// The same bucket and credentials, for another object (a listed one): its lock object is the
    /// one Terraform would use for it when the name is a workspace's.
    pub(super) fn at_object(&self, object: String) -> Settings {
        let lock_object = match object.strip_suffix(STATE_SUFFIX) {
            Some(stem) => format!("{stem}{LOCK_SUFFIX}"),
            None => format!("{object}{LOCK_SUFFIX}"),
        };
        Settings {
            object,
            lock_object,
            ..self.clone()
        }
    }

    /// Whether `name` is a lock object, never a state.
    pub(super) fn is_lock_object(name: &str) -> bool {
        name.ends_with(LOCK_SUFFIX)
    }
}

/// Where the credentials come from: `access_token` (or GOOGLE_OAUTH_ACCESS_TOKEN), then
/// `credentials`, GOOGLE_BACKEND_CREDENTIALS, GOOGLE_CREDENTIALS, else the default credentials.
fn credentials(
    config: &BackendConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Source, StoreError> {
    let source = if let Some((token, variable)) =
        lookup(config, "access_token", &["GOOGLE_OAUTH_ACCESS_TOKEN"], env)
    {
        let from = if variable.is_empty() {
            "`access_token`"
        } else {
            variable
        };
        Source::AccessToken {
            token: Secret::new(token),
            from,
        }
    } else if let Some((value, variable)) = lookup(
        config,
        "credentials",
        &["GOOGLE_BACKEND_CREDENTIALS", "GOOGLE_CREDENTIALS"],
        env,
    ) {
        let from = if variable.is_empty() {
            "`credentials`".to_owned()
        } else {
            variable.to_owned()
        };
        let json = path_or_contents(&value, env).map_err(|problem| {
            config.error(format_args!(
                "cannot read the credentials file in {from}: {problem}"
            ))
        })?;
        if serde_json::from_str::<serde_json::Value>(&json).is_err() {
            return Err(config
                .error(format_args!(
                    "{from} is neither JSON nor the path of a file"
                ))
                .with_hint("give a service account key (its JSON, or the path of its file)"));
        }
        Source::Json { json, from }
    } else {
        Source::Default
    };
    Ok(source)
}

/// Terraform's prefix: leading slashes dropped, a trailing one added unless empty.
fn normal_prefix(prefix: &str) -> String {
    let prefix = prefix.trim_start_matches('/');
    if prefix.is_empty() || prefix.ends_with('/') {
        prefix.to_owned()
    } else {
        format!("{prefix}/")
    }
}

/// Go's `path.Join(prefix, name)`: the joined path cleaned (repeated slashes, `.` and `..`).
fn join(prefix: &str, name: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in prefix.split('/').chain(name.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

/// Terraform's `readPathOrContents`: a path (`~` expanded) when such a file exists, else the text.
fn path_or_contents(
    value: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, std::io::Error> {
    let path = match value.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => match env("HOME") {
            Some(home) => format!("{home}{rest}"),
            None => value.to_owned(),
        },
        _ => value.to_owned(),
    };
    let path = std::path::Path::new(&path);
    if path.exists() {
        return std::fs::read_to_string(path);
    }
    Ok(value.to_owned())
}

/// The customer-supplied key: base64 (or a file holding it) of exactly 32 bytes.
fn encryption_key(
    config: &BackendConfig,
    value: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Secret, StoreError> {
    let text = path_or_contents(value, env).map_err(|problem| {
        config.error(format_args!(
            "cannot read the file in `encryption_key`: {problem}"
        ))
    })?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|_| config.invalid("encryption_key", "a base64-encoded 32-byte AES-256 key"))?;
    if bytes.len() != 32 {
        return Err(config
            .invalid("encryption_key", "a base64-encoded 32-byte AES-256 key")
            .with_hint("`openssl rand -base64 32` makes one; it must be the key the state was written with"));
    }
    Ok(Secret::key(bytes))
}

/// The JSON API on the emulator STORAGE_EMULATOR_HOST names, as Go's storage client makes it: the
/// host (`localhost:4443`, or a URL whose scheme is kept) with the path `/storage/v1/`.
fn emulator_endpoint(host: &str) -> Result<Url, StoreError> {
    let text = if host.contains("://") {
        host.to_owned()
    } else {
        format!("http://{host}")
    };
    match Url::parse(&text) {
        Ok(mut url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
            url.set_path("/storage/v1/");
            url.set_query(None);
            Ok(url)
        }
        _ => Err(StoreError::new(format!(
            "STORAGE_EMULATOR_HOST `{host}` is not a host and port (or an http(s) URL)"
        ))
        .with_hint("for fake-gcs-server, for example `STORAGE_EMULATOR_HOST=localhost:4443`")),
    }
}

/// `storage_custom_endpoint` as the JSON API's base, ending in `/`.
fn endpoint(config: &BackendConfig, text: &str) -> Result<Url, StoreError> {
    let with_slash = if text.ends_with('/') {
        text.to_owned()
    } else {
        format!("{text}/")
    };
    match Url::parse(&with_slash) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(url),
        _ => Err(config
            .invalid("storage_custom_endpoint", "an http(s) URL")
            .with_hint("for example `https://storage.googleapis.com/storage/v1/`")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn read(values: Value, env: &[(&str, &str)]) -> Result<Settings, StoreError> {
        let config = BackendConfig::for_tests("gcs", values);
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        Settings::read(&config, &move |name| {
            env.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        })
    }

    #[test]
    fn objects_follow_terraforms_prefix_and_workspace_names() {
        let settings = read(json!({"bucket": "b", "prefix": "/team//app"}), &[]).unwrap();
        assert_eq!(settings.object, "team/app/default.tfstate");
        assert_eq!(settings.lock_object, "team/app/default.tflock");
        assert_eq!(settings.location(), "gs://b/team/app/default.tfstate");
        assert_eq!(settings.lock_path(), "gs://b/team/app/default.tflock");
        let mut config = BackendConfig::for_tests("gcs", json!({"bucket": "b"}));
        config.workspace = "dev".to_owned();
        let settings = Settings::read(&config, &|_| None).unwrap();
        assert_eq!(settings.object, "dev.tfstate");
        assert_eq!(
            settings.endpoint.as_str(),
            "https://storage.googleapis.com/storage/v1/"
        );
        let listed = settings.at_object("x/prod.tfstate".to_owned());
        assert_eq!(listed.lock_object, "x/prod.tflock");
    }

    #[test]
    fn credentials_come_from_the_token_then_the_key_then_the_variables() {
        let source =
            |values: Value, env: &[(&str, &str)]| match read(values, env).unwrap().credentials {
                Source::AccessToken { from, .. } => format!("token {from}"),
                Source::Json { from, .. } => format!("json {from}"),
                Source::Default => "default".to_owned(),
            };
        let key = r#"{"type": "service_account"}"#;
        assert_eq!(
            source(
                json!({"bucket": "b", "access_token": "t", "credentials": key}),
                &[]
            ),
            "token `access_token`"
        );
        assert_eq!(
            source(
                json!({"bucket": "b"}),
                &[
                    ("GOOGLE_OAUTH_ACCESS_TOKEN", "t"),
                    ("GOOGLE_CREDENTIALS", key)
                ]
            ),
            "token GOOGLE_OAUTH_ACCESS_TOKEN"
        );
        assert_eq!(
            source(json!({"bucket": "b", "credentials": key}), &[]),
            "json `credentials`"
        );
        assert_eq!(
            source(
                json!({"bucket": "b"}),
                &[
                    ("GOOGLE_CREDENTIALS", key),
                    ("GOOGLE_BACKEND_CREDENTIALS", key)
                ]
            ),
            "json GOOGLE_BACKEND_CREDENTIALS"
        );
        assert_eq!(source(json!({"bucket": "b"}), &[]), "default");

        // A file path is read; text that is neither is refused in one line.
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("key.json");
        std::fs::write(&file, key).unwrap();
        let settings = read(
            json!({"bucket": "b", "credentials": file.display().to_string()}),
            &[],
        )
        .unwrap();
        assert!(matches!(settings.credentials, Source::Json { json, .. } if json == key));
        let error = read(
            json!({"bucket": "b", "credentials": "/no/such/key.json"}),
            &[],
        )
        .unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: backend \"gcs\": `credentials` is neither JSON nor the path of a file"
        );
    }

    #[test]
    fn encryption_keys_are_checked_and_never_both() {
        let key = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let settings = read(json!({"bucket": "b", "encryption_key": key}), &[]).unwrap();
        assert_eq!(settings.encryption_key, Some(Secret::key(vec![7; 32])));
        assert!(!format!("{settings:?}").contains(&key));
        let short = base64::engine::general_purpose::STANDARD.encode([7u8; 16]);
        let error = read(json!({"bucket": "b", "encryption_key": short}), &[]).unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: backend \"gcs\": `encryption_key` must be a base64-encoded 32-byte AES-256 key"
        );
        for (values, env) in [
            (
                json!({"bucket": "b", "encryption_key": "", "kms_encryption_key": ""}),
                vec![],
            ),
            (
                json!({"bucket": "b", "kms_encryption_key": "projects/p/locations/l/keyRings/r/cryptoKeys/k"}),
                vec![("GOOGLE_ENCRYPTION_KEY", key.as_str())],
            ),
        ] {
            let error = read(values, &env).unwrap_err();
            assert!(
                error.message.contains("can't set both"),
                "{}",
                error.message
            );
        }
        let settings = read(
            json!({"bucket": "b"}),
            &[("GOOGLE_KMS_ENCRYPTION_KEY", "projects/p/k")],
        )
        .unwrap();
        assert_eq!(settings.kms_key_name.as_deref(), Some("projects/p/k"));
    }

    #[test]
    fn the_endpoint_and_impersonation_take_the_backend_variables_first() {
        let settings = read(
            json!({"bucket": "b"}),
            &[
                ("GOOGLE_STORAGE_CUSTOM_ENDPOINT", "http://other/storage/v1/"),
                (
                    "GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT",
                    "http://127.0.0.1:9/storage/v1",
                ),
                (
                    "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT",
                    "sa@p.iam.gserviceaccount.com",
                ),
            ],
        )
        .unwrap();
        assert_eq!(settings.endpoint.as_str(), "http://127.0.0.1:9/storage/v1/");
        assert_eq!(
            settings.impersonate,
            Some(("sa@p.iam.gserviceaccount.com".to_owned(), Vec::new()))
        );
        let error = read(
            json!({"bucket": "b", "storage_custom_endpoint": "nowhere"}),
            &[],
        )
        .unwrap_err();
        assert!(
            error
                .message
                .ends_with("`storage_custom_endpoint` must be an http(s) URL")
        );
        let error = read(json!({"prefix": "p"}), &[]).unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: backend \"gcs\": `bucket` is not set"
        );
    }

    /// STORAGE_EMULATOR_HOST as Go's storage client takes it: a host (`http` assumed) or a URL
    /// whose scheme is kept, at `/storage/v1/`; `storage_custom_endpoint` still wins.
    #[test]
    fn the_emulator_host_is_the_endpoint_unless_a_custom_one_is_set() {
        let endpoint = |values: Value, host: &str| {
            read(values, &[("STORAGE_EMULATOR_HOST", host)]).map(|settings| {
                assert_eq!(settings.emulator.as_deref(), Some(host));
                settings.endpoint.to_string()
            })
        };
        let bucket = || json!({"bucket": "b"});
        assert_eq!(
            endpoint(bucket(), "localhost:4443").unwrap(),
            "http://localhost:4443/storage/v1/"
        );
        assert_eq!(
            endpoint(bucket(), "https://127.0.0.1:8443/ignored?x").unwrap(),
            "https://127.0.0.1:8443/storage/v1/"
        );
        assert_eq!(
            endpoint(
                json!({"bucket": "b", "storage_custom_endpoint": "http://other:9/storage/v1/"}),
                "localhost:4443"
            )
            .unwrap(),
            "http://other:9/storage/v1/"
        );
        let error = endpoint(bucket(), "ftp://x").unwrap_err();
        assert_eq!(
            error.message,
            "STORAGE_EMULATOR_HOST `ftp://x` is not a host and port (or an http(s) URL)"
        );
        assert_eq!(read(bucket(), &[]).unwrap().emulator, None);
    }
}
