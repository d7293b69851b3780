//! The credentials CI jobs hand the backends by federation, each step's request echoed back by the
//! step that refuses it: the gcs backend's workload identity federation (`external_account`: the
//! CI's token request, the STS exchange with a client secret, the service account impersonation,
//! the storage call with the impersonated token), and the azurerm backend's OIDC from GitHub
//! Actions' and Azure DevOps' token services. The subject token holds `/` and `+`, so its echo in a
//! form body is percent-encoded: only the registry's spellings of it hide that echo.

use serde_json::json;

use super::backends::{Setup, pairs};
use super::echo::{Echo, Reply};
use super::marker;

/// The step of the federation that refuses (and echoes) the request; the steps before it succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    SubjectToken,
    Exchange,
    Impersonation,
    Storage,
}

/// The tokens each step hands out, all secrets.
struct Tokens {
    subject: String,
    federated: String,
    impersonated: String,
}

fn google(refused: Refused, tokens: &Tokens) -> Echo {
    let (subject, federated, impersonated) = (
        tokens.subject.clone(),
        tokens.federated.clone(),
        tokens.impersonated.clone(),
    );
    Echo::start(move |received| {
        let path = received.path();
        let step = if path == "/oidc" {
            Refused::SubjectToken
        } else if path == "/sts" {
            Refused::Exchange
        } else if path.starts_with("/v1/projects/") {
            Refused::Impersonation
        } else {
            Refused::Storage
        };
        if step == refused {
            return Reply::echo_json(if step == Refused::Exchange { 400 } else { 403 }, received);
        }
        match step {
            Refused::SubjectToken => Reply::json(200, &json!({"value": subject})),
            Refused::Exchange => Reply::json(
                200,
                &json!({"access_token": federated, "expires_in": 3600, "token_type": "Bearer",
                    "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}),
            ),
            Refused::Impersonation => Reply::json(
                200,
                &json!({"accessToken": impersonated, "expireTime": "2099-01-01T00:00:00Z"}),
            ),
            Refused::Storage => Reply::echo_json(403, received),
        }
    })
}

#[test]
fn gcs_workload_identity_federation_tokens_echoed_back_are_never_shown() {
    let tokens = Tokens {
        subject: format!(
            "{}/+{}",
            marker("gcsSUBJECT", 30),
            marker("gcsSUBJECTtail", 30)
        ),
        federated: marker("gcsFEDERATED", 60),
        impersonated: marker("gcsIMPERSONATED", 60),
    };
    let (request_token, client_secret) = (marker("ciREQUEST", 40), marker("stsCLIENT", 30));
    for refused in [
        Refused::SubjectToken,
        Refused::Exchange,
        Refused::Impersonation,
        Refused::Storage,
    ] {
        let folder = tempfile::tempdir().unwrap();
        let echo = google(refused, &tokens);
        let url = &echo.url;
        let credentials = json!({
            "type": "external_account",
            "audience": "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/ci/providers/github",
            "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
            "token_url": format!("{url}/sts"),
            "client_id": "sts-client",
            "client_secret": client_secret,
            "service_account_impersonation_url": format!("{url}/v1/projects/-/serviceAccounts/deploy@p.iam.gserviceaccount.com:generateAccessToken"),
            "credential_source": {
                "url": format!("{url}/oidc?audience=ci"),
                "headers": {"Authorization": format!("Bearer {request_token}")},
                "format": {"type": "json", "subject_token_field_name": "value"},
            },
        });
        std::fs::write(folder.path().join("ci.json"), credentials.to_string()).unwrap();
        let setup = Setup {
            folder: folder.path(),
            env: Vec::new(),
            config: vec![
                "credentials=ci.json".to_owned(),
                format!("storage_custom_endpoint={url}/storage/v1/"),
            ],
            inputs: &["ci.json"],
            secrets: vec![
                tokens.subject.clone(),
                tokens.federated.clone(),
                tokens.impersonated.clone(),
                request_token.clone(),
                client_secret.clone(),
            ],
        };
        let runs = setup.reads("gs://states/app/default.tfstate", None);
        assert!(
            runs[0].stderr.contains(match refused {
                Refused::SubjectToken => "credential_source.url",
                Refused::Exchange => "the Security Token Service",
                Refused::Impersonation => "refused the impersonation",
                Refused::Storage => "access denied",
            }),
            "{refused:?}: {}",
            runs[0].stderr
        );
        setup.check(&runs, &echo);
    }
}

#[test]
fn azurerm_oidc_request_tokens_echoed_back_are_never_shown() {
    let folder = tempfile::tempdir().unwrap();
    let echo = Echo::start(|received| Reply::echo_json(401, received));
    let request_token = marker("ciREQUEST", 40);
    let common = [
        ("ARM_TENANT_ID", "72f988bf-86f1-41af-91ab-2d7cd011db47"),
        ("ARM_CLIENT_ID", "0c1f4ba1-5a0f-4e7b-8d62-000000000001"),
        ("ARM_USE_OIDC", "true"),
        ("ARM_USE_AZUREAD", "true"),
        ("ARM_USE_CLI", "false"),
    ];
    let github = format!("{}/github?api-version=2.0", echo.url);
    let devops = format!("{}/devops?api-version=7.1", echo.url);
    for service in [
        vec![
            ("ACTIONS_ID_TOKEN_REQUEST_URL", github.as_str()),
            ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", request_token.as_str()),
        ],
        vec![
            ("SYSTEM_OIDCREQUESTURI", devops.as_str()),
            ("SYSTEM_ACCESSTOKEN", request_token.as_str()),
            ("ARM_ADO_PIPELINE_SERVICE_CONNECTION_ID", "connection-1"),
        ],
    ] {
        let mut env = pairs(&common);
        env.extend(pairs(&service));
        let setup = Setup {
            folder: folder.path(),
            env,
            config: Vec::new(),
            inputs: &[],
            secrets: vec![request_token.clone()],
        };
        setup.reads_show_nothing(
            "azurerm://account/tfstate/prod.terraform.tfstate",
            None,
            &echo,
            "no token service was asked",
        );
    }
}
