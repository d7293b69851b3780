//! A managed identity's token (`use_msi`), as go-azure-sdk asks for it under Terraform: `GET
//! <msi_endpoint>?api-version=2018-02-01&client_id=<id>&resource=<resource>` (the instance
//! metadata service's `http://169.254.169.254/metadata/identity/oauth2/token` by default; the
//! client ID only for a user-assigned identity) with the `Metadata: true` header, answered with
//! `access_token` and `expires_in` (seconds, as a string or a number).

use statectl_net::Secret;

use super::credential_error::{Asked, CredentialError};
use super::credentials::{Token, exchange, lifetime};

/// The metadata service's API version go-azure-sdk asks for.
const API_VERSION: &str = "2018-02-01";

pub(super) async fn token(
    http: &reqwest::Client,
    endpoint: &str,
    client: Option<&str>,
    resource: &str,
) -> Result<Token, CredentialError> {
    // go-azure-sdk's query, its keys in Go's sorted order.
    let query = {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("api-version", API_VERSION);
        if let Some(client) = client {
            query.append_pair("client_id", client);
        }
        query.append_pair("resource", resource);
        query.finish()
    };
    let url = format!("{endpoint}?{query}");
    let request = http.get(&url).header("metadata", "true");
    let asked = Asked::Managed {
        endpoint: endpoint.to_owned(),
    };
    let (status, body) = exchange(request, asked).await?;
    let answer: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    if !(200..300).contains(&status) {
        // The metadata service says `{"error": "invalid_request", "error_description": "..."}`.
        let said = match (
            answer["error"].as_str(),
            answer["error_description"].as_str(),
        ) {
            (Some(code), Some(description)) => format!(": {code}: {description}"),
            (Some(code), None) => format!(": {code}"),
            _ => String::new(),
        };
        let said = statectl_net::http::error_text::excerpt(&said, 200);
        return Err(CredentialError::ManagedRefused {
            endpoint: endpoint.to_owned(),
            status,
            said,
        });
    }
    let token = answer["access_token"]
        .as_str()
        .filter(|token| !token.is_empty())
        .ok_or_else(|| CredentialError::ManagedWithoutToken {
            endpoint: endpoint.to_owned(),
            status,
        })?;
    Ok(Token {
        secret: Secret::key(token.as_bytes().to_vec()),
        lifetime: lifetime(answer.get("expires_in")),
        subscription: None,
    })
}
