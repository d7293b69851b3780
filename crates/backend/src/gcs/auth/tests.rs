//! The token flows against a loopback fake of Google's endpoints: each request is recorded and
//! answered from a script, so the tests see what statectl sends (the JWT, the refresh token form,
//! the impersonation body, the metadata header) and what it makes of each answer.

use std::net::TcpListener;

use base64::Engine as _;
use rsa::pkcs1v15::{Signature, VerifyingKey};
use rsa::pkcs8::{EncodePrivateKey, LineEnding};
use rsa::sha2::Sha256;
use rsa::signature::Verifier;
use serde_json::{Value, json};

use super::*;
use crate::config::BackendConfig;
use crate::gcs::fake::{answer, fake, runtime};

fn token_of(credential: &Credential) -> Result<String, String> {
    let http = Http::new().unwrap();
    runtime()
        .block_on(credential.fetch(&http, &STORAGE_SCOPES))
        .map(|(token, _)| token.expose_str().to_owned())
        .map_err(|error| error.to_string())
}

fn settings(values: Value) -> Settings {
    Settings::read(&BackendConfig::for_tests("gcs", values), &|_| None).unwrap()
}

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn a_service_account_key_signs_a_jwt_for_its_token_uri() {
    let (url, seen) = fake(vec![answer(
        200,
        r#"{"access_token": "ya29.sa", "expires_in": 3599, "token_type": "Bearer"}"#,
    )]);
    let key = RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 1024).unwrap();
    let pem = key.to_pkcs8_pem(LineEnding::LF).unwrap();
    let json = json!({
        "type": "service_account",
        "client_email": "ci@proj.iam.gserviceaccount.com",
        "private_key_id": "abc",
        "private_key": pem.as_str(),
        "token_uri": format!("{url}/token"),
    })
    .to_string();
    let credential = Credential::find(
        &settings(json!({"bucket": "b", "credentials": json})),
        &no_env,
    )
    .unwrap();
    assert_eq!(
        credential.describe(),
        "service account `ci@proj.iam.gserviceaccount.com` (the key in `credentials`)"
    );
    assert_eq!(token_of(&credential).unwrap(), "ya29.sa");
    let request = seen.lock().unwrap()[0].clone();
    assert_eq!(request.line, "POST /token HTTP/1.1");
    let form = request.form();
    assert_eq!(
        form[0],
        (
            "grant_type".to_owned(),
            "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned()
        )
    );
    let assertion = &form[1].1;
    let parts: Vec<&str> = assertion.split('.').collect();
    let decode = |part: &str| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap()
    };
    let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
    assert_eq!(claims["iss"], "ci@proj.iam.gserviceaccount.com");
    assert_eq!(claims["aud"], format!("{url}/token"));
    // Both scopes Go's storage client asks for, as one space-separated claim.
    assert_eq!(
        claims["scope"],
        "https://www.googleapis.com/auth/devstorage.full_control https://www.googleapis.com/auth/cloud-platform"
    );
    let signature = Signature::try_from(decode(parts[2]).as_slice()).unwrap();
    VerifyingKey::<Sha256>::new(key.to_public_key())
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .unwrap();
}

#[test]
fn application_default_credentials_refresh_a_users_token_and_errors_name_no_secret() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"access_token": "ya29.user", "expires_in": 3599}"#),
        answer(
            400,
            r#"{"error": "invalid_grant", "error_description": "Token has been expired or revoked."}"#,
        ),
    ]);
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join(".config/gcloud");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("application_default_credentials.json");
    std::fs::write(
        &file,
        json!({
            "type": "authorized_user",
            "client_id": "764086051850.apps.googleusercontent.com",
            "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty",
            "refresh_token": "1//refresh-secret",
            "token_uri": format!("{url}/token"),
        })
        .to_string(),
    )
    .unwrap();
    let home_text = home.path().display().to_string();
    let env = move |name: &str| (name == "HOME").then(|| home_text.clone());
    let credential = Credential::find(&settings(json!({"bucket": "b"})), &env).unwrap();
    assert_eq!(
        credential.describe(),
        format!(
            "the user credentials in {} (client `764086051850.apps.googleusercontent.com`)",
            file.display()
        )
    );
    assert_eq!(token_of(&credential).unwrap(), "ya29.user");
    let form = seen.lock().unwrap()[0].form();
    assert!(form.contains(&("grant_type".to_owned(), "refresh_token".to_owned())));
    assert!(form.contains(&("refresh_token".to_owned(), "1//refresh-secret".to_owned())));
    let error = token_of(&credential).unwrap_err();
    assert_eq!(
        error,
        format!(
            "{url}/token answered 400 Bad Request: invalid_grant: Token has been expired or revoked."
        )
    );
    assert!(!error.contains("refresh-secret") && !format!("{credential:?}").contains("d-FL95"));
}

