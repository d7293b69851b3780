//! The `oci` backend opened from configurations as Terraform records them: where each workspace's
//! state and lock live, the names it gives, and the one-line refusals before any request.

use serde_json::json;
use statectl_state::state::store::RemoteState;

use super::OciState;
use crate::config::BackendConfig;

pub(super) const PRIVATE_KEY: &str = include_str!("../../../../tests/sim/oci_test_key.pem");

/// The test key as a PEM file `key.pem`, in a folder removed when the guard is dropped.
pub(super) fn key_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let key = folder.path().join("key.pem");
    std::fs::write(&key, PRIVATE_KEY).unwrap();
    (folder, key)
}

/// A configuration whose API key comes from the arguments, so no config file is read.
fn open(
    workspace: &str,
    extra: &serde_json::Value,
    key: &std::path::Path,
) -> Result<OciState, String> {
    let mut values = json!({
        "bucket": "states", "namespace": "acme", "tenancy_ocid": "t", "user_ocid": "u",
        "fingerprint": "aa:bb", "private_key_path": key.display().to_string(),
    });
    for (name, value) in extra.as_object().unwrap() {
        values[name] = value.clone();
    }
    let mut config = BackendConfig::for_tests("oci", values);
    config.workspace = workspace.to_owned();
    OciState::open_with(&config, &|_| None).map_err(|error| error.message)
}

#[test]
fn workspaces_locks_and_backups_are_named_as_terraform_names_them() {
    let (_folder, key) = key_file();
    let state = open(
        "default",
        &json!({"region": "eu-frankfurt-1", "key": "app/prod.tfstate"}),
        &key,
    )
    .unwrap();
    assert_eq!(state.location(), "oci://acme/states/app/prod.tfstate");
    assert_eq!(state.lock_path(), "app/prod.tfstate");
    assert_eq!(state.settings.lock_object(), "app/prod.tfstate.lock");
    assert_eq!(state.backup_name(), "prod.tfstate");
    assert!(
        format!("{:?}", state.client)
            .contains("https://objectstorage.eu-frankfurt-1.oraclecloud.com")
    );
    let state = open("dev", &json!({"region": "r"}), &key).unwrap();
    assert_eq!(
        state.location(),
        "oci://acme/states/tf-state-env/dev/terraform.tfstate"
    );
    assert_eq!(
        state.settings.lock_object(),
        "tf-state-env/dev/terraform.tfstate.lock"
    );
}

#[test]
fn no_region_is_one_line() {
    let (_folder, key) = key_file();
    let error = open("default", &json!({}), &key).unwrap_err();
    assert_eq!(
        error,
        "oci://acme/states/terraform.tfstate: backend \"oci\": no region: neither `region` nor the OCI config file's profile names one"
    );
}

#[test]
fn oci_urls_name_a_state_or_a_listing() {
    use crate::discover::checks::{listed, listing, refusal, state_with};
    state_with(
        "oci://acme/states/env/prod.tfstate",
        "oci",
        &[
            ("namespace", "acme"),
            ("bucket", "states"),
            ("key", "env/prod.tfstate"),
        ],
    );
    for bad in [
        "oci://acme/states",
        "oci://acme/states/",
        "oci:///states/k",
        "oci://acme/states/dir/",
    ] {
        assert_eq!(
            refusal(bad),
            format!("{bad}: an OCI state URL names a namespace, a bucket and an object")
        );
    }
    listed("oci://acme/states/org/", "oci", "org/");
    listed("oci://acme/states/", "oci", "");
    assert_eq!(listing("oci://acme/states/org/prod.tfstate"), None);
}
