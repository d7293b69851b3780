//! `statectl audit` on plans and states made by real Terraform 1.15.5 (testdata/audit, see its
//! README): what a destroy or a plan does to each object, the violations (exit 3), the risks, every
//! report format, and bad input.

use std::path::PathBuf;

use serde_json::Value;

use crate::builder::{Test, assert_contains, assert_lacks, assert_starts_with, find_by, root};
use crate::files::{file_with, folder_with, folder_with_state};
use crate::sarif_schema::validate_sarif;

fn case(name: &str) -> PathBuf {
    root().join("testdata/audit").join(name)
}

/// `statectl audit` on a case's state, with its configuration, and the plan file when given, as JSON.
fn audit_json(name: &str, plan: Option<&str>, code: i32) -> Value {
    let folder = case(name);
    let mut test = Test::new()
        .arg("audit")
        .arg(folder.join("terraform.tfstate"))
        .arg("--config")
        .arg(&folder)
        .args(["--format", "json"]);
    if let Some(plan) = plan {
        test = test.arg("--plan").arg(folder.join(plan));
    }
    let output = test.run().code(code);
    serde_json::from_str(&output.stdout).unwrap()
}

/// `address -> (outcome, rules)` of an audit's JSON, for compact assertions.
fn outcomes(document: &Value) -> Vec<(String, String, Vec<String>)> {
    document["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|object| {
            let mut address = object["address"].as_str().unwrap().to_owned();
            if let Some(key) = object["deposed"].as_str() {
                address = format!("{address} (deposed object {key})");
            }
            let rules = object["rules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|rule| rule.as_str().unwrap().to_owned())
                .collect();
            (
                address,
                object["outcome"].as_str().unwrap().to_owned(),
                rules,
            )
        })
        .collect()
}

#[test]
fn the_fixtures_were_made_by_terraform_1_15_5() {
    for plan in [
        "destroy/plan.json",
        "removed-forget/plan.json",
        "tainted-replace/plan.json",
        "deposed/plan.json",
        "skip-destroy/plan.json",
    ] {
        let document: Value = serde_json::from_slice(&std::fs::read(case(plan)).unwrap()).unwrap();
        assert_eq!(document["terraform_version"], "1.15.5", "{plan}");
    }
}

#[test]
fn a_destroy_of_a_whole_state_destroys_every_managed_object() {
    let document = audit_json("destroy", None, 0);
    assert_eq!(document["mode"], "destroy");
    assert_eq!(document["summary"]["destroy"], 12);
    assert_eq!(document["summary"]["violations"], 0);
    let listed = outcomes(&document);
    assert_eq!(
        listed[0],
        (
            "terraform_data.counted[0]".to_owned(),
            "destroy".to_owned(),
            vec![]
        )
    );
    assert!(
        listed
            .iter()
            .any(|(address, _, _)| address == "module.app[\"green\"].terraform_data.server")
    );
    // The plan Terraform made for that destroy deletes exactly the same objects.
    let planned = audit_json("destroy", Some("plan.json"), 0);
    let mut from_plan: Vec<String> = outcomes(&planned)
        .into_iter()
        .map(|(address, _, _)| address)
        .collect();
    let mut from_state: Vec<String> = listed.into_iter().map(|(address, _, _)| address).collect();
    from_plan.sort();
    from_state.sort();
    assert_eq!(from_plan, from_state);
}

#[test]
fn prevent_destroy_blocks_the_destroy_where_terraform_fails() {
    let document = audit_json("prevent-destroy", None, 1);
    let listed = outcomes(&document);
    let blocked: Vec<&(String, String, Vec<String>)> = listed
        .iter()
        .filter(|(_, outcome, _)| outcome == "blocked")
        .collect();
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0].0, "terraform_data.protected");
    assert_eq!(blocked[0].2, vec!["destroy-blocked"]);
    // Terraform's own refusal names the same block, at the same line.
    let refusal = std::fs::read_to_string(case("prevent-destroy/plan-error.txt")).unwrap();
    assert_contains(&refusal, "Instance cannot be destroyed");
    let line = refusal
        .split("main.tf line ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .unwrap();
    let why = find_by(&document["objects"], "outcome", "blocked")["why"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        why.ends_with(&format!("main.tf:{line}")),
        "{why} vs Terraform's line {line}"
    );
}

#[test]
fn skip_destroy_is_a_forget_for_opentofu_and_a_violation_in_a_terraform_plan() {
    let document = audit_json("skip-destroy", None, 0);
    assert!(outcomes(&document).contains(&(
        "terraform_data.retained".to_owned(),
        "forget".to_owned(),
        vec!["forget".to_owned()]
    )));
    // Terraform's plan ignores the flag and deletes the object OpenTofu was told to keep.
    let document = audit_json("skip-destroy", Some("plan.json"), 3);
    assert!(outcomes(&document).contains(&(
        "terraform_data.retained".to_owned(),
        "destroy".to_owned(),
        vec!["delete-skip-destroy".to_owned()]
    )));
    assert_eq!(document["summary"]["violations"], 1);
    assert_eq!(document["exit_code"], 3);
}

