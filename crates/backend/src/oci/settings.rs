//! The `oci` backend's arguments read as Terraform's `internal/backend/remote-state/oci` reads them
//! (`PrepareConfig`, `Configure` and `getEnvSettingWithDefault`): every argument may also come from
//! the environment as `OCI_<argument>` or `<argument>` (lowercase, as Terraform spells them), the
//! state of workspace `name` is `<workspace_key_prefix>/<name>/<key>`, its lock object is the state's
//! name plus `.lock`, and the endpoint is `https://objectstorage.<region>.oraclecloud.com` unless
//! `OCI_CLIENT_HOST_OVERRIDES` names another for the object storage client, as the OCI SDK honours.

use std::time::Duration;

use statectl_state::state::store::StoreError;

use crate::config::BackendConfig;

/// Terraform's `defaultKeyValue`.
const DEFAULT_KEY: &str = "terraform.tfstate";
/// Terraform's `defaultWorkspaceEnvPrefix`.
const DEFAULT_WORKSPACE_KEY_PREFIX: &str = "tf-state-env";
/// Terraform's `lockFileSuffix` (a comment there says `.tflock`; the code appends `.lock`).
pub(crate) const LOCK_FILE_SUFFIX: &str = ".lock";
/// The name `CLIENT_HOST_OVERRIDES` gives the object storage client.
const CLIENT_NAME: &str = "oci_object_storage.ObjectStorageClient";
/// Terraform's `DefaultConnectionTimeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Terraform sets no request timeout; statectl bounds one at a minute, so that a silent endpoint
/// does not hold a lock forever (`OCI_HTTP_REQUEST_TIMEOUT` sets another).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Everything the backend needs, checked.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    pub namespace: String,
    pub bucket: String,
    /// The object of the selected workspace's state.
    pub object: String,
    /// `key` as configured (a workspace's object ends with it).
    pub key: String,
    pub workspace_key_prefix: String,
    /// `None`: the profile's.
    pub region: Option<String>,
    /// `https://host` or `http://host:port`, without a trailing slash; `None`: the region's.
    pub endpoint: Option<String>,
    pub encryption: Encryption,
    pub auth: Auth,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Settings")
            .field("location", &self.location())
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// How the state is encrypted on writes (and, with a customer key, read back).
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Encryption {
    /// The bucket's own.
    Default,
    /// `kms_key_id`: `opc-sse-kms-key-id`.
    Kms(String),
    /// `sse_customer_key`, its SHA-256 and the algorithm: the `opc-sse-customer-*` headers.
    Customer {
        key: String,
        sha256: String,
        algorithm: String,
    },
}

/// The API key's parts given in the backend's arguments (or their variables); what is missing
/// comes from the OCI config file's profile.
#[derive(Clone, PartialEq, Eq, Default)]
pub(crate) struct Auth {
    /// `auth = "SecurityToken"`: the profile's session token and key.
    pub session: bool,
    /// `config_file_profile`: that profile of `~/.oci/config`; `None`: `DEFAULT`.
    pub profile: Option<String>,
    pub tenancy: Option<String>,
    pub user: Option<String>,
    pub fingerprint: Option<String>,
    /// `private_key`, PEM (with `\n` spelled out or not).
    pub private_key: Option<String>,
    pub private_key_path: Option<String>,
    pub private_key_password: Option<String>,
}

