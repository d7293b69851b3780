//! Workload identity federation: a credentials file of `"type": "external_account"`, as
//! `gcloud iam workload-identity-pools create-cred-config` and google-github-actions/auth write it
//! and as Google's libraries (under Terraform's gcs backend) read it. The CI's OIDC token (the
//! subject token, from `credential_source`: see `subject_token`) is exchanged at the Security Token
//! Service (`token_url`, RFC 8693) for a Google access token; with
//! `service_account_impersonation_url` that token is exchanged again, at the IAM credentials API,
//! for the service account's. Each exchange's answer is read to 1 MiB at most, its `expires_in`
//! must be a positive whole number, and messages name the file and the endpoint, never a token.

use std::time::Duration;

use serde_json::Value;

use super::auth::{CLOUD_PLATFORM_SCOPE, seconds_until};
use super::client::{Http, MAX_TOKEN_BODY, error_message, status_text};
use super::credential_error::CredentialError;
use super::subject_token::{Format, SubjectSource};
use statectl_net::Secret;
use statectl_net::http::error_text::without_secrets;

/// The grant and token types of RFC 8693's token exchange, as Google's STS takes them.
const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";
/// The lifetime an impersonated token is asked for when the file does not say.
const DEFAULT_LIFETIME: u64 = 3600;

/// `service_account_impersonation_url`, and the token lifetime asked for there.
#[derive(Debug, Clone)]
struct Impersonation {
    url: String,
    lifetime: u64,
    /// Whether the file set the lifetime (`service_account_impersonation.token_lifetime_seconds`).
    configured: bool,
}

/// A parsed `external_account` credentials file.
#[derive(Clone)]
pub(super) struct ExternalAccount {
    /// The workload (or workforce) pool provider's full name, the STS `audience`.
    audience: String,
    subject_token_type: String,
    token_url: String,
    /// `service_account_impersonation_url` and the lifetime asked for there.
    impersonation: Option<Impersonation>,
    /// `client_id` and `client_secret`, sent to the STS as Basic authentication when both are set.
    client: Option<(String, Secret)>,
    /// `workforce_pool_user_project`, sent as the STS `options` when there is no `client_id`.
    user_project: Option<String>,
    pub(super) source: SubjectSource,
    /// Whether GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1, without which a command is never run.
    pub(super) executables_allowed: bool,
    /// Where the file came from (`GOOGLE_APPLICATION_CREDENTIALS (/path)`), for messages.
    pub(super) from: String,
}

impl ExternalAccount {
    /// Reads the file's fields, refusing what Google's libraries refuse and the sources statectl
    /// does not read (AWS, X.509 certificates).
    pub(super) fn parse(
        value: &Value,
        from: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ExternalAccount, CredentialError> {
        let text = |name: &str| {
            value[name]
                .as_str()
                .filter(|text| !text.is_empty())
                .map(ToOwned::to_owned)
        };
        let required = |name: &str| {
            text(name).ok_or_else(|| CredentialError::ExternalMissing {
                from: from.to_owned(),
                name: name.to_owned(),
            })
        };
        let audience = required("audience")?;
        let subject_token_type = required("subject_token_type")?;
        let token_url = text("token_url").unwrap_or_else(|| {
            let universe = text("universe_domain").unwrap_or_else(|| "googleapis.com".to_owned());
            format!("https://sts.{universe}/v1/token")
        });
        let impersonation = match text("service_account_impersonation_url") {
            Some(url) => {
                let configured = &value["service_account_impersonation"]["token_lifetime_seconds"];
                let lifetime = match configured {
                    Value::Null => DEFAULT_LIFETIME,
                    number => number
                        .as_u64()
                        .filter(|seconds| *seconds > 0)
                        .ok_or_else(|| CredentialError::ImpersonationLifetime {
                            from: from.to_owned(),
                        })?,
                };
                Some(Impersonation {
                    url,
                    lifetime,
                    configured: !configured.is_null(),
                })
            }
            None => None,
        };
        let client = match (text("client_id"), text("client_secret")) {
            (Some(id), Some(secret)) => Some((id, Secret::new(secret))),
            _ => None,
        };
        let user_project = text("workforce_pool_user_project");
        if user_project.is_some() && !is_workforce_pool(&audience) {
            return Err(CredentialError::UserProjectWithoutWorkforcePool {
                from: from.to_owned(),
            });
        }
        let user_project = user_project.filter(|_| text("client_id").is_none());
        let source = SubjectSource::parse(&value["credential_source"], from)?;
        Ok(ExternalAccount {
            audience,
            subject_token_type,
            token_url,
            impersonation,
            client,
            user_project,
            source,
            executables_allowed: env("GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES").as_deref()
                == Some("1"),
            from: from.to_owned(),
        })
    }

    /// The service account the token is exchanged for, when the file impersonates one.
    pub(super) fn impersonated(&self) -> Option<&str> {
        service_account_of(&self.impersonation.as_ref()?.url)
    }

    pub(super) fn audience(&self) -> &str {
        &self.audience
    }

    pub(super) fn subject_token_type(&self) -> &str {
        &self.subject_token_type
    }

    /// A Google access token for `scopes`, and how long it lasts: the subject token read afresh
    /// (a CI rotates its file), exchanged at the STS, then for the service account's token.
    pub(super) async fn fetch(
        &self,
        http: &Http,
        scopes: &[&str],
    ) -> Result<(Secret, Duration), CredentialError> {
        let subject = self.source.token(http, self).await?;
        let Some(impersonation) = &self.impersonation else {
            return self.exchange(http, &subject, scopes).await;
        };
        // The federated token only has to be allowed to impersonate.
        let (federated, _) = self
            .exchange(http, &subject, &[CLOUD_PLATFORM_SCOPE])
            .await?;
        impersonate(
            http,
            &impersonation.url,
            impersonation.lifetime,
            &federated,
            scopes,
        )
        .await
    }

    /// The STS token exchange: the form Google's libraries post (keys in their sorted order).
    async fn exchange(
        &self,
        http: &Http,
        subject: &Secret,
        scopes: &[&str],
    ) -> Result<(Secret, Duration), CredentialError> {
        let body = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("audience", &self.audience)
                .append_pair("grant_type", TOKEN_EXCHANGE_GRANT)
                .append_pair("requested_token_type", ACCESS_TOKEN_TYPE)
                .append_pair("scope", &scopes.join(" "))
                .append_pair("subject_token", subject.expose_str())
                .append_pair("subject_token_type", &self.subject_token_type);
            if let Some(project) = &self.user_project {
                form.append_pair(
                    "options",
                    &serde_json::json!({"userProject": project}).to_string(),
                );
            }
            form.finish()
        };
        // The metrics header Google's libraries send, naming the kind of source.
        let metrics = format!(
            "google-byoid-sdk source/{} sa-impersonation/{} config-lifetime/{}",
            self.source.kind(),
            self.impersonation.is_some(),
            self.impersonation
                .as_ref()
                .is_some_and(|impersonation| impersonation.configured),
        );
        let url = &self.token_url;
        let answer = http
            .send_limited(true, MAX_TOKEN_BODY, |client| {
                let request = client
                    .post(url)
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .header("x-goog-api-client", &metrics)
                    .body(body.clone());
                match &self.client {
                    Some((id, secret)) => request.basic_auth(id, Some(secret.expose_str())),
                    None => request,
                }
            })
            .await
            .map_err(|failure| CredentialError::StsUnanswered {
                url: url.clone(),
                failure,
            })?;
        let secrets = [
            subject.expose_str(),
            self.client
                .as_ref()
                .map_or("", |(_, secret)| secret.expose_str()),
        ];
        if !(200..300).contains(&answer.status) {
            return Err(CredentialError::StsRefused {
                url: url.clone(),
                status: status_text(answer.status),
                said: without_secrets(error_message(&answer.body), &secrets),
            });
        }
        let value: Value =
            serde_json::from_slice(&answer.body).map_err(|_| CredentialError::StsNotJson {
                url: url.clone(),
                status: answer.status,
            })?;
        let token = value["access_token"]
            .as_str()
            .filter(|token| !token.is_empty())
            .ok_or_else(|| CredentialError::StsWithoutToken { url: url.clone() })?;
        // Google's libraries refuse a missing, zero or negative lifetime too.
        let lifetime = value["expires_in"]
            .as_u64()
            .filter(|seconds| *seconds > 0)
            .ok_or_else(|| CredentialError::StsWithoutLifetime { url: url.clone() })?;
        Ok((Secret::new(token), Duration::from_secs(lifetime)))
    }
}

