//! Workload identity federation against a loopback fake of the token exchanges (the CI's token
//! service, Google's STS, the IAM credentials API): each request as the fake saw it (form fields,
//! headers, JSON body) is compared with what Terraform 1.15.5's gcs backend sends for the same file,
//! and each hostile answer (garbage, a huge body, an absurd lifetime, an error echoing the token) is
//! one line without the token.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};

use crate::config::BackendConfig;
use crate::gcs::auth::{Credential, STORAGE_SCOPES, Tokens};
use crate::gcs::client::Http;
use crate::gcs::fake::{answer, fake, oversized_token_answer, runtime};
use crate::gcs::settings::Settings;

const AUDIENCE: &str =
    "//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/ci/providers/gh";
const JWT_TYPE: &str = "urn:ietf:params:oauth:token-type:jwt";

/// The credential for a credentials JSON given as `credentials`, with `env` for the variables.
fn credential(file: &Value, env: &[(&str, &str)]) -> Result<Credential, String> {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    let lookup = move |name: &str| {
        env.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let config = BackendConfig::for_tests(
        "gcs",
        json!({"bucket": "b", "credentials": file.to_string()}),
    );
    Credential::find(&Settings::read(&config, &lookup).unwrap(), &lookup)
        .map_err(|error| error.to_string())
}

fn fetch(credential: &Credential) -> Result<(String, Duration), String> {
    let http = Http::new().unwrap();
    runtime()
        .block_on(credential.fetch(&http, &STORAGE_SCOPES))
        .map(|(token, lifetime)| (token.expose_str().to_owned(), lifetime))
        .map_err(|error| error.to_string())
}

/// A subject token file `name` holding `token` (its folder removed when the guard is dropped),
/// and the external account file that reads it, exchanged at `url`'s `/sts`.
fn over_token_file(url: &str, name: &str, token: &str) -> (tempfile::TempDir, PathBuf, Value) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    std::fs::write(&path, token).unwrap();
    let file = file_over(url, &json!({"file": path.to_str().unwrap()}));
    (folder, path, file)
}

/// An external account file over `source`, exchanged at `url`'s `/sts`.
fn file_over(url: &str, source: &Value) -> Value {
    json!({
        "type": "external_account",
        "audience": AUDIENCE,
        "subject_token_type": JWT_TYPE,
        "token_url": format!("{url}/sts"),
        "credential_source": source,
    })
}

/// What google-github-actions/auth writes: the token service's URL with its request token as a
/// bearer, the JSON answer's `value`, and the service account to impersonate. The three requests
/// are the ones Terraform 1.15.5 sends for the same file (recorded from it): the form's fields in
/// the same order, the scopes of Go's storage client on the impersonation.
#[test]
fn github_actions_file_fetches_the_oidc_token_exchanges_it_and_impersonates() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"count": 1, "value": "gh.oidc.jwt"}"#),
        answer(
            200,
            r#"{"access_token": "federated", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "Bearer", "expires_in": 3599}"#,
        ),
        answer(
            200,
            r#"{"accessToken": "ya29.impersonated", "expireTime": "2099-01-01T00:00:00Z"}"#,
        ),
    ]);
    let mut file = file_over(
        &url,
        &json!({
            "url": format!("{url}/oidc?api-version=2.0&audience=https://iam.googleapis.com/x"),
            "headers": {"Authorization": "Bearer gh-request-token"},
            "format": {"type": "json", "subject_token_field_name": "value"},
        }),
    );
    file["service_account_impersonation_url"] = json!(format!(
        "{url}/v1/projects/-/serviceAccounts/ci@p.iam.gserviceaccount.com:generateAccessToken"
    ));
    let credential = credential(&file, &[]).unwrap();
    assert_eq!(
        credential.describe(),
        "service account `ci@p.iam.gserviceaccount.com` through workload identity federation (the external account credentials in `credentials`)"
    );
    let (token, lifetime) = fetch(&credential).unwrap();
    assert_eq!(token, "ya29.impersonated");
    assert!(lifetime > Duration::from_secs(3600), "{lifetime:?}");

    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen[0].line,
        "GET /oidc?api-version=2.0&audience=https://iam.googleapis.com/x HTTP/1.1"
    );
    assert_eq!(
        seen[0].header("authorization"),
        Some("Bearer gh-request-token")
    );
    assert_eq!(seen[1].line, "POST /sts HTTP/1.1");
    assert_eq!(
        seen[1].header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(seen[1].header("authorization"), None);
    assert_eq!(
        seen[1].header("x-goog-api-client"),
        Some("google-byoid-sdk source/url sa-impersonation/true config-lifetime/false")
    );
    // Terraform's body, byte for byte: the federated token is asked only to impersonate.
    assert_eq!(
        seen[1].body,
        "audience=%2F%2Fiam.googleapis.com%2Fprojects%2F123%2Flocations%2Fglobal%2FworkloadIdentityPools%2Fci%2Fproviders%2Fgh&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token&scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloud-platform&subject_token=gh.oidc.jwt&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Ajwt"
    );
    assert_eq!(
        seen[2].line,
        "POST /v1/projects/-/serviceAccounts/ci@p.iam.gserviceaccount.com:generateAccessToken HTTP/1.1"
    );
    assert_eq!(seen[2].header("authorization"), Some("Bearer federated"));
    assert_eq!(
        seen[2].body,
        r#"{"lifetime":"3600s","scope":["https://www.googleapis.com/auth/devstorage.full_control","https://www.googleapis.com/auth/cloud-platform"]}"#
    );
}

