//! Azure AD tokens as go-azure-sdk gets them for Terraform: the client-credentials grant with a
//! client secret or a federated (OIDC) assertion at `<login>/<tenant>/oauth2/v2.0/token` (the
//! assertion given, or fetched from GitHub Actions' or Azure DevOps' token service: `federated`),
//! a managed identity's token from the instance metadata service (`managed_identity`), and the
//! Azure CLI's login through `az account get-access-token`. Also the storage account's key listed
//! through the management API (`listKeys`), which Terraform uses when no data-plane credential is
//! given.
//!
//! Every answer is read to 1 MiB at most (a listing of keys, a token). Errors are one line each,
//! never with a secret or a token in them, even when an endpoint echoes one back.

use std::time::Duration;

use base64::Engine as _;
use serde::Deserialize;
use statectl_net::Secret;
use statectl_net::http::body::{self, BodyError};

use super::credential_error::{Asked, CredentialError, Unanswered};
use super::settings::{Cloud, Identity, OidcToken};
use super::{federated, managed_identity};
use statectl_net::http::error_text::without_secrets;

/// The management API version Terraform's storage accounts client uses.
const MANAGEMENT_API_VERSION: &str = "2023-01-01";
/// The largest answer of a token endpoint or of `listKeys` that is read.
pub(super) const MAX_ANSWER: usize = 1 << 20;

/// A token, how long it lasts when the endpoint said, and the CLI's default subscription when the
/// CLI gave it.
pub(super) struct Token {
    pub secret: Secret,
    pub lifetime: Option<Duration>,
    pub subscription: Option<String>,
}

/// A token for `resource` (`https://storage.azure.com/`) as `identity`.
pub(super) async fn token(
    http: &reqwest::Client,
    cloud: &Cloud,
    identity: &Identity,
    resource: &str,
) -> Result<Token, CredentialError> {
    // go-azure-sdk's resource identifiers have no trailing slash; its scopes are `<id>/.default`.
    let resource = resource.trim_end_matches('/');
    let scope = format!("{resource}/.default");
    let (tenant, client, credential) = match identity {
        Identity::Missing => return Err(CredentialError::NotConfigured),
        Identity::Cli { tenant } => return cli_token(&format!("{resource}/"), tenant.as_deref()),
        Identity::Managed { endpoint, client } => {
            return managed_identity::token(http, endpoint, client.as_deref(), resource).await;
        }
        Identity::ClientSecret {
            tenant,
            client,
            secret,
        } => (tenant, client, Credential::Secret(secret.clone())),
        Identity::Oidc {
            tenant,
            client,
            token,
        } => {
            let assertion = match token {
                OidcToken::Given(token) => token.clone(),
                OidcToken::GitHub { url, bearer } => federated::github(http, url, bearer).await?,
                OidcToken::AzureDevOps {
                    url,
                    bearer,
                    connection,
                } => federated::azure_devops(http, url, bearer, connection).await?,
            };
            (tenant, client, Credential::Assertion(assertion))
        }
    };
    client_credentials(http, cloud, tenant, client, &credential, &scope).await
}

/// What the client-credentials grant proves the client with.
enum Credential {
    Secret(Secret),
    /// A federated token, sent as a `client_assertion`.
    Assertion(Secret),
}

/// The client-credentials grant at `<login>/<tenant>/oauth2/v2.0/token`, in the form
/// go-azure-sdk posts.
async fn client_credentials(
    http: &reqwest::Client,
    cloud: &Cloud,
    tenant: &str,
    client: &str,
    credential: &Credential,
    scope: &str,
) -> Result<Token, CredentialError> {
    let (body, secret) = {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        let secret = match credential {
            Credential::Secret(secret) => {
                form.append_pair("client_id", client)
                    .append_pair("client_secret", text(secret));
                secret
            }
            Credential::Assertion(assertion) => {
                form.append_pair("client_assertion", text(assertion))
                    .append_pair(
                        "client_assertion_type",
                        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                    )
                    .append_pair("client_id", client);
                assertion
            }
        };
        form.append_pair("grant_type", "client_credentials")
            .append_pair("scope", scope);
        (form.finish(), secret)
    };
    let url = format!("{}/{tenant}/oauth2/v2.0/token", cloud.login);
    let request = http
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body);
    let asked = Asked::AzureAd {
        login: cloud.login.to_owned(),
    };
    let (status, body) = exchange(request, asked).await?;
    let answer: TokenAnswer =
        serde_json::from_slice(&body).map_err(|_| CredentialError::AzureAdNotJson { status })?;
    match answer.access_token {
        Some(access_token) if status == 200 && !access_token.is_empty() => Ok(Token {
            secret: Secret::key(access_token.into_bytes()),
            lifetime: lifetime(answer.expires_in.as_ref()),
            subscription: None,
        }),
        _ => Err(CredentialError::AzureAdRefused {
            status,
            code: without_secrets(answer.error.unwrap_or_default(), &[text(secret)]),
            description: without_secrets(
                answer
                    .error_description
                    .map(|text| format!(": {}", first_sentence(&text)))
                    .unwrap_or_default(),
                &[text(secret)],
            ),
        }),
    }
}

