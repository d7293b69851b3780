//! Checking OCI's request signatures the way the OCI API does (draft-cavage HTTP Signatures):
//!
//! ```text
//! Authorization: Signature version="1",keyId="<tenancy>/<user>/<fingerprint>",algorithm="rsa-sha256",
//!                headers="date (request-target) host",signature="<base64>"
//! ```
//! The signing string is one `name: value` line per name in `headers`, in that order, joined by `\n`
//! with no trailing newline. `(request-target)` is the lowercase method, a space, and the request
//! target exactly as sent (path and `?query`, still percent-encoded); every other name is the
//! request's header of that name, trimmed. For example:
//!
//! ```text
//! date: Sun, 22 Nov 2026 08:00:00 GMT
//! (request-target): get /20160918/instances/ocid1.instance.oc1..a
//! host: 127.0.0.1:41234
//! ```
//! The signature is RSA PKCS#1 v1.5 over SHA-256 of that string. A GET must sign `date` (or
//! `x-date`), `(request-target)` and `host`; a request with a body must also sign `content-length`,
//! `content-type` and `x-content-sha256` (the simulator only serves GETs, but checks the list all
//! the same). A date more than 5 minutes away from the simulator's clock is refused, as OCI does.

use std::time::{Duration, SystemTime};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rsa::RsaPublicKey;
use rsa::pkcs1::DecodeRsaPublicKey;
use rsa::pkcs1v15::{Signature, VerifyingKey};
use rsa::pkcs8::DecodePublicKey;
use rsa::sha2::Sha256;
use rsa::signature::Verifier;

use crate::http::Request;

/// How far a request's date may be from the clock.
const MAX_SKEW: Duration = Duration::from_secs(5 * 60);

/// The one API key the scenario accepts.
#[derive(Debug, Clone)]
pub(crate) struct OciKey {
    pub key_id: String,
    key: VerifyingKey<Sha256>,
}

/// A key that is not one, or a request whose signature is refused, and why (the 401's message).
pub(crate) type SignatureError = crate::refusal::Refusal;

impl OciKey {
    /// From a PEM public key: `PUBLIC KEY` (SubjectPublicKeyInfo, what the OCI console takes) or
    /// `RSA PUBLIC KEY` (PKCS#1).
    pub(crate) fn from_pem(key_id: String, pem: &str) -> Result<OciKey, SignatureError> {
        let key = RsaPublicKey::from_public_key_pem(pem.trim())
            .or_else(|_| RsaPublicKey::from_pkcs1_pem(pem.trim()))
            .map_err(|_| {
                "the OCI public key is not an RSA public key in PEM form (`PUBLIC KEY` or `RSA PUBLIC KEY`)"
                    .to_owned()
            })?;
        Ok(OciKey {
            key_id,
            key: VerifyingKey::new(key),
        })
    }

    /// Accepts `request` signed by this key at a date near `now`, or says why not (for the 401's
    /// message: OCI's own messages are this specific, and they save a client author hours).
    pub(crate) fn verify(&self, request: &Request, now: SystemTime) -> Result<(), SignatureError> {
        let body_signed = !matches!(
            request.method.as_str(),
            "GET" | "HEAD" | "DELETE" | "OPTIONS"
        );
        self.verify_signing(request, now, body_signed)
    }

    /// As [`OciKey::verify`], for Object Storage's PutObject and UploadPart, whose body headers
    /// need not be signed (OCI's "Special Instructions for Object Storage PUT"; the SDKs sign
    /// only `date (request-target) host` there).
    pub(crate) fn verify_unsigned_body(
        &self,
        request: &Request,
        now: SystemTime,
    ) -> Result<(), SignatureError> {
        self.verify_signing(request, now, false)
    }

