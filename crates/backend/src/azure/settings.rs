//! The `azurerm` backend's arguments read as Terraform's azurerm backend reads them (`New` and
//! `Configure` in `internal/backend/remote-state/azure/backend.go`, `helpers.go`): each argument,
//! else its `ARM_*` variables, else Terraform's fallback; the blob of the selected workspace; the
//! cloud's endpoints; and which credential the Blob service gets, in Terraform's order (access key,
//! SAS token, Azure AD, else the account's key looked up through the management API), with the
//! Azure AD identity chosen in go-azure-sdk's order (client secret, an OIDC token given or fetched
//! from Azure DevOps' or GitHub Actions' token service, managed identity, the Azure CLI).

use std::io::Read as _;

use base64::Engine as _;
use serde_json::Value;
use statectl_net::Secret;
use statectl_state::state::store::StoreError;
use url::Url;

use crate::config::BackendConfig;

/// Terraform's `keyEnvPrefix`: workspace `dev` of key `prod.tfstate` is `prod.tfstateenv:dev`.
pub(super) const KEY_ENV_PREFIX: &str = "env:";

/// Each argument with a default, its variables in Terraform's order, and its fallback
/// (`SDKLikeDefaults` in backend.go).
const DEFAULTS: &[(&str, &[&str], Option<&str>)] = &[
    ("subscription_id", &["ARM_SUBSCRIPTION_ID"], None),
    (
        "lookup_blob_endpoint",
        &["ARM_USE_DNS_ZONE_ENDPOINT"],
        Some("false"),
    ),
    ("snapshot", &["ARM_SNAPSHOT"], Some("false")),
    ("environment", &["ARM_ENVIRONMENT"], Some("public")),
    (
        "metadata_host",
        &["ARM_METADATA_HOSTNAME", "ARM_METADATA_HOST"],
        None,
    ),
    ("access_key", &["ARM_ACCESS_KEY"], None),
    ("sas_token", &["ARM_SAS_TOKEN"], None),
    ("tenant_id", &["ARM_TENANT_ID"], None),
    ("client_id", &["ARM_CLIENT_ID"], None),
    ("client_id_file_path", &["ARM_CLIENT_ID_FILE_PATH"], None),
    ("client_certificate", &["ARM_CLIENT_CERTIFICATE"], None),
    (
        "client_certificate_path",
        &["ARM_CLIENT_CERTIFICATE_PATH"],
        None,
    ),
    ("client_secret", &["ARM_CLIENT_SECRET"], None),
    (
        "client_secret_file_path",
        &["ARM_CLIENT_SECRET_FILE_PATH"],
        None,
    ),
    ("use_oidc", &["ARM_USE_OIDC"], Some("false")),
    (
        "ado_pipeline_service_connection_id",
        &[
            "ARM_ADO_PIPELINE_SERVICE_CONNECTION_ID",
            "ARM_OIDC_AZURE_SERVICE_CONNECTION_ID",
        ],
        None,
    ),
    (
        "oidc_request_token",
        &[
            "ARM_OIDC_REQUEST_TOKEN",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
            "SYSTEM_ACCESSTOKEN",
        ],
        None,
    ),
    (
        "oidc_request_url",
        &[
            "ARM_OIDC_REQUEST_URL",
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            "SYSTEM_OIDCREQUESTURI",
        ],
        None,
    ),
    ("oidc_token", &["ARM_OIDC_TOKEN"], None),
    ("oidc_token_file_path", &["ARM_OIDC_TOKEN_FILE_PATH"], None),
    ("use_msi", &["ARM_USE_MSI"], Some("false")),
    ("msi_endpoint", &["ARM_MSI_ENDPOINT"], None),
    ("use_cli", &["ARM_USE_CLI"], Some("true")),
    (
        "use_aks_workload_identity",
        &["ARM_USE_AKS_WORKLOAD_IDENTITY"],
        Some("false"),
    ),
    ("use_azuread_auth", &["ARM_USE_AZUREAD"], Some("false")),
];

