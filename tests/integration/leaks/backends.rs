//! Every remote backend with marker secrets in each of its credential settings (arguments,
//! variables, the endpoint URL's userinfo), against a server that echoes each request in its errors:
//! `list`, `show`, `scan` in every format, `taint`, and a prefix scan where the backend lists, at
//! `-v` and `-vv`. s3 and http also serve the state and echo only the lock and the write, so the
//! write path's errors are checked too. HCP Terraform's API is the simulator's, its faults echoing.

use std::ffi::OsString;
use std::path::Path;

use super::echo::{Echo, Reply};
use super::{Run, assert_nothing_shown, marker, run};
use crate::builder::root;
use crate::files::folder_with;
use crate::simulator;

const ADDRESS: &str = "aws_security_group.db";

/// One backend's settings: its environment, `--backend-config` arguments, the input files that hold
/// secrets, and the secrets themselves.
pub(super) struct Setup<'a> {
    pub folder: &'a Path,
    pub env: Vec<(String, String)>,
    pub config: Vec<String>,
    pub inputs: &'a [&'a str],
    pub secrets: Vec<String>,
}

impl Setup<'_> {
    fn run(&self, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        for item in &self.config {
            all.extend(["--backend-config", item]);
        }
        let env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        run(self.folder, &all, &env, self.inputs)
    }

    /// The reading commands at `url` (and the listing at `prefix`), each refused.
    pub(super) fn reads(&self, url: &str, prefix: Option<&str>) -> Vec<Run> {
        let mut commands: Vec<Vec<&str>> = vec![
            vec!["list", url, "-v"],
            vec!["list", url, "-vv", "--format", "json"],
            vec!["show", ADDRESS, url, "--format", "json"],
            vec!["taint", ADDRESS, url, "-vv"],
            vec!["scan", url, "-vv"],
        ];
        for format in ["json", "sarif", "github", "junit", "markdown"] {
            commands.push(vec!["scan", url, "--format", format]);
        }
        if let Some(prefix) = prefix {
            commands.push(vec!["scan", prefix, "-vv", "--format", "json"]);
        }
        commands
            .iter()
            .map(|args| {
                let one = self.run(args);
                assert_eq!(one.code, 2, "{}: {}{}", one.label, one.stdout, one.stderr);
                one
            })
            .collect()
    }

    /// [`Setup::reads`] at `url` (and `prefix`), then [`Setup::check`] of them, after making sure
    /// the server saw credentials (`unseen` says which were missing).
    #[track_caller]
    pub(super) fn reads_show_nothing(
        &self,
        url: &str,
        prefix: Option<&str>,
        echo: &Echo,
        unseen: &str,
    ) {
        let runs = self.reads(url, prefix);
        assert!(!echo.credentials().is_empty(), "{unseen}");
        self.check(&runs, echo);
    }

    #[track_caller]
    pub(super) fn check(&self, runs: &[Run], echo: &Echo) {
        let mut secrets = self.secrets.clone();
        secrets.extend(echo.credentials());
        assert_nothing_shown(runs, &secrets);
    }
}

/// A plain state with [`ADDRESS`] in it.
fn state() -> String {
    std::fs::read_to_string(root().join("testdata/scan/clean.tfstate")).unwrap()
}

/// Standard base64, padded (the keys the backends take are spelled so).
fn base64_of(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let bits = chunk.iter().enumerate().fold(0u32, |bits, (index, byte)| {
            bits | u32::from(*byte) << (16 - 8 * index)
        });
        for index in 0..4 {
            if index <= chunk.len() {
                out.push(char::from(
                    ALPHABET[(bits >> (18 - 6 * index) & 63) as usize],
                ));
            } else {
                out.push('=');
            }
        }
    }
    out
}

pub(super) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

