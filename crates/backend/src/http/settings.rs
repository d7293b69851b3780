//! The http backend's arguments as Terraform's `Configure` reads them: each from the backend's
//! configuration when it is set there (even to an empty string), else from its `TF_HTTP_*`
//! variable when that is not empty, else Terraform's default. `skip_cert_verification` is the one
//! argument without a variable.

use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;
use url::Url;

use statectl_state::state::store::StoreError;

use crate::config::BackendConfig;

/// Everything the http backend needs, checked.
#[derive(Clone)]
pub(super) struct Settings {
    pub address: Url,
    pub update_method: String,
    pub lock_address: Option<Url>,
    pub lock_method: String,
    pub unlock_address: Option<Url>,
    pub unlock_method: String,
    /// Basic authentication is sent only when the username is not empty (as Terraform does).
    pub username: String,
    pub password: String,
    pub retry: Retry,
    pub tls: Tls,
}

/// go-retryablehttp's knobs as the backend sets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Retry {
    /// Retries after the first attempt (`retry_max`, default 2).
    pub max: u32,
    pub wait_min: Duration,
    pub wait_max: Duration,
}

/// The TLS arguments; all empty means the client's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Tls {
    pub skip_verification: bool,
    pub ca_certificate_pem: Option<String>,
    pub client_certificate_pem: Option<String>,
    pub client_private_key_pem: Option<String>,
}

// Not derived: the password must never reach a log line or a panic message.
impl std::fmt::Debug for Settings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Settings")
            .field("address", &super::address::redacted(&self.address))
            .field("update_method", &self.update_method)
            .field(
                "lock_address",
                &self.lock_address.as_ref().map(super::address::redacted),
            )
            .field("lock_method", &self.lock_method)
            .field(
                "unlock_address",
                &self.unlock_address.as_ref().map(super::address::redacted),
            )
            .field("unlock_method", &self.unlock_method)
            .field("username", &self.username)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// Where one argument's value came from, for the error that names it.
enum Found {
    Config,
    Env(&'static str),
}

/// One argument as Terraform's `GetAttrEnvDefault` finds it: the configuration's value when it is
/// not null, else the variable when it is set and not empty.
fn lookup(
    config: &BackendConfig,
    key: &str,
    variable: &'static str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<(String, Found)>, StoreError> {
    match config.values.get(key) {
        None | Some(Value::Null) => Ok(env(variable)
            .filter(|value| !value.is_empty())
            .map(|value| (value, Found::Env(variable)))),
        Some(Value::String(text)) => Ok(Some((text.clone(), Found::Config))),
        Some(Value::Number(number)) => Ok(Some((number.to_string(), Found::Config))),
        Some(Value::Bool(flag)) => Ok(Some((flag.to_string(), Found::Config))),
        Some(_) => Err(config.invalid(key, "a string")),
    }
}

impl Settings {
    /// Registers what Basic authentication sends with the run's masks: the pair, and its base64
    /// (the password alone is registered with every backend's credential arguments).
    pub(super) fn register_basic(&self) {
        if !self.password.is_empty() {
            let pair = format!("{}:{}", self.username, self.password);
            statectl_net::secrets::register(&pair);
            statectl_net::secrets::register(
                &base64::engine::general_purpose::STANDARD.encode(&pair),
            );
        }
    }

