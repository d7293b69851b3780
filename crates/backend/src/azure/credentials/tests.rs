//! Azure AD tokens against a loopback fake of the token exchanges (Azure AD's token endpoint, the
//! metadata service, GitHub's and Azure DevOps' OIDC token services): each request as the fake saw
//! it (the form go-azure-sdk posts, its headers, the query) and each hostile answer (garbage, a huge
//! body, an error echoing the token, an absurd lifetime), one line each without a secret.

use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::azure::client::{Client, Request};
use crate::azure::settings::{Credential, STORAGE_RESOURCE, Settings};
use crate::config::BackendConfig;
use crate::gcs::fake::{Seen, answer, fake, oversized_token_answer, runtime};

const TENANT: &str = "00000000-1111-2222-3333-444444444444";
const CLIENT: &str = "55555555-6666-7777-8888-999999999999";

/// The backend's settings for `values` and `vars`, its Azure AD login at `login` (the fake).
fn settings(values: &Value, vars: &[(&str, &str)], login: &str) -> Settings {
    let mut all = json!({
        "storage_account_name": "acct", "container_name": "tfstate", "key": "prod.tfstate",
        "use_azuread_auth": true,
    });
    all.as_object_mut()
        .unwrap()
        .extend(values.as_object().unwrap().clone());
    let config = BackendConfig::for_tests("azurerm", all);
    let mut settings = Settings::read(&config, &|name| {
        vars.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    })
    .unwrap();
    settings.cloud.login = Box::leak(login.to_owned().into_boxed_str());
    settings
}

fn identity(settings: &Settings) -> &Identity {
    match &settings.credential {
        Credential::AzureAd(identity) => identity,
        other => panic!("not Azure AD: {other:?}"),
    }
}

/// A storage token for `settings`' identity: its text and lifetime.
fn storage_token(settings: &Settings) -> Result<(String, Option<Duration>), String> {
    let http = reqwest::Client::new();
    runtime()
        .block_on(token(
            &http,
            &settings.cloud,
            identity(settings),
            STORAGE_RESOURCE,
        ))
        .map(|token| (text(&token.secret).to_owned(), token.lifetime))
        .map_err(|error| error.to_string())
}

/// A storage token for the identity `vars` name, no argument given, the login at `login`.
fn storage_token_with(
    vars: &[(&str, &str)],
    login: &str,
) -> Result<(String, Option<Duration>), String> {
    storage_token(&settings(&json!({}), vars, login))
}

/// The tenant and client IDs, then `more` variables.
fn ids_and<'a>(more: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut vars = vec![("ARM_TENANT_ID", TENANT), ("ARM_CLIENT_ID", CLIENT)];
    vars.extend_from_slice(more);
    vars
}

/// The tenant and client IDs with `ARM_USE_OIDC`, then `more` variables.
fn oidc_and<'a>(more: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    ids_and(&[&[("ARM_USE_OIDC", "true")], more].concat())
}

/// A GitHub Actions job's variables with OIDC on: its token service at `request_url`, asked with
/// the request token `gh-request-token`.
fn github_job(request_url: &str) -> Vec<(&str, &str)> {
    oidc_and(&[
        ("ACTIONS_ID_TOKEN_REQUEST_URL", request_url),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "gh-request-token"),
    ])
}

/// The first request `seen` went to the CI's OIDC token service (`line`, with the request token
/// `bearer` and the `header` it wants), and the token it gave, `assertion`, was the client
/// assertion of the second, Azure AD's token request.
fn assert_oidc_exchange(
    seen: &[Seen],
    line: &str,
    bearer: &str,
    (header, value): (&str, &str),
    assertion: &str,
) {
    assert_eq!(seen[0].line, line);
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {bearer}").as_str())
    );
    assert_eq!(seen[0].header(header), Some(value));
    assert!(
        seen[1]
            .body
            .starts_with(&format!("client_assertion={assertion}&")),
        "{}",
        seen[1].body
    );
}

