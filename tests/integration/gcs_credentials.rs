//! The credentials CI jobs give the gcs backend, through the CLI against loopback stand-ins of the
//! token exchanges (GitHub's OIDC token service, Google's STS, the IAM credentials API) in front of
//! fake-gcs-server: workload identity federation (`external_account`) as google-github-actions/auth
//! and GitLab's `gcloud iam workload-identity-pools create-cred-config` write it, with Terraform
//! 1.15.5 as the oracle (the same requests to the stand-ins, the same state read and written); and
//! STORAGE_EMULATOR_HOST, with which both tools reach the emulator with no credentials at all.
//! Without fake-gcs-server (or Terraform) these tests skip, except under CI, where they fail.

use std::path::Path;

use serde_json::{Value, json};

use crate::builder::{Test, assert_contains, assert_lacks, root};
use crate::files::folder_with;
use crate::gcs_backend::{BUCKET, Emulator};
use crate::oracle::terraform;
use crate::stand_in::{Request, StandIn, reply};
use crate::workdir::{Served, TerraformWorkdir};

const AUDIENCE: &str =
    "//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/ci/providers/github";
const SERVICE_ACCOUNT: &str = "deploy@proj.iam.gserviceaccount.com";
const OIDC_JWT: &str = "gh.oidc.jwt-subject-token";
const IMPERSONATED: &str = "ya29.impersonated-for-storage";

/// The stand-in of GitHub's token service, the STS and the IAM credentials API, forwarding the
/// storage calls to `gcs`.
fn google(gcs: &Emulator) -> StandIn {
    StandIn::start(
        vec![
            (
                "/oidc",
                reply(200, &json!({"count": 1, "value": OIDC_JWT}).to_string()),
            ),
            (
                "/sts",
                reply(
                    200,
                    r#"{"access_token": "federated-sts-token", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "Bearer", "expires_in": 3599}"#,
                ),
            ),
            (
                "/v1/projects/",
                reply(
                    200,
                    &json!({"accessToken": IMPERSONATED, "expireTime": "2099-01-01T00:00:00Z"})
                        .to_string(),
                ),
            ),
        ],
        Some(gcs.port()),
    )
}

/// What google-github-actions/auth writes for workload identity federation: the token service's
/// URL and request token, the `value` of its answer, the service account to impersonate.
fn github_actions_file(google: &StandIn) -> Value {
    let url = google.url();
    json!({
        "type": "external_account",
        "audience": AUDIENCE,
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
        "token_url": format!("{url}/sts"),
        "service_account_impersonation_url": format!("{url}/v1/projects/-/serviceAccounts/{SERVICE_ACCOUNT}:generateAccessToken"),
        "credential_source": {
            "url": format!("{url}/oidc?api-version=2.0&audience=https://iam.googleapis.com{}", AUDIENCE.trim_start_matches('/')),
            "headers": {"Authorization": "Bearer gh-actions-request-token"},
            "format": {"type": "json", "subject_token_field_name": "value"},
        },
    })
}

/// The storage calls (forwarded to the emulator), as opposed to the token exchanges.
fn storage_calls(seen: &[Request]) -> Vec<&Request> {
    seen.iter()
        .filter(|request| {
            !["/oidc", "/sts", "/v1/projects/"]
                .iter()
                .any(|prefix| request.target.starts_with(prefix))
        })
        .collect()
}

/// `wif.json` in `folder`: workload identity federation whose token `token_url` exchanges the
/// subject token in `token_file`.
fn federation_file(folder: &Path, token_url: &str, token_file: &Path) -> std::path::PathBuf {
    let credentials = folder.join("wif.json");
    let file = json!({
        "type": "external_account",
        "audience": AUDIENCE,
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
        "token_url": token_url,
        "credential_source": {"file": token_file.display().to_string()},
    });
    std::fs::write(&credentials, file.to_string()).unwrap();
    credentials
}

fn only<'a>(seen: &'a [Request], prefix: &str) -> &'a Request {
    let matching: Vec<&Request> = seen
        .iter()
        .filter(|request| request.target.starts_with(prefix))
        .collect();
    assert_eq!(matching.len(), 1, "one request to {prefix}: {seen:#?}");
    matching[0]
}