/// What `gcloud iam workload-identity-pools create-cred-config --credential-source-file` writes for
/// GitLab (its `id_tokens` written to a file): the file read and trimmed, no impersonation (the
/// STS token is used directly, for the storage scopes), a client ID and secret as Basic
/// authentication, and a configured lifetime said in the metrics header.
#[test]
fn gitlab_token_file_is_read_afresh_and_exchanged_for_the_storage_scopes() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"access_token": "sts-1", "expires_in": 3600}"#),
        answer(200, r#"{"access_token": "sts-2", "expires_in": 1800}"#),
    ]);
    let (_folder, path, mut file) =
        over_token_file(&url, "gitlab_oidc_token", "  gitlab.jwt.one \n");
    file["client_id"] = json!("cid");
    file["client_secret"] = json!("csecret");
    let credential = credential(&file, &[]).unwrap();
    assert_eq!(
        credential.describe(),
        "workload identity federation (the external account credentials in `credentials`)"
    );
    assert_eq!(
        fetch(&credential).unwrap(),
        ("sts-1".to_owned(), Duration::from_secs(3600))
    );
    // The CI rotates the file; the next exchange sends the new token.
    std::fs::write(&path, "gitlab.jwt.two").unwrap();
    assert_eq!(fetch(&credential).unwrap().0, "sts-2");

    let seen = seen.lock().unwrap().clone();
    let basic = base64::engine::general_purpose::STANDARD.encode("cid:csecret");
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Basic {basic}").as_str())
    );
    assert_eq!(
        seen[0].header("x-goog-api-client"),
        Some("google-byoid-sdk source/file sa-impersonation/false config-lifetime/false")
    );
    let form = seen[0].form();
    let field = |name: &str| {
        form.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    assert_eq!(field("subject_token"), Some("gitlab.jwt.one"));
    assert_eq!(
        field("scope"),
        Some(
            "https://www.googleapis.com/auth/devstorage.full_control https://www.googleapis.com/auth/cloud-platform"
        )
    );
    assert_eq!(field("audience"), Some(AUDIENCE));
    assert_eq!(field("options"), None);
    assert!(seen[1].body.contains("subject_token=gitlab.jwt.two"));
}