/// `ARM_USE_OIDC` with `ARM_OIDC_TOKEN`: the client-credentials grant with the token as the
/// client assertion, in go-azure-sdk's form (keys sorted, v2 scope), at the tenant's endpoint.
#[test]
fn a_given_oidc_token_is_the_client_assertion_for_the_storage_scope() {
    let (url, seen) = fake(vec![answer(
        200,
        r#"{"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": "aad.storage"}"#,
    )]);
    let vars = oidc_and(&[("ARM_OIDC_TOKEN", "ci.oidc.jwt")]);
    let settings = settings(&json!({}), &vars, &url);
    assert_eq!(
        storage_token(&settings).unwrap(),
        ("aad.storage".to_owned(), Some(Duration::from_secs(3599)))
    );
    let request = seen.lock().unwrap()[0].clone();
    assert_eq!(
        request.line,
        format!("POST /{TENANT}/oauth2/v2.0/token HTTP/1.1")
    );
    assert_eq!(
        request.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(request.header("accept"), Some("application/json"));
    assert_eq!(
        request.body,
        format!(
            "client_assertion=ci.oidc.jwt&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_id={CLIENT}&grant_type=client_credentials&scope=https%3A%2F%2Fstorage.azure.com%2F.default"
        )
    );
}

/// GitHub Actions: the token service asked for Azure's audience with the request token as a
/// bearer, its `value` then the assertion; an audience the URL already names is kept.
#[test]
fn github_actions_token_service_is_asked_with_azures_audience() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"count": 1, "value": "gh.jwt"}"#),
        answer(200, r#"{"access_token": "aad.1", "expires_in": "3600"}"#),
        answer(200, r#"{"value": "gh.jwt.2"}"#),
        answer(200, r#"{"access_token": "aad.2"}"#),
    ]);
    let oidc = format!("{url}/_apis/token?api-version=2.0");
    let vars = github_job(&oidc);
    let github = settings(&json!({}), &vars, &url);
    assert_eq!(
        storage_token(&github).unwrap(),
        ("aad.1".to_owned(), Some(Duration::from_secs(3600)))
    );
    assert_oidc_exchange(
        &seen.lock().unwrap(),
        "GET /_apis/token?api-version=2.0&audience=api%3A%2F%2FAzureADTokenExchange HTTP/1.1",
        "gh-request-token",
        ("accept", "application/json"),
        "gh.jwt",
    );

    let given = format!("{url}/_apis/token?audience=custom");
    let vars = oidc_and(&[
        ("ARM_OIDC_REQUEST_URL", given.as_str()),
        ("ARM_OIDC_REQUEST_TOKEN", "other"),
    ]);
    assert_eq!(
        storage_token_with(&vars, &url).unwrap(),
        ("aad.2".to_owned(), None)
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[2].line, "GET /_apis/token?audience=custom HTTP/1.1");
}

/// Azure DevOps: with `ado_pipeline_service_connection_id`, its OIDC endpoint is POSTed with the
/// API version and the service connection, and its `oidcToken` is the assertion.
#[test]
fn azure_devops_oidc_names_the_service_connection() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"oidcToken": "ado.jwt"}"#),
        answer(200, r#"{"access_token": "aad.ado"}"#),
    ]);
    let oidc = format!("{url}/org/_apis/distributedtask/hubs/build/plans/p/jobs/j/oidctoken");
    let vars = oidc_and(&[
        ("SYSTEM_OIDCREQUESTURI", oidc.as_str()),
        ("SYSTEM_ACCESSTOKEN", "ado-access-token"),
        ("ARM_ADO_PIPELINE_SERVICE_CONNECTION_ID", "conn-1"),
    ]);
    assert_eq!(storage_token_with(&vars, &url).unwrap().0, "aad.ado");
    assert_oidc_exchange(
        &seen.lock().unwrap(),
        "POST /org/_apis/distributedtask/hubs/build/plans/p/jobs/j/oidctoken?api-version=7.1&audience=api%3A%2F%2FAzureADTokenExchange&serviceConnectionId=conn-1 HTTP/1.1",
        "ado-access-token",
        ("content-type", "application/json"),
        "ado.jwt",
    );
}

