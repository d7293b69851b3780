//! Google credentials as Google's libraries find them, and the access tokens they give: a token
//! given as it is (`access_token`), a credentials JSON (`credentials`, GOOGLE_CREDENTIALS, or
//! found by default: GOOGLE_APPLICATION_CREDENTIALS, then gcloud's application default
//! credentials file), the metadata server last; a service account key signs a JWT it exchanges at
//! its `token_uri`, a user's refresh token is exchanged at its `token_uri`, an external account
//! (workload identity federation, `external_account`) exchanges its CI's OIDC token at the STS, and
//! impersonation asks the IAM credentials API's `generateAccessToken` with the first token. With
//! STORAGE_EMULATOR_HOST there is no credential at all. A token is kept until shortly before it
//! expires. Messages name the credential, never a token or a key.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::external_account::ExternalAccount;
use statectl_net::http::error_text::without_secrets;
use statectl_state::duration::Deadline;

use rsa::RsaPrivateKey;
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::DecodePrivateKey;
use serde_json::Value;

use super::client::{Http, MAX_TOKEN_BODY, error_message, status_text};
use super::credential_error::CredentialError;
use super::jwt;
use super::settings::{Settings, Source};
use statectl_net::Secret;

/// The scopes Terraform's storage client asks for (Go's `storage.NewClient`), the one its
/// `impersonate_service_account` asks for, and the one an impersonating token needs.
pub(super) const STORAGE_SCOPES: [&str; 2] = [
    "https://www.googleapis.com/auth/devstorage.full_control",
    CLOUD_PLATFORM_SCOPE,
];
const IMPERSONATED_SCOPE: &str = "https://www.googleapis.com/auth/devstorage.read_write";
pub(super) const CLOUD_PLATFORM_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// Where a key without a `token_uri`, and a user's refresh token, are exchanged.
const GOOGLE_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
const IAM_CREDENTIALS: &str = "https://iamcredentials.googleapis.com/v1/";
/// The metadata server's address when GCE_METADATA_HOST does not name another.
const METADATA_HOST: &str = "169.254.169.254";
/// A token is renewed this long before it expires.
const MARGIN: Duration = Duration::from_secs(60);
/// The longest a token is kept, whatever lifetime an endpoint claims for it.
const LONGEST_KEPT: Duration = Duration::from_secs(24 * 3600);

/// One credential: how to get an access token, and how to name it in a message.
#[derive(Clone)]
pub(super) enum Credential {
    Token {
        token: Secret,
        from: String,
    },
    ServiceAccount {
        email: String,
        key: Box<RsaPrivateKey>,
        key_id: String,
        token_uri: String,
        from: String,
    },
    User {
        client_id: String,
        client_secret: Secret,
        refresh_token: Secret,
        token_uri: String,
        from: String,
    },
    Metadata {
        url: String,
    },
    Impersonated {
        target: String,
        delegates: Vec<String>,
        url: String,
        base: Box<Credential>,
    },
    /// Workload identity federation: a CI's OIDC token exchanged at Google's STS.
    External(Box<ExternalAccount>),
    /// STORAGE_EMULATOR_HOST is set: Google's libraries send no credentials to an emulator.
    Emulator {
        host: String,
    },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.describe())
    }
}