    /// Reads the arguments of `config`, with `env` for the `TF_HTTP_*` variables.
    pub(super) fn read(
        config: &BackendConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, StoreError> {
        let text = |key: &str, variable: &'static str| {
            lookup(config, key, variable, env).map(|found| found.map(|(value, _)| value))
        };
        let address = match text("address", "TF_HTTP_ADDRESS")? {
            Some(address) if !address.is_empty() => parse_url(config, "address", &address)?,
            _ => {
                return Err(config
                    .missing("address")
                    .with_hint("set `address` in the backend block, `--backend-config address=URL`, or TF_HTTP_ADDRESS"));
            }
        };
        let lock_address = text("lock_address", "TF_HTTP_LOCK_ADDRESS")?
            .map(|value| parse_url(config, "lock_address", &value))
            .transpose()?;
        let unlock_address = text("unlock_address", "TF_HTTP_UNLOCK_ADDRESS")?
            .map(|value| parse_url(config, "unlock_address", &value))
            .transpose()?;
        // An empty update method is POST (the client's own fallback); an empty lock or unlock method
        // is GET, which is what Go's HTTP client makes of a request without a method.
        let method = |key: &str, variable: &'static str, default: &str, empty: &str| {
            text(key, variable).and_then(|value| {
                let method = match value {
                    None => default.to_owned(),
                    Some(value) if value.is_empty() => empty.to_owned(),
                    Some(value) => value,
                };
                if reqwest::Method::from_bytes(method.as_bytes()).is_err() {
                    return Err(
                        config.invalid(key, "an HTTP method name (`POST`, `PUT`, `LOCK`, ...)")
                    );
                }
                Ok(method)
            })
        };
        let update_method = method("update_method", "TF_HTTP_UPDATE_METHOD", "POST", "POST")?;
        let lock_method = method("lock_method", "TF_HTTP_LOCK_METHOD", "LOCK", "GET")?;
        let unlock_method = method("unlock_method", "TF_HTTP_UNLOCK_METHOD", "UNLOCK", "GET")?;
        let seconds = |key: &str, variable: &'static str, default: i64| {
            lookup(config, key, variable, env).and_then(|found| match found {
                None => Ok(default),
                Some((value, from)) => whole_number(&value).ok_or_else(|| match from {
                    Found::Config => config.invalid(key, "a whole number"),
                    Found::Env(variable) => StoreError::new(format!(
                        "{}: backend \"http\": {variable} must be a whole number, not `{value}`",
                        config.origin
                    )),
                }),
            })
        };
        // Negative values behave as Go's client makes them: no retry, no wait.
        let retry = Retry {
            max: u32::try_from(seconds("retry_max", "TF_HTTP_RETRY_MAX", 2)?.max(0))
                .unwrap_or(u32::MAX),
            wait_min: whole_seconds(seconds("retry_wait_min", "TF_HTTP_RETRY_WAIT_MIN", 1)?),
            wait_max: whole_seconds(seconds("retry_wait_max", "TF_HTTP_RETRY_WAIT_MAX", 30)?),
        };
        let pem = |key: &str, variable: &'static str| {
            text(key, variable).map(|value| value.filter(|pem| !pem.is_empty()))
        };
        let tls = Tls {
            skip_verification: config.bool("skip_cert_verification")?.unwrap_or(false),
            ca_certificate_pem: pem(
                "client_ca_certificate_pem",
                "TF_HTTP_CLIENT_CA_CERTIFICATE_PEM",
            )?,
            client_certificate_pem: pem(
                "client_certificate_pem",
                "TF_HTTP_CLIENT_CERTIFICATE_PEM",
            )?,
            client_private_key_pem: pem(
                "client_private_key_pem",
                "TF_HTTP_CLIENT_PRIVATE_KEY_PEM",
            )?,
        };
        match (&tls.client_certificate_pem, &tls.client_private_key_pem) {
            (Some(_), None) => {
                return Err(StoreError::new(format!(
                    "{}: backend \"http\": `client_certificate_pem` is set but `client_private_key_pem` is not",
                    config.origin
                ))
                .with_hint("a client certificate needs its private key (`client_private_key_pem` or TF_HTTP_CLIENT_PRIVATE_KEY_PEM)"));
            }
            (None, Some(_)) => {
                return Err(StoreError::new(format!(
                    "{}: backend \"http\": `client_private_key_pem` is set but `client_certificate_pem` is not",
                    config.origin
                ))
                .with_hint("a private key needs its certificate (`client_certificate_pem` or TF_HTTP_CLIENT_CERTIFICATE_PEM)"));
            }
            _ => {}
        }
        Ok(Settings {
            address,
            update_method,
            lock_address,
            lock_method,
            unlock_address,
            unlock_method,
            username: text("username", "TF_HTTP_USERNAME")?.unwrap_or_default(),
            password: text("password", "TF_HTTP_PASSWORD")?.unwrap_or_default(),
            retry,
            tls,
        })
    }
}

