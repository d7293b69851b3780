//! The signed assertion a service account key exchanges for an access token: a JWT (RS256) whose
//! issuer is the account, whose audience is the key's `token_uri`, for one hour, as Google's OAuth2
//! JWT bearer flow takes it.

use base64::Engine as _;
use rsa::RsaPrivateKey;
use rsa::pkcs1v15::SigningKey;
use rsa::sha2::Sha256;
use rsa::signature::{SignatureEncoding, Signer};

use super::credential_error::CredentialError;

/// The JWT for `email`'s key, asking `scope` at `audience`, issued at `now` (Unix seconds).
pub(super) fn sign(
    key: &RsaPrivateKey,
    key_id: &str,
    email: &str,
    scope: &str,
    audience: &str,
    now: u64,
) -> Result<String, CredentialError> {
    let encode = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let mut header = serde_json::json!({"alg": "RS256", "typ": "JWT"});
    if !key_id.is_empty() {
        header["kid"] = key_id.into();
    }
    let claims = serde_json::json!({
        "iss": email,
        "scope": scope,
        "aud": audience,
        "iat": now,
        "exp": now + 3600,
    });
    let signed = format!(
        "{}.{}",
        encode(header.to_string().as_bytes()),
        encode(claims.to_string().as_bytes())
    );
    let signature = SigningKey::<Sha256>::new(key.clone())
        .try_sign(signed.as_bytes())
        .map_err(CredentialError::Sign)?;
    Ok(format!("{signed}.{}", encode(&signature.to_bytes())))
}

#[cfg(test)]
mod tests {
    use rsa::pkcs1v15::{Signature, VerifyingKey};
    use rsa::signature::Verifier;

    use super::*;

    #[test]
    fn the_assertion_is_an_rs256_jwt_the_public_key_verifies() {
        let key = RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 1024).unwrap();
        let jwt = sign(
            &key,
            "kid-1",
            "sa@p.iam.gserviceaccount.com",
            "https://www.googleapis.com/auth/devstorage.full_control",
            "http://127.0.0.1:9/token",
            1_700_000_000,
        )
        .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |part: &str| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(part)
                .unwrap()
        };
        let header: serde_json::Value = serde_json::from_slice(&decode(parts[0])).unwrap();
        assert_eq!(
            header,
            serde_json::json!({"alg": "RS256", "typ": "JWT", "kid": "kid-1"})
        );
        let claims: serde_json::Value = serde_json::from_slice(&decode(parts[1])).unwrap();
        assert_eq!(claims["iss"], "sa@p.iam.gserviceaccount.com");
        assert_eq!(claims["aud"], "http://127.0.0.1:9/token");
        assert_eq!(claims["exp"], 1_700_003_600);
        let signature = Signature::try_from(decode(parts[2]).as_slice()).unwrap();
        VerifyingKey::<Sha256>::new(key.to_public_key())
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .unwrap();
    }
}
