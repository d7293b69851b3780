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
//!
//! The signatures are checked with the key sizes Go's client allows, not WebPKI's: go-plugin's client
//! accepts any certificate it pinned, and plugins not written in Go present what their TLS library
//! makes (the Python `tf` package: a self-signed RSA-1024 certificate). WebPKI wants RSA keys of 2048
//! bits or more; Go's `crypto/tls` takes 1024 to 8192 bits, so RSA handshake signatures (PKCS#1 v1.5
//! and PSS) are verified here with those bounds, and every other scheme as rustls does.

use std::fmt;
use std::sync::{Arc, LazyLock};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rsa::pkcs1::DecodeRsaPublicKey;
use rsa::pkcs8::AssociatedOid;
use rsa::sha2::{Sha256, Sha384, Sha512};
use rsa::signature::Verifier;
use rsa::traits::PublicKeyParts;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{WebPkiSupportedAlgorithms, aws_lc_rs};
use rustls::pki_types::{
    AlgorithmIdentifier, CertificateDer, InvalidSignature, PrivateKeyDer, PrivatePkcs8KeyDer,
    ServerName, SignatureVerificationAlgorithm, UnixTime, alg_id,
};
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
        // The key never leaves the process, but a plugin's output is shown: mask it there too.
        statectl_net::secrets::register(&key.serialize_pem());
        statectl_net::secrets::register_bytes(&key.serialize_der());
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
        algorithms: *GO_ALGORITHMS,
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

/// The RSA modulus sizes Go's TLS client verifies: `crypto/rsa` refuses keys under 1024 bits, and
/// `crypto/tls` refuses server keys over 8192 bits.
const RSA_BITS: std::ops::RangeInclusive<usize> = 1024..=8192;

#[derive(Debug, Clone, Copy)]
enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

#[derive(Debug, Clone, Copy)]
enum Padding {
    Pkcs1,
    Pss,
}

/// An RSA handshake signature scheme verified with Go's key sizes.
#[derive(Debug)]
struct GoRsa {
    padding: Padding,
    hash: Hash,
}

impl GoRsa {
    const fn new(padding: Padding, hash: Hash) -> GoRsa {
        GoRsa { padding, hash }
    }
}

/// Verifies `signature` over `message` with `key`, hashing with `D`. TLS fixes the PSS salt to the
/// hash's length, which the PSS verifier expects.
fn verify<D>(
    padding: Padding,
    key: rsa::RsaPublicKey,
    message: &[u8],
    signature: &[u8],
) -> Result<(), InvalidSignature>
where
    D: sha2::Digest + AssociatedOid + sha2::digest::FixedOutputReset,
{
    let verified = match padding {
        Padding::Pkcs1 => {
            let signature =
                rsa::pkcs1v15::Signature::try_from(signature).map_err(|_| InvalidSignature)?;
            rsa::pkcs1v15::VerifyingKey::<D>::new(key).verify(message, &signature)
        }
        Padding::Pss => {
            let signature =
                rsa::pss::Signature::try_from(signature).map_err(|_| InvalidSignature)?;
            rsa::pss::VerifyingKey::<D>::new(key).verify(message, &signature)
        }
    };
    verified.map_err(|_| InvalidSignature)
}