impl Settings {
    /// Reads `config`, with `env` for the variables (the process's, or a test's).
    pub(crate) fn read(
        config: &BackendConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, StoreError> {
        // `getEnvSettingWithDefault`: the argument, else `OCI_<name>`, else `<name>`.
        let value = |name: &str| {
            config
                .string(name)
                .or_else(|| env(&format!("OCI_{name}")))
                .or_else(|| env(name))
        };
        let invalid = |name: &str, why: &str| config.error(format_args!("`{name}` {why}"));
        let bucket = value("bucket").ok_or_else(|| config.missing("bucket"))?;
        if !bucket
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(invalid(
                "bucket",
                "may hold only letters, digits, `_` and `-`, as Terraform requires",
            ));
        }
        let namespace = value("namespace").ok_or_else(|| config.missing("namespace"))?;
        let key = value("key").unwrap_or_else(|| DEFAULT_KEY.to_owned());
        if key.starts_with('/') || key.ends_with('/') || key.contains("//") {
            return Err(invalid(
                "key",
                "must not start or end with `/` nor hold `//`, as Terraform requires",
            ));
        }
        let workspace_key_prefix = value("workspace_key_prefix")
            .unwrap_or_else(|| DEFAULT_WORKSPACE_KEY_PREFIX.to_owned());
        if workspace_key_prefix.starts_with('/') || workspace_key_prefix.contains("//") {
            return Err(invalid(
                "workspace_key_prefix",
                "must not start with `/` nor hold `//`, as Terraform requires",
            ));
        }
        let object = object_name(&workspace_key_prefix, &config.workspace, &key);
        let session = check_auth(value("auth"), &invalid)?;
        // Terraform's `PrepareConfig` wants both for a session token.
        if session && value("config_file_profile").is_none() {
            return Err(config.missing("config_file_profile"));
        }
        if session && value("region").is_none() {
            return Err(config.missing("region"));
        }
        let auth = Auth {
            session,
            profile: value("config_file_profile"),
            tenancy: value("tenancy_ocid"),
            user: value("user_ocid"),
            fingerprint: value("fingerprint"),
            private_key: value("private_key"),
            private_key_path: value("private_key_path"),
            private_key_password: value("private_key_password"),
        };
        if auth.private_key.is_some() && auth.private_key_path.is_some() {
            return Err(invalid(
                "private_key_path",
                "and `private_key` are both set; Terraform takes only one",
            ));
        }
        let encryption = encryption(&value, &invalid)?;
        let endpoint = env("OCI_CLIENT_HOST_OVERRIDES")
            .or_else(|| env("CLIENT_HOST_OVERRIDES"))
            .and_then(|overrides| host_override(&overrides));
        let (connect_timeout, request_timeout) = timeouts(&value, config)?;
        Ok(Settings {
            namespace,
            bucket,
            object,
            key,
            workspace_key_prefix,
            region: value("region"),
            endpoint,
            encryption,
            auth,
            connect_timeout,
            request_timeout,
        })
    }

    /// `oci://namespace/bucket/object`.
    pub(crate) fn location(&self) -> String {
        self.location_of(&self.object)
    }

    pub(crate) fn location_of(&self, object: &str) -> String {
        format!("oci://{}/{}/{object}", self.namespace, self.bucket)
    }

    /// The lock object beside the state.
    pub(crate) fn lock_object(&self) -> String {
        format!("{}{LOCK_FILE_SUFFIX}", self.object)
    }
}

/// Terraform's `Backend.path`: the key for `default`, else `<prefix>/<name>/<key>` (Go's
/// `path.Join`, which drops empty parts).
pub(crate) fn object_name(prefix: &str, workspace: &str, key: &str) -> String {
    if workspace == "default" {
        return key.to_owned();
    }
    [prefix, workspace, key]
        .iter()
        .flat_map(|part| part.split('/'))
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("/")
}

/// `auth`: `ApiKey` (the default) or `SecurityToken` (`true`); the others Terraform knows need the
/// instance's or the cluster's identity service and are refused by name.
fn check_auth(
    auth: Option<String>,
    invalid: &dyn Fn(&str, &str) -> StoreError,
) -> Result<bool, StoreError> {
    let Some(auth_kind) = auth else {
        return Ok(false);
    };
    if auth_kind.eq_ignore_ascii_case("ApiKey") {
        return Ok(false);
    }
    if auth_kind.eq_ignore_ascii_case("SecurityToken") {
        return Ok(true);
    }
    let known = [
        "InstancePrincipal",
        "InstancePrincipalWithCerts",
        "ResourcePrincipal",
        "OKEWorkloadIdentity",
    ];
    let why = if known
        .iter()
        .any(|kind| kind.eq_ignore_ascii_case(&auth_kind))
    {
        "is not supported: statectl signs with an API key (`auth = \"ApiKey\"`, the default) or a session token (`auth = \"SecurityToken\"`)"
    } else {
        "is not one Terraform knows; statectl signs with an API key (`auth = \"ApiKey\"`, the default) or a session token (`auth = \"SecurityToken\"`)"
    };
    Err(invalid(&format!("auth = \"{auth_kind}\""), why).with_hint(
        "give an API key (`~/.oci/config`'s profile, or `tenancy_ocid`, `user_ocid`, `fingerprint` and `private_key_path`) or a session (`oci session authenticate`), or read the state through Terraform: `terraform state pull | statectl list -`",
    ))
}

