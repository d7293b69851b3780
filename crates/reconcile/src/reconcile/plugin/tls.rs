//! go-plugin's automatic mutual TLS, from the client's side: a fresh self-signed client certificate
//! per plugin (handed to the plugin in `PLUGIN_CLIENT_CERT`, as go-plugin's client does), and a rustls
//! configuration that presents it and trusts exactly the certificate the plugin printed in its
//! handshake, nothing else.
//!
//! The certificates follow go-plugin's: ECDSA P-521 keys, the DNS name `localhost` (the name the
//! client asks for), client and server authentication usages, and the CA flag (each certificate is its
//! own root). The plugin's certificate is a CA certificate used as an end entity, which WebPKI
//! verification rightly refuses in general; pinning its exact bytes is the whole trust decision here,
//! and the handshake signatures are still checked.

use std::fmt;
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{WebPkiSupportedAlgorithms, aws_lc_rs};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, SignatureScheme};

/// The name go-plugin's certificates carry and its client asks for.
pub const SERVER_NAME: &str = "localhost";

/// statectl's certificate and key for one plugin.
pub struct ClientIdentity {
    /// The certificate in PEM, for `PLUGIN_CLIENT_CERT`.
    pub certificate_pem: String,
    certificate: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl fmt::Debug for ClientIdentity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("ClientIdentity(redacted)")
    }
}

/// The plugin's mutual TLS that cannot be set up (the client certificate, the configuration).
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot make a client certificate: {0}")]
    Certificate(#[source] rcgen::Error),
    #[error("cannot set up TLS: {0}")]
    Setup(#[source] rustls::Error),
    #[error("cannot use the client certificate: {0}")]
    ClientCertificate(#[source] rustls::Error),
}

impl ClientIdentity {
    /// A new key pair and self-signed certificate.
    pub fn generate() -> Result<ClientIdentity, TlsError> {
        let failed = TlsError::Certificate;
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).map_err(failed)?;
        let mut params = CertificateParams::new(vec![SERVER_NAME.to_owned()]).map_err(failed)?;
        params
            .distinguished_name
            .push(DnType::CommonName, SERVER_NAME);
        params
            .distinguished_name
            .push(DnType::OrganizationName, "statectl");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyAgreement,
            KeyUsagePurpose::KeyCertSign,
        ];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ClientAuth,
            ExtendedKeyUsagePurpose::ServerAuth,
        ];
        let certificate = params.self_signed(&key).map_err(failed)?;
        Ok(ClientIdentity {
            certificate_pem: certificate.pem(),
            certificate: certificate.der().clone(),
            key: PrivatePkcs8KeyDer::from(key.serialize_der()),
        })
    }
}

/// The TLS configuration for one plugin: present `identity`, trust only `server_certificate` (DER),
/// speak HTTP/2 (gRPC servers in Go insist on ALPN `h2`).
pub fn client_config(
    identity: &ClientIdentity,
    server_certificate: &[u8],
) -> Result<Arc<ClientConfig>, TlsError> {
    let provider = Arc::new(aws_lc_rs::default_provider());
    let verifier = PinnedCertificate {
        certificate: server_certificate.to_vec(),
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(TlsError::Setup)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_client_auth_cert(
            vec![identity.certificate.clone()],
            PrivateKeyDer::Pkcs8(identity.key.clone_key()),
        )
        .map_err(TlsError::ClientCertificate)?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Arc::new(config))
}

/// Accepts the one certificate the plugin announced; checks handshake signatures as usual.
#[derive(Debug)]
struct PinnedCertificate {
    certificate: Vec<u8>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for PinnedCertificate {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.certificate.as_slice() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, certificate, signature, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, certificate, signature, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_certificates_look_like_go_plugins() {
        let identity = ClientIdentity::generate().unwrap();
        assert!(
            identity
                .certificate_pem
                .starts_with("-----BEGIN CERTIFICATE-----\n")
        );
        assert!(format!("{identity:?}").contains("redacted"));
        // Two identities never share a key.
        let other = ClientIdentity::generate().unwrap();
        assert_ne!(identity.certificate, other.certificate);
        assert!(client_config(&identity, other.certificate.as_ref()).is_ok());
    }

    #[test]
    fn trusts_only_the_announced_certificate() {
        let server = ClientIdentity::generate().unwrap();
        let stranger = ClientIdentity::generate().unwrap();
        let verifier = PinnedCertificate {
            certificate: server.certificate.to_vec(),
            algorithms: aws_lc_rs::default_provider().signature_verification_algorithms,
        };
        let name = ServerName::try_from(SERVER_NAME).unwrap();
        let now = UnixTime::now();
        assert!(
            verifier
                .verify_server_cert(&server.certificate, &[], &name, &[], now)
                .is_ok()
        );
        assert!(
            verifier
                .verify_server_cert(&stranger.certificate, &[], &name, &[], now)
                .is_err()
        );
        assert!(
            verifier
                .supported_verify_schemes()
                .contains(&SignatureScheme::ECDSA_NISTP521_SHA512)
        );
    }
}
