//! Azure AD tokens as go-azure-sdk gets them for Terraform: the client-credentials grant with a
//! client secret or a federated (OIDC) assertion at `<login>/<tenant>/oauth2/v2.0/token`, the
//! federated token fetched from GitHub Actions' token service when not given, and the Azure CLI's
//! login through `az account get-access-token`. Also the storage account's key listed through the
//! management API (`listKeys`), which Terraform uses when no data-plane credential is given.
//!
//! Errors are one line each, never with a secret or a token in them.

use base64::Engine as _;
use serde::Deserialize;
use url::Url;

use super::settings::{Cloud, Identity, OidcToken};

/// The management API version Terraform's storage accounts client uses.
const MANAGEMENT_API_VERSION: &str = "2023-01-01";
/// The audience GitHub's token service is asked for, as go-azure-sdk asks.
const FEDERATED_AUDIENCE: &str = "api://AzureADTokenExchange";

/// A token, and the CLI's default subscription when the CLI gave it.
pub(super) struct Token {
    pub access_token: String,
    pub subscription: Option<String>,
}

/// A token for `resource` (`https://storage.azure.com/`) as `identity`, registered with the run's
/// masks (`statectl_state::secrets`) whichever way it was had.
pub(super) async fn token(
    http: &reqwest::Client,
    cloud: &Cloud,
    identity: &Identity,
    resource: &str,
) -> Result<Token, String> {
    let token = ask_token(http, cloud, identity, resource).await?;
    statectl_state::secrets::register(&token.access_token);
    Ok(token)
}

async fn ask_token(
    http: &reqwest::Client,
    cloud: &Cloud,
    identity: &Identity,
    resource: &str,
) -> Result<Token, String> {
    let scope = format!("{resource}.default");
    let form = match identity {
        Identity::Missing(why) => return Err(why.clone()),
        Identity::Cli { tenant } => return cli_token(resource, tenant.as_deref()),
        Identity::ClientSecret {
            tenant,
            client,
            secret,
        } => (
            {
                // Also when it was read from ARM_CLIENT_SECRET_FILE_PATH's file.
                statectl_state::secrets::register(secret);
                tenant
            },
            vec![
                ("grant_type", "client_credentials".to_owned()),
                ("client_id", client.clone()),
                ("client_secret", secret.clone()),
                ("scope", scope),
            ],
        ),
        Identity::Oidc {
            tenant,
            client,
            token,
        } => {
            let assertion = match token {
                OidcToken::Given(token) => token.clone(),
                OidcToken::Requested { url, bearer } => federated_token(http, url, bearer).await?,
            };
            statectl_state::secrets::register(&assertion);
            (
                tenant,
                vec![
                    ("grant_type", "client_credentials".to_owned()),
                    ("client_id", client.clone()),
                    (
                        "client_assertion_type",
                        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                    ),
                    ("client_assertion", assertion),
                    ("scope", scope),
                ],
            )
        }
    };
    let (tenant, pairs) = form;
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(name, value)| (*name, value.as_str())))
        .finish();
    let url = format!("{}/{tenant}/oauth2/v2.0/token", cloud.login);
    let response = http
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body)
        .send()
        .await
        .map_err(|error| {
            format!(
                "cannot reach Azure AD at {}: {}",
                cloud.login,
                super::client::problem(&error)
            )
        })?;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    let answer: TokenAnswer = serde_json::from_str(&text).map_err(|_| {
        format!("Azure AD answered {status} with no token (not the JSON of a token answer)")
    })?;
    match answer.access_token {
        Some(access_token) if status == 200 => Ok(Token {
            access_token,
            subscription: None,
        }),
        _ => Err(format!(
            "Azure AD refused the token request ({status} {}){}",
            answer.error.unwrap_or_default(),
            answer
                .error_description
                .map(|text| format!(": {}", first_sentence(&text)))
                .unwrap_or_default()
        )),
    }
}

/// `AADSTS7000215: Invalid client secret provided. ...`: the code and the first sentence, without
/// the trace and correlation IDs that follow.
fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or(text);
    match line.find(". ") {
        Some(end) => line[..=end].trim().to_owned(),
        None => line.trim().to_owned(),
    }
}

/// The federated token from a CI's token service (GitHub Actions: `GET <url>&audience=...` with
/// the request token as a bearer, answered `{"value": "<jwt>"}`).
async fn federated_token(
    http: &reqwest::Client,
    url: &str,
    bearer: &str,
) -> Result<String, String> {
    let mut url = Url::parse(url).map_err(|_| {
        "`oidc_request_url` (ARM_OIDC_REQUEST_URL, ACTIONS_ID_TOKEN_REQUEST_URL) is not a URL"
            .to_owned()
    })?;
    url.query_pairs_mut()
        .append_pair("audience", FEDERATED_AUDIENCE);
    let response = http
        .get(url)
        .bearer_auth(bearer)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|error| {
            format!(
                "cannot fetch the OIDC token from `oidc_request_url`: {}",
                super::client::problem(&error)
            )
        })?;
    let status = response.status().as_u16();
    let body = response.bytes().await.unwrap_or_default();
    let answer: Option<FederatedAnswer> = serde_json::from_slice(&body).ok();
    match answer.and_then(|answer| answer.value) {
        Some(token) if status == 200 => Ok(token),
        _ => Err(format!(
            "the OIDC token service at `oidc_request_url` answered {status} without a token"
        )),
    }
}

