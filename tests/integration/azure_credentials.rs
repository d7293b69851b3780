//! The credentials CI jobs give the azurerm backend, with Terraform 1.15.5 as the oracle: OIDC
//! federated credentials (GitHub Actions' token service, Azure DevOps' service connection, a token
//! file) and a managed identity, each through both tools in turn against loopback stand-ins of the
//! token exchanges (Azure AD's token endpoint over TLS, reached at its real address through a
//! CONNECT proxy; the CI token services and the metadata service over HTTP), and Azurite checking
//! the bearer tokens (`--oauth basic`: issuer, audience, lifetime) on the real storage calls. The
//! stand-in of Azure AD hands out a token whose audience is the scope it was asked for, so a token
//! asked for the wrong resource is refused by Azurite. Both tools must send the same requests,
//! and each must read and write the state with its token. Without Azurite (or Terraform) these
//! tests skip, except under CI, where they fail.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::json;

use crate::azure_backend::{Azurite, Proxy, pki};
use crate::builder::{Test, assert_contains};
use crate::files::file_with;
use crate::oracle::terraform;
use crate::stand_in::{Request, Route, StandIn, reply};
use crate::workdir::TerraformWorkdir;

const ACCOUNT: &str = "ciacct";
/// A key for `ciacct` (any base64 works for Azurite); only the test's own setup uses it.
const KEY: &str = "Y2ktYWNjb3VudC1rZXktZm9yLWF6dXJpdGUtb2F1dGgtdGVzdHM=";
const TENANT: &str = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT: &str = "0c1f4ba1-5a0f-4e7b-8d62-000000000001";

/// An unsigned JWT as Azure AD's would read to Azurite: `aud`, an Azure AD issuer, a lifetime.
fn jwt(audience: &str) -> String {
    let encode = |value: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    format!(
        "{}.{}.c2lnbmF0dXJl",
        encode(json!({"alg": "RS256", "typ": "JWT"})),
        encode(json!({
            "aud": audience,
            "iss": format!("https://sts.windows.net/{TENANT}/"),
            "iat": now - 60, "nbf": now - 60, "exp": now + 3600,
            "appid": CLIENT, "tid": TENANT,
        }))
    )
}

/// Azure AD's token endpoint: a token for the resource of the `scope` asked for.
fn azure_ad() -> Route {
    Box::new(|request: &Request| {
        let scope = request
            .form()
            .into_iter()
            .find(|(name, _)| name == "scope")
            .map(|(_, scope)| scope)
            .unwrap_or_default();
        let audience = scope.trim_end_matches("/.default");
        let body = json!({
            "token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599,
            "access_token": jwt(audience),
        });
        (200, body.to_string())
    })
}

/// The metadata service: a token for the `resource` asked for, `expires_in` as a string.
fn metadata_service() -> Route {
    Box::new(|request: &Request| {
        let query = request
            .target
            .split_once('?')
            .map_or("", |(_, query)| query);
        let resource = url::form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == "resource")
            .map(|(_, resource)| resource.into_owned())
            .unwrap_or_default();
        let body = json!({
            "access_token": jwt(&resource), "expires_in": "86399", "expires_on": "1900000000",
            "resource": resource, "token_type": "Bearer",
        });
        (200, body.to_string())
    })
}

/// Azure as both tools see it, on loopback.
struct Azure {
    /// Kept running while the scenarios use it.
    _azurite: Azurite,
    /// Azure AD, at `https://login.microsoftonline.com` through the proxy.
    aad: StandIn,
    /// GitHub's and Azure DevOps' token services and the metadata service.
    ci: StandIn,
    proxy: Proxy,
    pki: tempfile::TempDir,
    terraform: PathBuf,
}