#[test]
fn s3_credentials_an_endpoint_password_and_a_customer_key_are_never_shown() {
    let folder = tempfile::tempdir().unwrap();
    let (secret, session, password) = (
        marker("awsSECRET", 40),
        marker("awsSESSION", 120),
        marker("s3PASSWORD", 24),
    );
    let customer_key = base64_of(&marker("sseKEY", 32));
    let mut setup = Setup {
        folder: folder.path(),
        env: Vec::new(),
        config: vec![
            "use_path_style=true".to_owned(),
            "encrypt=true".to_owned(),
            format!("sse_customer_key={customer_key}"),
        ],
        inputs: &[],
        secrets: vec![
            secret.clone(),
            session.clone(),
            password.clone(),
            customer_key,
        ],
    };
    let state = state();
    for serves_state in [false, true] {
        let body = state.clone();
        let echo = Echo::start(move |received| {
            if serves_state && received.method == "GET" && received.path().ends_with(".tfstate") {
                Reply {
                    status: 200,
                    headers: vec![("etag".into(), "\"1\"".into())],
                    body: body.clone().into_bytes(),
                }
            } else {
                Reply::echo_xml(403, "AccessDenied", received)
            }
        });
        setup.env = pairs(&[
            ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE"),
            ("AWS_SECRET_ACCESS_KEY", &secret),
            ("AWS_SESSION_TOKEN", &session),
            ("AWS_REGION", "us-east-1"),
            (
                "AWS_ENDPOINT_URL_S3",
                &format!("http://s3user:{password}@{}", echo.host()),
            ),
            ("AWS_ENDPOINT_URL_STS", &echo.url),
            ("AWS_ENDPOINT_URL_DYNAMODB", &echo.url),
        ]);
        let url = "s3://states/app/terraform.tfstate";
        let runs = if serves_state {
            // Read, then refused the lock (or the write): the write path's errors.
            [
                setup.run(&["taint", ADDRESS, url, "-vv"]),
                setup.run(&[
                    "taint",
                    ADDRESS,
                    url,
                    "--backend-config",
                    "use_lockfile=true",
                ]),
                setup.run(&[
                    "lock",
                    url,
                    "-v",
                    "--backend-config",
                    "use_lockfile=true",
                    "--",
                    "true",
                ]),
            ]
            .into_iter()
            .inspect(|one| {
                assert_eq!(one.code, 2, "{}: {}{}", one.label, one.stdout, one.stderr);
            })
            .collect()
        } else {
            setup.reads(url, Some("s3://states/app/"))
        };
        assert!(!echo.credentials().is_empty(), "S3 saw no signature");
        if serves_state {
            assert!(echo.saw("PUT"), "no write or lock was tried");
        }
        setup.check(&runs, &echo);
    }
}

#[test]
fn gcs_tokens_keys_and_an_endpoint_password_are_never_shown() {
    let folder = tempfile::tempdir().unwrap();
    let echo = Echo::start(|received| Reply::echo_json(401, received));
    let (token, password) = (marker("gcsTOKEN", 60), marker("gcsPASSWORD", 24));
    let key = base64_of(&marker("gcsKEY", 32));
    let setup = Setup {
        folder: folder.path(),
        env: pairs(&[("GOOGLE_OAUTH_ACCESS_TOKEN", &token)]),
        config: vec![
            format!(
                "storage_custom_endpoint=http://gcsuser:{password}@{}/storage/v1/",
                echo.host()
            ),
            format!("encryption_key={key}"),
        ],
        inputs: &[],
        secrets: vec![token, password, key],
    };
    setup.reads_show_nothing(
        "gs://states/app/default.tfstate",
        Some("gs://states/app/"),
        &echo,
        "GCS saw no token",
    );
}

#[test]
fn azurerm_keys_sas_tokens_and_an_endpoint_password_are_never_shown() {
    let folder = tempfile::tempdir().unwrap();
    let echo = Echo::start(|received| Reply::echo_xml(403, "AuthenticationFailed", received));
    let password = marker("azPASSWORD", 24);
    let access_key = base64_of(&marker("azACCESSKEY", 64));
    let signature = format!("{}%2B{}%3D", marker("azSIG", 20), marker("azSIGtail", 20));
    let sas =
        format!("sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2030-01-01T00:00:00Z&sig={signature}");
    let endpoint = format!("endpoint=http://azuser:{password}@{}", echo.host());
    for (variable, value) in [("ARM_ACCESS_KEY", &access_key), ("ARM_SAS_TOKEN", &sas)] {
        let setup = Setup {
            folder: folder.path(),
            env: pairs(&[(variable, value)]),
            config: vec![endpoint.clone()],
            inputs: &[],
            secrets: vec![password.clone(), access_key.clone(), signature.clone()],
        };
        setup.reads_show_nothing(
            "azurerm://account/tfstate/prod.terraform.tfstate",
            Some("azurerm://account/tfstate/"),
            &echo,
            "Azure saw no credential",
        );
    }
}