/// `DIAL_CONTEXT_CONNECTION_TIMEOUT` and `HTTP_REQUEST_TIMEOUT` (with or without `OCI_`), Go
/// durations as Terraform reads them.
fn timeouts(
    value: &dyn Fn(&str) -> Option<String>,
    config: &BackendConfig,
) -> Result<(Duration, Duration), StoreError> {
    let request_timeout = match value("HTTP_REQUEST_TIMEOUT") {
        None => REQUEST_TIMEOUT,
        Some(text) => statectl_state::duration::parse_duration(&text)
            .ok()
            .filter(|timeout| !timeout.is_zero())
            .ok_or_else(|| {
                config.error(format_args!(
                    "OCI_HTTP_REQUEST_TIMEOUT `{text}` is not a duration such as `30s`"
                ))
            })?,
    };
    let connect_timeout = value("DIAL_CONTEXT_CONNECTION_TIMEOUT")
        .and_then(|text| statectl_state::duration::parse_duration(&text).ok())
        .filter(|timeout| !timeout.is_zero())
        .unwrap_or(CONNECT_TIMEOUT);
    Ok((connect_timeout, request_timeout))
}

/// `kms_key_id`, or `sse_customer_key` with its SHA-256 (and algorithm, `AES256` by default).
fn encryption(
    value: &dyn Fn(&str) -> Option<String>,
    invalid: &dyn Fn(&str, &str) -> StoreError,
) -> Result<Encryption, StoreError> {
    let kms = value("kms_key_id");
    let customer = value("sse_customer_key");
    let sha256 = value("sse_customer_key_sha256");
    match (kms, customer) {
        (Some(_), Some(_)) => Err(invalid(
            "kms_key_id",
            "and `sse_customer_key` are both set; Terraform takes only one",
        )),
        (Some(kms), None) => Ok(Encryption::Kms(kms)),
        (None, Some(key)) => {
            let sha256 = sha256.ok_or_else(|| {
                invalid(
                    "sse_customer_key_sha256",
                    "is not set; Terraform requires it with `sse_customer_key`",
                )
            })?;
            Ok(Encryption::Customer {
                key,
                sha256,
                algorithm: value("sse_customer_algorithm").unwrap_or_else(|| "AES256".to_owned()),
            })
        }
        (None, None) => Ok(Encryption::Default),
    }
}