impl Azure {
    fn start() -> Option<Azure> {
        let terraform = terraform()?;
        let pki = pki(&[
            &format!("{ACCOUNT}.blob.core.windows.net"),
            "login.microsoftonline.com",
            "127.0.0.1",
        ]);
        let azurite = Azurite::start_with(ACCOUNT, KEY, Some(pki.path()), true)?;
        let aad = StandIn::start_tls(vec![("/", azure_ad())], pki.path());
        let ci = StandIn::start(
            vec![
                (
                    "/github",
                    reply(200, r#"{"count": 1, "value": "github.federated.jwt"}"#),
                ),
                ("/ado", reply(200, r#"{"oidcToken": "ado.federated.jwt"}"#)),
                ("/msi", metadata_service()),
                // A token for another resource, which Azurite must refuse.
                (
                    "/wrong",
                    reply(
                        200,
                        &json!({"access_token": jwt("https://management.azure.com"), "expires_in": "86399"})
                            .to_string(),
                    ),
                ),
            ],
            None,
        );
        let proxy = Proxy::start_routes(vec![
            (".blob.core.windows.net:443", azurite.port),
            ("login.microsoftonline.com:443", aad.port()),
        ]);
        Some(Azure {
            _azurite: azurite,
            aad,
            ci,
            proxy,
            pki,
            terraform,
        })
    }
}

/// One scenario's Terraform folder and the variables both tools get.
struct Scenario<'a> {
    azure: &'a Azure,
    folder: tempfile::TempDir,
    variables: Vec<(&'static str, String)>,
}

impl TerraformWorkdir for Scenario<'_> {
    fn path(&self) -> &Path {
        self.folder.path()
    }

    fn terraform_binary(&self) -> &Path {
        &self.azure.terraform
    }

    fn environment(&self) -> Vec<(&'static str, String)> {
        let mut variables = vec![
            ("HTTPS_PROXY", self.azure.proxy.url()),
            (
                "SSL_CERT_FILE",
                self.azure.pki.path().join("ca.pem").display().to_string(),
            ),
            ("ARM_USE_AZUREAD", "true".to_owned()),
            ("ARM_USE_CLI", "false".to_owned()),
            ("HOME", self.path().display().to_string()),
            ("USER", "statectl-e2e".to_owned()),
            ("CHECKPOINT_DISABLE", "1".to_owned()),
        ];
        variables.extend(self.variables.iter().cloned());
        variables
    }

    fn hidden_from_terraform(&self) -> &'static [&'static str] {
        &[
            "NO_PROXY",
            "no_proxy",
            "ARM_ACCESS_KEY",
            "ARM_SAS_TOKEN",
            "ARM_CLIENT_SECRET",
            "ARM_OIDC_TOKEN",
            "TF_DATA_DIR",
        ]
    }
}

/// Terraform applies with `variables`, then statectl taints with them: the token services and
/// Azure AD get the same requests from both (returned: statectl's), each tool's storage calls
/// pass Azurite's check of its bearer token, and Terraform sees statectl's taint.
fn both_tools(azure: &Azure, blob: &str, variables: Vec<(&'static str, String)>) -> Vec<Request> {
    let scenario = Scenario {
        azure,
        folder: tempfile::tempdir().unwrap(),
        variables,
    };
    azure.aad.forget();
    azure.ci.forget();
    scenario.init_and_apply(&format!(
        "  backend \"azurerm\" {{\n    storage_account_name = \"{ACCOUNT}\"\n    container_name       = \"tfstate\"\n    key                  = \"{blob}\"\n  }}\n"
    ));
    let listed = scenario.terraform(&["state", "list"]);
    let terraform_aad = azure.aad.seen();
    let terraform_ci = azure.ci.seen();
    azure.aad.forget();
    azure.ci.forget();

    assert_eq!(scenario.statectl(&["list"]).code(0).stdout, listed);
    scenario
        .statectl(&["taint", "terraform_data.web[1]"])
        .code(0);
    let statectl_aad = azure.aad.seen();
    let statectl_ci = azure.ci.seen();
    let shown = scenario.terraform(&["state", "show", "-no-color", "terraform_data.web[1]"]);
    assert_contains(&shown, "(tainted)");

    // Each command of statectl's asked once (the token kept for its lease, write and release);
    // Terraform's requests are alike.
    assert!(statectl_aad.len() <= 2, "{statectl_aad:#?}");
    for (mine, theirs) in statectl_aad.iter().zip(&terraform_aad) {
        assert_eq!(mine.method, "POST");
        assert_eq!(mine.target, theirs.target);
        assert_eq!(mine.form(), theirs.form(), "the token request's form");
        assert_eq!(mine.header("content-type"), theirs.header("content-type"));
        assert_eq!(mine.header("accept"), theirs.header("accept"));
    }
    assert_eq!(statectl_aad.is_empty(), terraform_aad.is_empty());
    assert!(!statectl_ci.is_empty() || terraform_ci.is_empty());
    for (mine, theirs) in statectl_ci.iter().zip(&terraform_ci) {
        assert_eq!(mine.method, theirs.method);
        assert_eq!(mine.target, theirs.target);
        for header in ["authorization", "metadata", "content-type"] {
            assert_eq!(mine.header(header), theirs.header(header), "{header}");
        }
        // reqwest sends `Accept: */*` where Go sends none.
        if theirs.header("accept").is_some() {
            assert_eq!(mine.header("accept"), theirs.header("accept"));
        }
    }
    let hosts = azure.proxy.hosts.lock().unwrap().clone();
    assert!(
        hosts
            .iter()
            .all(|host| host == "login.microsoftonline.com:443"
                || host == &format!("{ACCOUNT}.blob.core.windows.net:443")),
        "{hosts:?}"
    );
    statectl_aad.into_iter().chain(statectl_ci).collect()
}

fn ids() -> Vec<(&'static str, String)> {
    vec![
        ("ARM_TENANT_ID", TENANT.to_owned()),
        ("ARM_CLIENT_ID", CLIENT.to_owned()),
        ("ARM_USE_OIDC", "true".to_owned()),
    ]
}

/// GitHub Actions (`ARM_USE_OIDC` with the job's `ACTIONS_ID_TOKEN_REQUEST_*`), Azure DevOps
/// (`SYSTEM_OIDCREQUESTURI`, `SYSTEM_ACCESSTOKEN` and the service connection) and a token file
/// (`ARM_OIDC_TOKEN_FILE_PATH`): the federated token is the client assertion of Azure AD's
/// client-credentials grant, for Storage's scope, as Terraform sends it.
/// The first request `seen` sent to `prefix`; `what` names the service in the failure.
#[track_caller]
fn first_to<'a>(seen: &'a [Request], prefix: &str, what: &str) -> &'a Request {
    seen.iter()
        .find(|request| request.target.starts_with(prefix))
        .unwrap_or_else(|| panic!("{what}"))
}