/// `ARM_USE_MSI`: the metadata service asked with `Metadata: true` for Storage's resource, with
/// the client ID of a user-assigned identity; `expires_in` as the string the service writes.
#[test]
fn a_managed_identity_asks_the_metadata_service() {
    let (url, seen) = fake(vec![
        answer(
            200,
            r#"{"access_token": "msi.token", "expires_in": "86399", "expires_on": "1900000000", "resource": "https://storage.azure.com", "token_type": "Bearer"}"#,
        ),
        answer(200, r#"{"access_token": "msi.system"}"#),
    ]);
    let endpoint = format!("{url}/metadata/identity/oauth2/token");
    let user_assigned = settings(
        &json!({}),
        &[
            ("ARM_USE_MSI", "true"),
            ("ARM_MSI_ENDPOINT", endpoint.as_str()),
            ("ARM_CLIENT_ID", CLIENT),
        ],
        &url,
    );
    assert_eq!(
        storage_token(&user_assigned).unwrap(),
        ("msi.token".to_owned(), Some(Duration::from_secs(86399)))
    );
    let system = settings(
        &json!({"use_msi": true, "msi_endpoint": endpoint}),
        &[],
        &url,
    );
    assert_eq!(storage_token(&system).unwrap().0, "msi.system");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen[0].line,
        format!(
            "GET /metadata/identity/oauth2/token?api-version=2018-02-01&client_id={CLIENT}&resource=https%3A%2F%2Fstorage.azure.com HTTP/1.1"
        )
    );
    assert_eq!(seen[0].header("metadata"), Some("true"));
    assert_eq!(
        seen[1].line,
        "GET /metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fstorage.azure.com HTTP/1.1"
    );
}

