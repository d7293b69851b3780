//! HCP Terraform / Terraform Enterprise end to end, against `statectl-sim tfe` on loopback (HTTPS
//! with a CA of its own, trusted through SSL_CERT_FILE as Go and statectl both read it): a
//! directory whose `.terraform/terraform.tfstate` records a `cloud` block, and the token in the CLI
//! credentials file (`~/.terraform.d/credentials.tfrc.json`, as `terraform login` writes it).
//! statectl reads, taints (a new state version: serial + 1, the same lineage, the MD5 of the bytes
//! uploaded) and holds the workspace's lock; every fault is one line and exit 2, and no lock stays
//! behind. With Terraform 1.15.5 as the other client, `terraform init` against the simulator writes
//! the backend cache, `terraform apply` (local execution: the organization has no remote
//! operations) writes the state, and each tool sees what the other wrote.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::builder::{Output, Test, assert_contains, find_by, root};
use crate::oracle::terraform;
use crate::processes::assert_success;
use crate::simulator;
use crate::workdir::{TerraformWorkdir, Workdir, cancel_statectl_lock};

pub(crate) const TOKEN: &str = "sim-token.atlasv1.s3cret";

/// A running `statectl-sim tfe`, stopped on drop.
pub(crate) struct Tfe {
    server: simulator::Server,
    tls: tempfile::TempDir,
}

impl Tfe {
    /// The simulator with organization `acme`, the token [`TOKEN`], and `extra` arguments.
    pub(crate) fn start(extra: &[&str]) -> Tfe {
        let tls = tempfile::tempdir().unwrap();
        let mut args: Vec<OsString> = vec!["tfe".into(), "--tls-dir".into(), tls.path().into()];
        args.extend(
            ["--token", TOKEN]
                .into_iter()
                .chain(extra.iter().copied())
                .map(OsString::from),
        );
        Tfe {
            server: simulator::start(args),
            tls,
        }
    }

    fn port(&self) -> u16 {
        self.server.address().port()
    }

    /// With workspace `prod` holding a copy of `count_for_each.tfstate`.
    fn with_prod(extra: &[&str]) -> Tfe {
        let state = format!("prod={}", seed().display());
        let mut args = vec!["--workspace", "prod", "--state", &state];
        args.extend_from_slice(extra);
        Tfe::start(&args)
    }

    pub(crate) fn host(&self) -> String {
        format!("localhost:{}", self.port())
    }

    pub(crate) fn ca(&self) -> PathBuf {
        self.tls.path().join("ca.pem")
    }

    /// A `/_sim/` request over plain HTTP: the status and the body.
    fn control(&self, method: &str, target: &str, body: &str) -> (u16, String) {
        let target = format!("/_sim/{target}");
        let (status, body) = simulator::control(self.port(), method, &target, body.as_bytes());
        (status, String::from_utf8(body).unwrap())
    }

    pub(crate) fn versions(&self, workspace: &str) -> Vec<Value> {
        let (_, body) = self.control("GET", &format!("versions?workspace={workspace}"), "");
        serde_json::from_str::<Vec<Value>>(&body).unwrap()
    }

    pub(crate) fn holder(&self, workspace: &str) -> Option<String> {
        let (status, body) = self.control("GET", &format!("lock?workspace={workspace}"), "");
        (status == 200).then(|| serde_json::from_str(&body).unwrap())
    }

    fn log(&self) -> Vec<Value> {
        serde_json::from_str(&self.control("GET", "log", "").1).unwrap()
    }

    /// How many requests with `method` had `fragment` in their target.
    pub(crate) fn count(&self, method: &str, fragment: &str) -> usize {
        self.log()
            .iter()
            .filter(|entry| {
                entry["method"] == method
                    && entry["target"]
                        .as_str()
                        .unwrap_or_default()
                        .contains(fragment)
            })
            .count()
    }