/// Everything the backend needs, checked.
#[derive(Debug, Clone)]
pub(super) struct Settings {
    pub account: String,
    pub container: String,
    /// The blob of the selected workspace's state.
    pub blob: String,
    pub snapshot: bool,
    /// The Blob service's base URL, `https://<account>.blob.core.windows.net/`, or statectl's
    /// `endpoint` override (`http://127.0.0.1:10000/devstoreaccount1/` for Azurite).
    pub service: Url,
    pub cloud: Cloud,
    pub credential: Credential,
}

/// The endpoints of one Azure cloud (go-azure-sdk's `environments`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cloud {
    pub name: &'static str,
    pub login: &'static str,
    pub management: &'static str,
    pub storage_suffix: &'static str,
}

/// Storage's Azure AD audience, the same in every cloud.
pub(super) const STORAGE_RESOURCE: &str = "https://storage.azure.com/";
/// The instance metadata service's token endpoint, where a managed identity's token is asked for
/// when `msi_endpoint` names no other.
pub(super) const MSI_ENDPOINT: &str = "http://169.254.169.254/metadata/identity/oauth2/token";
/// The largest OIDC token file read (a token is a few kilobytes).
const MAX_TOKEN_FILE: u64 = 1 << 20;

const CLOUDS: &[Cloud] = &[
    Cloud {
        name: "public",
        login: "https://login.microsoftonline.com",
        management: "https://management.azure.com/",
        storage_suffix: "core.windows.net",
    },
    Cloud {
        name: "usgovernment",
        login: "https://login.microsoftonline.us",
        management: "https://management.usgovcloudapi.net/",
        storage_suffix: "core.usgovcloudapi.net",
    },
    Cloud {
        name: "china",
        login: "https://login.chinacloudapi.cn",
        management: "https://management.chinacloudapi.cn/",
        storage_suffix: "core.chinacloudapi.cn",
    },
];

/// What the Blob service is shown.
#[derive(Clone)]
pub(super) enum Credential {
    /// `access_key`: Shared Key signing with the key's bytes.
    SharedKey(Vec<u8>),
    /// `sas_token`, without its leading `?`.
    Sas(String),
    /// `use_azuread_auth`: a bearer token for Storage.
    AzureAd(Identity),
    /// None of those: the account's key, listed through the management API with `identity`.
    LookedUpKey {
        identity: Identity,
        subscription: Option<String>,
        resource_group: String,
    },
}

impl std::fmt::Debug for Credential {
    /// Never the key or the token.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            Credential::SharedKey(_) => "SharedKey(..)",
            Credential::Sas(_) => "Sas(..)",
            Credential::AzureAd(_) => "AzureAd(..)",
            Credential::LookedUpKey { .. } => "LookedUpKey(..)",
        })
    }
}

/// Who statectl is to Azure AD, the first of Terraform's methods that is configured.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum Identity {
    ClientSecret {
        tenant: String,
        client: String,
        secret: Secret,
    },
    /// A federated token (`oidc_token`, its file, or fetched from a CI's token service).
    Oidc {
        tenant: String,
        client: String,
        token: OidcToken,
    },
    /// `use_msi`: the token of the machine's managed identity (a user-assigned one by its client
    /// ID), from the instance metadata service or `msi_endpoint`.
    Managed {
        endpoint: String,
        client: Option<String>,
    },
    /// `az account get-access-token`.
    Cli { tenant: Option<String> },
    /// Nothing usable was configured (the error when a token is needed says so).
    Missing,
}

/// Where the federated token comes from.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum OidcToken {
    /// `oidc_token`, `oidc_token_file_path` or AKS's AZURE_FEDERATED_TOKEN_FILE.
    Given(Secret),
    /// GitHub Actions' token service (`ACTIONS_ID_TOKEN_REQUEST_URL` with
    /// `ACTIONS_ID_TOKEN_REQUEST_TOKEN`), asked for each new Azure AD token.
    GitHub { url: String, bearer: Secret },
    /// Azure DevOps' (`SYSTEM_OIDCREQUESTURI` with `SYSTEM_ACCESSTOKEN`), for the service
    /// connection `ado_pipeline_service_connection_id`.
    AzureDevOps {
        url: String,
        bearer: Secret,
        connection: String,
    },
}