/// `az account get-access-token --resource <resource> [--tenant <tenant>] -o json`.
fn cli_token(resource: &str, tenant: Option<&str>) -> Result<Token, String> {
    let mut command = std::process::Command::new("az");
    command.args([
        "account",
        "get-access-token",
        "--resource",
        resource,
        "-o",
        "json",
    ]);
    if let Some(tenant) = tenant {
        command.args(["--tenant", tenant]);
    }
    let output = command.output().map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            "the Azure CLI (`az`), the last way Terraform tries, is not installed, and no client secret or OIDC token is set".to_owned()
        } else {
            format!("cannot run the Azure CLI (`az`): {error}")
        }
    })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or("no message");
        return Err(format!(
            "the Azure CLI gave no token (`az account get-access-token` failed: {line})"
        ));
    }
    let answer: CliAnswer = serde_json::from_slice(&output.stdout)
        .map_err(|_| "the Azure CLI's `az account get-access-token` printed no token".to_owned())?;
    Ok(Token {
        access_token: answer.access_token,
        subscription: answer.subscription,
    })
}

/// The storage account's first key with full permissions, listed through the management API as
/// Terraform lists it when no access key, SAS token or `use_azuread_auth` is given.
pub(super) async fn list_key(
    http: &reqwest::Client,
    cloud: &Cloud,
    identity: &Identity,
    subscription: Option<&str>,
    resource_group: &str,
    account: &str,
) -> Result<Vec<u8>, String> {
    let token = token(http, cloud, identity, cloud.management).await?;
    // With the CLI's login Terraform takes the CLI's default subscription.
    let subscription = subscription
        .map(str::to_owned)
        .or(token.subscription)
        .ok_or("`subscription_id` is not set (nor ARM_SUBSCRIPTION_ID), which listing the account's key needs")?;
    let url = format!(
        "{}subscriptions/{subscription}/resourceGroups/{resource_group}/providers/Microsoft.Storage/storageAccounts/{account}/listKeys?api-version={MANAGEMENT_API_VERSION}&$expand=kerb",
        cloud.management
    );
    let response = http
        .post(&url)
        .bearer_auth(&token.access_token)
        .header("content-length", "0")
        .send()
        .await
        .map_err(|error| {
            format!(
                "cannot reach the management API at {}: {}",
                cloud.management,
                super::client::problem(&error)
            )
        })?;
    let status = response.status().as_u16();
    let text = response.bytes().await.unwrap_or_default();
    if status != 200 {
        let code = serde_json::from_slice::<Failed>(&text)
            .ok()
            .and_then(|failed| failed.error)
            .and_then(|error| error.code)
            .map(|code| format!(" ({code})"))
            .unwrap_or_default();
        return Err(format!(
            "listing the keys of storage account `{account}` in resource group `{resource_group}` answered {status}{code}"
        ));
    }
    let key = serde_json::from_slice::<Keys>(&text)
        .ok()
        .and_then(|keys| keys.keys)
        .into_iter()
        .flatten()
        .find(|key| {
            key.permissions
                .as_deref()
                .is_some_and(|permissions| permissions.eq_ignore_ascii_case("full"))
        })
        .and_then(|key| key.value)
        .ok_or_else(|| {
            format!("storage account `{account}` listed no key with full permissions")
        })?;
    statectl_state::secrets::register(key.trim());
    base64::engine::general_purpose::STANDARD
        .decode(key.trim())
        .map_err(|_| format!("the key listed for storage account `{account}` is not base64"))
}

/// Azure AD's answer to a token request.
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// A CI token service's answer.
#[derive(Deserialize)]
struct FederatedAnswer {
    value: Option<String>,
}

/// What `az account get-access-token -o json` prints (the fields read).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CliAnswer {
    access_token: String,
    subscription: Option<String>,
}

/// The management API's `listKeys` answer, and its error body.
#[derive(Deserialize)]
struct Key {
    value: Option<String>,
    permissions: Option<String>,
}
#[derive(Deserialize)]
struct Keys {
    keys: Option<Vec<Key>>,
}
#[derive(Deserialize)]
struct Failed {
    error: Option<Code>,
}
#[derive(Deserialize)]
struct Code {
    code: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_ad_errors_keep_the_code_and_the_first_sentence() {
        assert_eq!(
            first_sentence(
                "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent is correct.\r\nTrace ID: 1"
            ),
            "AADSTS7000215: Invalid client secret provided."
        );
        assert_eq!(first_sentence("short"), "short");
    }
}