#[test]
fn oidc_federated_credentials_reach_azure_ad_as_terraforms_do() {
    let Some(azure) = Azure::start() else { return };

    let mut github = ids();
    github.extend([
        (
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            format!("{}/github/_apis/token?api-version=2.0", azure.ci.url()),
        ),
        (
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
            "gh-request-token".to_owned(),
        ),
    ]);
    let seen = both_tools(&azure, "github.tfstate", github);
    let token_service = first_to(&seen, "/github", "GitHub's token service was asked");
    assert_eq!(
        token_service.target,
        "/github/_apis/token?api-version=2.0&audience=api%3A%2F%2FAzureADTokenExchange"
    );
    assert_eq!(
        token_service.header("authorization"),
        Some("Bearer gh-request-token")
    );
    let aad = &seen[0];
    assert_eq!(aad.target, format!("/{TENANT}/oauth2/v2.0/token"));
    assert!(aad.form().contains(&(
        "client_assertion".to_owned(),
        "github.federated.jwt".to_owned()
    )));
    assert!(aad.form().contains(&(
        "scope".to_owned(),
        "https://storage.azure.com/.default".to_owned()
    )));

    let mut devops = ids();
    devops.extend([
        (
            "SYSTEM_OIDCREQUESTURI",
            format!(
                "{}/ado/org/_apis/distributedtask/hubs/build/plans/p/jobs/j/oidctoken",
                azure.ci.url()
            ),
        ),
        ("SYSTEM_ACCESSTOKEN", "ado-system-access-token".to_owned()),
        (
            "ARM_ADO_PIPELINE_SERVICE_CONNECTION_ID",
            "service-connection-1".to_owned(),
        ),
    ]);
    let seen = both_tools(&azure, "devops.tfstate", devops);
    assert!(seen.iter().any(|request| request.method == "POST"
        && request.target.ends_with("oidctoken?api-version=7.1&audience=api%3A%2F%2FAzureADTokenExchange&serviceConnectionId=service-connection-1")));
    assert!(seen[0].form().contains(&(
        "client_assertion".to_owned(),
        "ado.federated.jwt".to_owned()
    )));

    let (_token_folder, token_file) = file_with("azure-identity-token", "file.federated.jwt\n");
    let mut file = ids();
    file.push(("ARM_OIDC_TOKEN_FILE_PATH", token_file.display().to_string()));
    let seen = both_tools(&azure, "file.tfstate", file);
    assert!(seen[0].form().contains(&(
        "client_assertion".to_owned(),
        "file.federated.jwt".to_owned()
    )));
}

