//! Why a backend's HTTP client could not be built: its runtime, its TLS set-up, or a certificate or
//! key its settings name. One enum for every backend's client; each variant keeps the words the
//! backend said before (a message is part of statectl's output).

use statectl_net::http::error_text::problem;

#[derive(Debug, thiserror::Error)]
pub(crate) enum ClientError {
    /// The backend's runtime did not start.
    #[error("cannot start the HTTP client: {0}")]
    Runtime(#[source] std::io::Error),
    /// The same, in the oci backend's words.
    #[error("cannot start the client: {0}")]
    ClientRuntime(#[source] std::io::Error),
    /// reqwest could not build the client (gcs).
    #[error("cannot start the HTTP client: {}", problem(.0))]
    Start(#[source] reqwest::Error),
    /// reqwest could not build the client (azurerm).
    #[error("cannot set up the HTTP client: {}", problem(.0))]
    SetUp(#[source] reqwest::Error),
    /// reqwest could not build the client with its TLS settings (hcp, http, oci).
    #[error("cannot set up TLS: {}", problem(.0))]
    Tls(#[source] reqwest::Error),
    /// `SSL_CERT_FILE` names a file that cannot be read.
    #[error("SSL_CERT_FILE `{path}`: {}", .source.kind())]
    CertFileUnreadable {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// `SSL_CERT_FILE` names a file without a certificate.
    #[error("SSL_CERT_FILE `{path}` holds no PEM certificate")]
    CertFileEmpty { path: String },
    /// The http backend's `client_ca_certificate_pem` holds no certificate.
    #[error("`client_ca_certificate_pem` holds no PEM certificate")]
    NoCaCertificate,
    /// The http backend's client certificate and key do not load.
    #[error("cannot load the client certificate: {}", problem(.0))]
    ClientCertificate(#[source] reqwest::Error),
}

#[cfg(test)]
mod tests {
    use super::ClientError;

    #[test]
    fn the_messages_are_the_backends_own_words() {
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(
            ClientError::Runtime(io()).to_string(),
            "cannot start the HTTP client: entity not found"
        );
        assert_eq!(
            ClientError::ClientRuntime(io()).to_string(),
            "cannot start the client: entity not found"
        );
        assert_eq!(
            ClientError::CertFileUnreadable {
                path: "/etc/ca.pem".into(),
                source: io()
            }
            .to_string(),
            "SSL_CERT_FILE `/etc/ca.pem`: entity not found"
        );
        assert_eq!(
            ClientError::CertFileEmpty {
                path: "/etc/ca.pem".into()
            }
            .to_string(),
            "SSL_CERT_FILE `/etc/ca.pem` holds no PEM certificate"
        );
        assert_eq!(
            ClientError::NoCaCertificate.to_string(),
            "`client_ca_certificate_pem` holds no PEM certificate"
        );
        let builder_error = reqwest::Identity::from_pem(b"not a key").unwrap_err();
        assert!(
            ClientError::ClientCertificate(builder_error)
                .to_string()
                .starts_with("cannot load the client certificate: "),
        );
    }
}
