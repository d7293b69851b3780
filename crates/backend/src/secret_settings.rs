//! The backend arguments and environment variables that hold credentials, registered with the run's
//! masks (`statectl_net::secrets`) before a backend is opened, so that any answer echoing them
//! is masked wherever it is shown: one list for every backend (and the `aws_kms` key provider), and
//! the userinfo of every URL among the arguments and those variables. What a backend derives later
//! (a token from an endpoint, a key read from a file, a request's signature) it registers itself,
//! where it is made.

use serde_json::{Map, Value};

use statectl_net::secrets;

use crate::config::BackendConfig;

/// Arguments, at any depth (`assume_role`, `endpoints`), whose value is a credential.
const ARGUMENTS: &[&str] = &[
    // s3 (and `aws_kms`): the key ID is no secret, but Azure's `access_key` is.
    "access_key",
    "secret_key",
    "token",
    "sse_customer_key",
    "web_identity_token",
    // gcs
    "access_token",
    "encryption_key",
    // azurerm
    "sas_token",
    "client_secret",
    "client_certificate",
    "client_certificate_password",
    "oidc_token",
    "oidc_request_token",
    // http
    "password",
    "client_private_key_pem",
    // oci
    "private_key",
    "private_key_password",
    "security_token",
];

/// Environment variables whose value is a credential, for the backends that read them.
const VARIABLES: &[&str] = &[
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_SSE_CUSTOMER_KEY",
    "AWS_WEB_IDENTITY_TOKEN",
    "ARM_ACCESS_KEY",
    "ARM_SAS_TOKEN",
    "ARM_CLIENT_SECRET",
    "ARM_CLIENT_CERTIFICATE",
    "ARM_CLIENT_CERTIFICATE_PASSWORD",
    "ARM_OIDC_TOKEN",
    "ARM_OIDC_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
    "GOOGLE_ENCRYPTION_KEY",
    "TF_HTTP_PASSWORD",
    "TF_HTTP_CLIENT_PRIVATE_KEY_PEM",
    "OCI_PRIVATE_KEY_PASSWORD",
];

/// Prefixes of the variables the backends read, whose URLs' userinfo is registered
/// (`AWS_ENDPOINT_URL_S3=http://user:password@...`), and `TF_TOKEN_<host>` (HCP Terraform's tokens).
const URL_VARIABLE_PREFIXES: &[&str] =
    &["AWS_", "ARM_", "GOOGLE_", "TF_HTTP_", "OCI_", "TF_TOKEN_"];

/// Registers the credentials among `config`'s arguments and the process environment.
pub(crate) fn register(config: &BackendConfig) {
    register_arguments(&config.values);
}

/// Registers the credentials among `arguments` (a backend's, or an `aws_kms` key provider's) and
/// the process environment.
pub(crate) fn register_arguments(arguments: &Map<String, Value>) {
    for (name, value) in arguments {
        register_value(name, value);
    }
    register_environment(
        std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        }),
    );
}

fn register_value(name: &str, value: &Value) {
    match value {
        Value::String(text) => {
            if ARGUMENTS.contains(&name) {
                register_credential(text);
            }
            if text.contains("://") {
                secrets::register_url(text);
            }
        }
        Value::Object(object) => {
            for (name, value) in object {
                register_value(name, value);
            }
        }
        Value::Array(items) => {
            for item in items {
                register_value(name, item);
            }
        }
        _ => {}
    }
}

fn register_environment(variables: impl Iterator<Item = (String, String)>) {
    for (name, value) in variables {
        if VARIABLES.contains(&name.as_str()) || name.starts_with("TF_TOKEN_") {
            register_credential(&value);
        } else if URL_VARIABLE_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
            && value.contains("://")
        {
            secrets::register_url(&value);
        }
    }
}

/// A credential, and when it is a SAS token (`sv=...&sig=...`) its signature alone too: a server
/// may echo the `sig` parameter without the rest.
fn register_credential(text: &str) {
    secrets::register(text);
    for pair in text.trim_start_matches('?').split('&') {
        if let Some(signature) = pair.strip_prefix("sig=") {
            secrets::register(signature);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn credential_arguments_and_urls_userinfo_are_registered_at_any_depth() {
        let config = BackendConfig::for_tests(
            "s3",
            json!({"bucket": "plain-bucket-name", "secret_key": "backend-secret-key-marker",
                   "endpoints": {"s3": "http://u:endpoint-password-marker@127.0.0.1:9000"},
                   "assume_role": [{"role_arn": "arn:aws:iam::1:role/r"}]}),
        );
        register(&config);
        assert_eq!(
            secrets::mask("backend-secret-key-marker endpoint-password-marker plain-bucket-name"),
            "*** *** plain-bucket-name"
        );
    }

    #[test]
    fn credential_variables_and_urls_in_backend_variables_are_registered() {
        register_environment(
            [
                ("ARM_SAS_TOKEN", "sv=2022&sig=sas-signature-marker"),
                (
                    "AWS_ENDPOINT_URL_S3",
                    "http://u:variable-password-marker@h:1",
                ),
                ("TF_TOKEN_app_terraform_io", "hcp-token-marker-value"),
                ("HOME", "/home/someone-not-a-secret"),
            ]
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value.to_owned())),
        );
        assert_eq!(secrets::mask("sig: sas-signature-marker"), "sig: ***");
        assert_eq!(
            secrets::mask(
                "sv=2022&sig=sas-signature-marker variable-password-marker hcp-token-marker-value /home/someone-not-a-secret"
            ),
            "*** *** *** /home/someone-not-a-secret"
        );
    }
}