/// A Terraform folder whose gcs backend reaches the emulator through the stand-in, both tools
/// given the credentials file by GOOGLE_APPLICATION_CREDENTIALS.
fn workdir(gcs: Emulator, terraform: &Path, credentials: &Path) -> Served<Emulator> {
    let credentials = credentials.display().to_string();
    crate::gcs_backend::gcs_workdir(
        gcs,
        terraform,
        ("GOOGLE_APPLICATION_CREDENTIALS", credentials),
    )
}

/// Terraform 1.15.5 applies through workload identity federation (the file GitHub Actions gets),
/// then statectl taints through the same file: the token service, the STS and the impersonation
/// get the same requests from both tools (the STS form field for field, the impersonation body),
/// every storage call of both carries the impersonated token, statectl exchanges once for its
/// whole locked write, and Terraform sees the taint.
#[test]
fn terraform_and_statectl_exchange_a_github_actions_token_alike() {
    let Some(terraform) = terraform() else { return };
    let Some(gcs) = Emulator::start() else { return };
    let google = google(&gcs);
    let credentials = gcs.path().join("gha-creds.json");
    std::fs::write(&credentials, github_actions_file(&google).to_string()).unwrap();
    let backend = format!(
        "  backend \"gcs\" {{\n    bucket = \"{BUCKET}\"\n    prefix = \"app\"\n    storage_custom_endpoint = \"{}/storage/v1/\"\n  }}\n",
        google.url()
    );
    let workdir = workdir(gcs, &terraform, &credentials);
    workdir.init_and_apply(&backend);
    let listed = workdir.terraform(&["state", "list"]);
    let by_terraform = google.seen();
    google.forget();

    let tainted = workdir
        .statectl(&["taint", "terraform_data.web[0]"])
        .code(0);
    assert_lacks(&tainted.stderr, IMPERSONATED);
    let by_statectl = google.seen();
    let shown = workdir.terraform(&["state", "show", "-no-color", "terraform_data.web[0]"]);
    assert_contains(&shown, "(tainted)");
    assert_eq!(workdir.statectl(&["list"]).code(0).stdout, listed);

    // One exchange for the whole command: the token is kept for the lock, the write, the release.
    let oidc = only(&by_statectl, "/oidc");
    let sts = only(&by_statectl, "/sts");
    let impersonation = only(&by_statectl, "/v1/projects/");
    let terraform_oidc = &by_terraform
        .iter()
        .find(|request| request.target.starts_with("/oidc"))
        .expect("Terraform asked the token service");
    assert_eq!(oidc.method, "GET");
    assert_eq!(oidc.target, terraform_oidc.target);
    assert_eq!(
        oidc.header("authorization"),
        Some("Bearer gh-actions-request-token")
    );
    assert_eq!(
        oidc.header("authorization"),
        terraform_oidc.header("authorization")
    );
    let terraform_sts = by_terraform
        .iter()
        .find(|request| request.target.starts_with("/sts"))
        .unwrap();
    assert_eq!(sts.form(), terraform_sts.form());
    assert!(
        sts.form()
            .contains(&("subject_token".to_owned(), OIDC_JWT.to_owned()))
    );
    assert_eq!(
        sts.header("content-type"),
        terraform_sts.header("content-type")
    );
    // Terraform's metrics header starts with Go's version; the rest is the same.
    let metrics = sts.header("x-goog-api-client").unwrap();
    assert!(
        terraform_sts
            .header("x-goog-api-client")
            .unwrap()
            .ends_with(metrics),
        "{metrics}"
    );
    let terraform_impersonation = by_terraform
        .iter()
        .find(|request| request.target.starts_with("/v1/projects/"))
        .unwrap();
    assert_eq!(impersonation.target, terraform_impersonation.target);
    assert_eq!(
        impersonation.header("authorization"),
        Some("Bearer federated-sts-token")
    );
    let body = |request: &Request| serde_json::from_str::<Value>(&request.body).unwrap();
    assert_eq!(body(impersonation), body(terraform_impersonation));

    for (tool, seen) in [("Terraform", &by_terraform), ("statectl", &by_statectl)] {
        let calls = storage_calls(seen);
        assert!(calls.len() >= 3, "{tool}: {seen:#?}");
        for call in calls {
            assert_eq!(
                call.header("authorization"),
                Some(format!("Bearer {IMPERSONATED}").as_str()),
                "{tool}: {} {}",
                call.method,
                call.target
            );
        }
    }
    let methods: Vec<&str> = storage_calls(&by_statectl)
        .iter()
        .map(|call| call.method.as_str())
        .collect();
    assert!(
        methods.contains(&"POST") && methods.contains(&"DELETE"),
        "{methods:?}"
    );
}

