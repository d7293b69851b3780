//! A throwaway certificate authority for TLS on loopback: the simulator's HTTPS servers and the
//! tests' own stand-ins make their CA, and the server and client certificates it signs, here.

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

/// A certificate and its private key, both PEM.
#[derive(Debug, Clone)]
pub struct Signed {
    pub certificate: String,
    pub key: String,
}

/// A self-signed CA, made anew for one run; what it signs is trusted by whoever is given
/// [`TestCa::pem`].
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("TestCa").finish_non_exhaustive()
    }
}

impl TestCa {
    /// A CA named `common_name`, with a fresh key.
    pub fn new(common_name: &str) -> Result<TestCa, rcgen::Error> {
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        let pem = params.self_signed(&key)?.pem();
        Ok(TestCa {
            issuer: Issuer::new(params, key),
            pem,
        })
    }

    /// The CA's certificate, for a client or server to trust.
    #[must_use]
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// A server certificate for `names` (host names or IP addresses), with a fresh key.
    pub fn server(&self, names: &[&str]) -> Result<Signed, rcgen::Error> {
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        self.sign(&CertificateParams::new(names)?)
    }

    /// A client certificate named `common_name`, with a fresh key.
    pub fn client(&self, common_name: &str) -> Result<Signed, rcgen::Error> {
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        self.sign(&params)
    }

    fn sign(&self, params: &CertificateParams) -> Result<Signed, rcgen::Error> {
        let key = KeyPair::generate()?;
        let certificate = params.signed_by(&key, &self.issuer)?;
        Ok(Signed {
            certificate: certificate.pem(),
            key: key.serialize_pem(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
    use std::sync::Arc;

    /// A TLS handshake in memory: a client trusting `ca` connects to `host` on a server holding
    /// `server`; the client's error, if any.
    fn handshake(ca: &str, server: &Signed, host: &str) -> Result<(), rustls::Error> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(ca.as_bytes()).unwrap())
            .unwrap();
        let client_config = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let server_config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from_pem_slice(server.certificate.as_bytes()).unwrap()],
                PrivateKeyDer::from_pem_slice(server.key.as_bytes()).unwrap(),
            )
            .unwrap();
        let name = ServerName::try_from(host.to_owned()).unwrap();
        let mut client = rustls::ClientConnection::new(Arc::new(client_config), name).unwrap();
        let mut server = rustls::ServerConnection::new(Arc::new(server_config)).unwrap();
        let mut wire = Vec::new();
        for _ in 0..10 {
            wire.clear();
            client.write_tls(&mut wire).unwrap();
            server.read_tls(&mut wire.as_slice()).unwrap();
            server.process_new_packets().unwrap();
            wire.clear();
            server.write_tls(&mut wire).unwrap();
            client.read_tls(&mut wire.as_slice()).unwrap();
            client.process_new_packets()?;
            if !client.is_handshaking() {
                return Ok(());
            }
        }
        panic!("the handshake did not finish");
    }

    #[test]
    fn a_client_trusting_the_ca_accepts_its_server_certificate_for_the_names_given_only() {
        let ca = TestCa::new("statectl test CA").unwrap();
        let server = ca.server(&["localhost", "127.0.0.1"]).unwrap();
        handshake(ca.pem(), &server, "localhost").unwrap();
        handshake(ca.pem(), &server, "127.0.0.1").unwrap();
        assert!(handshake(ca.pem(), &server, "example.com").is_err());
        let stranger = TestCa::new("another CA").unwrap();
        assert!(handshake(stranger.pem(), &server, "localhost").is_err());
    }

    #[test]
    fn a_client_certificate_is_signed_by_the_ca_not_self_signed() {
        let ca = TestCa::new("statectl test CA").unwrap();
        let client = ca.client("statectl test client").unwrap();
        assert!(
            client
                .certificate
                .starts_with("-----BEGIN CERTIFICATE-----")
        );
        assert!(client.key.starts_with("-----BEGIN PRIVATE KEY-----"));
        assert_ne!(client.certificate, ca.pem());
    }
}