#[test]
fn the_oci_backends_key_and_signatures_are_never_shown() {
    let folder = tempfile::tempdir().unwrap();
    let echo = Echo::start(|received| Reply::echo_json(401, received));
    let key = std::fs::read_to_string(root().join("tests/sim/oci_test_key.pem")).unwrap();
    std::fs::create_dir(folder.path().join(".oci")).unwrap();
    std::fs::write(folder.path().join(".oci/key.pem"), &key).unwrap();
    std::fs::write(
        folder.path().join(".oci/config"),
        format!(
            "[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nregion=eu-frankfurt-1\nkey_file={}\n",
            folder.path().join(".oci/key.pem").display()
        ),
    )
    .unwrap();
    let setup = Setup {
        folder: folder.path(),
        env: pairs(&[(
            "OCI_CLIENT_HOST_OVERRIDES",
            &format!("oci_object_storage.ObjectStorageClient={}", echo.url),
        )]),
        config: Vec::new(),
        inputs: &[".oci/key.pem", ".oci/config"],
        secrets: key
            .lines()
            .filter(|line| !line.starts_with("-----"))
            .map(str::to_owned)
            .collect(),
    };
    setup.reads_show_nothing(
        "oci://acme/states/app/terraform.tfstate",
        Some("oci://acme/states/app/"),
        &echo,
        "OCI saw no signature",
    );
}

#[test]
fn the_http_backends_password_in_the_address_and_in_settings_is_never_shown() {
    let folder = tempfile::tempdir().unwrap();
    let state = state();
    // GET serves the state; LOCK and POST echo: the read path and the write path both.
    let echo = Echo::start(move |received| {
        if received.method == "GET" && received.path() == "/served" {
            Reply {
                status: 200,
                headers: Vec::new(),
                body: state.clone().into_bytes(),
            }
        } else {
            Reply::echo_json(403, received)
        }
    });
    let (in_url, in_variable) = (marker("httpURLPASSWORD", 24), marker("httpPASSWORD", 24));
    for (address, env) in [
        (
            format!("http://ci:{in_url}@{}/refused", echo.host()),
            Vec::new(),
        ),
        (
            format!("http://{}/refused?token={in_url}", echo.host()),
            pairs(&[
                ("TF_HTTP_USERNAME", "ci"),
                ("TF_HTTP_PASSWORD", &in_variable),
            ]),
        ),
    ] {
        let setup = Setup {
            folder: folder.path(),
            env,
            config: Vec::new(),
            inputs: &[],
            secrets: vec![in_url.clone(), in_variable.clone()],
        };
        let mut runs = setup.reads(&address, None);
        let served = address.replace("/refused", "/served");
        let lock_address = format!("lock_address={}", address.replace("/refused", "/lock"));
        for args in [
            vec!["taint", ADDRESS, served.as_str(), "-vv"],
            vec![
                "taint",
                ADDRESS,
                served.as_str(),
                "--backend-config",
                &lock_address,
            ],
            vec![
                "lock",
                served.as_str(),
                "-v",
                "--backend-config",
                &lock_address,
                "--",
                "true",
            ],
        ] {
            let one = setup.run(&args);
            assert_eq!(one.code, 2, "{}: {}{}", one.label, one.stdout, one.stderr);
            runs.push(one);
        }
        assert!(!echo.credentials().is_empty(), "the server saw no password");
        assert!(
            echo.saw("LOCK") && echo.saw("POST"),
            "no write or lock was tried"
        );
        setup.check(&runs, &echo);
    }
}

/// `statectl-sim tfe` whose every API answer is a 401 or a 422 echoing the request.
struct Tfe {
    server: simulator::Server,
    tls: tempfile::TempDir,
}

impl Tfe {
    fn start(token: &str, fault: &str) -> Tfe {
        let tls = tempfile::tempdir().unwrap();
        let mut args: Vec<OsString> = vec!["tfe".into(), "--tls-dir".into(), tls.path().into()];
        let rest = [
            "--token",
            token,
            "--workspace",
            "prod",
            "--echo-faults",
            "--fault",
            fault,
        ];
        args.extend(rest.map(OsString::from));
        Tfe {
            server: simulator::start(args),
            tls,
        }
    }
}