/// What `gcloud iam workload-identity-pools create-cred-config --credential-source-file` writes
/// for a GitLab job (its `id_tokens` in a file), given as the backend's `credentials` path: the
/// file's token exchanged for the storage scopes (no impersonation), its token on every storage
/// call of a taint.
#[test]
fn a_gitlab_token_file_given_as_credentials_reads_and_writes_a_gs_url() {
    let Some(gcs) = Emulator::start() else { return };
    let google = google(&gcs);
    let state = root().join("testdata/states/modules.tfstate");
    gcs.put(
        "team/prod.tfstate",
        &std::fs::read_to_string(&state).unwrap(),
    );
    let token_file = gcs.path().join(".gitlab_oidc_token");
    std::fs::write(&token_file, "gitlab.id.token\n").unwrap();
    let credentials = federation_file(gcs.path(), &format!("{}/sts", google.url()), &token_file);
    let url = format!("gs://{BUCKET}/team/prod.tfstate");
    let run = |args: &[&str]| {
        Test::new()
            .current_dir(gcs.path())
            .args(args)
            .backend_config(format!("credentials={}", credentials.display()))
            .backend_config(format!(
                "storage_custom_endpoint={}/storage/v1/",
                google.url()
            ))
            .env("HOME", gcs.path())
            .env("USER", "statectl-e2e")
            .run()
    };
    let listed = run(&["list", &url]).code(0);
    let first = listed.stdout.lines().next().unwrap().to_owned();
    run(&["taint", &first, &url]).code(0);
    assert!(
        gcs.object("team/prod.tfstate")
            .unwrap()
            .contains("\"status\": \"tainted\"")
    );
    let seen = google.seen();
    let exchanges: Vec<&Request> = seen
        .iter()
        .filter(|request| request.target == "/sts")
        .collect();
    assert_eq!(exchanges.len(), 2, "one per command");
    let form = exchanges[0].form();
    assert!(form.contains(&("subject_token".to_owned(), "gitlab.id.token".to_owned())));
    assert!(form.contains(&(
        "scope".to_owned(),
        "https://www.googleapis.com/auth/devstorage.full_control https://www.googleapis.com/auth/cloud-platform".to_owned()
    )));
    assert!(
        seen.iter()
            .all(|request| !request.target.starts_with("/v1/"))
    );
    for call in storage_calls(&seen) {
        assert_eq!(
            call.header("authorization"),
            Some("Bearer federated-sts-token"),
            "{} {}",
            call.method,
            call.target
        );
    }
}

/// The STS answering garbage, or an error that echoes the subject token: exit 2, one line naming
/// the credential and the endpoint, a hint, and never the token.
#[test]
fn a_hostile_sts_is_one_line_without_the_token() {
    let folder = tempfile::tempdir().unwrap();
    let sts = StandIn::start(
        vec![
            ("/garbage", reply(200, "<html>a proxy's page</html>")),
            (
                "/echo",
                reply(
                    400,
                    &json!({"error": "invalid_grant", "error_description": format!("token {OIDC_JWT} is not from an allowed issuer")}).to_string(),
                ),
            ),
        ],
        None,
    );
    let token_file = folder.path().join("token");
    std::fs::write(&token_file, OIDC_JWT).unwrap();
    let run = |path: &str| {
        let credentials =
            federation_file(folder.path(), &format!("{}{path}", sts.url()), &token_file);
        Test::new()
            .current_dir(folder.path())
            .args(["list", "gs://tfstate/app/default.tfstate"])
            .backend_config("storage_custom_endpoint=http://127.0.0.1:9/storage/v1/")
            .env("GOOGLE_APPLICATION_CREDENTIALS", &credentials)
            .env("HOME", folder.path())
            .run()
    };
    let credential = format!(
        "workload identity federation (the external account credentials in GOOGLE_APPLICATION_CREDENTIALS ({}))",
        folder.path().join("wif.json").display()
    );
    let garbage = run("/garbage").refused(&format!(
        "error: gs://tfstate/app/default.tfstate: cannot get a Google access token for {credential} while reading the state: the Security Token Service at {}/garbage answered 200 with no token (not JSON)\nhint: check the pool provider named by `audience`",
        sts.url()
    ));
    assert_eq!(garbage.stderr.lines().count(), 2, "{}", garbage.stderr);
    let echoed = run("/echo").refused(
        "refused the exchange (400 Bad Request: invalid_grant: token *** is not from an allowed issuer)",
    );
    assert_lacks(&echoed.stderr, OIDC_JWT);
}

