//! A profile's credentials, read once from the environment or the OCI config before any request, and
//! applied to each request: a bearer token, basic auth, an API-key header, or an OCI signature.

use std::path::PathBuf;
use std::time::SystemTime;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::reconcile::http::HttpRequest;
use crate::reconcile::profile::Auth;
use statectl_net::Secret;
use statectl_net::oci::config as oci_config;
use statectl_net::oci::signature::OciSigner;

/// Ready-to-use credentials for one profile.
#[derive(Debug, Clone)]
pub enum Credentials {
    None,
    Header { name: String, value: Secret },
    Oci(Box<OciSigner>),
}

/// Credentials that cannot be loaded: a variable not set, an OCI config or key that cannot be read or
/// used. Names the variable or file, never a value.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("`{variable}` is not set (profile `{profile}` needs it)")]
    Unset { variable: String, profile: String },
    #[error("no OCI config file: set HOME or OCI_CLI_CONFIG_FILE")]
    NoOciConfig,
    #[error("{}: cannot read the OCI config: {source}", file.display())]
    ReadOciConfig {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    OciConfig(#[from] oci_config::OciConfigError),
    #[error("{}: cannot read the OCI API key: {source}", file.display())]
    ReadOciKey {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", file.display())]
    OciKey {
        file: PathBuf,
        source: statectl_net::oci::signature::OciKeyError,
    },
}

impl Credentials {
    /// Reads what `auth` names. A missing variable or key file is an error naming it (never its value).
    pub fn load(
        auth: &Auth,
        env: &dyn Fn(&str) -> Option<String>,
        profile: &str,
    ) -> Result<Credentials, CredentialsError> {
        let read = |variable: &str| {
            env(variable)
                .filter(|value| !value.is_empty())
                .ok_or_else(|| CredentialsError::Unset {
                    variable: variable.to_owned(),
                    profile: profile.to_owned(),
                })
        };
        Ok(match auth {
            Auth::None => Credentials::None,
            Auth::Bearer { token_env } => {
                let token = read(token_env)?;
                // `cf oauth-token` prints `bearer <token>`: take either form.
                let token = token
                    .strip_prefix("bearer ")
                    .or_else(|| token.strip_prefix("Bearer "))
                    .unwrap_or(&token)
                    .trim()
                    .to_owned();
                statectl_net::secrets::register(&token);
                Credentials::Header {
                    name: "authorization".into(),
                    value: Secret::new(format!("Bearer {token}")),
                }
            }
            Auth::Basic {
                username_env,
                password_env,
            } => {
                let password = read(password_env)?;
                let pair = format!("{}:{password}", read(username_env)?);
                let encoded = STANDARD.encode(&pair);
                for secret in [&password, &pair, &encoded] {
                    statectl_net::secrets::register(secret);
                }
                Credentials::Header {
                    name: "authorization".into(),
                    value: Secret::new(format!("Basic {encoded}")),
                }
            }
            Auth::Header { name, value_env } => Credentials::Header {
                name: name.to_ascii_lowercase(),
                value: Secret::new(read(value_env)?),
            },
            Auth::OciSignature {
                config_file,
                config_profile,
            } => {
                let file = config_file
                    .clone()
                    .map(PathBuf::from)
                    .or_else(|| env("OCI_CLI_CONFIG_FILE").map(PathBuf::from))
                    .or_else(|| env("HOME").map(|home| PathBuf::from(home).join(".oci/config")))
                    .ok_or(CredentialsError::NoOciConfig)?;
                let text = crate::state::bytes::read_text(&file).map_err(|source| {
                    CredentialsError::ReadOciConfig {
                        file: file.clone(),
                        source,
                    }
                })?;
                let name = config_profile
                    .clone()
                    .or_else(|| env("OCI_CLI_PROFILE"))
                    .unwrap_or_else(|| "DEFAULT".to_owned());
                let config = oci_config::parse(&text, &file, &name)?;
                let pem = crate::state::bytes::read_text(&config.key_file).map_err(|source| {
                    CredentialsError::ReadOciKey {
                        file: config.key_file.clone(),
                        source,
                    }
                })?;
                Credentials::Oci(Box::new(
                    OciSigner::from_pem(config.key_id(), &Secret::new(pem)).map_err(|source| {
                        CredentialsError::OciKey {
                            file: config.key_file.clone(),
                            source,
                        }
                    })?,
                ))
            }
        })
    }

    /// Adds the credentials to `request`, at `now` (OCI signs the date).
    pub fn apply(&self, request: &mut HttpRequest, now: SystemTime) {
        match self {
            Credentials::None => {}
            Credentials::Header { name, value } => {
                request.secret_headers.push((name.clone(), value.clone()));
            }
            Credentials::Oci(signer) => {
                let url = &request.url;
                let host = match (url.host_str(), url.port()) {
                    (Some(host), Some(port)) => format!("{host}:{port}"),
                    (Some(host), None) => host.to_owned(),
                    _ => String::new(),
                };
                let path = match url.query() {
                    Some(query) => format!("{}?{query}", url.path()),
                    None => url.path().to_owned(),
                };
                let date = httpdate::fmt_http_date(now);
                let signed = signer.sign(
                    request.method.as_str(),
                    &host,
                    &path,
                    &date,
                    request.body.as_deref(),
                );
                request.headers.push(("date".into(), signed.date));
                if let Some(digest) = signed.content_sha256 {
                    request.headers.push(("x-content-sha256".into(), digest));
                    request
                        .headers
                        .push(("content-type".into(), "application/json".into()));
                }
                request
                    .secret_headers
                    .push(("authorization".into(), signed.authorization));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    fn request() -> HttpRequest {
        HttpRequest {
            method: reqwest::Method::GET,
            url: reqwest::Url::parse("http://127.0.0.1:8080/v3/x").unwrap(),
            headers: Vec::new(),
            secret_headers: Vec::new(),
            body: None,
        }
    }

    #[test]
    fn bearer_and_basic_come_from_the_environment() {
        let bearer = Credentials::load(
            &Auth::Bearer {
                token_env: "CF_ACCESS_TOKEN".into(),
            },
            &env(&[("CF_ACCESS_TOKEN", "bearer abc")]),
            "cf",
        )
        .unwrap();
        let mut sent = request();
        bearer.apply(&mut sent, SystemTime::now());
        assert_eq!(sent.secret_headers[0].1.expose_str(), "Bearer abc");
        let basic = Credentials::load(
            &Auth::Basic {
                username_env: "U".into(),
                password_env: "P".into(),
            },
            &env(&[("U", "broker"), ("P", "s3cret")]),
            "osb",
        )
        .unwrap();
        let mut sent = request();
        basic.apply(&mut sent, SystemTime::now());
        assert_eq!(
            sent.secret_headers[0].1.expose_str(),
            "Basic YnJva2VyOnMzY3JldA=="
        );
        assert!(!format!("{basic:?}").contains("YnJva2Vy"));
    }

    #[test]
    fn a_missing_variable_is_named_never_valued() {
        let error = Credentials::load(
            &Auth::Bearer {
                token_env: "CF_ACCESS_TOKEN".into(),
            },
            &env(&[]),
            "cloudfoundry_service_instance",
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "`CF_ACCESS_TOKEN` is not set (profile `cloudfoundry_service_instance` needs it)"
        );
    }

    #[test]
    fn an_unreadable_oci_config_keeps_the_io_error_as_its_source() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("config");
        let error = Credentials::load(
            &Auth::OciSignature {
                config_file: Some(file.display().to_string()),
                config_profile: None,
            },
            &env(&[]),
            "oci_core_instance",
        )
        .unwrap_err();
        assert!(
            matches!(&error, CredentialsError::ReadOciConfig { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
            "{error:?}"
        );
        assert!(std::error::Error::source(&error).is_some());
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}: cannot read the OCI config: ", file.display())),
            "{error}"
        );
    }
}