/// A workforce pool's user project goes in `options` when no client ID is given; the lifetime set
/// in the file is asked for; a token file of JSON gives its field.
#[test]
fn workforce_options_and_a_configured_lifetime_are_sent() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"access_token": "sts", "expires_in": 3600}"#),
        answer(
            200,
            r#"{"accessToken": "sa", "expireTime": "2099-01-01T00:00:00.5Z"}"#,
        ),
    ]);
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("token.json");
    std::fs::write(&path, r#"{"id_token": "k8s.jwt"}"#).unwrap();
    let mut file = file_over(
        &url,
        &json!({"file": path.to_str().unwrap(), "format": {"type": "json", "subject_token_field_name": "id_token"}}),
    );
    file["audience"] =
        json!("//iam.googleapis.com/locations/global/workforcePools/staff/providers/okta");
    file["workforce_pool_user_project"] = json!("billing-project");
    file["service_account_impersonation_url"] = json!(format!(
        "{url}/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken"
    ));
    file["service_account_impersonation"] = json!({"token_lifetime_seconds": 600});
    let credential = credential(&file, &[]).unwrap();
    assert_eq!(fetch(&credential).unwrap().0, "sa");
    let seen = seen.lock().unwrap().clone();
    let form = seen[0].form();
    assert!(form.contains(&("subject_token".to_owned(), "k8s.jwt".to_owned())));
    assert!(form.contains(&(
        "options".to_owned(),
        r#"{"userProject":"billing-project"}"#.to_owned()
    )));
    assert_eq!(
        seen[0].header("x-goog-api-client"),
        Some("google-byoid-sdk source/file sa-impersonation/true config-lifetime/true")
    );
    let body: Value = serde_json::from_str(&seen[1].body).unwrap();
    assert_eq!(body["lifetime"], "600s");
}

/// An executable source runs only with GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1, gets the
/// GOOGLE_EXTERNAL_ACCOUNT_* variables, and its output file is used while its token is fresh.
#[test]
fn an_executable_runs_only_when_allowed_and_its_output_file_is_reused() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"access_token": "from-exec", "expires_in": 3600}"#),
        answer(200, r#"{"access_token": "from-file", "expires_in": 3600}"#),
    ]);
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("token.sh");
    let seen_env = folder.path().join("env");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nenv | grep ^GOOGLE_EXTERNAL_ACCOUNT_ | sort > {}\necho '{{\"version\": 1, \"success\": true, \"token_type\": \"urn:ietf:params:oauth:token-type:id_token\", \"id_token\": \"exec.jwt\", \"expiration_time\": 4102444800}}'\n",
            seen_env.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let output = folder.path().join("cache.json");
    let file = file_over(
        &url,
        &json!({"executable": {"command": format!("{} --flag", script.display()), "timeout_millis": 5000, "output_file": output.to_str().unwrap()}}),
    );
    let refused = fetch(&credential(&file, &[]).unwrap()).unwrap_err();
    assert_eq!(
        refused,
        format!(
            "the external account credentials in `credentials` get their token by running `{}`, which Google's libraries do only with GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1",
            script.display()
        )
    );
    let allowed = credential(&file, &[("GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES", "1")]).unwrap();
    assert_eq!(fetch(&allowed).unwrap().0, "from-exec");
    assert_eq!(
        std::fs::read_to_string(&seen_env).unwrap(),
        format!(
            "GOOGLE_EXTERNAL_ACCOUNT_AUDIENCE={AUDIENCE}\nGOOGLE_EXTERNAL_ACCOUNT_INTERACTIVE=0\nGOOGLE_EXTERNAL_ACCOUNT_OUTPUT_FILE={}\nGOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE={JWT_TYPE}\n",
            output.display()
        )
    );
    // A fresh token in the output file is taken without running the command (which may be
    // forbidden by then); an expired one is not.
    std::fs::write(
        &output,
        r#"{"version": 1, "success": true, "token_type": "urn:ietf:params:oauth:token-type:jwt", "id_token": "cached.jwt", "expiration_time": 4102444800}"#,
    )
    .unwrap();
    assert_eq!(
        fetch(&credential(&file, &[]).unwrap()).unwrap().0,
        "from-file"
    );
    let seen = seen.lock().unwrap().clone();
    assert!(seen[0].body.contains("subject_token=exec.jwt"));
    assert!(seen[1].body.contains("subject_token=cached.jwt"));
    std::fs::write(
        &output,
        r#"{"version": 1, "success": true, "token_type": "urn:ietf:params:oauth:token-type:jwt", "id_token": "old.jwt", "expiration_time": 1}"#,
    )
    .unwrap();
    assert!(
        fetch(&credential(&file, &[]).unwrap())
            .unwrap_err()
            .contains("GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1")
    );
    // An answer reporting failure is said with its code and message.
    std::fs::write(
        &script,
        "#!/bin/sh\necho '{\"version\": 1, \"success\": false, \"code\": \"401\", \"message\": \"not logged in\"}'\n",
    )
    .unwrap();
    std::fs::remove_file(&output).unwrap();
    assert_eq!(
        fetch(&allowed).unwrap_err(),
        format!(
            "the answer of `{}` (`credential_source.executable`) says it failed: (401) not logged in",
            script.display()
        )
    );
}

