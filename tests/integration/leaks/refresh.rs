//! `statectl refresh` through the three built-in kinds of credentials: Cloud Foundry's bearer token,
//! an Open Service Broker's basic auth, OCI's API-key signature. The server echoes each request in
//! a 401, a 403 and a 400 (the outcome's excerpt, the table, `--format json`, the `-v`/`-vv` log),
//! and in a 200 whose mapped attributes hold the echo: that instance is an error, nothing of the
//! answer reaches the diff, and `--write` / `-o -` write nothing from it.

use std::path::Path;

use serde_json::json;

use super::echo::{Echo, Received, Reply};
use super::{Run, assert_nothing_shown, marker, run};
use crate::builder::root;
use crate::files::folder_with_copy;

/// A successful answer of the profile at `path`, every free-text field the echo.
fn echoing_success(received: &Received) -> Reply {
    let echo = received.echo();
    let path = received.path();
    let body = if path.starts_with("/v3/service_instances/") {
        json!({"guid": "x", "last_operation": {"type": "create", "state": "succeeded",
            "description": echo, "created_at": echo, "updated_at": echo}})
    } else if path.ends_with("/last_operation") {
        json!({"state": "succeeded", "description": echo})
    } else if path.ends_with("/vnicAttachments") {
        json!([{"lifecycleState": "ATTACHED", "vnicId": "vnic-1"}])
    } else if path.ends_with("/bootVolumeAttachments") {
        json!([{"lifecycleState": "ATTACHED", "bootVolumeId": echo}])
    } else if path.contains("/vnics/") {
        json!({"privateIp": echo, "publicIp": echo, "hostnameLabel": echo, "subnetId": echo})
    } else {
        json!({"id": "x", "lifecycleState": "RUNNING", "displayName": echo})
    };
    Reply::json(200, &body)
}

/// One profile's runs against a server answering `status` (the echo in an error, or a 200 whose
/// fields are the echo).
fn runs_against(
    status: u16,
    folder: &Path,
    base: &[&str],
    env: &[(&str, &str)],
    inputs: &[&str],
) -> (Vec<Run>, Echo) {
    let echo = if status == 200 {
        Echo::start(echoing_success)
    } else {
        Echo::start(move |received| Reply::echo_json(status, received))
    };
    let endpoint = format!("{}={}", base[0], echo.url);
    let mut runs = Vec::new();
    let variants: &[&[&str]] = if status == 200 {
        &[
            &["-vv", "--write"],
            &["-v", "--write", "-o", "-"],
            &["--format", "json", "-vv"],
        ]
    } else {
        &[&["-vv"], &["-v", "--format", "json"], &["--write"]]
    };
    for extra in variants {
        let mut args = vec!["refresh", "--endpoint", &endpoint, "--timeout", "20s"];
        args.extend_from_slice(&base[1..]);
        args.extend_from_slice(extra);
        let one = run(folder, &args, env, inputs);
        assert_eq!(one.code, 2, "{}: {}{}", one.label, one.stdout, one.stderr);
        if status == 200 {
            assert!(
                format!("{}{}", one.stdout, one.stderr)
                    .contains("holds a credential this run sent; nothing from it is taken"),
                "{}: {}{}",
                one.label,
                one.stdout,
                one.stderr
            );
        }
        runs.push(one);
    }
    (runs, echo)
}

/// Every status for one profile; `secrets` are the markers it was given.
fn check_profile(
    folder: &Path,
    base: &[&str],
    env: &[(&str, &str)],
    inputs: &[&str],
    secrets: &[String],
) {
    let state = folder.join("terraform.tfstate");
    let before = std::fs::read(&state).unwrap();
    for status in [401, 403, 400, 200] {
        let (runs, echo) = runs_against(status, folder, base, env, inputs);
        let mut secrets = secrets.to_vec();
        let sent = echo.credentials();
        assert!(!sent.is_empty(), "the server saw no credential ({status})");
        secrets.extend(sent);
        assert_nothing_shown(&runs, &secrets);
        assert_eq!(std::fs::read(&state).unwrap(), before, "the state changed");
    }
}

fn folder_with(fixture: &str) -> tempfile::TempDir {
    folder_with_copy(root().join("testdata/scan").join(fixture))
}

#[test]
fn a_cloud_foundry_bearer_token_echoed_back_is_never_shown_nor_stored() {
    let folder = folder_with("cf-tainted-in-progress.tfstate");
    // Longer than the outcome's 120-character excerpt: a cut must not leave a piece of it.
    let token = marker("cfTOKEN", 160);
    let variable = format!("bearer {token}");
    check_profile(
        folder.path(),
        &["cf"],
        &[("CF_ACCESS_TOKEN", &variable)],
        &[],
        &[token],
    );
}

#[test]
fn an_open_service_broker_password_echoed_back_is_never_shown_nor_stored() {
    let folder = tempfile::tempdir().unwrap();
    let profile = "[[profile]]\ntype = \"example_broker_instance\"\nextends = \"osb_service_instance\"\n\n[profile.poll]\ninterval = \"200ms\"\njitter = \"0%\"\n";
    std::fs::write(folder.path().join("profiles.toml"), profile).unwrap();
    let state = json!({
        "version": 4, "terraform_version": "1.15.5", "serial": 2, "lineage": "osb-leaks",
        "outputs": {},
        "resources": [{"mode": "managed", "type": "example_broker_instance", "name": "db",
            "provider": "provider[\"registry.terraform.io/example/broker\"]",
            "instances": [{"schema_version": 0, "sensitive_attributes": [], "attributes": {
                "id": "osb-1", "service_id": "svc", "plan_id": "plan",
                "last_operation": {"type": "create", "state": "in progress", "description": ""}}}]}],
        "check_results": null
    });
    std::fs::write(
        folder.path().join("terraform.tfstate"),
        serde_json::to_string_pretty(&state).unwrap() + "\n",
    )
    .unwrap();
    let password = marker("osbPASSWORD", 40);
    check_profile(
        folder.path(),
        &[
            "osb",
            "--type",
            "example_broker_instance",
            "--profiles",
            "profiles.toml",
        ],
        &[("OSB_USERNAME", "broker"), ("OSB_PASSWORD", &password)],
        &[],
        &[password.clone(), format!("broker:{password}")],
    );
}

#[test]
fn an_oci_signature_and_key_echoed_back_are_never_shown_nor_stored() {
    let folder = folder_with("oci-async-provisioning.tfstate");
    let key = std::fs::read_to_string(root().join("tests/sim/oci_test_key.pem")).unwrap();
    std::fs::write(folder.path().join("oci_api_key.pem"), &key).unwrap();
    std::fs::write(
        folder.path().join("oci-config"),
        "[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=36:62:75:44\ntenancy=ocid1.tenancy.oc1..t\nregion=eu-frankfurt-1\nkey_file=oci_api_key.pem\n",
    )
    .unwrap();
    let key_lines: Vec<String> = key
        .lines()
        .filter(|line| !line.starts_with("-----"))
        .map(str::to_owned)
        .collect();
    check_profile(
        folder.path(),
        &["oci"],
        &[("OCI_CLI_CONFIG_FILE", "oci-config")],
        &["oci_api_key.pem", "oci-config"],
        &key_lines,
    );
}