impl Credential {
    /// The credential chosen for `settings`, as Terraform's backend and Google's default
    /// credentials choose; `home` and `env` are the process's (tests give others).
    pub(super) fn find(
        settings: &Settings,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Credential, CredentialError> {
        if let Some(host) = &settings.emulator {
            return Ok(Credential::Emulator { host: host.clone() });
        }
        let base = match &settings.credentials {
            Source::AccessToken { token, from } => Credential::Token {
                token: token.clone(),
                from: (*from).to_owned(),
            },
            Source::Json { json, from } => from_json(json, from, env)?,
            Source::Default => default_credential(env)?,
        };
        Ok(match &settings.impersonate {
            Some((target, delegates)) => Credential::Impersonated {
                url: format!(
                    "{IAM_CREDENTIALS}projects/-/serviceAccounts/{target}:generateAccessToken"
                ),
                target: target.clone(),
                delegates: delegates.clone(),
                base: Box::new(base),
            },
            None => base,
        })
    }

    /// The credential in a message: `service account `x@p.iam.gserviceaccount.com` (the key in
    /// GOOGLE_CREDENTIALS)`.
    pub(super) fn describe(&self) -> String {
        match self {
            Credential::Token { from, .. } => format!("the access token in {from}"),
            Credential::ServiceAccount { email, from, .. } => {
                format!("service account `{email}` (the key in {from})")
            }
            Credential::User {
                client_id, from, ..
            } => {
                format!("the user credentials in {from} (client `{client_id}`)")
            }
            Credential::Metadata { .. } => {
                "the metadata server's service account (application default credentials)".to_owned()
            }
            Credential::Impersonated { target, base, .. } => {
                format!(
                    "service account `{target}`, impersonated by {}",
                    base.describe()
                )
            }
            Credential::External(account) => match account.impersonated() {
                Some(email) => format!(
                    "service account `{email}` through workload identity federation (the external account credentials in {})",
                    account.from
                ),
                None => format!(
                    "workload identity federation (the external account credentials in {})",
                    account.from
                ),
            },
            Credential::Emulator { host } => {
                format!("no credentials (STORAGE_EMULATOR_HOST names the emulator `{host}`)")
            }
        }
    }

    /// What to do when Google refuses this credential.
    pub(super) fn hint(&self) -> &'static str {
        match self {
            Credential::Token { .. } => {
                "the token may have expired (they last an hour): `gcloud auth print-access-token` prints a fresh one"
            }
            Credential::ServiceAccount { .. } => {
                "check that the key is not revoked and that its service account has a role on the bucket"
            }
            Credential::User { .. } => {
                "`gcloud auth application-default login` renews the user credentials"
            }
            Credential::Metadata { .. } => {
                "give the instance's service account a role on the bucket, or set `credentials` or `access_token`"
            }
            Credential::Impersonated { .. } => {
                "the impersonating identity needs `roles/iam.serviceAccountTokenCreator` on the target, which needs a role on the bucket"
            }
            Credential::External(_) => {
                "the federated identity (or the service account it impersonates) needs a role on the bucket, such as `roles/storage.objectUser`"
            }
            Credential::Emulator { .. } => {
                "unset STORAGE_EMULATOR_HOST to reach Google Cloud Storage itself with credentials"
            }
        }
    }

    /// What to do when no token can be had with this credential.
    pub(super) fn token_hint(&self) -> &'static str {
        match self {
            // Found by default: nothing was given and the metadata server is not there.
            Credential::Metadata { .. } => {
                "give credentials: `credentials` (a service account key) or `access_token`, GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth application-default login`"
            }
            Credential::External(_) => {
                "check the pool provider named by `audience` (its issuer, allowed audiences and attribute condition must accept the CI's token) and that the principal has `roles/iam.workloadIdentityUser` on the service account it impersonates"
            }
            _ => self.hint(),
        }
    }

    /// A fresh access token and how long it lasts, asked for `scopes`.
    pub(super) async fn fetch(
        &self,
        http: &Http,
        scopes: &[&str],
    ) -> Result<(Secret, Duration), CredentialError> {
        match self {
            Credential::Token { token, .. } => Ok((token.clone(), Duration::from_secs(3600))),
            Credential::ServiceAccount {
                email,
                key,
                key_id,
                token_uri,
                ..
            } => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_secs();
                let assertion = jwt::sign(key, key_id, email, &scopes.join(" "), token_uri, now)?;
                // Signed for this exchange only: kept among the last ones masked.
                statectl_net::secrets::register_ephemeral(&assertion);
                let form = [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                    ("assertion", assertion.as_str()),
                ];
                exchange(http, token_uri, &form).await
            }
            Credential::User {
                client_id,
                client_secret,
                refresh_token,
                token_uri,
                ..
            } => {
                let form = [
                    ("grant_type", "refresh_token"),
                    ("client_id", client_id.as_str()),
                    ("client_secret", client_secret.expose_str()),
                    ("refresh_token", refresh_token.expose_str()),
                ];
                exchange(http, token_uri, &form).await
            }
            Credential::Metadata { url } => {
                let answer = http
                    .send_limited(false, MAX_TOKEN_BODY, |client| {
                        client
                            .get(url)
                            .header("Metadata-Flavor", "Google")
                            .timeout(Duration::from_secs(3))
                    })
                    .await
                    .map_err(|failure| CredentialError::MetadataUnanswered {
                        url: url.clone(),
                        failure,
                    })?;
                token_answer(
                    url,
                    answer.status,
                    &answer.body,
                    ("access_token", "expires_in"),
                    &[],
                )
            }
            Credential::Impersonated {
                delegates,
                url,
                base,
                ..
            } => {
                let (token, _) = Box::pin(base.fetch(http, &[CLOUD_PLATFORM_SCOPE])).await?;
                let delegates: Vec<String> = delegates
                    .iter()
                    .map(|delegate| format!("projects/-/serviceAccounts/{delegate}"))
                    .collect();
                let body = serde_json::json!({
                    "delegates": delegates,
                    "scope": [IMPERSONATED_SCOPE],
                    "lifetime": "3600s",
                });
                let answer =
                    http.post_token_request(url, &token, &body)
                        .await
                        .map_err(|failure| CredentialError::PostUnanswered {
                            url: url.clone(),
                            failure,
                        })?;
                let (impersonated, _) = token_answer(
                    url,
                    answer.status,
                    &answer.body,
                    ("accessToken", ""),
                    &[token.expose_str()],
                )?;
                Ok((impersonated, Duration::from_secs(3600)))
            }
            Credential::External(account) => account.fetch(http, scopes).await,
            Credential::Emulator { .. } => Err(CredentialError::Emulator),
        }
    }
}