/// A token file missing, empty, huge or of the wrong shape: one line naming it, nothing sent.
#[test]
fn a_bad_token_file_is_one_line_naming_it_and_nothing_is_sent() {
    let (url, seen) = fake(Vec::new());
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("token");
    let name = path.display().to_string();
    let file = file_over(&url, &json!({"file": name}));
    let error = |contents: Option<&[u8]>| {
        match contents {
            Some(bytes) => std::fs::write(&path, bytes).unwrap(),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
        fetch(&credential(&file, &[]).unwrap()).unwrap_err()
    };
    let what = format!("the subject token file `{name}` (`credential_source.file`)");
    assert_eq!(error(None), format!("cannot read {what}: no such file"));
    assert_eq!(
        error(Some(b" \n")),
        format!("{what} holds no token (it is empty)")
    );
    assert_eq!(
        error(Some(&vec![b'a'; (1 << 20) + 1])),
        format!("{what} is larger than 1024 KiB; a token is a few kilobytes")
    );
    assert_eq!(error(Some(&[0xff, 0xfe])), format!("{what} is not text"));
    let json_file = file_over(
        &url,
        &json!({"file": name, "format": {"type": "json", "subject_token_field_name": "value"}}),
    );
    std::fs::write(&path, r#"{"other": "x"}"#).unwrap();
    assert_eq!(
        fetch(&credential(&json_file, &[]).unwrap()).unwrap_err(),
        format!("{what} has no `value` (`subject_token_field_name`)")
    );
    assert!(seen.lock().unwrap().is_empty());
}

/// The STS answering garbage, a huge body, or a lifetime that is missing, zero, negative or not a
/// whole number: refused, one line each; an absurdly long one is kept a day at most, no overflow.
#[test]
fn hostile_sts_answers_are_refused_and_an_absurd_lifetime_does_not_overflow() {
    let (url, _) = fake(vec![
        answer(200, "<html>gateway</html>"),
        oversized_token_answer(),
        answer(200, r#"{"access_token": "t"}"#),
        answer(200, r#"{"access_token": "t", "expires_in": 0}"#),
        answer(200, r#"{"access_token": "t", "expires_in": -5}"#),
        answer(200, r#"{"access_token": "t", "expires_in": 1e30}"#),
        answer(200, r#"{"expires_in": 3600}"#),
        answer(
            200,
            r#"{"access_token": "forever", "expires_in": 18446744073709551615}"#,
        ),
    ]);
    let (_folder, _, file) = over_token_file(&url, "token", "jwt");
    let credential = credential(&file, &[]).unwrap();
    let sts = format!("{url}/sts");
    assert_eq!(
        fetch(&credential).unwrap_err(),
        format!("the Security Token Service at {sts} answered 200 with no token (not JSON)")
    );
    assert_eq!(
        fetch(&credential).unwrap_err(),
        format!(
            "POST {sts} (the STS token exchange): the answer is larger than 1024 KiB; statectl stops there"
        )
    );
    let no_lifetime = format!(
        "the Security Token Service at {sts} answered without a valid `expires_in` (a positive whole number of seconds)"
    );
    for _ in 0..4 {
        assert_eq!(fetch(&credential).unwrap_err(), no_lifetime);
    }
    assert_eq!(
        fetch(&credential).unwrap_err(),
        format!("the Security Token Service at {sts} answered without an `access_token`")
    );
    // 2^64 - 1 seconds: taken, kept (no second request), and no `Instant` overflow.
    let tokens = Tokens::new(credential);
    let http = Http::new().unwrap();
    let runtime = runtime();
    for _ in 0..2 {
        let token = runtime.block_on(tokens.token(&http)).unwrap().unwrap();
        assert_eq!(token.expose_str(), "forever");
    }
}

/// An STS or token service that echoes what it was sent in its error: the message keeps the
/// status and the error, never the subject token, the client secret or the request token.
#[test]
fn a_token_echoed_in_an_error_is_redacted() {
    let (url, _) = fake(vec![
        answer(
            400,
            r#"{"error": "invalid_grant", "error_description": "The token secret.oidc.jwt does not match the audience; client sts-client-secret"}"#,
        ),
        answer(401, "token gh-request-token-123 is not valid\n"),
    ]);
    let (_folder, _, mut file) = over_token_file(&url, "token", "secret.oidc.jwt");
    file["client_id"] = json!("cid");
    file["client_secret"] = json!("sts-client-secret");
    let credential = credential(&file, &[]).unwrap();
    let error = fetch(&credential).unwrap_err();
    assert_eq!(
        error,
        format!(
            "the Security Token Service at {url}/sts refused the exchange (400 Bad Request: invalid_grant: The token *** does not match the audience; client ***)"
        )
    );
    assert!(!format!("{credential:?}").contains("sts-client-secret"));

    let url_file = file_over(
        &url,
        &json!({"url": format!("{url}/oidc?x=1"), "headers": {"Authorization": "Bearer gh-request-token-123"}}),
    );
    let error = fetch(&credential_of(&url_file)).unwrap_err();
    assert_eq!(
        error,
        format!(
            "the subject token URL {url}/oidc (`credential_source.url`) answered 401 Unauthorized: token *** is not valid"
        )
    );
}

fn credential_of(file: &Value) -> Credential {
    credential(file, &[]).unwrap()
}

/// What statectl does not read, or Google's libraries refuse, is refused when the backend opens.
#[test]
fn unreadable_files_are_refused_by_name() {
    let refused = |file: Value| credential(&file, &[]).unwrap_err();
    let base = |source: Value| file_over("http://127.0.0.1:9", &source);
    assert_eq!(
        refused(json!({"type": "external_account", "subject_token_type": JWT_TYPE})),
        "the external account credentials in `credentials` have no `audience`"
    );
    assert_eq!(
        refused(base(
            json!({"environment_id": "aws1", "region_url": "http://x"})
        )),
        "the external account credentials in `credentials` take their token from AWS (`environment_id`), which statectl does not read yet"
    );
    assert_eq!(
        refused(base(
            json!({"certificate": {"use_default_certificate_config": true}})
        )),
        "the external account credentials in `credentials` authenticate with an X.509 certificate, which statectl does not read yet"
    );
    assert_eq!(
        refused(base(json!({"file": "/t", "format": {"type": "xml"}}))),
        "`credential_source.format.type` in `credentials` is `xml`; Google's libraries take `text` or `json`"
    );
    assert_eq!(
        refused(base(
            json!({"executable": {"command": "x", "timeout_millis": 200}})
        )),
        "`credential_source.executable.timeout_millis` in `credentials` must be between 5000 and 120000"
    );
    let mut workforce = base(json!({"file": "/t"}));
    workforce["workforce_pool_user_project"] = json!("p");
    assert_eq!(
        refused(workforce),
        "the external account credentials in `credentials` set `workforce_pool_user_project`, which only a workforce pool's audience takes"
    );
    // Without `token_url`, Google's STS in the file's universe.
    let mut default = base(json!({"file": "/t"}));
    default.as_object_mut().unwrap().remove("token_url");
    let Credential::External(account) = credential(&default, &[]).unwrap() else {
        panic!("not an external account")
    };
    assert!(
        format!("{account:?}").contains("token_url: \"https://sts.googleapis.com/v1/token\""),
        "{account:?}"
    );
}

/// STORAGE_EMULATOR_HOST: no credential is looked for (not even a broken one) and no token asked.
#[test]
fn an_emulator_gets_no_credential_and_no_token() {
    let config = BackendConfig::for_tests("gcs", json!({"bucket": "b"}));
    let env = |name: &str| (name == "STORAGE_EMULATOR_HOST").then(|| "localhost:4443".to_owned());
    let credential = Credential::find(&Settings::read(&config, &env).unwrap(), &env).unwrap();
    assert_eq!(
        credential.describe(),
        "no credentials (STORAGE_EMULATOR_HOST names the emulator `localhost:4443`)"
    );
    let tokens = Tokens::new(credential);
    let http = Http::new().unwrap();
    assert!(runtime().block_on(tokens.token(&http)).unwrap().is_none());
}
