//! `statectl refresh` against the project's provider simulator (`statectl-sim`) on loopback: OCI
//! instances (signed requests, VNIC lookups), Cloud Foundry v3 service instances (bearer token), faults
//! (503, 429 with Retry-After, resets), gone objects, refused credentials; the plan without `--write`
//! (exit 1, nothing written) and the safe write with it. Requests are counted by the simulator and
//! bounded here.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::builder::root;

/// A running simulator; killed when dropped.
struct Sim {
    child: Child,
    address: String,
}

impl Sim {
    fn start(folder: &Path, scenario: &str) -> Sim {
        let path = folder.join("scenario.toml");
        std::fs::write(&path, scenario).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_statectl-sim"))
            .arg("--scenario")
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("the simulator said {line:?}"))
            .to_owned();
        assert!(
            address.starts_with("127.0.0.1:"),
            "loopback only: {address}"
        );
        Sim { child, address }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// `/_sim/stats`, read with a plain HTTP/1.0 request.
    fn stats(&self) -> Value {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        write!(
            stream,
            "GET /_sim/stats HTTP/1.0\r\nHost: {}\r\n\r\n",
            self.address
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        serde_json::from_str(text.split("\r\n\r\n").nth(1).unwrap()).unwrap()
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs statectl in `folder` with `env` added to a scrubbed environment.
fn statectl(folder: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_statectl"));
    command
        .args(args)
        .current_dir(folder)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("COLUMNS", "200");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn scratch_with(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("terraform.tfstate");
    std::fs::copy(root().join("testdata/scan").join(fixture), &state).unwrap();
    (folder, state)
}

fn attributes(state: &Path, name: &str) -> Value {
    let document: Value = serde_json::from_slice(&std::fs::read(state).unwrap()).unwrap();
    document["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|resource| resource["name"] == name)
        .unwrap()["instances"][0]["attributes"]
        .clone()
}

const CF_SCENARIO: &str = r#"
[cf]
token = "t0ken"

[[cf.service_instance]]
guid = "89acda41-b1a3-40ea-a528-fe1445219c75"
name = "orders-db"
last_operation_type = "create"
lifecycle = ["in progress:2", "succeeded"]
"#;

#[test]
fn a_cloud_foundry_instance_in_progress_is_reconciled_and_written_only_with_write() {
    let (folder, state) = scratch_with("cf-tainted-in-progress.tfstate");
    let sim = Sim::start(folder.path(), CF_SCENARIO);
    let before = std::fs::read(&state).unwrap();
    let endpoint = format!("cf={}", sim.url());
    let env = [("CF_ACCESS_TOKEN", "bearer t0ken")];
    // The plan: the outcome, the diff, exit 1, nothing written.
    let (code, stdout, stderr) = statectl(
        folder.path(),
        &["refresh", "--endpoint", &endpoint, "--timeout", "30s"],
        &env,
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("cloudfoundry_service_instance.orders_db ┆ reconciled (succeeded)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-      \"state\": \"in progress\","),
        "{stdout}"
    );
    assert!(
        stdout.contains("+      \"state\": \"succeeded\","),
        "{stdout}"
    );
    assert!(stderr.contains("nothing written"), "{stderr}");
    assert_eq!(std::fs::read(&state).unwrap(), before);
    // Written: the state learns the operation finished; serial raised; the taint stays (untaint is
    // the user's call, and the hint says so).
    let (code, _, stderr) = statectl(
        folder.path(),
        &[
            "refresh",
            "--endpoint",
            &endpoint,
            "--timeout",
            "30s",
            "--write",
            "--backup",
            "-",
        ],
        &env,
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        attributes(&state, "orders_db")["last_operation"]["state"],
        "succeeded"
    );
    let (code, stdout, _) = statectl(folder.path(), &["scan", "--format", "json"], &[]);
    assert_eq!(code, 1);
    assert!(stdout.contains("\"rule\": \"tainted\""), "{stdout}");
    assert!(!stdout.contains("tainted-after-timeout"), "{stdout}");
    // Two polls in progress, one succeeded, per run: bounded.
    let requests = sim.stats()["requests"].as_u64().unwrap();
    assert!((4..=8).contains(&requests), "{requests} requests");
}

#[test]
fn refused_credentials_are_an_error_at_once_and_nothing_is_written() {
    let (folder, state) = scratch_with("cf-tainted-in-progress.tfstate");
    let sim = Sim::start(folder.path(), CF_SCENARIO);
    let before = std::fs::read(&state).unwrap();
    let endpoint = format!("cf={}", sim.url());
    let (code, stdout, stderr) = statectl(
        folder.path(),
        &["refresh", "--endpoint", &endpoint, "--write"],
        &[("CF_ACCESS_TOKEN", "wrong")],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stdout.contains("error: HTTP 401: the credentials were refused"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("wrong") && !stderr.contains("wrong"),
        "the token never shows"
    );
    assert_eq!(std::fs::read(&state).unwrap(), before);
    assert_eq!(
        sim.stats()["requests"],
        1,
        "no retries on refused credentials"
    );
    // No token at all: said before any request.
    let (code, _, stderr) = statectl(folder.path(), &["refresh", "--endpoint", &endpoint], &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`CF_ACCESS_TOKEN` is not set"), "{stderr}");
}

/// An OCI config whose API key is the simulator's throwaway test key.
fn oci_config(folder: &Path) -> PathBuf {
    let config = folder.join("oci-config");
    std::fs::write(
        &config,
        format!(
            "[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nregion=eu-frankfurt-1\nkey_file={}\n",
            root().join("tests/sim/oci_test_key.pem").display()
        ),
    )
    .unwrap();
    config
}

fn oci_scenario(lifecycle: &str, faults: &str) -> String {
    format!(
        r#"
[oci]
key_id = "ocid1.tenancy.oc1..t/ocid1.user.oc1..u/36:62:75:44"
public_key_file = "{}"

[[oci.instance]]
id = "ocid1.instance.oc1.eu-frankfurt-1.aaaaaaaatuj41n8eg56rcixttywe3ldgcui88hyr79osd4yynm2u1cu0qq4m"
compartment_id = "ocid1.compartment.oc1..aaaaaaaaa8gj5bze6ibdqao4c8t2audw0icp2anyknkzuk5dcajypymd2zwk"
lifecycle = {lifecycle}
private_ip = "10.0.1.17"
public_ip = "130.61.4.2"
subnet_id = "ocid1.subnet.oc1.eu-frankfurt-1.aaaaaaaam3weklmtwbnntqn4wy5am0vgprrkrcuvn2qtr5jlcjaarsiqv6kk"
hostname_label = "app"
{faults}
"#,
        root().join("tests/sim/oci_test_key.pub.pem").display()
    )
}

#[test]
fn an_oci_instance_launched_async_gets_its_state_and_ips_through_signed_requests_despite_faults() {
    let (folder, state) = scratch_with("oci-async-provisioning.tfstate");
    let config = oci_config(folder.path());
    let faults =
        "[faults]\nseed = 7\nrate_503 = 0.2\nrate_429 = 0.1\nretry_after = 1\nrate_reset = 0.05\n";
    let sim = Sim::start(
        folder.path(),
        &oci_scenario(r#"["PROVISIONING:2", "RUNNING"]"#, faults),
    );
    let endpoint = format!("oci={}", sim.url());
    let config = config.display().to_string();
    let (code, stdout, stderr) = statectl(
        folder.path(),
        &[
            "refresh",
            "--endpoint",
            &endpoint,
            "--timeout",
            "60s",
            "--write",
            "--backup",
            "-",
        ],
        &[("OCI_CLI_CONFIG_FILE", &config)],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("reconciled (RUNNING)"), "{stdout}");
    let after = attributes(&state, "app");
    assert_eq!(after["state"], "RUNNING");
    assert_eq!(after["private_ip"], "10.0.1.17");
    assert_eq!(after["public_ip"], "130.61.4.2");
    assert_eq!(after["hostname_label"], "app");
    let stats = sim.stats();
    assert_eq!(
        stats["auth_rejected"], 0,
        "every request was signed right: {stats}"
    );
    assert!(stats["requests"].as_u64().unwrap() <= 30, "{stats}");
    // No longer in transition; of the computed attributes only `boot_volume_id` is still missing (the
    // profile does not read boot volume attachments yet).
    let (_, stdout, _) = statectl(folder.path(), &["scan", "--format", "json"], &[]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let findings: Vec<&Value> = report["states"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["address"] == "oci_core_instance.app")
        .collect();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["rule"], "missing-computed-attribute");
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("missing: boot_volume_id"),
        "{findings:?}"
    );
}

#[test]
fn a_terminated_instance_is_gone_and_its_removal_is_proposed() {
    let (folder, state) = scratch_with("oci-async-provisioning.tfstate");
    let config = oci_config(folder.path());
    let sim = Sim::start(folder.path(), &oci_scenario(r#"["TERMINATED"]"#, ""));
    let endpoint = format!("oci={}", sim.url());
    let config = config.display().to_string();
    let env = [("OCI_CLI_CONFIG_FILE", config.as_str())];
    let (code, stdout, _) = statectl(folder.path(), &["refresh", "--endpoint", &endpoint], &env);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("oci_core_instance.app ┆ gone"), "{stdout}");
    assert!(stdout.contains("+++ /dev/null"), "{stdout}");
    let (code, _, stderr) = statectl(
        folder.path(),
        &[
            "refresh",
            "--endpoint",
            &endpoint,
            "--write",
            "--backup",
            "-",
        ],
        &env,
    );
    assert_eq!(code, 0, "{stderr}");
    let (_, listed, _) = statectl(folder.path(), &["list"], &[]);
    assert!(!listed.contains("oci_core_instance.app"), "{listed}");
    assert!(state.exists());
}

#[test]
fn a_bad_signature_is_refused_by_the_simulator() {
    let (folder, _state) = scratch_with("oci-async-provisioning.tfstate");
    // The right key id, but a different key: the simulator verifies and refuses.
    let other_key = folder.path().join("other.pem");
    let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 1024).unwrap();
    std::fs::write(
        &other_key,
        rsa::pkcs8::EncodePrivateKey::to_pkcs8_pem(&key, rsa::pkcs8::LineEnding::LF)
            .unwrap()
            .as_bytes(),
    )
    .unwrap();
    let config = folder.path().join("oci-config");
    std::fs::write(&config, format!("[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nkey_file={}\n", other_key.display())).unwrap();
    let sim = Sim::start(folder.path(), &oci_scenario(r#"["RUNNING"]"#, ""));
    let endpoint = format!("oci={}", sim.url());
    let config = config.display().to_string();
    let (code, stdout, _) = statectl(
        folder.path(),
        &["refresh", "--endpoint", &endpoint],
        &[("OCI_CLI_CONFIG_FILE", &config)],
    );
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stdout.contains("HTTP 401: the credentials were refused"),
        "{stdout}"
    );
    assert_eq!(sim.stats()["auth_rejected"], 1);
}