#[test]
fn google_application_credentials_comes_before_gclouds_file_and_the_metadata_server_is_last() {
    let folder = tempfile::tempdir().unwrap();
    let key = folder.path().join("key.json");
    std::fs::write(&key, r#"{"type": "external_account_authorized_user"}"#).unwrap();
    let key_text = key.display().to_string();
    let env =
        move |name: &str| (name == "GOOGLE_APPLICATION_CREDENTIALS").then(|| key_text.clone());
    let error = Credential::find(&settings(json!({"bucket": "b"})), &env)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!(
            "the credentials in GOOGLE_APPLICATION_CREDENTIALS ({}) are of type `external_account_authorized_user`",
            key.display()
        )),
        "{error}"
    );
    let missing =
        |name: &str| (name == "GOOGLE_APPLICATION_CREDENTIALS").then(|| "/no/such.json".to_owned());
    let error = Credential::find(&settings(json!({"bucket": "b"})), &missing)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "cannot read GOOGLE_APPLICATION_CREDENTIALS (/no/such.json): no such file"
    );

    // Nothing given or found: the metadata server, asked with its header.
    let (url, seen) = fake(vec![answer(
        200,
        r#"{"access_token": "ya29.gce", "expires_in": 100}"#,
    )]);
    let host = url.trim_start_matches("http://").to_owned();
    let empty_home = folder.path().display().to_string();
    let env = move |name: &str| match name {
        "GCE_METADATA_HOST" => Some(host.clone()),
        "HOME" => Some(empty_home.clone()),
        _ => None,
    };
    let credential = Credential::find(&settings(json!({"bucket": "b"})), &env).unwrap();
    assert_eq!(token_of(&credential).unwrap(), "ya29.gce");
    let request = seen.lock().unwrap()[0].clone();
    assert_eq!(
        request.line,
        "GET /computeMetadata/v1/instance/service-accounts/default/token HTTP/1.1"
    );
    assert_eq!(request.header("metadata-flavor"), Some("Google"));

    // No metadata server either: one line saying what was looked for.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = closed.local_addr().unwrap().to_string();
    drop(closed);
    let credential = Credential::Metadata {
        url: format!("http://{dead}/computeMetadata/v1/instance/service-accounts/default/token"),
    };
    let error = token_of(&credential).unwrap_err();
    assert!(
        error.starts_with("no credentials were given or found, and the metadata server at http://"),
        "{error}"
    );
}

