//! Where an external account's subject token (the CI's OIDC token) comes from, as Google's
//! libraries read `credential_source`: a file the CI writes (GitLab's `id_tokens`, a Kubernetes
//! projected token), read afresh each time; a URL fetched with the file's headers (GitHub Actions'
//! token service, with its request token as a bearer); or a command (see `executable`). The token is
//! the whole text, trimmed, or one field of a JSON object (`format`). Anything larger than 1 MiB,
//! empty, or not of that shape is one line naming where it came from, never the token.

use std::io::Read as _;

use serde_json::Value;

use super::client::{Http, MAX_TOKEN_BODY, error_message, status_text};
use super::credential_error::CredentialError;
use super::executable::Executable;
use super::external_account::{ExternalAccount, format_of};
use statectl_net::Secret;
use statectl_net::http::error_text::without_secrets;

/// How the token is written where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Format {
    /// The whole text.
    Text,
    /// The string in this field of a JSON object (GitHub's token service: `value`).
    Json(String),
}

/// `credential_source`.
#[derive(Clone)]
pub(super) enum SubjectSource {
    File {
        path: String,
        format: Format,
    },
    Url {
        url: String,
        /// The headers sent (GitHub's `Authorization: Bearer <request token>`): secrets.
        headers: Vec<(String, Secret)>,
        format: Format,
    },
    Executable(Executable),
}

impl SubjectSource {
    /// Reads `credential_source` as Google's libraries choose among its fields: `file`, then
    /// `url`, then `executable`; AWS and certificate sources are refused by name.
    pub(super) fn parse(value: &Value, from: &str) -> Result<SubjectSource, CredentialError> {
        if value.is_null() {
            return Err(CredentialError::NoCredentialSource {
                from: from.to_owned(),
            });
        }
        let text = |name: &str| {
            value[name]
                .as_str()
                .filter(|text| !text.is_empty())
                .map(ToOwned::to_owned)
        };
        if text("environment_id").is_some_and(|id| id.starts_with("aws")) {
            return Err(CredentialError::FromAws {
                from: from.to_owned(),
            });
        }
        if let Some(path) = text("file") {
            return Ok(SubjectSource::File {
                path,
                format: format_of(&value["format"], from)?,
            });
        }
        if let Some(url) = text("url") {
            let headers = value["headers"]
                .as_object()
                .map(|headers| {
                    headers
                        .iter()
                        .map(|(name, value)| {
                            let value = value.as_str().unwrap_or_default();
                            // `Bearer <token>`: the token alone is what a server echoes.
                            if let Some((scheme, credential)) = value.split_once(' ')
                                && ["bearer", "basic"]
                                    .contains(&scheme.to_ascii_lowercase().as_str())
                            {
                                statectl_net::secrets::register(credential);
                            }
                            (name.clone(), Secret::new(value))
                        })
                        .collect()
                })
                .unwrap_or_default();
            return Ok(SubjectSource::Url {
                url,
                headers,
                format: format_of(&value["format"], from)?,
            });
        }
        if value["executable"].is_object() {
            return Ok(SubjectSource::Executable(Executable::parse(
                &value["executable"],
                from,
            )?));
        }
        if value["certificate"].is_object() {
            return Err(CredentialError::Certificate {
                from: from.to_owned(),
            });
        }
        Err(CredentialError::NoSubjectSource {
            from: from.to_owned(),
        })
    }

    /// `file`, `url` or `executable`, as Google's metrics header names the source.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            SubjectSource::File { .. } => "file",
            SubjectSource::Url { .. } => "url",
            SubjectSource::Executable(_) => "executable",
        }
    }

    /// The subject token, read now.
    pub(super) async fn token(
        &self,
        http: &Http,
        account: &ExternalAccount,
    ) -> Result<Secret, CredentialError> {
        match self {
            SubjectSource::File { path, format } => {
                let what = format!("the subject token file `{path}` (`credential_source.file`)");
                let bytes = read_file(path, &what)?;
                from_bytes(&bytes, format, &what)
            }
            SubjectSource::Url {
                url,
                headers,
                format,
            } => {
                let shown = without_query(url);
                let what = format!("the subject token URL {shown} (`credential_source.url`)");
                let answer = http
                    .send_limited(true, MAX_TOKEN_BODY, |client| {
                        headers
                            .iter()
                            .fold(client.get(url), |request, (name, value)| {
                                request.header(name.as_str(), value.expose_str())
                            })
                    })
                    .await
                    .map_err(|failure| CredentialError::SubjectUnanswered {
                        shown: shown.to_owned(),
                        failure,
                    })?;
                if !(200..300).contains(&answer.status) {
                    // Each header's value, and its credentials without their scheme (`Bearer `).
                    let secrets: Vec<&str> = headers
                        .iter()
                        .flat_map(|(_, value)| {
                            let value = value.expose_str();
                            [value, value.split_once(' ').map_or("", |(_, token)| token)]
                        })
                        .collect();
                    return Err(CredentialError::SubjectRefused {
                        what,
                        status: status_text(answer.status),
                        said: without_secrets(error_message(&answer.body), &secrets),
                    });
                }
                from_bytes(&answer.body, format, &what)
            }
            SubjectSource::Executable(executable) => executable.token(account).await,
        }
    }
}

/// The file's bytes, at most 1 MiB.
fn read_file(path: &str, what: &str) -> Result<Vec<u8>, CredentialError> {
    let unreadable = |source| CredentialError::SubjectUnreadable {
        what: what.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::new();
    file.take(MAX_TOKEN_BODY + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_TOKEN_BODY {
        return Err(CredentialError::SubjectTooLarge {
            what: what.to_owned(),
        });
    }
    Ok(bytes)
}

/// The token in `bytes`, as `format` says, trimmed; an empty one is refused here rather than by
/// the STS.
pub(super) fn from_bytes(
    bytes: &[u8],
    format: &Format,
    what: &str,
) -> Result<Secret, CredentialError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| CredentialError::SubjectNotText {
            what: what.to_owned(),
        })?
        .trim();
    let token = match format {
        Format::Text => text.to_owned(),
        Format::Json(field) => {
            let value: Value =
                serde_json::from_str(text).map_err(|_| CredentialError::SubjectNotJson {
                    what: what.to_owned(),
                })?;
            match &value[field.as_str()] {
                Value::String(token) => token.trim().to_owned(),
                Value::Null => {
                    return Err(CredentialError::SubjectWithoutField {
                        what: what.to_owned(),
                        field: field.clone(),
                    });
                }
                _ => {
                    return Err(CredentialError::SubjectFieldNotText {
                        what: what.to_owned(),
                        field: field.clone(),
                    });
                }
            }
        }
    };
    if token.is_empty() {
        return Err(CredentialError::SubjectEmpty {
            what: what.to_owned(),
        });
    }
    Ok(Secret::new(token))
}

/// `https://host/path` of a URL, without a query that may carry a request's parameters.
fn without_query(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

impl std::fmt::Debug for SubjectSource {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.kind())
    }
}