/// `generateAccessToken` with the federated token: the service account's token for `scopes`.
async fn impersonate(
    http: &Http,
    url: &str,
    lifetime: u64,
    federated: &Secret,
    scopes: &[&str],
) -> Result<(Secret, Duration), CredentialError> {
    let body = serde_json::json!({
        "lifetime": format!("{lifetime}s"),
        "scope": scopes,
    });
    let answer = http
        .post_token_request(url, federated, &body)
        .await
        .map_err(|failure| CredentialError::ImpersonationUnanswered {
            url: url.to_owned(),
            failure,
        })?;
    if !(200..300).contains(&answer.status) {
        return Err(CredentialError::ImpersonationRefused {
            url: url.to_owned(),
            status: status_text(answer.status),
            said: without_secrets(error_message(&answer.body), &[federated.expose_str()]),
        });
    }
    let value: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    let token = value["accessToken"]
        .as_str()
        .filter(|token| !token.is_empty())
        .ok_or_else(|| CredentialError::ImpersonationWithoutToken {
            url: url.to_owned(),
        })?;
    let left = value["expireTime"]
        .as_str()
        .and_then(seconds_until)
        .ok_or_else(|| CredentialError::ImpersonationWithoutExpiry {
            url: url.to_owned(),
        })?;
    if left == 0 {
        return Err(CredentialError::ImpersonationExpired {
            url: url.to_owned(),
        });
    }
    Ok((Secret::new(token), Duration::from_secs(left)))
}

/// `x@p.iam.gserviceaccount.com` in `.../serviceAccounts/x@p.iam.gserviceaccount.com:generateAccessToken`.
pub(super) fn service_account_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("/serviceAccounts/")?;
    rest.strip_suffix(":generateAccessToken")
        .filter(|email| email.contains('@') && !email.contains('/'))
}

/// `//iam.googleapis.com/locations/<location>/workforcePools/...`.
fn is_workforce_pool(audience: &str) -> bool {
    audience
        .strip_prefix("//iam.googleapis.com/locations/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(location, rest)| !location.is_empty() && rest.starts_with("workforcePools/"))
}

crate::debug::shown_in_debug!(
    ExternalAccount: audience, token_url, impersonation, source.kind(), from
);

/// What the subject token's format says, for the parse of `credential_source.format`.
pub(super) fn format_of(value: &Value, from: &str) -> Result<Format, CredentialError> {
    match value["type"].as_str().unwrap_or_default() {
        "" | "text" => Ok(Format::Text),
        "json" => value["subject_token_field_name"]
            .as_str()
            .filter(|name| !name.is_empty())
            .map(|name| Format::Json(name.to_owned()))
            .ok_or_else(|| CredentialError::FormatWithoutField {
                from: from.to_owned(),
            }),
        other => Err(CredentialError::FormatType {
            from: from.to_owned(),
            kind: other.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests;