/// `ARM_USE_MSI` with a user-assigned identity's client ID, the metadata service at
/// `ARM_MSI_ENDPOINT`: asked as Terraform asks it, and its token for Storage's resource is taken
/// by Azurite.
#[test]
fn a_managed_identity_asks_the_metadata_service_as_terraform_does() {
    let Some(azure) = Azure::start() else { return };
    let seen = both_tools(
        &azure,
        "msi.tfstate",
        vec![
            ("ARM_USE_MSI", "true".to_owned()),
            (
                "ARM_MSI_ENDPOINT",
                format!("{}/msi/metadata/identity/oauth2/token", azure.ci.url()),
            ),
            ("ARM_CLIENT_ID", CLIENT.to_owned()),
        ],
    );
    let asked = first_to(&seen, "/msi", "the metadata service was asked");
    assert_eq!(
        asked.target,
        format!(
            "/msi/metadata/identity/oauth2/token?api-version=2018-02-01&client_id={CLIENT}&resource=https%3A%2F%2Fstorage.azure.com"
        )
    );
    assert_eq!(asked.header("metadata"), Some("true"));
    assert!(
        seen.iter()
            .all(|request| !request.target.contains("oauth2/v2.0"))
    );

    // Azurite checks the token: one for another resource is refused, in one line.
    let mut refused =
        Test::new().args(["list", &format!("azurerm://{ACCOUNT}/tfstate/msi.tfstate")]);
    for (name, value) in [
        ("HTTPS_PROXY", azure.proxy.url()),
        (
            "SSL_CERT_FILE",
            azure.pki.path().join("ca.pem").display().to_string(),
        ),
        ("ARM_USE_AZUREAD", "true".to_owned()),
        ("ARM_USE_MSI", "true".to_owned()),
        ("ARM_MSI_ENDPOINT", format!("{}/wrong", azure.ci.url())),
    ] {
        refused = refused.env(name, value);
    }
    refused
        .run()
        .refused("the storage account refused the credentials");
}

/// No metadata service where `msi_endpoint` points: one line naming the endpoint, a hint about
/// managed identities, exit 2, nothing else tried.
#[test]
fn a_missing_metadata_service_is_one_line_with_a_hint() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!(
        "http://{}/metadata/identity/oauth2/token",
        closed.local_addr().unwrap()
    );
    drop(closed);
    let output = Test::new()
        .args(["list", "azurerm://acct/tfstate/prod.tfstate"])
        .backend_config("endpoint=http://127.0.0.1:9/acct")
        .env("ARM_USE_AZUREAD", "true")
        .env("ARM_USE_MSI", "true")
        .env("ARM_MSI_ENDPOINT", &nowhere)
        .run()
        .refused(&format!(
            "error: azurerm://acct/tfstate/prod.tfstate: cannot read the state: no credential for the Blob service: the managed identity endpoint {nowhere} gave no token ("
        ));
    assert_contains(
        &output.stderr,
        "); statectl is not on an Azure machine with a managed identity, or `msi_endpoint` is wrong\nhint: run on an Azure machine with a managed identity",
    );
}
