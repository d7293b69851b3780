//! What `cargo install --path .` installs: the `statectl` binary alone. The simulator is a workspace
//! member that is never published, so tests and demos can build it without users getting it; the
//! tests start it in-process, so it is statectl's dev-dependency and nothing more.

use std::process::Command;

use serde_json::Value;

use crate::builder::root;
use crate::processes::assert_success;

/// The workspace member `name` as `cargo metadata` describes it.
pub(crate) fn cargo_package(name: &str) -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(root())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .arg("--offline")
        .output()
        .unwrap();
    assert_success(&output);
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|package| package["name"] == name)
        .unwrap_or_else(|| panic!("no package {name}"))
        .clone()
}

#[test]
fn cargo_install_gets_statectl_only_and_the_simulator_is_unpublished() {
    let package = cargo_package;
    let binaries = |package: &Value| -> Vec<String> {
        package["targets"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|target| {
                target["kind"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|kind| kind == "bin")
            })
            .map(|target| target["name"].as_str().unwrap().to_owned())
            .collect()
    };
    // `cargo install --path .` installs the binaries of the package at the root.
    assert_eq!(binaries(&package("statectl")), ["statectl"]);
    let statectl_sim: Vec<Value> = package("statectl")["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|dependency| dependency["name"] == "statectl-sim")
        .map(|dependency| dependency["kind"].clone())
        .collect();
    assert_eq!(
        statectl_sim,
        [serde_json::json!("dev")],
        "for the tests only"
    );
    let sim = package("statectl-sim");
    assert_eq!(binaries(&sim), ["statectl-sim"]);
    assert_eq!(sim["publish"], serde_json::json!([]), "publish = false");
    assert!(
        sim["manifest_path"]
            .as_str()
            .unwrap()
            .ends_with("crates/sim/Cargo.toml"),
        "{}",
        sim["manifest_path"]
    );
}