/// The object storage client's host in `CLIENT_HOST_OVERRIDES`
/// (`name=host;name=host`); the OCI SDK puts `https://` before a host given without a scheme.
fn host_override(overrides: &str) -> Option<String> {
    overrides.split(';').find_map(|item| {
        let (name, host) = item.split_once('=')?;
        (name.trim() == CLIENT_NAME && !host.trim().is_empty()).then(|| {
            let host = host.trim().trim_end_matches('/');
            if host.contains("http") {
                host.to_owned()
            } else {
                format!("https://{host}")
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(values: serde_json::Value, env: &[(&str, &str)]) -> Result<Settings, StoreError> {
        let config = BackendConfig::for_tests("oci", values);
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect();
        Settings::read(&config, &|name| {
            env.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        })
    }

    #[test]
    fn workspaces_live_under_the_prefix_and_locks_beside_the_state() {
        assert_eq!(
            object_name("tf-state-env", "default", "a/b.tfstate"),
            "a/b.tfstate"
        );
        assert_eq!(
            object_name("tf-state-env", "dev", "terraform.tfstate"),
            "tf-state-env/dev/terraform.tfstate"
        );
        assert_eq!(object_name("envs/", "dev", "k"), "envs/dev/k");
        assert_eq!(object_name("", "dev", "k"), "dev/k");
        let settings = read(json!({"bucket": "b", "namespace": "ns"}), &[]).unwrap();
        assert_eq!(settings.object, "terraform.tfstate");
        assert_eq!(settings.lock_object(), "terraform.tfstate.lock");
        assert_eq!(settings.location(), "oci://ns/b/terraform.tfstate");
    }

    #[test]
    fn arguments_come_from_oci_variables_as_terraform_reads_them() {
        let settings = read(
            json!({"bucket": "b", "namespace": null}),
            &[
                ("OCI_namespace", "ns"),
                ("key", "app.tfstate"),
                ("OCI_region", "eu-frankfurt-1"),
            ],
        )
        .unwrap();
        assert_eq!(settings.namespace, "ns");
        assert_eq!(settings.key, "app.tfstate");
        assert_eq!(settings.region.as_deref(), Some("eu-frankfurt-1"));
    }

    #[test]
    fn the_host_override_names_the_object_storage_client() {
        let env = [(
            "OCI_CLIENT_HOST_OVERRIDES",
            "oci_core.ComputeClient=https://x;oci_object_storage.ObjectStorageClient=http://127.0.0.1:9/",
        )];
        let settings = read(json!({"bucket": "b", "namespace": "ns"}), &env).unwrap();
        assert_eq!(settings.endpoint.as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(
            host_override("oci_object_storage.ObjectStorageClient=objectstorage.example.com"),
            Some("https://objectstorage.example.com".to_owned())
        );
        assert_eq!(host_override("oci_core.ComputeClient=x"), None);
    }

    #[test]
    fn refuses_what_terraform_refuses_in_one_line() {
        let cases = [
            (json!({"namespace": "ns"}), "`bucket` is not set"),
            (json!({"bucket": "b"}), "`namespace` is not set"),
            (
                json!({"bucket": "my.bucket", "namespace": "ns"}),
                "`bucket` may hold only",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "key": "/a"}),
                "`key` must not start",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "kms_key_id": "k", "sse_customer_key": "c", "sse_customer_key_sha256": "s"}),
                "both set",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "sse_customer_key": "c"}),
                "`sse_customer_key_sha256` is not set",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "auth": "InstancePrincipal"}),
                "`auth = \"InstancePrincipal\"` is not supported: statectl signs with an API key",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "auth": "SecurityToken", "region": "r"}),
                "`config_file_profile` is not set",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "auth": "SecurityToken", "config_file_profile": "p"}),
                "`region` is not set",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "auth": "Password"}),
                "not one Terraform knows",
            ),
            (
                json!({"bucket": "b", "namespace": "ns", "private_key": "p", "private_key_path": "q"}),
                "`private_key_path` and `private_key` are both set",
            ),
        ];
        for (values, expected) in cases {
            let error = read(values.clone(), &[]).unwrap_err();
            assert!(
                error.message.contains(expected),
                "{values}: {}",
                error.message
            );
            assert!(!error.message.contains('\n'), "{}", error.message);
        }
    }

    #[test]
    fn encryption_is_kept_as_configured() {
        let settings = read(
            json!({"bucket": "b", "namespace": "ns", "sse_customer_key": "c2VjcmV0", "sse_customer_key_sha256": "aGFzaA=="}),
            &[],
        )
        .unwrap();
        assert!(matches!(
            settings.encryption,
            Encryption::Customer { ref algorithm, .. } if algorithm == "AES256"
        ));
        assert!(!format!("{settings:?}").contains("c2VjcmV0"));
        let settings = read(
            json!({"bucket": "b", "namespace": "ns", "kms_key_id": "ocid1.key.oc1..k"}),
            &[],
        )
        .unwrap();
        assert!(settings.encryption == Encryption::Kms("ocid1.key.oc1..k".to_owned()));
    }
}
