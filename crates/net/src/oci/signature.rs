//! OCI's request signing (draft-cavage HTTP Signatures, as the OCI SDKs do it): the signing string is
//! one `name: value` line per signed header, in the order of the `headers` parameter, joined by `\n`,
//! where `(request-target)` is the lowercase method, a space, and the path with its query. GET and
//! DELETE sign `date (request-target) host`; requests with a body also sign `content-length
//! content-type x-content-sha256` (the body's SHA-256, base64). RSA PKCS#1 v1.5 over SHA-256.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rsa::RsaPrivateKey;
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::DecodePrivateKey;
use rsa::sha2::{Digest, Sha256};
use rsa::signature::{SignatureEncoding, Signer};
use url::{Position, Url};

use crate::secret::Secret;

/// A loaded API signing key and its `keyId`.
#[derive(Clone)]
pub struct OciSigner {
    key_id: String,
    key: SigningKey<Sha256>,
}

impl std::fmt::Debug for OciSigner {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("OciSigner")
            .field("key_id", &self.key_id)
            .field("key", &"(redacted)")
            .finish()
    }
}

/// The headers to add to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub date: String,
    /// For requests with a body.
    pub content_sha256: Option<String>,
    pub authorization: Secret,
}

/// An OCI API key that is not an unencrypted RSA private key; the key itself is never echoed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the OCI API key is not an unencrypted RSA private key in PEM form (PKCS#1 or PKCS#8)")]
pub struct OciKeyError;

impl OciSigner {
    /// From a PEM private key (PKCS#1 `RSA PRIVATE KEY` or PKCS#8 `PRIVATE KEY`, unencrypted).
    pub fn from_pem(key_id: String, pem: &Secret) -> Result<OciSigner, OciKeyError> {
        let key = RsaPrivateKey::from_pkcs1_pem(pem.expose_str())
            .or_else(|_| RsaPrivateKey::from_pkcs8_pem(pem.expose_str()))
            .map_err(|_| OciKeyError)?;
        Ok(OciSigner {
            key_id,
            key: SigningKey::<Sha256>::new(key),
        })
    }

    /// Signs a request to `host` for `method` and `path_and_query`, at `date` (an HTTP-date), with
    /// an optional JSON body.
    pub fn sign(
        &self,
        method: &str,
        host: &str,
        path_and_query: &str,
        date: &str,
        body: Option<&[u8]>,
    ) -> Signed {
        let method = method.to_ascii_lowercase();
        let mut names = vec!["date", "(request-target)", "host"];
        let mut lines = vec![
            format!("date: {date}"),
            format!("(request-target): {method} {path_and_query}"),
            format!("host: {host}"),
        ];
        let mut content_sha256 = None;
        if let Some(body) = body {
            let digest = STANDARD.encode(Sha256::digest(body));
            names.extend(["content-length", "content-type", "x-content-sha256"]);
            lines.push(format!("content-length: {}", body.len()));
            lines.push("content-type: application/json".to_owned());
            lines.push(format!("x-content-sha256: {digest}"));
            content_sha256 = Some(digest);
        }
        let signature = STANDARD.encode(self.key.sign(lines.join("\n").as_bytes()).to_bytes());
        // Good for this request only (its date and target): kept among the last ones masked.
        crate::secrets::register_ephemeral(&signature);
        let authorization = format!(
            "Signature version=\"1\",keyId=\"{}\",algorithm=\"rsa-sha256\",headers=\"{}\",signature=\"{signature}\"",
            self.key_id,
            names.join(" "),
        );
        Signed {
            date: date.to_owned(),
            content_sha256,
            authorization: Secret::registered_apart(authorization),
        }
    }

    /// [`OciSigner::sign`] for a request to `url`: its host (with the port, when it names one
    /// other than the scheme's) and its path with the query are what is signed.
    pub fn sign_url(&self, method: &str, url: &Url, date: &str, body: Option<&[u8]>) -> Signed {
        let host = &url[Position::BeforeHost..Position::AfterPort];
        let path_and_query = &url[Position::BeforePath..Position::AfterQuery];
        self.sign(method, host, path_and_query, date, body)
    }
}