/// POSTs `form` to a token endpoint and reads the token from its answer.
async fn exchange(
    http: &Http,
    token_uri: &str,
    form: &[(&str, &str)],
) -> Result<(Secret, Duration), CredentialError> {
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let answer = http
        .send_limited(true, MAX_TOKEN_BODY, |client| {
            client
                .post(token_uri)
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(body.clone())
        })
        .await
        .map_err(|failure| CredentialError::PostUnanswered {
            url: token_uri.to_owned(),
            failure,
        })?;
    // The secrets sent (assertion, refresh token, client secret), not the names of things.
    let sent: Vec<&str> = form
        .iter()
        .filter(|(name, _)| !matches!(*name, "grant_type" | "client_id"))
        .map(|(_, value)| *value)
        .collect();
    token_answer(
        token_uri,
        answer.status,
        &answer.body,
        ("access_token", "expires_in"),
        &sent,
    )
}

/// The token in an answer (its fields: the token's, the lifetime's), or what the endpoint said
/// instead, without the `sent` secrets it may echo.
fn token_answer(
    url: &str,
    status: u16,
    body: &[u8],
    (token_field, lifetime_field): (&str, &str),
    sent: &[&str],
) -> Result<(Secret, Duration), CredentialError> {
    if status != 200 {
        return Err(CredentialError::TokenRefused {
            url: url.to_owned(),
            status: status_text(status),
            said: without_secrets(error_message(body), sent),
        });
    }
    let value: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let token = value[token_field]
        .as_str()
        .filter(|token| !token.is_empty())
        .ok_or_else(|| CredentialError::NoAccessToken {
            url: url.to_owned(),
        })?;
    let lifetime = value[lifetime_field].as_u64().unwrap_or(3600);
    Ok((Secret::new(token), Duration::from_secs(lifetime)))
}

/// A credentials JSON, by its `type`.
fn from_json(
    json: &str,
    from: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Credential, CredentialError> {
    let value: Value = serde_json::from_str(json).map_err(|source| CredentialError::NotJson {
        from: from.to_owned(),
        source,
    })?;
    let field = |name: &str| value[name].as_str().unwrap_or_default().to_owned();
    let required = |name: &str| {
        value[name]
            .as_str()
            .filter(|text| !text.is_empty())
            .map(ToOwned::to_owned)
            .ok_or_else(|| CredentialError::Missing {
                from: from.to_owned(),
                name: name.to_owned(),
            })
    };
    let token_uri = || {
        value["token_uri"]
            .as_str()
            .filter(|text| !text.is_empty())
            .unwrap_or(GOOGLE_TOKEN_URI)
            .to_owned()
    };
    match value["type"].as_str().unwrap_or_default() {
        "service_account" => {
            let pem = required("private_key")?;
            statectl_net::secrets::register(&pem);
            // Google writes PKCS#8; a key converted by hand may be PKCS#1.
            let key = RsaPrivateKey::from_pkcs8_pem(&pem)
                .or_else(|_| RsaPrivateKey::from_pkcs1_pem(&pem))
                .map_err(|_| CredentialError::NotRsaKey {
                    from: from.to_owned(),
                })?;
            Ok(Credential::ServiceAccount {
                email: required("client_email")?,
                key: Box::new(key),
                key_id: field("private_key_id"),
                token_uri: token_uri(),
                from: from.to_owned(),
            })
        }
        "authorized_user" => Ok(Credential::User {
            client_id: required("client_id")?,
            client_secret: Secret::new(required("client_secret")?),
            refresh_token: Secret::new(required("refresh_token")?),
            token_uri: token_uri(),
            from: from.to_owned(),
        }),
        // What `gcloud auth application-default login --impersonate-service-account` writes.
        "impersonated_service_account" => {
            let url = required("service_account_impersonation_url")?;
            let target = url
                .rsplit('/')
                .next()
                .and_then(|last| last.strip_suffix(":generateAccessToken"))
                .unwrap_or_default()
                .to_owned();
            let delegates = value["delegates"]
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|delegate| delegate.rsplit('/').next().unwrap_or(delegate).to_owned())
                        .collect()
                })
                .unwrap_or_default();
            let source = value["source_credentials"].to_string();
            let base = from_json(&source, &format!("{from} (its source credentials)"), env)?;
            Ok(Credential::Impersonated {
                target,
                delegates,
                url,
                base: Box::new(base),
            })
        }
        // What `gcloud iam workload-identity-pools create-cred-config` and CI actions write.
        "external_account" => Ok(Credential::External(Box::new(ExternalAccount::parse(
            &value, from, env,
        )?))),
        "" => Err(CredentialError::NoType {
            from: from.to_owned(),
        }),
        other => Err(CredentialError::UnknownType {
            from: from.to_owned(),
            kind: other.to_owned(),
        }),
    }
}