impl Settings {
    /// Reads `config` with the variables `env` gives.
    pub(super) fn read(
        config: &BackendConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, StoreError> {
        let config = &with_defaults(config, env);
        let required = |key: &str| config.string(key).ok_or_else(|| config.missing(key));
        let account = required("storage_account_name")?;
        let container = required("container_name")?;
        let key = required("key")?;
        let blob = if config.workspace == "default" {
            key
        } else {
            format!("{key}{KEY_ENV_PREFIX}{}", config.workspace)
        };
        let flag = |key: &str| config.bool(key).map(|value| value.unwrap_or(false));
        let cloud = cloud(config)?;
        if flag("lookup_blob_endpoint")? {
            return Err(unsupported(
                config,
                "`lookup_blob_endpoint` (ARM_USE_DNS_ZONE_ENDPOINT)",
                "give the account's blob endpoint with `--backend-config endpoint=https://...`",
            ));
        }
        let service = service_url(config, &account, &cloud)?;
        let credential = credential(config, env)?;
        Ok(Settings {
            account,
            container,
            blob,
            snapshot: flag("snapshot")?,
            service,
            cloud,
            credential,
        })
    }

    /// `azurerm://account/container/blob`.
    pub(super) fn location(&self) -> String {
        format!(
            "azurerm://{}/{}/{}",
            self.account, self.container, self.blob
        )
    }

    /// The lock info's `Path`: Terraform writes `container/blob`.
    pub(super) fn lock_path(&self) -> String {
        format!("{}/{}", self.container, self.blob)
    }
}

/// `config` with every unset argument taken from its variables or Terraform's fallback, so that the
/// typed getters read both alike.
fn with_defaults(config: &BackendConfig, env: &dyn Fn(&str) -> Option<String>) -> BackendConfig {
    let mut config = config.clone();
    for (key, variables, fallback) in DEFAULTS {
        let set = config
            .values
            .get(*key)
            .is_some_and(|value| !matches!(value, Value::Null) && value != "");
        if set {
            continue;
        }
        let value = variables
            .iter()
            .find_map(|name| env(name))
            .or_else(|| fallback.map(str::to_owned));
        if let Some(value) = value {
            config
                .values
                .insert((*key).to_owned(), Value::String(value));
        }
    }
    config
}

fn unsupported(config: &BackendConfig, what: &str, hint: &str) -> StoreError {
    config
        .error(format_args!("{what} is not supported by statectl"))
        .with_hint(hint.to_owned())
}

/// The cloud `environment` names; `metadata_host` (a cloud described by its own metadata service)
/// is not read.
fn cloud(config: &BackendConfig) -> Result<Cloud, StoreError> {
    if config.string("metadata_host").is_some() {
        return Err(unsupported(
            config,
            "`metadata_host` (ARM_METADATA_HOSTNAME)",
            "use `environment` (public, usgovernment or china), or give the blob endpoint with `--backend-config endpoint=https://...`",
        ));
    }
    let name = config
        .string("environment")
        .unwrap_or_else(|| "public".to_owned());
    let wanted = match name.to_ascii_lowercase().as_str() {
        "public" | "global" | "azurecloud" | "azurepubliccloud" => "public",
        "usgovernment" | "azureusgovernment" | "azureusgovernmentcloud" => "usgovernment",
        "china" | "azurechinacloud" => "china",
        _ => {
            return Err(config.invalid(
                "environment",
                &format!("`public`, `usgovernment` or `china`, not `{name}`"),
            ));
        }
    };
    Ok(CLOUDS
        .iter()
        .find(|cloud| cloud.name == wanted)
        .cloned()
        .unwrap_or_else(|| CLOUDS[0].clone()))
}

/// `https://<account>.blob.<suffix>/` as Terraform derives it, or the `endpoint` override.
///
/// Terraform's `endpoint` argument is a deprecated spelling of `msi_endpoint` that its backend
/// never reads; statectl takes it as the Blob service's URL, so that an emulator (Azurite, path
/// style: `http://127.0.0.1:10000/devstoreaccount1`) can be named from `--backend-config`.
fn service_url(config: &BackendConfig, account: &str, cloud: &Cloud) -> Result<Url, StoreError> {
    let text = match config.string("endpoint") {
        Some(endpoint) => endpoint,
        None => format!("https://{account}.blob.{}/", cloud.storage_suffix),
    };
    let mut url = Url::parse(&text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some())
        .ok_or_else(|| {
            config.invalid(
                "endpoint",
                "the Blob service's URL (`http://127.0.0.1:10000/devstoreaccount1`)",
            )
        })?;
    if account.is_empty() || !account.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(config.invalid(
            "storage_account_name",
            "a storage account's name (lower-case letters and digits)",
        ));
    }
    url.set_query(None);
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// The Blob service's credential, in Terraform's order (`buildClient` in api_client.go).
fn credential(
    config: &BackendConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Credential, StoreError> {
    if let Some(key) = config.string("access_key") {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(key.trim())
            .map_err(|_| {
                config.invalid(
                    "access_key",
                    "a storage account key (base64, as the portal shows it)",
                )
            })?;
        return Ok(Credential::SharedKey(bytes));
    }
    if let Some(token) = config.string("sas_token") {
        let token = token.trim().trim_start_matches('?').to_owned();
        if token.is_empty() {
            return Err(config.invalid("sas_token", "a SAS token (`sv=...&sig=...`)"));
        }
        return Ok(Credential::Sas(token));
    }
    let identity = identity(config, env)?;
    if config.bool("use_azuread_auth")?.unwrap_or(false) {
        return Ok(Credential::AzureAd(identity));
    }
    let Some(resource_group) = config.string("resource_group_name") else {
        return Err(config.error("one of `access_key`, `sas_token`, `use_azuread_auth` and `resource_group_name` must be set")
        .with_hint("Terraform asks the same; for example `--backend-config access_key=...` or set ARM_ACCESS_KEY"));
    };
    Ok(Credential::LookedUpKey {
        identity,
        subscription: config.string("subscription_id"),
        resource_group,
    })
}

/// The first configured Azure AD method, in go-azure-sdk's order: client certificate, client
/// secret, OIDC, managed identity, Azure CLI.
fn identity(
    config: &BackendConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Identity, StoreError> {
    let aks = config.bool("use_aks_workload_identity")?.unwrap_or(false);
    // What AKS workload identity puts in the environment, read only when it is asked for.
    let from_aks = |name: &str| aks.then(|| env(name)).flatten();
    let tenant = matching(config, "tenant_id", None, from_aks("AZURE_TENANT_ID"))?;
    let client = matching(
        config,
        "client_id",
        Some("client_id_file_path"),
        from_aks("AZURE_CLIENT_ID"),
    )?;
    let secret = matching(
        config,
        "client_secret",
        Some("client_secret_file_path"),
        None,
    )?;
    let oidc_token = matching(
        config,
        "oidc_token",
        Some("oidc_token_file_path"),
        from_aks("AZURE_FEDERATED_TOKEN_FILE")
            .map(|path| read_token_file(config, "AZURE_FEDERATED_TOKEN_FILE", &path))
            .transpose()?,
    )?;
    let have_ids = !tenant.is_empty() && !client.is_empty();
    let certificate = config.string("client_certificate").is_some()
        || config.string("client_certificate_path").is_some();
    if have_ids && certificate {
        return Err(unsupported(
            config,
            "a client certificate (`client_certificate`, `client_certificate_path`)",
            "use a client secret, OIDC or the Azure CLI's login, or `access_key` / `sas_token`",
        ));
    }
    if have_ids && !secret.is_empty() {
        return Ok(Identity::ClientSecret {
            tenant,
            client,
            secret: Secret::key(secret.into_bytes()),
        });
    }
    let use_oidc = config.bool("use_oidc")?.unwrap_or(false) || aks;
    if use_oidc && have_ids {
        let request = config
            .string("oidc_request_url")
            .zip(config.string("oidc_request_token"));
        let token = if !oidc_token.is_empty() {
            Some(OidcToken::Given(Secret::key(oidc_token.into_bytes())))
        } else if let Some((url, bearer)) = request {
            let bearer = Secret::key(bearer.into_bytes());
            Some(match config.string("ado_pipeline_service_connection_id") {
                Some(connection) => OidcToken::AzureDevOps {
                    url,
                    bearer,
                    connection,
                },
                None => OidcToken::GitHub { url, bearer },
            })
        } else {
            None
        };
        if let Some(token) = token {
            return Ok(Identity::Oidc {
                tenant,
                client,
                token,
            });
        }
    }
    if config.bool("use_msi")?.unwrap_or(false) {
        return Ok(Identity::Managed {
            endpoint: config
                .string("msi_endpoint")
                .unwrap_or_else(|| MSI_ENDPOINT.to_owned()),
            client: (!client.is_empty()).then_some(client),
        });
    }
    if config.bool("use_cli")?.unwrap_or(true) {
        return Ok(Identity::Cli {
            tenant: (!tenant.is_empty()).then_some(tenant),
        });
    }
    Ok(Identity::Missing)
}

/// An argument that may also come from a file (or AKS's variables); both given must agree, as
/// Terraform's `getClientId` and friends insist.
fn matching(
    config: &BackendConfig,
    key: &str,
    file_key: Option<&str>,
    other: Option<String>,
) -> Result<String, StoreError> {
    let mut value = config
        .string(key)
        .map(|text| text.trim().to_owned())
        .unwrap_or_default();
    let from_file =
        match file_key.and_then(|file_key| config.string(file_key).map(|p| (file_key, p))) {
            Some((file_key, path)) if key == "oidc_token" => Some((
                file_key.to_owned(),
                read_token_file(config, file_key, &path)?,
            )),
            Some((file_key, path)) => {
                Some((file_key.to_owned(), read_trimmed(config, file_key, &path)?))
            }
            None => None,
        };
    for (source, found) in from_file
        .into_iter()
        .chain(other.map(|v| (format!("{key} from AKS"), v)))
    {
        if !value.is_empty() && value != found {
            return Err(config
                .error(format_args!("`{key}` and `{source}` disagree"))
                .with_hint("remove one of them, or make them match (Terraform refuses this too)"));
        }
        value = found;
    }
    Ok(value)
}

/// An OIDC token file (`oidc_token_file_path`, AKS's AZURE_FEDERATED_TOKEN_FILE): at most 1 MiB,
/// and not empty (an empty one would only send the job to the next method, the Azure CLI).
fn read_token_file(config: &BackendConfig, key: &str, path: &str) -> Result<String, StoreError> {
    let failed =
        |problem: String| config.error(format_args!("cannot read `{key}` {path}: {problem}"));
    let file = std::fs::File::open(path)
        .map_err(|error| failed(statectl_state::state::source::problem(&error)))?;
    let mut bytes = Vec::new();
    file.take(MAX_TOKEN_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| failed(statectl_state::state::source::problem(&error)))?;
    if bytes.len() as u64 > MAX_TOKEN_FILE {
        return Err(failed(format!(
            "it is larger than {} KiB; an OIDC token is a few kilobytes",
            MAX_TOKEN_FILE >> 10
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| failed("it is not text".to_owned()))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(failed("it holds no token (it is empty)".to_owned())
            .with_hint("the CI job writes its OIDC token there; check that the step that writes it ran first"));
    }
    Ok(token.to_owned())
}

fn read_trimmed(config: &BackendConfig, key: &str, path: &str) -> Result<String, StoreError> {
    std::fs::read_to_string(path)
        .map(|text| text.trim().to_owned())
        .map_err(|error| {
            config.error(format_args!(
                "cannot read `{key}` {path}: {}",
                statectl_state::state::source::problem(&error)
            ))
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(values: Value, vars: &[(&str, &str)]) -> Result<Settings, StoreError> {
        let config = BackendConfig::for_tests("azurerm", values);
        Settings::read(&config, &|name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    fn base() -> Value {
        json!({"storage_account_name": "acct", "container_name": "tfstate", "key": "prod.tfstate"})
    }

    fn with(extra: Value) -> Value {
        let mut values = base();
        let Value::Object(extra) = extra else {
            panic!("extra values are an object")
        };
        values.as_object_mut().unwrap().extend(extra);
        values
    }

    #[test]
    fn an_access_key_from_arm_access_key_signs_against_the_public_cloud() {
        let settings = read(base(), &[("ARM_ACCESS_KEY", "a2V5")]).unwrap();
        assert!(matches!(&settings.credential, Credential::SharedKey(key) if key == b"key"));
        assert_eq!(
            settings.service.as_str(),
            "https://acct.blob.core.windows.net/"
        );
        assert_eq!(settings.location(), "azurerm://acct/tfstate/prod.tfstate");
        assert_eq!(settings.lock_path(), "tfstate/prod.tfstate");
        assert!(!settings.snapshot);
    }

    #[test]
    fn workspaces_append_env_colon_and_the_name_to_the_key() {
        let mut config = BackendConfig::for_tests("azurerm", base());
        config.workspace = "dev".to_owned();
        config
            .values
            .insert("sas_token".to_owned(), json!("?sv=1&sig=x"));
        let settings = Settings::read(&config, &|_| None).unwrap();
        assert_eq!(settings.blob, "prod.tfstateenv:dev");
        assert!(matches!(&settings.credential, Credential::Sas(token) if token == "sv=1&sig=x"));
    }

    #[test]
    fn the_argument_wins_over_its_variable_and_the_environment_names_the_cloud() {
        let settings = read(
            with(json!({"access_key": "a2V5", "environment": "usgovernment", "snapshot": "true"})),
            &[("ARM_ACCESS_KEY", "b3RoZXI="), ("ARM_SNAPSHOT", "false")],
        )
        .unwrap();
        assert!(matches!(&settings.credential, Credential::SharedKey(key) if key == b"key"));
        assert_eq!(
            settings.service.as_str(),
            "https://acct.blob.core.usgovcloudapi.net/"
        );
        assert!(settings.snapshot);
    }

    #[test]
    fn the_endpoint_override_is_a_path_style_base() {
        let settings = read(
            with(json!({"access_key": "a2V5", "endpoint": "http://127.0.0.1:10000/devstoreaccount1"})),
            &[],
        )
        .unwrap();
        assert_eq!(
            settings.service.as_str(),
            "http://127.0.0.1:10000/devstoreaccount1/"
        );
    }

    #[test]
    fn azure_ad_takes_the_client_secret_before_oidc_and_the_cli_last() {
        let settings = read(
            with(json!({"use_azuread_auth": true, "use_oidc": true, "oidc_token": "jwt"})),
            &[
                ("ARM_TENANT_ID", "t"),
                ("ARM_CLIENT_ID", "c"),
                ("ARM_CLIENT_SECRET", "s"),
            ],
        )
        .unwrap();
        let Credential::AzureAd(identity) = settings.credential else {
            panic!("Azure AD")
        };
        assert!(
            matches!(identity, Identity::ClientSecret { secret, .. } if secret.expose() == b"s")
        );

        let settings = read(
            with(json!({"use_azuread_auth": true})),
            &[
                ("ARM_TENANT_ID", "t"),
                ("ARM_CLIENT_ID", "c"),
                ("ARM_USE_OIDC", "true"),
                ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://gh/token"),
                ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "b"),
            ],
        )
        .unwrap();
        let Credential::AzureAd(identity) = settings.credential else {
            panic!("Azure AD")
        };
        assert!(matches!(
            identity,
            Identity::Oidc { token: OidcToken::GitHub { url, .. }, .. } if url == "https://gh/token"
        ));

        let settings = read(with(json!({"use_azuread_auth": true})), &[]).unwrap();
        let Credential::AzureAd(identity) = settings.credential else {
            panic!("Azure AD")
        };
        assert!(matches!(identity, Identity::Cli { tenant: None }));
    }

    #[test]
    fn an_oidc_token_and_its_file_must_agree() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "other\n").unwrap();
        let error = read(
            with(json!({
                "use_azuread_auth": true, "use_oidc": true, "tenant_id": "t", "client_id": "c",
                "oidc_token": "jwt", "oidc_token_file_path": path.to_str().unwrap()
            })),
            &[],
        )
        .unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: backend \"azurerm\": `oidc_token` and `oidc_token_file_path` disagree"
        );
    }

    #[test]
    fn without_any_credential_terraform_asks_for_one() {
        let error = read(base(), &[]).unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: backend \"azurerm\": one of `access_key`, `sas_token`, `use_azuread_auth` and `resource_group_name` must be set"
        );
        let settings = read(
            with(json!({"resource_group_name": "rg"})),
            &[("ARM_SUBSCRIPTION_ID", "sub")],
        )
        .unwrap();
        assert!(matches!(
            settings.credential,
            Credential::LookedUpKey { subscription: Some(sub), .. } if sub == "sub"
        ));
    }

    #[test]
    fn bad_arguments_are_named() {
        // Each message, and whether it ends with it (or holds it); none echoes the key given.
        for (values, said, at_end) in [
            (
                with(json!({"access_key": "not base64!"})),
                "`access_key` must be a storage account key (base64, as the portal shows it)",
                true,
            ),
            (
                with(json!({"access_key": "a2V5", "environment": "mars"})),
                "`environment` must be `public`, `usgovernment` or `china`, not `mars`",
                false,
            ),
            (
                json!({"storage_account_name": "acct", "key": "k"}),
                "`container_name` is not set",
                true,
            ),
            (
                with(json!({"access_key": "a2V5", "endpoint": "ftp://x"})),
                "`endpoint` must be the Blob service's URL",
                false,
            ),
        ] {
            let message = read(values, &[]).unwrap_err().message;
            let found = if at_end {
                message.ends_with(said)
            } else {
                message.contains(said)
            };
            assert!(found, "{message}");
            assert!(!message.contains("not base64!"), "{message}");
        }
    }

    /// go-azure-sdk's order: a managed identity comes before the Azure CLI (which is on by
    /// default), and without tenant and client IDs OIDC is skipped as Terraform skips it.
    #[test]
    fn a_managed_identity_comes_before_the_cli() {
        let identity =
            |vars: &[(&str, &str)]| match read(with(json!({"use_azuread_auth": true})), vars)
                .unwrap()
                .credential
            {
                Credential::AzureAd(identity) => identity,
                other => panic!("not Azure AD: {other:?}"),
            };
        assert!(matches!(
            identity(&[("ARM_USE_MSI", "true")]),
            Identity::Managed { endpoint, client: None } if endpoint == MSI_ENDPOINT
        ));
        assert!(matches!(
            identity(&[("ARM_USE_MSI", "true"), ("ARM_USE_OIDC", "true"), ("ARM_CLIENT_ID", "c")]),
            Identity::Managed { client: Some(client), .. } if client == "c"
        ));
        assert!(matches!(
            identity(&[("ARM_USE_MSI", "false")]),
            Identity::Cli { .. }
        ));
    }

    /// An OIDC token file missing, empty or huge: one line naming it, before any request.
    #[test]
    fn a_bad_oidc_token_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        let name = path.to_str().unwrap().to_owned();
        let refused = |contents: Option<&[u8]>, variable: &str| {
            match contents {
                Some(bytes) => std::fs::write(&path, bytes).unwrap(),
                None => {
                    let _ = std::fs::remove_file(&path);
                }
            }
            let mut vars = vec![
                ("ARM_TENANT_ID", "t"),
                ("ARM_CLIENT_ID", "c"),
                ("ARM_USE_OIDC", "true"),
                ("ARM_USE_AKS_WORKLOAD_IDENTITY", "true"),
            ];
            vars.push((variable, name.as_str()));
            read(with(json!({"use_azuread_auth": true})), &vars)
                .unwrap_err()
                .message
        };
        let origin = ".terraform/terraform.tfstate: backend \"azurerm\"";
        assert_eq!(
            refused(None, "ARM_OIDC_TOKEN_FILE_PATH"),
            format!("{origin}: cannot read `oidc_token_file_path` {name}: no such file")
        );
        assert_eq!(
            refused(Some(b"\n"), "ARM_OIDC_TOKEN_FILE_PATH"),
            format!(
                "{origin}: cannot read `oidc_token_file_path` {name}: it holds no token (it is empty)"
            )
        );
        assert_eq!(
            refused(
                Some(&vec![b'x'; (1 << 20) + 1]),
                "AZURE_FEDERATED_TOKEN_FILE"
            ),
            format!(
                "{origin}: cannot read `AZURE_FEDERATED_TOKEN_FILE` {name}: it is larger than 1024 KiB; an OIDC token is a few kilobytes"
            )
        );
    }
}