    fn wait_for_holder(&self, workspace: &str, held: bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.holder(workspace).is_some() != held {
            assert!(Instant::now() < deadline, "the lock never changed");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn seed() -> PathBuf {
    root().join("testdata/states/count_for_each.tfstate")
}

/// A home directory whose `credentials.tfrc.json` holds `token` for `host`, as `terraform login`
/// leaves it.
pub(crate) fn home_with_token(host: &str, token: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".terraform.d");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("credentials.tfrc.json"),
        serde_json::to_string_pretty(&json!({"credentials": {host: {"token": token}}})).unwrap(),
    )
    .unwrap();
    home
}

/// A directory initialised for a `cloud` block: the backend cache as Terraform 1.15 writes it.
fn cloud_dir(host: &str, workspaces: &Value) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir(folder.path().join(".terraform")).unwrap();
    let cache = json!({
        "version": 3,
        "terraform_version": "1.15.5",
        "backend": {
            "type": "cloud",
            "config": {"hostname": host, "organization": "acme", "token": null,
                       "workspaces": workspaces},
            "hash": 1_234_567_890
        }
    });
    std::fs::write(
        folder.path().join(".terraform/terraform.tfstate"),
        serde_json::to_string_pretty(&cache).unwrap(),
    )
    .unwrap();
    // `terraform init` selects the block's workspace when it names one.
    if let Some(name) = workspaces["name"].as_str() {
        std::fs::write(folder.path().join(".terraform/environment"), name).unwrap();
    }
    folder
}

fn named(name: &str) -> Value {
    json!({"name": name, "project": null, "tags": null})
}

/// statectl in `folder` with the simulator's CA trusted and `home` as HOME.
fn statectl(tfe: &Tfe, folder: &Path, home: &Path) -> Test {
    Test::new()
        .current_dir(folder)
        .env("SSL_CERT_FILE", tfe.ca())
        .env("HOME", home)
        .env("USER", "statectl-e2e")
}

/// `statectl list` of the seed state read locally: what a read through the API must print.
fn local_list() -> String {
    Test::new().arg("list").arg(seed()).run().code(0).stdout
}