/// Google's application default credentials: GOOGLE_APPLICATION_CREDENTIALS, then gcloud's file,
/// then the metadata server.
fn default_credential(env: &dyn Fn(&str) -> Option<String>) -> Result<Credential, CredentialError> {
    if let Some(path) = env("GOOGLE_APPLICATION_CREDENTIALS") {
        let json = std::fs::read_to_string(&path).map_err(|source| {
            CredentialError::DefaultUnreadable {
                path: path.clone(),
                source,
            }
        })?;
        return from_json(
            &json,
            &format!("GOOGLE_APPLICATION_CREDENTIALS ({path})"),
            env,
        );
    }
    let folder = env("CLOUDSDK_CONFIG").or_else(|| {
        if cfg!(windows) {
            env("APPDATA").map(|appdata| format!("{appdata}/gcloud"))
        } else {
            env("HOME").map(|home| format!("{home}/.config/gcloud"))
        }
    });
    if let Some(folder) = folder {
        let path = format!("{folder}/application_default_credentials.json");
        if let Ok(json) = std::fs::read_to_string(&path) {
            return from_json(&json, &path, env);
        }
    }
    let host = env("GCE_METADATA_HOST").unwrap_or_else(|| METADATA_HOST.to_owned());
    Ok(Credential::Metadata {
        url: format!("http://{host}/computeMetadata/v1/instance/service-accounts/default/token"),
    })
}

/// A credential with its current token, renewed when it is about to expire.
#[derive(Debug)]
pub(super) struct Tokens {
    pub credential: Credential,
    current: tokio::sync::Mutex<Option<(Secret, Deadline)>>,
}

impl Tokens {
    pub(super) fn new(credential: Credential) -> Tokens {
        Tokens {
            credential,
            current: tokio::sync::Mutex::new(None),
        }
    }

    /// A token good for a minute at least; none for an emulator.
    pub(super) async fn token(&self, http: &Http) -> Result<Option<Secret>, CredentialError> {
        if matches!(self.credential, Credential::Emulator { .. }) {
            return Ok(None);
        }
        let mut current = self.current.lock().await;
        if let Some((token, expires)) = &*current
            && !expires.earlier_by(MARGIN).has_passed(Instant::now())
        {
            return Ok(Some(token.clone()));
        }
        let (token, lifetime) = self.credential.fetch(http, &STORAGE_SCOPES).await?;
        // A server may say a token lives `u64::MAX` seconds: it is kept a day at most, and the
        // deadline saturates rather than overflows.
        *current = Some((token.clone(), Deadline::after(lifetime.min(LONGEST_KEPT))));
        Ok(Some(token))
    }
}

/// Seconds from now until `time`, an RFC 3339 UTC time as Google writes it
/// (`2030-01-01T00:00:00Z`, fractions allowed); 0 when it has passed, `None` when it is not one.
pub(super) fn seconds_until(time: &str) -> Option<u64> {
    let then = crate::rfc3339::unix_seconds(time)?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
        });
    Some(u64::try_from(then.saturating_sub(now)).unwrap_or(0))
}

#[cfg(test)]
mod tests;