    fn verify_signing(
        &self,
        request: &Request,
        now: SystemTime,
        body_signed: bool,
    ) -> Result<(), SignatureError> {
        let authorization = request
            .header("authorization")
            .ok_or("the request has no Authorization header")?;
        let parameters = parse_authorization(authorization)?;
        let parameter = |name: &str| {
            parameters
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| *value)
                .ok_or_else(|| format!("the signature has no `{name}` parameter"))
        };
        if parameter("version")? != "1" {
            return Err("the signature version must be \"1\"".into());
        }
        if parameter("keyId")? != self.key_id {
            return Err(format!("unknown keyId `{}`", parameter("keyId")?).into());
        }
        if parameter("algorithm")? != "rsa-sha256" {
            return Err("the signature algorithm must be \"rsa-sha256\"".into());
        }
        let names: Vec<String> = parameter("headers")?
            .split_ascii_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let signed = |name: &str| names.iter().any(|signed| signed == name);
        let mut required = vec!["(request-target)", "host"];
        if !signed("x-date") {
            required.push("date");
        }
        if body_signed {
            required.extend(["content-length", "content-type", "x-content-sha256"]);
        }
        if let Some(missing) = required.iter().find(|name| !signed(name)) {
            return Err(format!("the signature does not cover `{missing}`").into());
        }
        let mut lines = Vec::with_capacity(names.len());
        for name in &names {
            let value = if name == "(request-target)" {
                format!("{} {}", request.method.to_ascii_lowercase(), request.target)
            } else {
                request
                    .header(name)
                    .ok_or_else(|| format!("the signed header `{name}` is missing"))?
                    .to_owned()
            };
            lines.push(format!("{name}: {value}"));
        }
        let date_header = if signed("x-date") { "x-date" } else { "date" };
        let date = request.header(date_header).unwrap_or_default();
        let date = httpdate::parse_http_date(date)
            .map_err(|_| format!("the `{date_header}` header is not an HTTP-date"))?;
        let skew = now
            .duration_since(date)
            .or_else(|_| date.duration_since(now))
            .unwrap_or_default();
        if skew > MAX_SKEW {
            return Err(format!(
                "the `{date_header}` header is {} s away from the server's clock (5 minutes at most)",
                skew.as_secs()
            ).into());
        }
        let signature = STANDARD
            .decode(parameter("signature")?)
            .ok()
            .and_then(|bytes| Signature::try_from(bytes.as_slice()).ok())
            .ok_or("the signature is not base64")?;
        self.key
            .verify(lines.join("\n").as_bytes(), &signature)
            .map_err(|_| "the signature does not match the signing string".into())
    }
}

