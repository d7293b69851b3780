//! The OIDC token a CI job's token service hands out, fetched as go-azure-sdk fetches it for
//! Terraform's `use_oidc`, once for each Azure AD token: GitHub Actions' (`GET
//! ACTIONS_ID_TOKEN_REQUEST_URL` with `audience=api://AzureADTokenExchange` unless the URL names
//! one, the request token as a bearer, answered `{"value": ...}`) and Azure DevOps' (`POST
//! SYSTEM_OIDCREQUESTURI` with `api-version=7.1`, the same audience and the service connection's
//! ID, `SYSTEM_ACCESSTOKEN` as a bearer, answered `{"oidcToken": ...}`). Messages name the service without its query and
//! never carry the request token, even when the service echoes it.

use serde_json::Value;
use statectl_net::Secret;
use url::Url;

use super::credential_error::{Asked, CredentialError};
use super::credentials::{exchange, text};
use statectl_net::http::error_text::{excerpt, without_secrets};

/// The audience GitHub's token service is asked for, as go-azure-sdk asks.
const FEDERATED_AUDIENCE: &str = "api://AzureADTokenExchange";
/// The Azure DevOps API version go-azure-sdk asks its OIDC endpoint for.
const AZURE_DEVOPS_API_VERSION: &str = "7.1";

/// GitHub Actions' token service.
pub(super) async fn github(
    http: &reqwest::Client,
    url: &str,
    bearer: &Secret,
) -> Result<Secret, CredentialError> {
    let what = "GitHub's OIDC token service (`oidc_request_url`, ACTIONS_ID_TOKEN_REQUEST_URL)";
    let url = parse(url, what, &[("audience", FEDERATED_AUDIENCE)])?;
    let request = http
        .get(url.clone())
        .bearer_auth(text(bearer))
        .header("accept", "application/json")
        .header("content-type", "application/x-www-form-urlencoded");
    fetch(request, &url, what, bearer, "value").await
}

/// Azure DevOps' OIDC endpoint, for `connection`.
pub(super) async fn azure_devops(
    http: &reqwest::Client,
    url: &str,
    bearer: &Secret,
    connection: &str,
) -> Result<Secret, CredentialError> {
    let what = "Azure DevOps' OIDC token service (`oidc_request_url`, SYSTEM_OIDCREQUESTURI)";
    let url = parse(
        url,
        what,
        &[
            ("api-version", AZURE_DEVOPS_API_VERSION),
            ("audience", FEDERATED_AUDIENCE),
            ("serviceConnectionId", connection),
        ],
    )?;
    let request = http
        .post(url.clone())
        .bearer_auth(text(bearer))
        .header("accept", "application/json")
        .header("content-type", "application/json")
        .header("content-length", "0");
    fetch(request, &url, what, bearer, "oidcToken").await
}

/// The service's URL, with each of `defaults` its query does not set appended in order.
fn parse(url: &str, what: &'static str, defaults: &[(&str, &str)]) -> Result<Url, CredentialError> {
    let mut url = Url::parse(url)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or(CredentialError::OidcUrl { what })?;
    for (wanted, value) in defaults {
        if !url.query_pairs().any(|(name, _)| name == *wanted) {
            url.query_pairs_mut().append_pair(wanted, value);
        }
    }
    Ok(url)
}

/// Sends `request` and takes the token in the answer's `field`.
async fn fetch(
    request: reqwest::RequestBuilder,
    url: &Url,
    what: &'static str,
    bearer: &Secret,
    field: &'static str,
) -> Result<Secret, CredentialError> {
    let shown = format!("{}{}", url.origin().ascii_serialization(), url.path());
    let asked = Asked::Oidc {
        what,
        shown: shown.clone(),
    };
    let (status, body) = exchange(request, asked).await?;
    if !(200..300).contains(&status) {
        let said = excerpt(&String::from_utf8_lossy(&body), 200);
        return Err(CredentialError::OidcRefused {
            what,
            shown,
            status,
            said: without_secrets(said, &[text(bearer).trim()]),
        });
    }
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    match value[field].as_str().map(str::trim) {
        Some(token) if !token.is_empty() => Ok(Secret::key(token.as_bytes().to_vec())),
        _ => Err(CredentialError::OidcWithoutToken {
            what,
            shown,
            status,
            field,
        }),
    }
}