/// A secret's text, for a form or a header (the secrets here were all given as text).
pub(super) fn text(secret: &Secret) -> &str {
    std::str::from_utf8(secret.expose()).unwrap_or_default()
}

/// `expires_in`: seconds, as a number or (the metadata service's way) a string of digits.
pub(super) fn lifetime(value: Option<&serde_json::Value>) -> Option<Duration> {
    let seconds = match value? {
        serde_json::Value::String(text) => text.trim().parse().ok()?,
        number => number.as_u64()?,
    };
    (seconds > 0).then(|| Duration::from_secs(seconds))
}

/// Why an answer of a token or key endpoint was not read, worded to follow what it answers
/// (`the answer of ... is larger than ...`).
#[derive(Debug, thiserror::Error)]
pub(super) enum AnswerError {
    #[error("is larger than {} KiB; statectl stops there", .limit >> 10)]
    TooLarge { limit: u64 },
    #[error("broke off: {}", super::client::problem(.0))]
    Broken(#[source] reqwest::Error),
}

/// The whole answer, when it is no larger than [`MAX_ANSWER`]; else why not.
/// Sends `request` to `asked` and reads its answer whole: the status and the body.
pub(super) async fn exchange(
    request: reqwest::RequestBuilder,
    asked: Asked,
) -> Result<(u16, Vec<u8>), CredentialError> {
    let unanswered = |failure| CredentialError::Unanswered {
        asked: asked.clone(),
        failure,
    };
    let response = request
        .send()
        .await
        .map_err(|error| unanswered(Unanswered::Unreachable(error)))?;
    let status = response.status().as_u16();
    let body = read_answer(response)
        .await
        .map_err(|error| unanswered(Unanswered::Answer(error)))?;
    Ok((status, body))
}

pub(super) async fn read_answer(mut response: reqwest::Response) -> Result<Vec<u8>, AnswerError> {
    body::read_capped(&mut response, MAX_ANSWER as u64)
        .await
        .map_err(|error| match error {
            BodyError::TooLarge { limit } => AnswerError::TooLarge { limit },
            BodyError::Broken(error) => AnswerError::Broken(error),
        })
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

/// `az account get-access-token --resource <resource> [--tenant <tenant>] -o json`.
fn cli_token(resource: &str, tenant: Option<&str>) -> Result<Token, CredentialError> {
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
            CredentialError::CliMissing
        } else {
            CredentialError::CliUnrunnable(error)
        }
    })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or("no message");
        return Err(CredentialError::CliFailed {
            line: line.to_owned(),
        });
    }
    let answer: CliAnswer =
        serde_json::from_slice(&output.stdout).map_err(|_| CredentialError::CliWithoutToken)?;
    Ok(Token {
        secret: Secret::key(answer.access_token.into_bytes()),
        lifetime: None,
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
) -> Result<Vec<u8>, CredentialError> {
    let token = token(http, cloud, identity, cloud.management).await?;
    // With the CLI's login Terraform takes the CLI's default subscription.
    let subscription = subscription
        .map(str::to_owned)
        .or(token.subscription)
        .ok_or(CredentialError::NoSubscription)?;
    let url = format!(
        "{}subscriptions/{subscription}/resourceGroups/{resource_group}/providers/Microsoft.Storage/storageAccounts/{account}/listKeys?api-version={MANAGEMENT_API_VERSION}&$expand=kerb",
        cloud.management
    );
    let request = http
        .post(&url)
        .bearer_auth(text(&token.secret))
        .header("content-length", "0");
    let asked = Asked::Keys {
        management: cloud.management.to_owned(),
        account: account.to_owned(),
    };
    let (status, body) = exchange(request, asked).await?;
    if status != 200 {
        let code = serde_json::from_slice::<Failed>(&body)
            .ok()
            .and_then(|failed| failed.error)
            .and_then(|error| error.code)
            .map(|code| format!(" ({code})"))
            .unwrap_or_default();
        return Err(CredentialError::KeysRefused {
            account: account.to_owned(),
            resource_group: resource_group.to_owned(),
            status,
            code,
        });
    }
    let key = serde_json::from_slice::<Keys>(&body)
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
        .ok_or_else(|| CredentialError::NoFullKey {
            account: account.to_owned(),
        })?;
    statectl_net::secrets::register(key.trim());
    base64::engine::general_purpose::STANDARD
        .decode(key.trim())
        .map_err(|_| CredentialError::KeyNotBase64 {
            account: account.to_owned(),
        })
}

/// Azure AD's answer to a token request.
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    expires_in: Option<serde_json::Value>,
    error: Option<String>,
    error_description: Option<String>,
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
mod tests;