/// Garbage, a huge body, errors that echo what was sent (the assertion, the client secret, the
/// request token): one line each, the secrets replaced.
#[test]
fn hostile_answers_are_one_line_without_the_secrets() {
    let (url, _) = fake(vec![
        answer(200, "<html>proxy error</html>"),
        oversized_token_answer(),
        answer(
            401,
            r#"{"error": "invalid_client", "error_description": "AADSTS700024: Client assertion ci.oidc.jwt is not within its valid time range. Trace ID: 1"}"#,
        ),
        answer(
            401,
            r#"{"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret the-client-secret provided."}"#,
        ),
        answer(403, "request token gh-request-token refused\n"),
        answer(
            400,
            r#"{"error": "invalid_request", "error_description": "Identity not found"}"#,
        ),
        answer(200, r#"{"access_token": ""}"#),
    ]);
    let vars = oidc_and(&[("ARM_OIDC_TOKEN", "ci.oidc.jwt")]);
    let oidc = settings(&json!({}), &vars, &url);
    assert_eq!(
        storage_token(&oidc).unwrap_err(),
        "Azure AD answered 200 with no token (not the JSON of a token answer)"
    );
    assert_eq!(
        storage_token(&oidc).unwrap_err(),
        "Azure AD's answer to the token request is larger than 1024 KiB; statectl stops there"
    );
    assert_eq!(
        storage_token(&oidc).unwrap_err(),
        "Azure AD refused the token request (401 invalid_client): AADSTS700024: Client assertion <redacted> is not within its valid time range."
    );
    let vars = ids_and(&[("ARM_CLIENT_SECRET", "the-client-secret")]);
    assert_eq!(
        storage_token_with(&vars, &url).unwrap_err(),
        "Azure AD refused the token request (401 invalid_client): AADSTS7000215: Invalid client secret <redacted> provided."
    );
    let github = format!("{url}/token");
    let vars = github_job(&github);
    assert_eq!(
        storage_token_with(&vars, &url).unwrap_err(),
        format!(
            "GitHub's OIDC token service (`oidc_request_url`, ACTIONS_ID_TOKEN_REQUEST_URL) at {url}/token answered 403: request token *** refused"
        )
    );
    let msi = format!("{url}/msi");
    let msi = settings(&json!({"use_msi": true, "msi_endpoint": msi}), &[], &url);
    assert_eq!(
        storage_token(&msi).unwrap_err(),
        format!(
            "the managed identity endpoint {url}/msi answered 400: invalid_request: Identity not found"
        )
    );
    assert_eq!(
        storage_token(&msi).unwrap_err(),
        format!("the managed identity endpoint {url}/msi answered 200 without an `access_token`")
    );
}

/// `expires_in` as a number or a string of digits; zero, negative, fractional or not a number
/// gives no lifetime (the token is kept, as go-azure-sdk keeps one without an expiry).
#[test]
fn lifetimes_are_whole_positive_seconds() {
    let of = |value: Value| lifetime(Some(&value));
    assert_eq!(of(json!(3599)), Some(Duration::from_secs(3599)));
    assert_eq!(of(json!("86399")), Some(Duration::from_secs(86399)));
    assert_eq!(
        of(json!(u64::MAX)),
        Some(Duration::from_secs(u64::MAX)),
        "kept a day at most by the client, never overflowing"
    );
    for nothing in [json!(0), json!(-1), json!(1.5), json!("soon"), json!(null)] {
        assert_eq!(of(nothing.clone()), None, "{nothing}");
    }
}

/// The client keeps a token until a minute before it expires, then asks again; an absurd lifetime
/// does not overflow.
#[test]
fn the_blob_client_renews_a_token_about_to_expire() {
    let (url, seen) = fake(vec![
        answer(200, r#"{"access_token": "short", "expires_in": 30}"#),
        answer(200, "{}"),
        answer(
            200,
            r#"{"access_token": "long", "expires_in": 18446744073709551615}"#,
        ),
        answer(200, "{}"),
        answer(200, "{}"),
    ]);
    let vars = oidc_and(&[("ARM_OIDC_TOKEN", "jwt")]);
    let mut settings = settings(&json!({}), &vars, &url);
    settings.service = url::Url::parse(&format!("{url}/acct/")).unwrap();
    let client = Client::new(&settings).unwrap();
    for _ in 0..3 {
        let answer = client
            .runtime
            .block_on(client.send(Request {
                method: "GET",
                blob: Some("prod.tfstate"),
                ..Request::default()
            }))
            .unwrap();
        assert_eq!(answer.status, 200);
    }
    let seen = seen.lock().unwrap().clone();
    let lines: Vec<&str> = seen.iter().map(|request| request.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            format!("POST /{TENANT}/oauth2/v2.0/token HTTP/1.1").as_str(),
            "GET /acct/tfstate/prod.tfstate HTTP/1.1",
            format!("POST /{TENANT}/oauth2/v2.0/token HTTP/1.1").as_str(),
            "GET /acct/tfstate/prod.tfstate HTTP/1.1",
            "GET /acct/tfstate/prod.tfstate HTTP/1.1",
        ]
    );
    assert_eq!(seen[1].header("authorization"), Some("Bearer short"));
    assert_eq!(seen[4].header("authorization"), Some("Bearer long"));
}

#[test]
fn azure_ad_errors_keep_the_code_and_the_first_sentence() {
    assert_eq!(
        first_sentence(
            "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent is correct.\r\nTrace ID: 1"
        ),
        "AADSTS7000215: Invalid client secret provided."
    );
    assert_eq!(first_sentence("short"), "short");
}

#[test]
fn an_oversized_answer_says_so_in_the_words_it_always_had() {
    assert_eq!(
        AnswerError::TooLarge { limit: 1 << 20 }.to_string(),
        "is larger than 1024 KiB; statectl stops there"
    );
}