/// `Signature a="1",b="x"` as pairs. Values are quoted and hold no quotes (base64, ids and header
/// names), so a value ends at the next quote.
fn parse_authorization(value: &str) -> Result<Vec<(&str, &str)>, SignatureError> {
    let malformed =
        || SignatureError::from("the Authorization header is not `Signature key=\"value\",...`");
    let mut rest = value
        .strip_prefix("Signature ")
        .ok_or_else(malformed)?
        .trim();
    let mut parameters = Vec::new();
    while !rest.is_empty() {
        let (key, after) = rest.split_once("=\"").ok_or_else(malformed)?;
        let (value, after) = after.split_once('"').ok_or_else(malformed)?;
        parameters.push((key.trim(), value));
        rest = after.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Ok(parameters)
}

#[cfg(test)]
pub(crate) mod tests {
    use rsa::RsaPrivateKey;
    use rsa::pkcs1v15::SigningKey;
    use rsa::pkcs8::DecodePrivateKey;
    use rsa::signature::{SignatureEncoding, Signer};

    use super::*;

    /// A throwaway 2048-bit key made for these tests (tests/sim/README.md); it guards nothing.
    pub(crate) const PRIVATE_KEY: &str = include_str!("../../../tests/sim/oci_test_key.pem");
    pub(crate) const PUBLIC_KEY: &str = include_str!("../../../tests/sim/oci_test_key.pub.pem");
    pub(crate) const KEY_ID: &str = "ocid1.tenancy.oc1..t/ocid1.user.oc1..u/36:62:75:44";

    /// Signs `lines` the way an OCI SDK does, independently of the verifier above.
    pub(crate) fn authorization(headers: &str, lines: &[String]) -> String {
        let key = SigningKey::<Sha256>::new(RsaPrivateKey::from_pkcs8_pem(PRIVATE_KEY).unwrap());
        let signature = STANDARD.encode(key.sign(lines.join("\n").as_bytes()).to_bytes());
        format!(
            "Signature version=\"1\",keyId=\"{KEY_ID}\",algorithm=\"rsa-sha256\",headers=\"{headers}\",signature=\"{signature}\""
        )
    }

    fn request(target: &str, date: &str, authorization: &str) -> Request {
        let headers = vec![
            ("host".to_owned(), "127.0.0.1:4000".to_owned()),
            ("date".to_owned(), date.to_owned()),
            ("authorization".to_owned(), authorization.to_owned()),
        ];
        Request::new("GET", target, headers, true)
    }

    fn key() -> OciKey {
        OciKey::from_pem(KEY_ID.to_owned(), PUBLIC_KEY).unwrap()
    }

    fn signed(target: &str, now: SystemTime) -> Request {
        let date = httpdate::fmt_http_date(now);
        let authorization = authorization(
            "date (request-target) host",
            &[
                format!("date: {date}"),
                format!("(request-target): get {target}"),
                "host: 127.0.0.1:4000".to_owned(),
            ],
        );
        request(target, &date, &authorization)
    }

    #[test]
    fn accepts_what_an_sdk_signs() {
        let now = SystemTime::now();
        let target = "/20160918/vnicAttachments?compartmentId=ocid1.compartment.oc1..c&instanceId=ocid1.instance.oc1..a";
        assert_eq!(key().verify(&signed(target, now), now), Ok(()));
    }

    #[test]
    fn accepts_x_date_in_place_of_date() {
        let now = SystemTime::now();
        let date = httpdate::fmt_http_date(now);
        let target = "/20160918/instances/a";
        let mut request = request(
            target,
            "ignored",
            &authorization(
                "(request-target) host x-date",
                &[
                    format!("(request-target): get {target}"),
                    "host: 127.0.0.1:4000".to_owned(),
                    format!("x-date: {date}"),
                ],
            ),
        );
        request.headers.push(("x-date".to_owned(), date));
        assert_eq!(key().verify(&request, now), Ok(()));
    }

    #[test]
    fn refuses_a_changed_target_host_or_key() {
        let now = SystemTime::now();
        let mut other_target = signed("/20160918/instances/a", now);
        other_target.target = "/20160918/instances/b".to_owned();
        let mut other_host = signed("/20160918/instances/a", now);
        other_host.headers[0].1 = "localhost:4000".to_owned();
        for (change, request) in [
            ("another target", other_target),
            ("another host", other_host),
        ] {
            let error = key().verify(&request, now).unwrap_err().to_string();
            assert!(error.contains("does not match"), "{change}: {error}");
        }

        let other = OciKey::from_pem("someone/else/ff".to_owned(), PUBLIC_KEY).unwrap();
        let error = other
            .verify(&signed("/20160918/instances/a", now), now)
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown keyId"), "{error}");
    }

    #[test]
    fn refuses_a_date_more_than_five_minutes_off() {
        let now = SystemTime::now();
        let early = now - Duration::from_secs(301);
        let error = key()
            .verify(&signed("/x", early), now)
            .unwrap_err()
            .to_string();
        assert!(error.contains("301 s away"), "{error}");
        let late = now + Duration::from_secs(290);
        assert_eq!(key().verify(&signed("/x", late), now), Ok(()));
    }

    #[test]
    fn refuses_missing_or_malformed_parts() {
        let now = SystemTime::now();
        let date = httpdate::fmt_http_date(now);
        let cases = [
            ("", "no Authorization header"),
            ("Bearer abc", "is not `Signature"),
            ("Signature version=\"1\",keyId=\"x", "is not `Signature"),
            ("Signature version=\"1\"", "no `keyId`"),
        ];
        for (authorization, expected) in cases {
            let mut request = request("/x", &date, authorization);
            if authorization.is_empty() {
                request.headers.pop();
            }
            let error = key().verify(&request, now).unwrap_err().to_string();
            assert!(error.contains(expected), "{authorization}: {error}");
        }
        let unsigned_host = authorization(
            "date (request-target)",
            &[
                format!("date: {date}"),
                "(request-target): get /x".to_owned(),
            ],
        );
        let error = key()
            .verify(&request("/x", &date, &unsigned_host), now)
            .unwrap_err()
            .to_string();
        assert!(error.contains("does not cover `host`"), "{error}");
        let mut request = signed("/x", now);
        request.method = "POST".to_owned();
        let error = key().verify(&request, now).unwrap_err().to_string();
        assert!(error.contains("does not cover `content-length`"), "{error}");
    }

    #[test]
    fn a_put_object_need_not_sign_its_body_headers() {
        let now = SystemTime::now();
        let mut request = signed("/n/ns/b/b/o/k", now);
        request.method = "PUT".to_owned();
        // Signed as a GET is: `date (request-target) host`, with the PUT's own request target.
        let date = request.header("date").unwrap().to_owned();
        let authorization = authorization(
            "date (request-target) host",
            &[
                format!("date: {date}"),
                "(request-target): put /n/ns/b/b/o/k".to_owned(),
                "host: 127.0.0.1:4000".to_owned(),
            ],
        );
        request.headers[2].1 = authorization;
        assert_eq!(key().verify_unsigned_body(&request, now), Ok(()));
        let error = key().verify(&request, now).unwrap_err().to_string();
        assert!(error.contains("does not cover `content-length`"), "{error}");
    }

    #[test]
    fn reads_both_public_key_forms() {
        use rsa::pkcs1::EncodeRsaPublicKey;
        let pkcs1 = RsaPublicKey::from_public_key_pem(PUBLIC_KEY)
            .unwrap()
            .to_pkcs1_pem(rsa::pkcs8::LineEnding::LF)
            .unwrap();
        assert!(pkcs1.starts_with("-----BEGIN RSA PUBLIC KEY-----"));
        assert!(OciKey::from_pem(KEY_ID.to_owned(), &pkcs1).is_ok());
        let error = OciKey::from_pem(KEY_ID.to_owned(), "nope")
            .unwrap_err()
            .to_string();
        assert!(error.contains("not an RSA public key"));
    }
}