#[test]
fn a_removed_block_keeping_the_object_is_a_forget_and_a_destroy_plan_ignoring_it_is_a_violation() {
    let document = audit_json("removed-forget", Some("plan.json"), 0);
    assert_eq!(
        outcomes(&document),
        vec![(
            "terraform_data.legacy".to_owned(),
            "forget".to_owned(),
            vec!["forget".to_owned()]
        )]
    );
    assert_eq!(document["summary"]["unchanged"], 1);
    // `terraform plan -destroy` deletes it all the same (Terraform 1.15.5 does): a violation.
    let document = audit_json("removed-forget", Some("plan-destroy.json"), 3);
    assert!(outcomes(&document).contains(&(
        "terraform_data.legacy".to_owned(),
        "destroy".to_owned(),
        vec!["delete-skip-destroy".to_owned()]
    )));
    // From the state and configuration alone, a destroy forgets it.
    let document = audit_json("removed-forget", None, 0);
    assert!(outcomes(&document).contains(&(
        "terraform_data.legacy".to_owned(),
        "forget".to_owned(),
        vec!["forget".to_owned()]
    )));
}

#[test]
fn replacements_keep_the_plans_order_and_deposed_objects_are_risks() {
    let document = audit_json("tainted-replace", Some("plan.json"), 0);
    assert_eq!(
        outcomes(&document),
        vec![
            (
                "terraform_data.cbd".to_owned(),
                "replace (create first)".to_owned(),
                vec![]
            ),
            (
                "terraform_data.plain".to_owned(),
                "replace".to_owned(),
                vec![]
            ),
        ]
    );
    let document = audit_json("deposed", Some("plan.json"), 1);
    let listed = outcomes(&document);
    let deposed = listed
        .iter()
        .find(|(address, _, _)| address.contains("(deposed object "))
        .unwrap();
    assert_eq!(
        (deposed.1.as_str(), deposed.2.clone()),
        ("destroy", vec!["deposed-object".to_owned()])
    );
    assert_eq!(document["findings"][0]["rule"], "deposed-object");
    assert_eq!(document["findings"][0]["severity"], "warning");
}

#[test]
fn the_policy_and_unfinished_objects_are_violations_of_a_destroy() {
    let folder = folder_with(
        "policy.toml",
        "[[protect]]\naddresses = [\"module.app[\\\"blue\\\"]*\"]\nreason = \"blue serves traffic\"\n",
    );
    let output = Test::new()
        .arg("audit")
        .arg(case("destroy/terraform.tfstate"))
        .arg("--policy")
        .arg(folder.path().join("policy.toml"))
        .run()
        .code(3);
    assert_eq!(
        output.stdout.matches("delete-protected").count(),
        3,
        "{}",
        output.stdout
    );
    assert_contains(&output.stdout, "12 objects: 12 destroy; 3 violations");
    assert_contains(&output.stderr, "hint: delete-protected:");
    // An instance still being created, and one tainted while it was.
    let output = Test::new()
        .args([
            "audit",
            "testdata/scan/oci-async-provisioning.tfstate",
            "--format",
            "json",
        ])
        .run()
        .code(3);
    let document: Value = serde_json::from_str(&output.stdout).unwrap();
    let finding = find_by(&document["findings"], "rule", "delete-mid-operation");
    assert_eq!(finding["address"], "oci_core_instance.app");
    // The value decoded, as scan prints it (it was the JSON text, `"\"PROVISIONING\""`).
    assert_eq!(finding["evidence"][0]["value"], "PROVISIONING");
    assert_eq!(finding["location"], Value::Null);
    let output = Test::new()
        .args(["audit", "testdata/scan/cf-tainted-in-progress.tfstate"])
        .run()
        .code(3);
    assert_contains(&output.stdout, "tainted-after-timeout");
}

/// A copy of a scan fixture (`testdata/scan/...`) with one instance's status attribute set to
/// `value`, in a temporary folder.
fn with_status(
    fixture: &str,
    type_name: &str,
    attribute: &str,
    value: &str,
) -> (tempfile::TempDir, PathBuf) {
    let text = std::fs::read_to_string(root().join("testdata/scan").join(fixture)).unwrap();
    let mut state: Value = serde_json::from_str(&text).unwrap();
    let resource = state["resources"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|resource| resource["type"] == type_name && resource["mode"] == "managed")
        .unwrap();
    resource["instances"][0]["attributes"][attribute] = Value::String(value.to_owned());
    folder_with_state(serde_json::to_string_pretty(&state).unwrap())
}