#[test]
fn reads_taints_and_locks_a_cloud_workspace_through_the_api() {
    let tfe = Tfe::with_prod(&[]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(&tfe.host(), &named("prod"));
    let expected = local_list();
    assert!(expected.contains("terraform_data.single"));
    statectl(&tfe, folder.path(), home.path())
        .arg("list")
        .run()
        .code(0)
        .stdout(&expected);
    // The token went to the API and its download URL, never to discovery.
    let log = tfe.log();
    let discovery = log
        .iter()
        .find(|entry| entry["target"] == "/.well-known/terraform.json")
        .unwrap();
    assert_eq!(discovery["authorized"], false);
    assert!(log.iter().any(|entry| {
        entry["target"].as_str().unwrap().ends_with("/hosted_state") && entry["authorized"] == true
    }));
    // Its redirect to the object store on another host name was followed, without the token.
    let download = log
        .iter()
        .find(|entry| {
            entry["target"]
                .as_str()
                .unwrap()
                .starts_with("/_archivist/download/")
        })
        .expect("the redirect was followed");
    assert_eq!(download["status"], 200);
    assert_eq!(download["authorized"], false);

    statectl(&tfe, folder.path(), home.path())
        .args(["taint", "terraform_data.single", "--backup", "-"])
        .run()
        .code(0);
    let versions = tfe.versions("prod");
    assert_eq!(versions.len(), 2, "{versions:?}");
    let (old, new) = (&versions[0], &versions[1]);
    assert_eq!(new["serial"], old["serial"].as_i64().unwrap() + 1);
    assert_eq!(new["lineage"], old["lineage"]);
    let bytes = new["state"].as_str().unwrap();
    assert_eq!(new["md5"], md5_hex(bytes.as_bytes()));
    let written: Value = serde_json::from_str(bytes).unwrap();
    assert_eq!(written["serial"], new["serial"]);
    let single = find_by(&written["resources"], "name", "single");
    assert_eq!(single["instances"][0]["status"], "tainted");
    // The upload flow: created without the bytes, which went to the upload URL without the token.
    assert_eq!(tfe.count("PUT", "/_archivist/upload/"), 1);
    assert!(
        tfe.log()
            .iter()
            .filter(|entry| entry["method"] == "PUT")
            .all(|entry| entry["authorized"] == false)
    );
    assert_eq!(tfe.holder("prod"), None);

    // The next read sees the new version.
    statectl(&tfe, folder.path(), home.path())
        .args(["show", "terraform_data.single"])
        .run()
        .code(0)
        .stdout_contains("tainted");
}

/// The MD5 of `bytes` in hex, from coreutils' `md5sum`, so that the test does not trust statectl's.
fn md5_hex(bytes: &[u8]) -> String {
    let output = crate::processes::fed(&mut Command::new("md5sum"), bytes);
    String::from_utf8(output.stdout).unwrap()[..32].to_owned()
}

#[test]
fn no_token_a_bad_token_and_missing_names_are_one_line_each() {
    let tfe = Tfe::with_prod(&[]);
    let host = tfe.host();
    let folder = cloud_dir(&host, &named("prod"));
    let empty_home = tempfile::tempdir().unwrap();
    statectl(&tfe, folder.path(), empty_home.path())
        .arg("list")
        .run()
        .refused(&format!(
            "error: .terraform/terraform.tfstate: backend \"cloud\": no API token for {host}"
        ))
        .stderr_contains(&format!(
            "hint: run `terraform login {host}`, or set TF_TOKEN_localhost:"
        ));

    let wrong = "wrong-token-value";
    let home = home_with_token(&host, wrong);
    let output = statectl(&tfe, folder.path(), home.path())
        .arg("list")
        .run()
        .refused(&format!(
            "https://{host}/app/acme/workspaces/prod: the API token for {host} was refused (401 Unauthorized); it came from "
        ))
        .stderr_contains("credentials.tfrc.json");
    assert!(!output.stderr.contains(wrong));
    // TF_TOKEN_<host> comes before the credentials file, as in Terraform.
    statectl(&tfe, folder.path(), home.path())
        .env(&format!("TF_TOKEN_{}", host.replace('.', "_")), TOKEN)
        .arg("list")
        .run()
        .code(0);

    let home = home_with_token(&host, TOKEN);
    let missing = cloud_dir(&host, &named("nope"));
    statectl(&tfe, missing.path(), home.path())
        .arg("list")
        .run()
        .refused(&format!(
            "workspace `nope` was not found in organization `acme` at {host} (404 Not Found)"
        ));
    let other_org = cloud_dir(&host, &named("prod"));
    let cache = other_org.path().join(".terraform/terraform.tfstate");
    let text = std::fs::read_to_string(&cache)
        .unwrap()
        .replace("\"acme\"", "\"umbrella\"");
    std::fs::write(&cache, text).unwrap();
    statectl(&tfe, other_org.path(), home.path())
        .arg("list")
        .run()
        .refused(&format!(
            "organization `umbrella` was not found at {host} (404 Not Found)"
        ));
}

#[test]
fn a_locked_workspace_is_refused_naming_the_holder_then_waited_for() {
    let tfe = Tfe::with_prod(&[]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(&tfe.host(), &named("prod"));
    assert_eq!(
        tfe.control("POST", "lock?workspace=prod&user=alice", "").0,
        204
    );
    statectl(&tfe, folder.path(), home.path())
        .args(["taint", "terraform_data.single", "--backup", "-"])
        .run()
        .refused("the state is locked by `user alice` (lock ID acme/prod)");
    assert_eq!(tfe.versions("prod").len(), 1);
    assert_eq!(tfe.holder("prod").as_deref(), Some("alice"));

    // Released a moment later: `--lock-timeout` waits for it.
    let unlocker = {
        let port = tfe.port();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            simulator::control(port, "DELETE", "/_sim/lock?workspace=prod", b"");
        })
    };
    statectl(&tfe, folder.path(), home.path())
        .args([
            "taint",
            "terraform_data.single",
            "--backup",
            "-",
            "--lock-timeout",
            "20s",
        ])
        .run()
        .code(0);
    unlocker.join().unwrap();
    assert_eq!(tfe.versions("prod").len(), 2);
    assert_eq!(tfe.holder("prod"), None);
}