impl SignatureVerificationAlgorithm for GoRsa {
    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::RSA_ENCRYPTION
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        match (self.padding, self.hash) {
            (Padding::Pkcs1, Hash::Sha256) => alg_id::RSA_PKCS1_SHA256,
            (Padding::Pkcs1, Hash::Sha384) => alg_id::RSA_PKCS1_SHA384,
            (Padding::Pkcs1, Hash::Sha512) => alg_id::RSA_PKCS1_SHA512,
            (Padding::Pss, Hash::Sha256) => alg_id::RSA_PSS_SHA256,
            (Padding::Pss, Hash::Sha384) => alg_id::RSA_PSS_SHA384,
            (Padding::Pss, Hash::Sha512) => alg_id::RSA_PSS_SHA512,
        }
    }

    /// `public_key` is the certificate's `RSAPublicKey` (PKCS#1 DER), as WebPKI hands it over.
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        let key = rsa::RsaPublicKey::from_pkcs1_der(public_key).map_err(|_| InvalidSignature)?;
        if !RSA_BITS.contains(&(key.size() * 8)) {
            return Err(InvalidSignature);
        }
        match self.hash {
            Hash::Sha256 => verify::<Sha256>(self.padding, key, message, signature),
            Hash::Sha384 => verify::<Sha384>(self.padding, key, message, signature),
            Hash::Sha512 => verify::<Sha512>(self.padding, key, message, signature),
        }
    }
}

static RSA_PKCS1_SHA256: GoRsa = GoRsa::new(Padding::Pkcs1, Hash::Sha256);
static RSA_PKCS1_SHA384: GoRsa = GoRsa::new(Padding::Pkcs1, Hash::Sha384);
static RSA_PKCS1_SHA512: GoRsa = GoRsa::new(Padding::Pkcs1, Hash::Sha512);
static RSA_PSS_SHA256: GoRsa = GoRsa::new(Padding::Pss, Hash::Sha256);
static RSA_PSS_SHA384: GoRsa = GoRsa::new(Padding::Pss, Hash::Sha384);
static RSA_PSS_SHA512: GoRsa = GoRsa::new(Padding::Pss, Hash::Sha512);

/// The RSA schemes, verified with Go's key sizes.
static GO_RSA: [(SignatureScheme, &[&dyn SignatureVerificationAlgorithm]); 6] = [
    (SignatureScheme::RSA_PSS_SHA512, &[&RSA_PSS_SHA512]),
    (SignatureScheme::RSA_PSS_SHA384, &[&RSA_PSS_SHA384]),
    (SignatureScheme::RSA_PSS_SHA256, &[&RSA_PSS_SHA256]),
    (SignatureScheme::RSA_PKCS1_SHA512, &[&RSA_PKCS1_SHA512]),
    (SignatureScheme::RSA_PKCS1_SHA384, &[&RSA_PKCS1_SHA384]),
    (SignatureScheme::RSA_PKCS1_SHA256, &[&RSA_PKCS1_SHA256]),
];