/// The `delete-mid-operation` finding of an audit of `path`: (message, hint).
fn mid_operation(path: &std::path::Path) -> (String, String) {
    let output = Test::new()
        .arg("audit")
        .arg(path)
        .args(["--format", "json"])
        .run()
        .code(3);
    let document: Value = serde_json::from_str(&output.stdout).unwrap();
    let finding = find_by(&document["findings"], "rule", "delete-mid-operation").clone();
    (
        finding["message"].as_str().unwrap().to_owned(),
        finding["hint"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn delete_mid_operation_says_which_operation_the_status_shows() {
    // Create: an OCI instance created with `async = true`, still PROVISIONING.
    let (message, hint) =
        mid_operation(&root().join("testdata/scan/oci-async-provisioning.tfstate"));
    assert_eq!(
        message,
        "its remote object is still being created (`state` = `PROVISIONING`); deleting it now can orphan what is being created"
    );
    // statectl refreshes OCI instances itself.
    assert_eq!(
        hint,
        "wait for the operation to finish and refresh it first (`statectl refresh --target oci_core_instance.app --write`), then plan the destroy again"
    );
    // Update: a subnet whose update was running (not "being created").
    let (_folder, path) = with_status("clean.tfstate", "oci_core_subnet", "state", "UPDATING");
    let (message, hint) = mid_operation(&path);
    assert_eq!(
        message,
        "its remote object is still being updated (`state` = `UPDATING`); deleting it before the update finishes can fail or leave it half-changed"
    );
    assert_eq!(
        hint,
        "wait for the operation to finish and refresh it first (`terraform apply -refresh-only -target=oci_core_subnet.app`), then plan the destroy again"
    );
    // Update: a real Helm release left in pending-upgrade.
    let (message, _) =
        mid_operation(&root().join("testdata/scan/real/helm-pending-upgrade.tfstate"));
    assert_starts_with(
        &message,
        "its remote object is still being updated (`status` = `pending-upgrade`);",
    );
    // Delete: a real Hetzner server whose delete was running.
    let (_folder, path) = with_status(
        "real/hcloud-running.tfstate",
        "hcloud_server",
        "status",
        "deleting",
    );
    let (message, _) = mid_operation(&path);
    assert_eq!(
        message,
        "its remote object is still being deleted (`status` = `deleting`); a delete is already under way: the destroy can fail on it or race it"
    );
}

#[test]
fn deposed_hints_name_the_forget_command_for_that_object() {
    let document = audit_json("deposed", Some("plan.json"), 1);
    let finding = &document["findings"][0];
    assert_eq!(finding["rule"], "deposed-object");
    let address = finding["address"].as_str().unwrap();
    let (instance, key) = address
        .strip_suffix(')')
        .and_then(|rest| rest.split_once(" (deposed object "))
        .unwrap();
    assert_eq!(
        finding["hint"],
        format!(
            "make sure nothing still uses the old object; if its remote object is already gone, or must stay, `statectl forget {instance} --deposed {key}` drops it from the state"
        )
    );
}

#[test]
fn instances_whose_block_is_gone_from_the_configuration_are_reported() {
    let folder = tempfile::tempdir().unwrap();
    // The destroy case's configuration without `terraform_data.plain`.
    let config = std::fs::read_to_string(case("destroy/main.tf")).unwrap();
    let start = config
        .find("resource \"terraform_data\" \"plain\"")
        .unwrap();
    let end = start + config[start..].find("\n}\n").unwrap() + 3;
    std::fs::write(
        folder.path().join("main.tf"),
        format!("{}{}", &config[..start], &config[end..]),
    )
    .unwrap();
    std::fs::create_dir_all(folder.path().join("modules")).unwrap();
    std::fs::create_dir_all(folder.path().join("modules/app")).unwrap();
    std::fs::copy(
        case("destroy/modules/app/main.tf"),
        folder.path().join("modules/app/main.tf"),
    )
    .unwrap();
    let output = Test::new()
        .arg("audit")
        .arg(case("destroy/terraform.tfstate"))
        .arg("--config")
        .arg(folder.path())
        .args(["--format", "json"])
        .run()
        .code(1);
    let document: Value = serde_json::from_str(&output.stdout).unwrap();
    let findings = document["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["rule"], "not-in-config");
    assert_eq!(findings[0]["address"], "terraform_data.plain");
}

#[test]
fn the_sarif_and_junit_reports_are_valid_and_carry_the_findings() {
    let state = case("skip-destroy/terraform.tfstate");
    let plan = case("skip-destroy/plan.json");
    let run = |format: &str| {
        Test::new()
            .arg("audit")
            .arg(&state)
            .arg("--plan")
            .arg(&plan)
            .args(["--format", format])
            .run()
            .code(3)
            .stdout
    };
    let sarif: Value = serde_json::from_str(&run("sarif")).unwrap();
    validate_sarif(&sarif).unwrap();
    assert_eq!(
        sarif["runs"][0]["results"][0]["ruleId"],
        "delete-skip-destroy"
    );
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        9
    );
    let junit = run("junit");
    let document = roxmltree::Document::parse(&junit).unwrap();
    assert_eq!(
        document.root_element().attribute("name"),
        Some("statectl audit")
    );
    assert_contains(&junit, "classname=\"statectl.delete-skip-destroy\"");
    // The github and markdown reports are pinned whole by the `audit-skip-destroy-*` snapshots.
}

#[test]
fn bad_plans_get_one_line_and_exit_2() {
    let (_folder, broken) = file_with(
        "broken.json",
        "{\n  \"resource_changes\": [\n    {\"address\": \n",
    );
    Test::new()
        .arg("audit")
        .arg(case("destroy/terraform.tfstate"))
        .arg("--plan")
        .arg(&broken)
        .run()
        .refused(&format!("{}:4:", broken.display()));
    // A state where the plan should be.
    Test::new()
        .arg("audit")
        .arg(case("destroy/terraform.tfstate"))
        .arg("--plan")
        .arg(case("destroy/terraform.tfstate"))
        .run()
        .refused("not a plan: it has no `resource_changes`")
        .stderr_contains("hint: this looks like a state");
    Test::new()
        .arg("audit")
        .arg(case("destroy/terraform.tfstate"))
        .args(["--plan", "missing.json"])
        .run()
        .refused("missing.json: cannot read the plan");
}

/// Item 10 of issue 25: the table says why each object is a finding (the policy's own `reason`), and
/// the hint never suggests the `statectl forget` the same policy would refuse.
#[test]
fn the_table_gives_each_reason_and_the_hint_only_what_the_policy_allows() {
    let folder = tempfile::tempdir().unwrap();
    let policy = folder.path().join("policy.toml");
    let audit = |protect: &str| {
        std::fs::write(&policy, protect).unwrap();
        Test::new()
            .arg("audit")
            .arg(case("destroy/terraform.tfstate"))
            .arg("--policy")
            .arg(&policy)
            .run()
            .code(3)
    };
    let output = audit(
        "[[protect]]\ntypes = [\"terraform_data\"]\naddresses = []\nreason = \"ask #netops\"\n",
    );
    let reason = "  delete-protected: the policy protects `terraform_data`: ask #netops";
    assert_eq!(
        output
            .stdout
            .lines()
            .filter(|line| line.ends_with(reason))
            .count(),
        12,
        "{}",
        output.stdout
    );
    assert_lacks(&output.stderr, "statectl forget");
    assert_contains(
        &output.stderr,
        "keep it out of the destroy (`-target` the rest), or change the policy",
    );
    // A policy that guards against taints only: forgetting first is the way out, and said so.
    let output = audit(
        "[[protect]]\naddresses = [\"terraform_data.plain\"]\nactions = [\"taint\"]\nreason = \"by hand\"\n",
    );
    assert_contains(
        &output.stderr,
        "hint: delete-protected: remove it from the destroy (`-target` the rest, or `statectl forget terraform_data.plain` first), or change the policy",
    );
}

/// Issue 24, item 22: a plan JSON with `format_version` "99", or none, was audited as if it were
/// a plan statectl knows; a major version it does not know is refused, nothing audited.
#[test]
fn a_plan_format_version_statectl_does_not_know_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let real: Value =
        serde_json::from_str(&std::fs::read_to_string(case("destroy/plan.json")).unwrap()).unwrap();
    assert_eq!(real["format_version"], "1.2", "Terraform 1.15.5 writes 1.2");
    for (name, version) in [("future.json", Some("99")), ("none.json", None)] {
        let mut plan = real.clone();
        match version {
            Some(version) => plan["format_version"] = version.into(),
            None => {
                plan.as_object_mut().unwrap().remove("format_version");
            }
        }
        let path = folder.path().join(name);
        std::fs::write(&path, serde_json::to_string(&plan).unwrap()).unwrap();
        let message = match version {
            Some(_) => {
                "the plan's format version `99` is not one statectl reads (it reads 0.x and 1.x, what Terraform 0.12 and later and OpenTofu write)"
            }
            None => "not a plan: it has no `format_version`",
        };
        Test::new()
            .arg("audit")
            .arg(case("destroy/terraform.tfstate"))
            .arg("--plan")
            .arg(&path)
            .run()
            .stderr_is(&format!(
                "error: {}: {message}\nhint: make the plan JSON with `terraform show -json PLANFILE` (or `tofu show -json PLANFILE`)\n",
                path.display()
            ));
    }
}