#[test]
fn an_hcp_terraform_token_echoed_back_is_never_shown() {
    let token = marker("hcpTOKEN", 60);
    for fault in ["GET:/api/v2/=401", "GET:/api/v2/=422", "POST:/api/v2/=422"] {
        let tfe = Tfe::start(&token, fault);
        let host = format!("localhost:{}", tfe.server.address().port());
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir(folder.path().join(".terraform.d")).unwrap();
        std::fs::write(
            folder.path().join(".terraform.d/credentials.tfrc.json"),
            serde_json::json!({"credentials": {host.clone(): {"token": token}}}).to_string(),
        )
        .unwrap();
        std::fs::create_dir(folder.path().join(".terraform")).unwrap();
        std::fs::write(
            folder.path().join(".terraform/terraform.tfstate"),
            serde_json::json!({"version": 3, "terraform_version": "1.15.5", "backend": {
                "type": "cloud", "hash": 1,
                "config": {"hostname": host, "organization": "acme", "token": null,
                           "workspaces": {"name": "prod", "project": null, "tags": null}}}})
            .to_string(),
        )
        .unwrap();
        std::fs::write(folder.path().join(".terraform/environment"), "prod").unwrap();
        let ca = tfe.tls.path().join("ca.pem").display().to_string();
        let env = [("SSL_CERT_FILE", ca.as_str())];
        let inputs = [".terraform.d/credentials.tfrc.json"];
        let mut runs = Vec::new();
        for args in [
            &["list", "-vv"][..],
            &["list", "--format", "json", "-v"],
            &["scan", "--format", "sarif"],
            &["taint", ADDRESS, "-vv"],
        ] {
            let one = run(folder.path(), args, &env, &inputs);
            assert_eq!(
                one.code, 2,
                "{fault}: {}: {}{}",
                one.label, one.stdout, one.stderr
            );
            runs.push(one);
        }
        assert_nothing_shown(&runs, std::slice::from_ref(&token));
    }
}

/// Issue 24's item 5 as filed: a password too short to register (3 characters) in an endpoint URL
/// is still hidden in every message by its shape, `http://***@host`, wherever the URL came from:
/// `AWS_ENDPOINT_URL_S3`, the s3 backend's `endpoints` block, azurerm's `endpoint`, and a refused
/// `--endpoint` (clap's own message).
#[test]
fn a_short_password_in_an_endpoint_url_is_hidden_by_its_shape() {
    let folder = folder_with(
        "backend.hcl",
        "endpoints = { s3 = \"http://u:Pw7@127.0.0.1:1\" }\nregion = \"us-east-1\"\n",
    );
    let inputs = ["backend.hcl"];
    let aws = [
        ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", "not-the-point-of-this-test"),
    ];
    let with_variable = [
        aws[0],
        aws[1],
        ("AWS_REGION", "us-east-1"),
        ("AWS_ENDPOINT_URL_S3", "http://u:Pw7@127.0.0.1:1"),
    ];
    let runs = [
        run(
            folder.path(),
            &["list", "s3://b/k"],
            &with_variable,
            &inputs,
        ),
        run(
            folder.path(),
            &["list", "s3://b/k", "--backend-config", "backend.hcl"],
            &aws,
            &inputs,
        ),
        run(
            folder.path(),
            &[
                "list",
                "azurerm://account/tfstate/prod.tfstate",
                "--backend-config",
                "endpoint=http://u:Pw7@127.0.0.1:1",
            ],
            &[("ARM_ACCESS_KEY", "a2V5")],
            &inputs,
        ),
        run(
            folder.path(),
            &["refresh", "--endpoint", "cf=http://admin:Pw7@127.0.0.1:1"],
            &[],
            &inputs,
        ),
    ];
    for one in &runs {
        assert_eq!(one.code, 2, "{}: {}", one.label, one.stderr);
        assert!(
            one.stderr.contains("://***@"),
            "{}: {}",
            one.label,
            one.stderr
        );
    }
    assert_nothing_shown(&runs, &[":Pw7@".to_owned(), "Pw7".to_owned()]);
}
