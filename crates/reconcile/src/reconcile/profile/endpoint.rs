//! Named base URLs. A profile names its endpoint (`oci`, `cf`, `osb`) and may give a default URL; the
//! user overrides it with `--endpoint NAME=URL`, or `STATECTL_ENDPOINT_<NAME>` (upper case, `-` as
//! `_`), in that order of precedence. An endpoint is trusted (it decides where credentials go), so it
//! must be a plain `http(s)://host[:port][/path]`: no credentials (URLs end up in logs), no query and
//! no fragment (request paths are appended to it).

use reqwest::Url;

use crate::reconcile::profile::template::{Template, is_name};

/// Where a profile's `{endpoint}` points.
#[derive(Debug, Clone, PartialEq)]
pub enum Endpoint {
    /// From `--endpoint` or the environment: the same for every instance.
    Fixed(Url),
    /// The profile's `default_url`, rendered for each instance (it may use the instance's region).
    PerInstance(Template),
    /// The profile names no endpoint (its request URLs are absolute).
    Unused,
}

/// The environment variable that overrides endpoint `name`: `STATECTL_ENDPOINT_` and the name in
/// upper case with `-` as `_`.
pub fn env_name(name: &str) -> String {
    format!(
        "STATECTL_ENDPOINT_{}",
        name.to_ascii_uppercase().replace('-', "_")
    )
}

/// An endpoint override or base URL that cannot be used; the caller names where it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("`{0}` is not NAME=URL, e.g. `oci=https://iaas.us-ashburn-1.oraclecloud.com`")]
    NotNameUrl(String),
    #[error("`{0}` is not an endpoint name (letters, digits, `_` and `-`)")]
    Name(String),
    /// The URL parser's reason.
    #[error("`{text}` is not a URL: {reason}")]
    NotUrl { text: String, reason: String },
    #[error("`{0}` is not an http(s) URL")]
    Scheme(Url),
    #[error("`{0}` has no host")]
    NoHost(Url),
    /// The URL is not echoed: it holds a secret.
    #[error(
        "an endpoint URL cannot hold credentials (URLs end up in logs); the profile's `auth` reads them from the environment"
    )]
    Credentials,
    #[error(
        "`{0}` has a query or a fragment; an endpoint is a base URL that request paths are appended to"
    )]
    QueryOrFragment(Url),
}

/// Parses a `--endpoint NAME=URL` argument (for clap's `value_parser`).
pub fn parse_override(text: &str) -> Result<(String, String), EndpointError> {
    let (name, url) = text
        .split_once('=')
        .ok_or_else(|| EndpointError::NotNameUrl(text.to_owned()))?;
    let name = name.trim();
    if !is_name(name) {
        return Err(EndpointError::Name(name.to_owned()));
    }
    base_url(url.trim())?;
    Ok((name.to_owned(), url.trim().to_owned()))
}

/// Checks a base URL.
pub fn base_url(text: &str) -> Result<Url, EndpointError> {
    let url = Url::parse(text).map_err(|error| EndpointError::NotUrl {
        text: text.to_owned(),
        reason: error.to_string(),
    })?;
    check_base(&url)?;
    Ok(url)
}

pub(crate) fn check_base(url: &Url) -> Result<(), EndpointError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(EndpointError::Scheme(url.clone()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(EndpointError::NoHost(url.clone()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Refused, but typed: whatever echoes the argument (clap's own error) masks it.
        statectl_net::secrets::register_url(url.as_str());
        return Err(EndpointError::Credentials);
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(EndpointError::QueryOrFragment(url.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names_are_upper_case_with_underscores() {
        assert_eq!(env_name("oci"), "STATECTL_ENDPOINT_OCI");
        assert_eq!(env_name("my-broker"), "STATECTL_ENDPOINT_MY_BROKER");
    }

    #[test]
    fn parses_overrides_and_refuses_unsafe_base_urls() {
        assert_eq!(
            parse_override("cf=https://api.sys.example.com").unwrap(),
            ("cf".to_owned(), "https://api.sys.example.com".to_owned())
        );
        assert!(parse_override("osb=http://localhost:8080/broker").is_ok());
        for bad in [
            "cf",
            "=https://x",
            "c f=https://x",
            "cf=api.example.com",
            "cf=ftp://example.com",
            "cf=https://user:secret@example.com",
            "cf=https://example.com/?x=1",
            "cf=https://example.com/#x",
        ] {
            assert!(parse_override(bad).is_err(), "{bad}");
        }
        let error = parse_override("cf=https://user:hunter2@example.com").unwrap_err();
        assert!(!error.to_string().contains("hunter2"), "{error}");
    }
}