/// STORAGE_EMULATOR_HOST, as Google's libraries honour it: `statectl list gs://...` reaches the
/// emulator it names with no credentials (no Authorization header, the metadata server never
/// asked) and reads what Terraform, with the same variable and nothing else, lists.
#[test]
fn storage_emulator_host_is_the_endpoint_and_no_credential_is_asked() {
    let Some(gcs) = Emulator::start() else { return };
    let forwarder = StandIn::start(Vec::new(), Some(gcs.port()));
    let metadata = StandIn::start(
        vec![(
            "/computeMetadata/",
            reply(
                200,
                r#"{"access_token": "from-metadata", "expires_in": 3600}"#,
            ),
        )],
        None,
    );
    let state = root().join("testdata/states/modules.tfstate");
    gcs.put(
        "team/prod.tfstate",
        &std::fs::read_to_string(&state).unwrap(),
    );
    let expected = Test::new().arg("list").arg(&state).run().code(0).stdout;
    let metadata_host = metadata.url().trim_start_matches("http://").to_owned();
    let host = forwarder.url().trim_start_matches("http://").to_owned();
    // `statectl ARGS` in `home` (also its HOME) with the emulator at `emulator`: no credentials
    // anywhere, the metadata server a stand-in that must not be asked.
    let statectl_lists = |home: &Path, emulator: &str, args: &[&str]| {
        Test::new()
            .current_dir(home)
            .args(args)
            .env("STORAGE_EMULATOR_HOST", emulator)
            .env("GCE_METADATA_HOST", &metadata_host)
            .env("HOME", home)
            .run()
            .code(0)
            .stdout
    };
    for emulator in [host.clone(), forwarder.url()] {
        let url = format!("gs://{BUCKET}/team/prod.tfstate");
        assert_eq!(
            statectl_lists(gcs.path(), &emulator, &["list", &url]),
            expected
        );
    }
    let calls = forwarder.seen();
    assert!(!calls.is_empty());
    for call in &calls {
        assert_eq!(call.header("authorization"), None, "{call:?}");
        assert!(
            call.target.starts_with("/storage/v1/b/tfstate/o/"),
            "{call:?}"
        );
    }
    assert!(metadata.seen().is_empty(), "the metadata server was asked");

    // Terraform with the same variable and no credentials lists the same state.
    let Some(terraform) = terraform() else { return };
    let folder = folder_with(
        "main.tf",
        format!(
            "terraform {{\n  backend \"gcs\" {{\n    bucket = \"{BUCKET}\"\n    prefix = \"team\"\n  }}\n}}\n"
        ),
    );
    forwarder.forget();
    let terraform_command = |args: &[&str]| {
        let mut command = std::process::Command::new(&terraform);
        command
            .args(args)
            .current_dir(folder.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("STORAGE_EMULATOR_HOST", &host)
            .env("GCE_METADATA_HOST", &metadata_host)
            .env("HOME", folder.path())
            .env("CHECKPOINT_DISABLE", "1");
        command
    };
    crate::oracle::run(&mut terraform_command(&[
        "init",
        "-input=false",
        "-no-color",
    ]));
    crate::oracle::run(&mut terraform_command(&[
        "workspace",
        "select",
        "-no-color",
        "prod",
    ]));
    let listed = crate::oracle::run(&mut terraform_command(&["state", "list"]));
    assert_eq!(listed, expected);
    assert!(
        forwarder
            .seen()
            .iter()
            .all(|call| call.header("authorization").is_none())
    );
    assert!(metadata.seen().is_empty());
    // statectl in Terraform's folder: the backend cache names no endpoint; the variable does.
    assert_eq!(statectl_lists(folder.path(), &host, &["list"]), expected);
}