#[cfg(test)]
mod tests {
    use rsa::pkcs1v15::VerifyingKey;
    use rsa::pkcs8::EncodePrivateKey;
    use rsa::signature::Verifier;

    use super::*;

    /// A signer with a fresh key, and the key (to verify with).
    fn test_signer(key_id: &str) -> (OciSigner, RsaPrivateKey) {
        // A small throwaway key keeps the test fast; real keys are 2048 bits or more.
        let key = RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 1024).unwrap();
        let pem = Secret::new(
            key.to_pkcs8_pem(rsa::pkcs8::LineEnding::LF)
                .unwrap()
                .to_string(),
        );
        (OciSigner::from_pem(key_id.into(), &pem).unwrap(), key)
    }

    #[test]
    fn signs_the_string_oci_verifies() {
        let (signer, key) = test_signer("tenancy/user/aa:bb");
        let date = "Sun, 22 Nov 2026 08:00:00 GMT";
        let signed = signer.sign(
            "GET",
            "iaas.eu-frankfurt-1.oraclecloud.com",
            "/20160918/instances/ocid1.instance.oc1..x?a=b",
            date,
            None,
        );
        let header = signed.authorization.expose_str();
        assert!(header.starts_with("Signature version=\"1\",keyId=\"tenancy/user/aa:bb\",algorithm=\"rsa-sha256\",headers=\"date (request-target) host\",signature=\""), "{header}");
        let encoded = header
            .rsplit("signature=\"")
            .next()
            .unwrap()
            .trim_end_matches('"');
        let signature =
            rsa::pkcs1v15::Signature::try_from(STANDARD.decode(encoded).unwrap().as_slice())
                .unwrap();
        let expected = format!(
            "date: {date}\n(request-target): get /20160918/instances/ocid1.instance.oc1..x?a=b\nhost: iaas.eu-frankfurt-1.oraclecloud.com"
        );
        VerifyingKey::<Sha256>::new(key.to_public_key())
            .verify(expected.as_bytes(), &signature)
            .unwrap();
        assert!(format!("{signer:?} {signed:?}").contains("(redacted)"));
        assert!(!format!("{signed:?}").contains(encoded));
    }

    #[test]
    fn a_url_signs_its_host_with_a_named_port_and_its_path_with_the_query() {
        let (signer, _) = test_signer("t/u/f");
        for (url, host, path_and_query) in [
            (
                "https://h.example.com/n/x/b/y?a=b",
                "h.example.com",
                "/n/x/b/y?a=b",
            ),
            ("http://127.0.0.1:8080/v3/x", "127.0.0.1:8080", "/v3/x"),
            ("https://h:443/x#f", "h", "/x"),
            ("http://[::1]:9/a?", "[::1]:9", "/a?"),
        ] {
            let from_url = signer.sign_url("GET", &Url::parse(url).unwrap(), "d", None);
            let given = signer.sign("GET", host, path_and_query, "d", None);
            assert_eq!(from_url, given, "{url}");
        }
    }

    #[test]
    fn a_body_adds_its_digest_and_headers() {
        let (signer, _) = test_signer("t/u/f");
        let signed = signer.sign("POST", "h", "/x", "d", Some(b"{}"));
        assert!(signed.authorization.expose_str().contains(
            "headers=\"date (request-target) host content-length content-type x-content-sha256\""
        ));
        assert_eq!(
            signed.content_sha256.as_deref(),
            Some("RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=")
        );
    }

    #[test]
    fn refuses_what_is_not_an_rsa_key() {
        let error = OciSigner::from_pem(
            "k".into(),
            &Secret::new("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("not an unencrypted RSA private key"));
        assert!(!error.contains("nope"));
    }
}