#[test]
fn statectl_lock_holds_the_workspace_until_interrupted() {
    let tfe = Tfe::with_prod(&[]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(&tfe.host(), &named("prod"));
    let holder = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(["lock", "--", "sleep", "30"])
        // Its own process group, as a CI job is: the cancel reaches the command too.
        .process_group(0)
        .current_dir(folder.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("SSL_CERT_FILE", tfe.ca())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("statectl starts");
    tfe.wait_for_holder("prod", true);
    assert_eq!(tfe.holder("prod").as_deref(), Some("sim-user"));
    cancel_statectl_lock(holder);
    tfe.wait_for_holder("prod", false);
}

#[test]
fn tags_select_one_workspace_or_name_the_several_they_match() {
    let tfe = Tfe::start(&[
        "--workspace",
        "app-eu:app,eu",
        "--workspace",
        "app-us:app,us",
        "--workspace",
        "db-eu:db,eu",
        "--state",
        &format!("app-eu={}", seed().display()),
    ]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let tags = |tags: &[&str]| json!({"name": null, "project": null, "tags": tags});
    let several = cloud_dir(&tfe.host(), &tags(&["app"]));
    statectl(&tfe, several.path(), home.path())
        .arg("list")
        .run()
        .refused("the tags [app] select 2 workspaces of organization `acme`: app-eu, app-us")
        .stderr_contains("hint: choose one with `--workspace NAME`");
    statectl(&tfe, several.path(), home.path())
        .args(["list", "--workspace", "app-eu"])
        .run()
        .code(0)
        .stdout(&local_list());
    statectl(&tfe, several.path(), home.path())
        .args(["list", "--workspace", "db-eu"])
        .run()
        .refused("workspace `db-eu` of organization `acme` does not carry the tags [app]");
    // Two tags narrow it to one; its state is read without naming it.
    let one = cloud_dir(&tfe.host(), &tags(&["app", "eu"]));
    statectl(&tfe, one.path(), home.path())
        .arg("list")
        .run()
        .code(0)
        .stdout(&local_list());
}

/// Key/value tags choose by key and value, as Terraform lists them: a workspace whose `env` is
/// `dev` is not the one `tags = { env = "prod" }` selects (matched by key alone, it was the only
/// match, and its state was read).
#[test]
fn key_value_tags_select_by_value_too() {
    let tfe = Tfe::start(&[
        "--workspace",
        "app-dev:env=dev",
        "--workspace",
        "app-prod:env=prod",
        "--state",
        &format!("app-dev={}", seed().display()),
    ]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = |value: &str| {
        cloud_dir(
            &tfe.host(),
            &json!({"name": null, "project": null, "tags": {"env": value}}),
        )
    };
    let dev = folder("dev");
    statectl(&tfe, dev.path(), home.path())
        .arg("list")
        .run()
        .code(0)
        .stdout(&local_list());
    let qa = folder("qa");
    statectl(&tfe, qa.path(), home.path())
        .arg("list")
        .run()
        .refused("no workspace of organization `acme` carries the tags [env=qa]");
    // app-prod has no state yet: chosen by value, not app-dev's state read in its place.
    let prod = folder("prod");
    statectl(&tfe, prod.path(), home.path())
        .arg("list")
        .run()
        .refused(&format!(
            "error: https://{}/app/acme/workspaces/app-prod: there is no state there\nhint: the workspace has no state version yet (its first `terraform apply` makes one)",
            tfe.host()
        ));
    statectl(&tfe, prod.path(), home.path())
        .args(["list", "--workspace", "app-dev"])
        .run()
        .refused("workspace `app-dev` of organization `acme` does not carry the tags [env=prod]");
}

/// A hostile list of tagged workspaces: every page repeats the first and offers another, three
/// pages in all. Each workspace counts once (they were named once a page: "select 6 workspaces:
/// app-eu, app-eu, ..."). The page limit that ends a list offering pages for ever is the prefix
/// listings' (`listings.rs`); a thousand pages of this simulator take a minute, too long here.
#[test]
fn a_tagged_list_that_repeats_its_pages_counts_each_workspace_once() {
    let tfe = Tfe::start(&[
        "--workspace",
        "app-eu:app",
        "--workspace",
        "app-us:app",
        "--tag-pages-repeat",
        "3",
    ]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(
        &tfe.host(),
        &json!({"name": null, "project": null, "tags": ["app"]}),
    );
    statectl(&tfe, folder.path(), home.path())
        .arg("list")
        .run()
        .refused("the tags [app] select 2 workspaces of organization `acme`: app-eu, app-us\n");
    assert_eq!(tfe.count("GET", "search%5Btags%5D"), 3);
}

#[test]
fn throttling_and_server_errors_are_retried_and_an_old_server_takes_the_state_inline() {
    let tfe = Tfe::with_prod(&[
        "--no-upload",
        "--fault",
        "POST:actions/lock=429*2",
        "--fault",
        "GET:current-state-version=503*2",
    ]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(&tfe.host(), &named("prod"));
    statectl(&tfe, folder.path(), home.path())
        .args(["taint", "terraform_data.single", "--backup", "-"])
        .run()
        .code(0);
    assert_eq!(tfe.count("POST", "actions/lock"), 3);
    // The first create, without the bytes, was refused; the second carried them.
    assert_eq!(tfe.count("POST", "/state-versions"), 2);
    assert_eq!(tfe.count("PUT", "/_archivist/"), 0);
    let versions = tfe.versions("prod");
    assert_eq!(versions.len(), 2);
    assert!(versions[1]["state"].as_str().unwrap().contains("tainted"));
    assert_eq!(tfe.holder("prod"), None);
}

/// `statectl taint terraform_data.single --backup -` on the workspace of `folder`.
fn taint_single(tfe: &Tfe, folder: &Path, home: &Path) -> Output {
    statectl(tfe, folder, home)
        .args(["taint", "terraform_data.single", "--backup", "-"])
        .run()
}

#[test]
fn a_failing_a_silent_and_a_missing_server_end_in_one_line_and_leave_no_lock() {
    let tfe = Tfe::with_prod(&["--fault", "POST:/state-versions=500"]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(&tfe.host(), &named("prod"));
    let started = Instant::now();
    // The diff is on stdout before the write is tried; the failure is one line on stderr.
    let output = taint_single(&tfe, folder.path(), home.path())
        .code(2)
        .stderr_contains(
            "error: https://localhost:",
        )
        .stderr_contains("cannot write the state: the server answered 500 Internal Server Error (7 attempts)\nhint: ");
    assert_eq!(output.stderr.lines().count(), 3, "{}", output.stderr);
    assert!(started.elapsed() < Duration::from_secs(40));
    assert_eq!(tfe.versions("prod").len(), 1);
    assert_eq!(tfe.holder("prod"), None);

    tfe.control("POST", "fault", "GET:current-state-version=hang");
    let started = Instant::now();
    statectl(&tfe, folder.path(), home.path())
        .arg("list")
        .run()
        .refused("cannot read the state: no answer: no answer in 20 s (timed out) (1 attempt)");
    assert!(started.elapsed() < Duration::from_secs(40));

    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let gone = cloud_dir(&format!("localhost:{port}"), &named("prod"));
    let home = home_with_token(&format!("localhost:{port}"), TOKEN);
    statectl(&tfe, gone.path(), home.path())
        .arg("list")
        .run()
        .refused("cannot discover the host's services: no answer: ")
        .stderr_contains("hint: check the `hostname` and that the server is up");
}

/// A directory with a `cloud` block for `tfe`'s workspace `tf`, its CLI configuration (the token in
/// a `credentials` block, TF_CLI_CONFIG_FILE) in a home of its own, with the simulator's CA.
fn project(tfe: &Tfe, terraform: &Path) -> Workdir {
    let host = tfe.host();
    let environment = |home: &Path| {
        let config = home.join("cli.tfrc");
        std::fs::write(
            &config,
            format!("credentials \"{host}\" {{\n  token = \"{TOKEN}\"\n}}\n"),
        )
        .unwrap();
        vec![
            ("HOME", home.display().to_string()),
            ("TF_CLI_CONFIG_FILE", config.display().to_string()),
            ("SSL_CERT_FILE", tfe.ca().display().to_string()),
            ("CHECKPOINT_DISABLE", "1".to_owned()),
            ("TF_IN_AUTOMATION", "1".to_owned()),
        ]
    };
    let workdir = Workdir::with_home(terraform, &["TF_DATA_DIR"], environment);
    std::fs::write(
        workdir.path().join("main.tf"),
        format!(
            "terraform {{\n  cloud {{\n    hostname     = \"{host}\"\n    organization = \"acme\"\n    workspaces {{\n      name = \"tf\"\n    }}\n  }}\n}}\n{}",
            crate::workdir::APP_AND_DBS
        ),
    )
    .unwrap();
    workdir
}

#[test]
fn terraform_and_statectl_share_a_cloud_workspace() {
    let Some(terraform) = terraform() else { return };
    let tfe = Tfe::start(&[]);
    let project = project(&tfe, &terraform);
    project.terraform_stdout(&["init", "-input=false", "-no-color"]);
    // The backend cache as Terraform wrote it for the block.
    let cache: Value = serde_json::from_slice(
        &std::fs::read(project.path().join(".terraform/terraform.tfstate")).unwrap(),
    )
    .unwrap();
    assert_eq!(cache["backend"]["type"], "cloud", "{cache}");
    assert_eq!(cache["backend"]["config"]["workspaces"]["name"], "tf");
    project.terraform_stdout(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    assert_eq!(tfe.versions("tf").len(), 1);

    let listed = project.terraform_stdout(&["state", "list"]);
    project
        .statectl_test()
        .arg("list")
        .run()
        .code(0)
        .stdout(&listed);

    project
        .statectl_test()
        .args(["taint", "terraform_data.app", "--backup", "-"])
        .run()
        .code(0);
    let pulled: Value =
        serde_json::from_str(&project.terraform_stdout(&["state", "pull"])).unwrap();
    let versions = tfe.versions("tf");
    assert_eq!(pulled["serial"], versions[1]["serial"]);
    assert_eq!(
        versions[1]["serial"],
        versions[0]["serial"].as_i64().unwrap() + 1
    );
    let app = find_by(&pulled["resources"], "name", "app");
    assert_eq!(app["instances"][0]["status"], "tainted");
    assert_eq!(tfe.holder("tf"), None);

    // Terraform's next apply replaces what statectl tainted, through the same workspace.
    let applied =
        project.terraform_stdout(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    assert_contains(&applied, "1 added, 0 changed, 1 destroyed");
    assert_eq!(tfe.versions("tf").len(), 3);
}

#[test]
fn a_remote_backend_maps_the_selected_workspace_through_its_prefix() {
    let Some(terraform) = terraform() else { return };
    let state = format!("app-dev={}", seed().display());
    let tfe = Tfe::start(&["--workspace", "app-dev", "--state", &state]);
    let project = project(&tfe, &terraform);
    std::fs::write(
        project.path().join("main.tf"),
        format!(
            "terraform {{\n  backend \"remote\" {{\n    hostname     = \"{}\"\n    organization = \"acme\"\n    workspaces {{\n      prefix = \"app-\"\n    }}\n  }}\n}}\n",
            tfe.host()
        ),
    )
    .unwrap();
    let dev = |args: &[&str]| {
        let output = project
            .terraform_command(args)
            .env("TF_WORKSPACE", "dev")
            .output()
            .expect("terraform runs");
        assert_success(&output);
        String::from_utf8(output.stdout).unwrap()
    };
    dev(&["init", "-input=false", "-no-color"]);
    let listed = dev(&["state", "list"]);
    assert_eq!(listed, local_list());
    project
        .statectl_test()
        .env("TF_WORKSPACE", "dev")
        .arg("list")
        .run()
        .code(0)
        .stdout(&listed)
        .stderr_contains(&format!(
            "state https://{}/app/acme/workspaces/app-dev (backend \"remote\"",
            tfe.host()
        ));
    project
        .statectl_test()
        .arg("list")
        .run()
        .refused("backend \"remote\" maps workspaces by the prefix `app-`, and has no `default` workspace")
        .stderr_contains("hint: select one with `--workspace NAME`");
}

#[test]
fn a_lock_that_cannot_be_released_is_named_with_the_id_terraform_force_unlock_takes() {
    let tfe = Tfe::with_prod(&["--fault", "POST:actions/unlock=409"]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(&tfe.host(), &named("prod"));
    let output = taint_single(&tfe, folder.path(), home.path())
        .code(2)
        .stderr_contains(
            "cannot unlock the workspace: the server answered 409 Conflict: injected fault: the simulator was told to fail; the lock acme/prod is still held\n",
        )
        .stderr_contains(
            "hint: once nobody else is working on this state, `terraform force-unlock acme/prod` removes it",
        );
    assert!(!output.stderr.contains(TOKEN));
    // The state was written before the release failed.
    assert_eq!(tfe.versions("prod").len(), 2);
    assert_eq!(tfe.holder("prod").as_deref(), Some("sim-user"));
}

/// HCP Terraform's state versions are the history (on the simulator's `GET state-versions`): each
/// with the user that wrote it and the run (`TFE_RUN_ID`) where there was one; `list --version`
/// reads one through its download URL; `restore` creates a new state version under the
/// workspace's lock, serial above the current one, and releases the lock.
#[test]
fn history_lists_state_versions_with_user_and_run_and_restore_adds_one() {
    let tfe = Tfe::with_prod(&["--user", "ana"]);
    let home = home_with_token(&tfe.host(), TOKEN);
    let folder = cloud_dir(&tfe.host(), &named("prod"));
    let run = |args: &[&str]| statectl(&tfe, folder.path(), home.path()).args(args);
    run(&["taint", "terraform_data.single", "--backup", "-"])
        .env("TFE_RUN_ID", "run-abc123")
        .run()
        .code(0);
    run(&["forget", "terraform_data.single", "--backup", "-"])
        .run()
        .code(0);
    let history: Value =
        serde_json::from_str(&run(&["history", "--format", "json"]).run().code(0).stdout).unwrap();
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 3, "{history:#}");
    assert_eq!(versions[0]["latest"], true);
    assert_eq!(versions[0]["changes"]["removed"], 1);
    assert_eq!(versions[0]["extras"]["user"], "ana");
    assert_eq!(versions[1]["extras"]["run"], "run-abc123");
    assert_eq!(versions[1]["changes"]["changed"], 1);
    let serials: Vec<u64> = versions
        .iter()
        .map(|version| version["serial"].as_u64().unwrap())
        .collect();
    let table = run(&["history"]).run().code(0).stdout;
    assert_contains(&table, "ana (run-abc123)");
    run(&["list", "--version", "~2"])
        .run()
        .code(0)
        .stdout(&local_list());
    run(&["list", "--version", "sv-nope"])
        .run()
        .refused("there is no version `sv-nope` of this state");
    run(&["restore", "--version", "~2", "--backup", "-"])
        .run()
        .code(0)
        .stderr_contains(&format!("as serial {}; no backup", serials[0] + 1));
    let stored = tfe.versions("prod");
    assert_eq!(stored.len(), 4);
    assert_eq!(stored[3]["serial"], serials[0] + 1);
    assert_eq!(tfe.holder("prod"), None, "the lock was released");
    run(&["list"]).run().code(0).stdout(&local_list());
}