/// rustls's handshake signature schemes with the RSA ones swapped for [`GO_RSA`]; built once (the
/// mapping must live for the program).
static GO_ALGORITHMS: LazyLock<WebPkiSupportedAlgorithms> = LazyLock::new(|| {
    let default = aws_lc_rs::default_provider().signature_verification_algorithms;
    let is_rsa = |scheme: &SignatureScheme| GO_RSA.iter().any(|(rsa, _)| rsa == scheme);
    let mapping: Vec<(
        SignatureScheme,
        &'static [&'static dyn SignatureVerificationAlgorithm],
    )> = default
        .mapping
        .iter()
        .filter(|(scheme, _)| !is_rsa(scheme))
        .copied()
        .chain(GO_RSA.iter().copied())
        .collect();
    WebPkiSupportedAlgorithms {
        all: default.all,
        mapping: Vec::leak(mapping),
    }
});

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
            algorithms: *GO_ALGORITHMS,
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

    /// Fixtures made with `openssl genrsa` and `openssl dgst -sign` (PSS with the salt as long as
    /// the hash, as TLS 1.3 uses it), in base64: an RSA-1024 key as Python's `tf` plugins make, and
    /// an RSA-512 key that Go refuses too.
    const RSA_1024_PUBLIC: &str = "MIGJAoGBAMS7AUuT+EPGQnsn/GMZuuJN16tJ6U9s7Ll364ZilxTrxw7A7tAzvNusCJhhdCA86idG+K1qvMw2bFICXspps6BvbHMPSkj/KQKb09gEkUjEWmQkIrlz0Th4ApoQRgy6oaCzZuQiI/DMaWUQ8t/bTa7gKY3tf6N9tNvYGEjjD0XpAgMBAAE=";
    const RSA_1024_PSS_SHA256: &str = "MxRHfrX6hdHyzts4CFNnaWqGbKIUt4iCoS6PywrAOf0Lk2Sl3F8mzTAQu0agrYAPHhDZmYNW5MbZEbTtqnAjZDLKFqanrVVPLgIp58Xn8/uTLItwSIO3S8HCFgkkEfFRLJg90sKSbpHJa7n1AEhtXu6Y8s2GkXxqy50iYIsYzco=";
    const RSA_1024_PKCS1_SHA256: &str = "wSOY+rrkcMi+mcL3tsVYKtUvqr3NXh6/2tmvILC6WdHyx6jrBAP0om8+VNj5YiefXSsOwKTxjKW+YTXksDjvZYZqMTp/52agnyj0yndCBcbBdfmSp9iuYz8HVt734hIXeZZ96OAMjchW/QWSLCWC++Q7LOXabQMw/S1e2MpIdfc=";
    const RSA_512_PUBLIC: &str = "MEgCQQCceFL1MPdhqE+9OGmimdyT9YB9CBtw56xim06ut9dwYUU8rju/nMRv2+q7R1Le5rhZnOZrdB7sISyHEJ1aj4uhAgMBAAE=";
    const RSA_512_PKCS1_SHA256: &str =
        "LJbEhqLXmoZF/UyLfcWLitjpZW6Y+G0QP6jJvHoNy5JCTx6by5c1iOSIXOcDNbCtbdF1PrGgE0AoM3d5bCbwiw==";
    const MESSAGE: &[u8] = b"statectl handshake";

    fn decode(text: &str) -> Vec<u8> {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .unwrap()
    }

    #[test]
    fn verifies_rsa_1024_signatures_as_go_does() {
        let key = decode(RSA_1024_PUBLIC);
        let pss = decode(RSA_1024_PSS_SHA256);
        let pkcs1 = decode(RSA_1024_PKCS1_SHA256);
        assert!(RSA_PSS_SHA256.verify_signature(&key, MESSAGE, &pss).is_ok());
        assert!(
            RSA_PKCS1_SHA256
                .verify_signature(&key, MESSAGE, &pkcs1)
                .is_ok()
        );
        // The wrong message, padding or hash does not verify.
        assert!(
            RSA_PSS_SHA256
                .verify_signature(&key, b"another", &pss)
                .is_err()
        );
        assert!(
            RSA_PKCS1_SHA256
                .verify_signature(&key, MESSAGE, &pss)
                .is_err()
        );
        assert!(
            RSA_PSS_SHA384
                .verify_signature(&key, MESSAGE, &pss)
                .is_err()
        );
        // WebPKI's own verifier refuses the same key and signature: the reason for this module.
        let webpki = aws_lc_rs::default_provider()
            .signature_verification_algorithms
            .mapping
            .iter()
            .find(|(scheme, _)| *scheme == SignatureScheme::RSA_PSS_SHA256)
            .unwrap()
            .1[0];
        assert!(webpki.verify_signature(&key, MESSAGE, &pss).is_err());
    }

    #[test]
    fn refuses_rsa_keys_go_refuses() {
        let key = decode(RSA_512_PUBLIC);
        let signature = decode(RSA_512_PKCS1_SHA256);
        assert!(
            RSA_PKCS1_SHA256
                .verify_signature(&key, MESSAGE, &signature)
                .is_err()
        );
        assert!(
            RSA_PKCS1_SHA256
                .verify_signature(b"not a key", MESSAGE, &signature)
                .is_err()
        );
        let schemes = GO_ALGORITHMS.supported_schemes();
        assert!(schemes.contains(&SignatureScheme::RSA_PSS_SHA256));
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP521_SHA512));
        assert!(schemes.contains(&SignatureScheme::ED25519));
    }
}