/// An address argument: a URL whose scheme is `http` or `https`. The value itself is never shown,
/// since it may carry a password or a token.
fn parse_url(config: &BackendConfig, key: &str, value: &str) -> Result<Url, StoreError> {
    let url = Url::parse(value).map_err(|error| {
        StoreError::new(format!(
            "{}: backend \"http\": `{key}` is not a URL ({error})",
            config.origin
        ))
    })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(StoreError::new(format!(
            "{}: backend \"http\": `{key}` must be an http:// or https:// URL, not {}://",
            config.origin,
            url.scheme()
        )));
    }
    Ok(url)
}

/// A whole number as Terraform's `IntValue` takes one: digits, or a number whose fraction is zero.
fn whole_number(text: &str) -> Option<i64> {
    let text = text.trim();
    text.parse().ok().or_else(|| {
        let number: f64 = text.parse().ok()?;
        #[expect(
            clippy::cast_precision_loss,
            reason = "only to check that the number fits"
        )]
        let fits = number.fract() == 0.0 && number.abs() <= i64::MAX as f64;
        fits.then_some(number as i64)
    })
}

fn whole_seconds(seconds: i64) -> Duration {
    Duration::from_secs(u64::try_from(seconds).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config(values: Value) -> BackendConfig {
        BackendConfig::for_tests("http", values)
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn terraform_defaults_apply_when_nothing_is_set() {
        let settings = Settings::read(&config(json!({"address": "http://h/s"})), &no_env).unwrap();
        assert_eq!(settings.update_method, "POST");
        assert_eq!(settings.lock_method, "LOCK");
        assert_eq!(settings.unlock_method, "UNLOCK");
        assert_eq!(settings.lock_address, None);
        assert_eq!(settings.unlock_address, None);
        assert_eq!(
            settings.retry,
            Retry {
                max: 2,
                wait_min: Duration::from_secs(1),
                wait_max: Duration::from_secs(30)
            }
        );
        assert_eq!(settings.tls, Tls::default());
        assert_eq!(settings.username, "");
    }

    #[test]
    fn the_configuration_wins_over_the_environment_and_nulls_fall_through_to_it() {
        let env = |name: &str| {
            Some(match name {
                "TF_HTTP_ADDRESS" => "http://env/state".to_owned(),
                "TF_HTTP_USERNAME" => "env-user".to_owned(),
                "TF_HTTP_PASSWORD" => "env-pass".to_owned(),
                "TF_HTTP_LOCK_ADDRESS" => "http://env/lock".to_owned(),
                "TF_HTTP_LOCK_METHOD" => "POST".to_owned(),
                "TF_HTTP_RETRY_MAX" => "7".to_owned(),
                // Terraform reads no such variable: the argument is configuration only.
                "TF_HTTP_SKIP_CERT_VERIFICATION" => "true".to_owned(),
                _ => return None,
            })
        };
        let settings = Settings::read(
            &config(json!({"address": "http://config/state", "username": null, "password": "", "retry_max": 1})),
            &env,
        )
        .unwrap();
        assert_eq!(settings.address.as_str(), "http://config/state");
        assert_eq!(settings.username, "env-user");
        // An empty string set in the configuration is set: the variable does not replace it.
        assert_eq!(settings.password, "");
        assert_eq!(settings.lock_address.unwrap().as_str(), "http://env/lock");
        assert_eq!(settings.lock_method, "POST");
        assert_eq!(settings.retry.max, 1);
        assert!(!settings.tls.skip_verification);
        let from_env = Settings::read(&config(json!({})), &env).unwrap();
        assert_eq!(from_env.address.as_str(), "http://env/state");
        assert_eq!(from_env.retry.max, 7);
    }

    #[test]
    fn numbers_take_strings_and_whole_floats_and_refuse_the_rest() {
        let settings = Settings::read(
            &config(json!({"address": "http://h/s", "retry_max": "3", "retry_wait_min": 0, "retry_wait_max": 2.0})),
            &no_env,
        )
        .unwrap();
        assert_eq!(
            settings.retry,
            Retry {
                max: 3,
                wait_min: Duration::ZERO,
                wait_max: Duration::from_secs(2)
            }
        );
    }

    /// Each bad argument or variable is one line naming it, never echoing a secret it holds.
    #[test]
    fn bad_settings_are_one_line_naming_the_argument() {
        let cases = [
            (
                "a fractional retry_max",
                json!({"address": "http://h/s", "retry_max": "2.5"}),
                None,
                "`retry_max` must be a whole number",
            ),
            (
                "a wait that is not a number",
                json!({"address": "http://h/s"}),
                Some(("TF_HTTP_RETRY_WAIT_MAX", "soon")),
                "TF_HTTP_RETRY_WAIT_MAX must be a whole number, not `soon`",
            ),
            ("no address", json!({}), None, "`address` is not set"),
            (
                "an ftp address",
                json!({"address": "ftp://user:secret@h/s"}),
                None,
                "`address` must be an http:// or https:// URL, not ftp://",
            ),
            (
                "a lock address that is not a URL",
                json!({"address": "http://h/s", "lock_address": "not a url secret"}),
                None,
                "`lock_address` is not a URL (relative URL without a base)",
            ),
            (
                "a certificate without its key",
                json!({"address": "https://h/s", "client_certificate_pem": "-----BEGIN CERTIFICATE-----"}),
                None,
                "`client_certificate_pem` is set but `client_private_key_pem` is not",
            ),
            (
                "a key without its certificate",
                json!({"address": "https://h/s"}),
                Some(("TF_HTTP_CLIENT_PRIVATE_KEY_PEM", "key")),
                "`client_private_key_pem` is set but `client_certificate_pem` is not",
            ),
            (
                "a method that is not one",
                json!({"address": "http://h/s", "update_method": "PU T"}),
                None,
                "`update_method` must be an HTTP method name (`POST`, `PUT`, `LOCK`, ...)",
            ),
        ];
        for (case, values, variable, expected) in cases {
            let env = |name: &str| {
                variable
                    .filter(|(wanted, _)| *wanted == name)
                    .map(|(_, value)| value.to_owned())
            };
            let error = Settings::read(&config(values), &env).unwrap_err();
            assert_eq!(
                error.message,
                format!(".terraform/terraform.tfstate: backend \"http\": {expected}"),
                "{case}"
            );
            assert!(
                !error.message.contains("secret"),
                "{case}: {}",
                error.message
            );
        }
    }

    #[test]
    fn empty_methods_fall_back_as_go_does_and_bad_ones_are_refused() {
        let settings = Settings::read(
            &config(json!({"address": "http://h/s", "update_method": "", "lock_method": ""})),
            &no_env,
        )
        .unwrap();
        assert_eq!(settings.update_method, "POST");
        assert_eq!(settings.lock_method, "GET");
    }

    #[test]
    fn the_debug_form_hides_the_password() {
        let settings = Settings::read(
            &config(json!({"address": "http://u:pw1@h/s?token=t0k", "password": "hunter2"})),
            &no_env,
        )
        .unwrap();
        let shown = format!("{settings:?}");
        assert!(
            !shown.contains("hunter2") && !shown.contains("pw1") && !shown.contains("t0k"),
            "{shown}"
        );
    }
}