#[test]
fn impersonation_asks_generate_access_token_with_the_first_token() {
    let (url, seen) = fake(vec![answer(
        200,
        r#"{"accessToken": "ya29.impersonated", "expireTime": "2030-01-01T00:00:00Z"}"#,
    )]);
    let found = Credential::find(
        &settings(json!({
            "bucket": "b",
            "access_token": "ya29.base",
            "impersonate_service_account": "deploy@p.iam.gserviceaccount.com",
            "impersonate_service_account_delegates": ["hop@p.iam.gserviceaccount.com"],
        })),
        &no_env,
    )
    .unwrap();
    assert_eq!(
        found.describe(),
        "service account `deploy@p.iam.gserviceaccount.com`, impersonated by the access token in `access_token`"
    );
    let Credential::Impersonated {
        target,
        delegates,
        url: real,
        base,
    } = found
    else {
        panic!("not impersonated")
    };
    assert_eq!(
        real,
        "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/deploy@p.iam.gserviceaccount.com:generateAccessToken"
    );
    let credential = Credential::Impersonated {
        target,
        delegates,
        url: format!(
            "{url}/v1/projects/-/serviceAccounts/deploy@p.iam.gserviceaccount.com:generateAccessToken"
        ),
        base,
    };
    assert_eq!(token_of(&credential).unwrap(), "ya29.impersonated");
    let request = seen.lock().unwrap()[0].clone();
    assert_eq!(request.header("authorization"), Some("Bearer ya29.base"));
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(
        body,
        json!({
            "delegates": ["projects/-/serviceAccounts/hop@p.iam.gserviceaccount.com"],
            "scope": [IMPERSONATED_SCOPE],
            "lifetime": "3600s",
        })
    );
}

#[test]
fn a_token_is_kept_until_it_nearly_expires() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"access_token": "first", "expires_in": 3600}"#),
        answer(200, r#"{"access_token": "second", "expires_in": 30}"#),
        answer(200, r#"{"access_token": "third", "expires_in": 3600}"#),
    ]);
    let credential = Credential::User {
        client_id: "c".to_owned(),
        client_secret: Secret::new("s"),
        refresh_token: Secret::new("r"),
        token_uri: format!("{url}/token"),
        from: "a test".to_owned(),
    };
    let tokens = Tokens::new(credential);
    let http = Http::new().unwrap();
    let runtime = runtime();
    let mut got = Vec::new();
    for _ in 0..2 {
        got.push(
            runtime
                .block_on(tokens.token(&http))
                .unwrap()
                .unwrap()
                .expose_str()
                .to_owned(),
        );
    }
    assert_eq!(got, ["first", "first"]);
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn a_broken_key_file_is_one_line_naming_where_it_came_from() {
    let error = from_json(
        r#"{"type": "service_account", "client_email": "a@b", "private_key": "nope"}"#,
        "GOOGLE_CREDENTIALS",
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "the `private_key` in GOOGLE_CREDENTIALS is not an RSA key in PEM"
    );
    let error = from_json(
        r#"{"type": "authorized_user", "client_id": "c", "client_secret": "s"}"#,
        "`credentials`",
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "the credentials in `credentials` have no `refresh_token`"
    );
}

/// Was a panic (`overflow when adding duration to instant`) for `u64::MAX`: every lifetime a
/// server may give, however absurd, gives a token (kept forever when past the clock's end, asked
/// for again when already expired), never a panic.
#[test]
fn any_lifetime_a_server_gives_is_taken_without_a_panic() {
    let lifetimes = [
        ("18446744073709551615", false),
        ("9223372036854775807", false),
        ("3000000000000000", false),
        ("0", true),
        ("1", true),
        ("-1", false),
        ("\"NaN\"", false),
        ("null", false),
    ];
    for (lifetime, renewed) in lifetimes {
        let answer = format!(r#"{{"access_token": "t", "expires_in": {lifetime}}}"#);
        let (url, seen) = fake(vec![(200, answer.clone()), (200, answer)]);
        let tokens = Tokens::new(Credential::User {
            client_id: "c".to_owned(),
            client_secret: Secret::new("s"),
            refresh_token: Secret::new("r"),
            token_uri: format!("{url}/token"),
            from: "a test".to_owned(),
        });
        let http = Http::new().unwrap();
        let runtime = runtime();
        for _ in 0..2 {
            assert_eq!(
                runtime
                    .block_on(tokens.token(&http))
                    .unwrap()
                    .expect("a token, not the emulator's none")
                    .expose_str(),
                "t",
                "{lifetime}"
            );
        }
        // A token that expires within the renewal margin is asked for again; any other is kept.
        let asked = seen.lock().unwrap().len();
        assert_eq!(asked, if renewed { 2 } else { 1 }, "{lifetime}");
    }
}
