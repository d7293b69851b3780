//! `statectl scan`: detectors on real and provider-shaped states, the rules file, many states at once,
//! every output format and the exit codes.

use serde_json::Value;

use crate::builder::{Output, Test, assert_contains, assert_starts_with, find_by, root, run_on};
use crate::files::{file_with, folder_with, folder_with_copy};

fn states(name: &str) -> std::path::PathBuf {
    root().join("testdata/states").join(name)
}

fn fixture(name: &str) -> std::path::PathBuf {
    root().join("testdata/scan").join(format!("{name}.tfstate"))
}

/// `statectl scan --format json PATHS…`, which must exit `code`.
#[track_caller]
fn scan_json(paths: &[&std::path::Path], code: i32) -> Output {
    run_on(&["scan", "--format", "json"], paths, code)
}

/// `statectl scan --format json .` in `folder`, which must exit `code`.
#[track_caller]
fn scan_json_in(folder: &std::path::Path, code: i32) -> Output {
    Test::new()
        .args(["scan", "--format", "json", "."])
        .current_dir(folder)
        .run()
        .code(code)
}

/// (rule, address) of every finding in a scan's JSON.
fn found(document: &Value) -> Vec<(String, String)> {
    document["states"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|state| state["findings"].as_array().unwrap().iter())
        .map(|finding| {
            (
                finding["rule"].as_str().unwrap().to_owned(),
                finding["address"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn finds_tainted_and_deposed_objects_in_a_real_terraform_state() {
    let output = scan_json(&[&states("lifecycle.tfstate")], 1);
    let document = output.json();
    assert_eq!(document["schema_version"], 1);
    let found = found(&document);
    assert!(
        found.contains(&("tainted".into(), "terraform_data.workers[1]".into())),
        "{found:?}"
    );
    assert!(
        found.iter().any(|(rule, address)| rule == "deposed-object"
            && address.starts_with("terraform_data.cbd (deposed object ")),
        "{found:?}"
    );
    let deposed = find_by(&document["states"][0]["findings"], "rule", "deposed-object");
    assert_eq!(deposed["evidence"][0]["path"], "deposed");
    assert_eq!(deposed["evidence"][1]["path"], "id");
    assert!(deposed["location"]["line"].as_u64().unwrap() > 1);
}

#[test]
fn failed_checks_are_findings() {
    let output = scan_json(&[&states("checks.tfstate")], 1);
    let document = output.json();
    let check = find_by(&document["states"][0]["findings"], "rule", "check-failed");
    assert_eq!(check["address"], "check.three_zones");
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .contains("Expected 3 zones, got 2.")
    );
}

/// A failed check stays a finding whatever the other checks hold: a message with a lone surrogate
/// escape (Go, Terraform's reader, takes it as U+FFFD), or a value nested deeper than 128, made the
/// whole `check_results` unreadable to the reader scan used, and the failed check went unreported.
#[test]
fn a_failed_check_is_found_beside_values_another_reader_refuses() {
    let text = std::fs::read_to_string(states("checks.tfstate")).unwrap();
    let passing = r#""object_addr": "check.region_is_eu",
          "status": "pass""#;
    assert!(text.contains(passing), "the fixture changed");
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for odd in [
        r#""failure_messages": ["\ud800 was read"]"#.to_owned(),
        format!(r#""extra": {deep}"#),
    ] {
        let folder = tempfile::tempdir().unwrap();
        let state = folder.path().join("checks.tfstate");
        std::fs::write(&state, text.replace(passing, &format!("{passing}, {odd}"))).unwrap();
        let document = scan_json(&[&state], 1).json();
        let check = find_by(&document["states"][0]["findings"], "rule", "check-failed");
        assert_eq!(check["address"], "check.three_zones", "{odd}");
    }
}

#[test]
fn a_clean_state_exits_zero() {
    run_on(&["scan"], &[&states("modules.tfstate")], 0);
    scan_json(&[&states("empty.tfstate")], 0);
}

#[test]
fn fail_on_decides_the_exit_code() {
    let state = states("lifecycle.tfstate");
    for (level, code) in [("warning", 1), ("error", 0), ("never", 0), ("note", 1)] {
        let output = Test::new()
            .args(["scan", "--fail-on", level])
            .arg(&state)
            .run();
        assert_eq!(output.code, code, "--fail-on {level}: {output:?}");
    }
}

#[test]
fn table_output_has_no_width_limit_in_a_pipe() {
    // What the table says is pinned whole by the `scan-lifecycle-table` snapshot; this is the rule
    // that in a pipe (a CI log) nothing is wrapped, whatever COLUMNS says (the harness sets 100):
    // the deposed object's message stays one line of more than 100 characters.
    let output = run_on(&["scan"], &[&states("lifecycle.tfstate")], 1);
    assert!(
        output.stdout.lines().any(|line| line.chars().count() > 100
            && line.trim_start().starts_with("deposed object ")
            && line.ends_with(" is still in state and will be destroyed by the next apply")),
        "one line, unwrapped:\n{}",
        output.stdout
    );
}

#[test]
fn rules_file_adds_types_overrides_severity_and_ignores() {
    let (_folder, rules) = file_with(
        "rules.toml",
        r#"
ignore = ["terraform_data.cbd"]

[severity]
tainted = "error"

[[resource]]
type = "terraform_data"
path = "$.input.value"
pending = ["prod-eu-west-1-1"]
"#,
    );
    let lifecycle = run_on(
        &["scan", "--format", "json", "--rules"],
        &[&rules, &states("lifecycle.tfstate")],
        1,
    );
    let document = lifecycle.json();
    let lifecycle_found = found(&document);
    assert!(
        !lifecycle_found
            .iter()
            .any(|(_, address)| address.starts_with("terraform_data.cbd")),
        "ignored: {lifecycle_found:?}"
    );
    let tainted = find_by(&document["states"][0]["findings"], "rule", "tainted");
    assert_eq!(tainted["severity"], "error");
    let checks = run_on(
        &["scan", "--format", "json", "--fail-on", "never", "--rules"],
        &[&rules, &states("checks.tfstate")],
        0,
    );
    let found = found(&checks.json());
    assert!(
        found.contains(&(
            "transitional-state".into(),
            "terraform_data.server[1]".into()
        )),
        "added type: {found:?}"
    );
}

/// `.statectl.toml` is read by one reader: a mistake in its `[[protect]]` tables stops a scan as it
/// stops a taint, with the same line and hint (scan let the tables be, unread).
#[test]
fn statectl_toml_is_refused_alike_by_scan_and_by_a_write() {
    let folder = folder_with_copy(states("lifecycle.tfstate"));
    std::fs::write(
        folder.path().join(".statectl.toml"),
        "ignore = [\"x.*\"]\n\n[[protect]]\ntypes = [\"terraform_data\"]\nacions = [\"taint\"]\n",
    )
    .unwrap();
    let expected = ".statectl.toml:5:1: invalid rules file: unknown field `acions`";
    let scan = Test::new()
        .args(["scan"])
        .current_dir(folder.path())
        .run()
        .refused(expected);
    let taint = Test::new()
        .args(["taint", "terraform_data.cbd", "--dry-run"])
        .current_dir(folder.path())
        .run()
        .refused(expected);
    assert_eq!(scan.stderr, taint.stderr);
}

#[test]
fn rules_file_is_found_upward_and_bad_ones_are_refused() {
    let folder = tempfile::tempdir().unwrap();
    let nested = folder.path().join("a/b");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::copy(
        states("lifecycle.tfstate"),
        nested.join("terraform.tfstate"),
    )
    .unwrap();
    std::fs::write(
        folder.path().join(".statectl.toml"),
        "[severity]\ndeposed-object = \"note\"\ntainted = \"note\"\n",
    )
    .unwrap();
    Test::new()
        .args(["scan"])
        .current_dir(&nested)
        .run()
        .code(0);
    for (rules, refusal, also) in [
        (
            "[severity]\ntainted = \"fatal\"\n",
            ".statectl.toml:2:11: invalid rules file",
            "fatal",
        ),
        (
            "[severity]\nno-such-rule = \"error\"\n",
            "unknown rule `no-such-rule`",
            "",
        ),
        (
            "[[resource]]\ntype = \"x\"\npath = \"$[?\"\npending = [\"a\"]\n",
            "resource type `x`: invalid JSONPath",
            "",
        ),
    ] {
        std::fs::write(folder.path().join(".statectl.toml"), rules).unwrap();
        Test::new()
            .args(["scan"])
            .current_dir(&nested)
            .run()
            .refused(refusal)
            .stderr_contains(also);
    }
}

#[test]
fn data_sources_are_skipped_unless_asked() {
    let (_folder, rules) = file_with(
        "rules.toml",
        "[[resource]]\ntype = \"terraform_remote_state\"\npath = \"backend\"\npending = [\"local\"]\n",
    );
    let state = states("checks.tfstate");
    let without = run_on(
        &["scan", "--format", "json", "--fail-on", "never", "--rules"],
        &[&rules, &state],
        0,
    )
    .json();
    assert!(
        !found(&without)
            .iter()
            .any(|(_, address)| address.starts_with("data."))
    );
    let with = run_on(
        &[
            "scan",
            "--format",
            "json",
            "--fail-on",
            "never",
            "--data-sources",
            "--rules",
        ],
        &[&rules, &state],
        0,
    )
    .json();
    assert!(
        found(&with)
            .iter()
            .any(|(rule, address)| rule == "transitional-state"
                && address == "data.terraform_remote_state.upstream")
    );
}

#[test]
fn many_states_and_folders_are_scanned_with_a_summary_each() {
    let folder = tempfile::tempdir().unwrap();
    for (path, source) in [
        ("prod/terraform.tfstate", "lifecycle.tfstate"),
        ("dev/app/terraform.tfstate", "modules.tfstate"),
        ("dev/.terraform/terraform.tfstate", "lifecycle.tfstate"),
    ] {
        let target = folder.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(states(source), &target).unwrap();
    }
    std::fs::copy(
        states("lifecycle.tfstate"),
        folder
            .path()
            .join("prod/terraform.tfstate.1700000000.backup"),
    )
    .unwrap();
    let output = scan_json_in(folder.path(), 1);
    let document = output.json();
    let paths = crate::workdir::scanned_states(&output.stdout);
    assert_eq!(
        paths,
        ["./dev/app/terraform.tfstate", "./prod/terraform.tfstate"],
        "no .terraform cache, no backups"
    );
    assert_eq!(document["summary"]["states"], 2);
    assert_eq!(
        document["states"][0]["findings"].as_array().unwrap().len(),
        0
    );
}

#[test]
fn an_unreadable_state_among_many_is_an_error_but_the_rest_is_reported() {
    let folder = folder_with("broken.tfstate", "{\"version\": 4, ");
    std::fs::copy(
        states("modules.tfstate"),
        folder.path().join("good.tfstate"),
    )
    .unwrap();
    let output = scan_json_in(folder.path(), 2);
    let document = output.json();
    assert!(
        document["states"][0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("broken.tfstate:1:16"),
        "{}",
        output.stdout
    );
    assert_eq!(document["states"][1]["instances"], 32);
    // The document says what the exit code says: one state not read, apart from the findings.
    assert_eq!(document["failed"], true, "{}", output.stdout);
    assert_eq!(
        document["summary"],
        serde_json::json!({"states": 2, "unreadable": 1, "errors": 0, "warnings": 0, "notes": 0})
    );
    assert_starts_with(&output.stderr, "error: ./broken.tfstate:1:16: invalid JSON");
}

/// A folder below the one named whose path is longer than the system takes (PATH_MAX, 4096 bytes
/// on Linux): an error entry of the report, while the rest is scanned; the scan used to stop with
/// no report at all.
#[test]
fn a_path_too_long_to_open_is_an_error_entry_and_the_rest_is_scanned() {
    use rustix::fs::{Mode, OFlags};
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(
        states("modules.tfstate"),
        folder.path().join("good.tfstate"),
    )
    .unwrap();
    // Made one level at a time, relative to the last, as only that can make it.
    let name = "d".repeat(250);
    let mut at = rustix::fs::open(
        folder.path(),
        OFlags::DIRECTORY | OFlags::RDONLY,
        Mode::empty(),
    )
    .unwrap();
    for _ in 0..20 {
        rustix::fs::mkdirat(&at, name.as_str(), Mode::from_raw_mode(0o755)).unwrap();
        at = rustix::fs::openat(
            &at,
            name.as_str(),
            OFlags::DIRECTORY | OFlags::RDONLY,
            Mode::empty(),
        )
        .unwrap();
    }
    let deep = rustix::fs::openat(
        &at,
        "deep.tfstate",
        OFlags::CREATE | OFlags::WRONLY,
        Mode::from_raw_mode(0o644),
    )
    .unwrap();
    rustix::io::write(&deep, &std::fs::read(states("modules.tfstate")).unwrap()).unwrap();
    let output = scan_json_in(folder.path(), 2);
    let document = output.json();
    let states = document["states"].as_array().unwrap();
    assert_eq!(states.len(), 2, "{}", output.stdout);
    let unreadable = &states[0];
    assert!(
        unreadable["path"].as_str().unwrap().len() > 4096,
        "the entry names the folder that could not be read"
    );
    assert!(
        unreadable["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with(": cannot read the folder: File name too long (os error 36)"),
        "{}",
        unreadable["error"]
    );
    assert_eq!(states[1]["path"], "./good.tfstate");
    assert_eq!(states[1]["instances"], 32);
    assert_eq!(document["failed"], true);
    assert_eq!(document["summary"]["unreadable"], 1);
    assert_starts_with(&output.stderr, "error: ./dddd");
    // Every format has it: the table's totals count the good state read and the folder unreadable.
    let table = Test::new()
        .args(["scan", "."])
        .current_dir(folder.path())
        .run()
        .code(2);
    assert_eq!(table.stdout, "no findings in 1 state (1 unreadable)\n");
}

#[test]
fn standard_input_and_an_empty_folder() {
    let bytes = std::fs::read(states("lifecycle.tfstate")).unwrap();
    let output = Test::new()
        .args(["scan", "--format", "json", "-"])
        .stdin(bytes)
        .run()
        .code(1);
    assert_eq!(output.json()["states"][0]["path"], "<stdin>");
    let folder = tempfile::tempdir().unwrap();
    Test::new()
        .args(["scan"])
        .arg(folder.path())
        .run()
        .refused("no `*.tfstate` files under");
}

#[test]
fn github_annotations_escape_and_point_at_the_line() {
    let output = run_on(
        &["scan", "--format", "github"],
        &[&states("lifecycle.tfstate")],
        1,
    );
    let lines: Vec<&str> = output.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", output.stdout);
    assert!(
        lines.iter().all(|line| line.starts_with("::warning file=")
            && line.contains(",line=")
            && line.contains("%0Ahint: ")),
        "{}",
        output.stdout
    );
    assert_contains(lines[0], "title=statectl tainted%3A terraform_data.cbd::");
}

#[test]
fn junit_is_well_formed_with_a_failure_per_finding() {
    let output = run_on(
        &["scan", "--format", "junit"],
        &[&states("lifecycle.tfstate"), &states("modules.tfstate")],
        1,
    );
    let document = roxmltree::Document::parse(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}\n{}", output.stdout));
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("failures"), Some("3"));
    let suites: Vec<_> = root
        .children()
        .filter(roxmltree::Node::is_element)
        .collect();
    assert_eq!(suites.len(), 2);
    assert!(
        suites[1]
            .children()
            .any(|case| case.attribute("name") == Some("no findings"))
    );
}

#[test]
fn markdown_is_a_pull_request_comment() {
    let output = run_on(
        &["scan", "--format", "markdown"],
        &[&states("lifecycle.tfstate")],
        1,
    );
    assert_starts_with(&output.stdout, "## statectl scan\n");
    assert_contains(
        &output.stdout,
        "| warning | `deposed-object` | `terraform_data.cbd (deposed object ",
    );
    assert_contains(&output.stdout, "**What to do**");
}

#[test]
fn sarif_output_is_valid_against_the_official_schema() {
    let output = run_on(
        &["scan", "--format", "sarif"],
        &[&states("lifecycle.tfstate"), &states("checks.tfstate")],
        1,
    );
    let document = output.json();
    if let Err(errors) = crate::sarif_schema::validate_sarif(&document) {
        panic!(
            "SARIF schema violations:\n{}\n{}",
            errors.join("\n"),
            output.stdout
        );
    }
    let results = document["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    let rules = document["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for result in results {
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(
            result["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
                >= 1
        );
        assert!(
            result["partialFingerprints"]
                .as_object()
                .is_some_and(|fingerprints| !fingerprints.is_empty())
        );
    }
    // An unreadable state is an execution notification, and the document stays valid.
    let folder = folder_with("bad.tfstate", "[]");
    let broken = run_on(
        &["scan", "--format", "sarif"],
        &[&folder.path().join("bad.tfstate")],
        2,
    );
    let document = broken.json();
    assert_eq!(crate::sarif_schema::validate_sarif(&document), Ok(()));
    assert_eq!(
        document["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
}

/// A finding as the fixture table names it: severity, rule, address.
type Expected = (&'static str, &'static str, &'static str);

/// Each provider-shaped fixture and exactly the findings it must give.
const FIXTURES: &[(&str, &[Expected])] = &[
    (
        "oci-async-provisioning",
        &[
            ("warning", "transitional-state", "oci_core_instance.app"),
            (
                "warning",
                "missing-computed-attribute",
                "oci_core_instance.app",
            ),
        ],
    ),
    (
        "cf-tainted-in-progress",
        &[(
            "error",
            "tainted-after-timeout",
            "cloudfoundry_service_instance.orders_db",
        )],
    ),
    (
        "rds-creating",
        &[
            ("warning", "transitional-state", "aws_db_instance.orders"),
            (
                "warning",
                "missing-computed-attribute",
                "aws_db_instance.orders",
            ),
        ],
    ),
    (
        "generic-status",
        &[(
            "note",
            "transitional-state-generic",
            "oci_apigateway_gateway.public",
        )],
    ),
    (
        "azure-creating",
        &[("error", "tainted-after-timeout", "azapi_resource.aks")],
    ),
    (
        "deposed",
        &[(
            "warning",
            "deposed-object",
            "aws_instance.web (deposed object 1a2b3c4d)",
        )],
    ),
    (
        "failed-create",
        &[
            ("warning", "tainted", "aws_eks_cluster.payments"),
            ("error", "failed-state", "aws_eks_cluster.payments"),
        ],
    ),
    (
        "missing-id",
        &[
            ("warning", "missing-id", "aws_instance.batch_worker_1"),
            ("warning", "missing-id", "aws_instance.batch_worker_2"),
        ],
    ),
    (
        "checks-failed",
        &[
            ("warning", "check-failed", "check.certificate_expiry"),
            ("warning", "check-failed", "check.latency"),
        ],
    ),
    (
        "opentofu-skip-destroy",
        &[(
            "warning",
            "skip-destroy-at-risk",
            "aws_s3_bucket.audit_logs",
        )],
    ),
    ("clean", &[]),
];

/// Each real state (`testdata/scan/real/`, README there: where each came from) and exactly the
/// findings it must give, with the hint each one's first finding must carry.
const REAL: &[(&str, &[Expected], Option<&str>)] = &[
    ("helm-deployed", &[], None),
    (
        "helm-pending-upgrade",
        &[("warning", "transitional-state", "helm_release.argocd")],
        Some(
            "a release stuck in `pending-*` stays so until `helm rollback` to its last deployed revision (`helm history` lists them), or `helm uninstall` of a first install; then refresh again; refresh it to learn whether the operation finished: `terraform apply -refresh-only -target=helm_release.argocd`",
        ),
    ),
    ("hcloud-running", &[], None),
    (
        "hcloud-initializing",
        &[(
            "warning",
            "transitional-state",
            "hcloud_server.authos_control_plane",
        )],
        Some(
            "refresh it to learn whether the operation finished: `terraform apply -refresh-only -target=hcloud_server.authos_control_plane`",
        ),
    ),
    (
        "hcloud-tainted-running",
        &[
            ("warning", "tainted", "hcloud_server.workers[\"k8swk1\"]"),
            ("warning", "tainted", "hcloud_server.workers[\"k8swk2\"]"),
            ("warning", "tainted", "hcloud_server.workers[\"k8swk3\"]"),
        ],
        Some(
            "if the remote object is healthy, `statectl untaint 'hcloud_server.workers[\"k8swk1\"]'`; otherwise the next `terraform apply` replaces it",
        ),
    ),
];

#[test]
fn real_states_give_exactly_their_findings_and_hints() {
    for (name, expected, hint) in REAL {
        let path = root()
            .join("testdata/scan/real")
            .join(format!("{name}.tfstate"));
        let output = Test::new()
            .args(["scan", "--format", "json"])
            .arg(&path)
            .run();
        assert_eq!(
            output.code,
            i32::from(!expected.is_empty()),
            "{name}: exit code\n{}",
            output.stderr
        );
        let document = output.json();
        let findings = document["states"][0]["findings"].as_array().unwrap();
        let found: Vec<(&str, &str, &str)> = findings
            .iter()
            .map(|finding| {
                (
                    finding["severity"].as_str().unwrap(),
                    finding["rule"].as_str().unwrap(),
                    finding["address"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(found, *expected, "{name}");
        if let Some(hint) = hint {
            assert_eq!(findings[0]["hint"], *hint, "{name}");
        }
    }
}

#[test]
fn the_finding_messages_name_the_operation_the_status_shows() {
    let message = |path: std::path::PathBuf| {
        let document = Test::new()
            .args(["scan", "--format", "json"])
            .arg(path)
            .run()
            .json();
        document["states"][0]["findings"][0]["message"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        message(root().join("testdata/scan/real/helm-pending-upgrade.tfstate")),
        "the remote object was still being updated (`status` = `pending-upgrade`) when Terraform saved the state"
    );
    assert_eq!(
        message(root().join("testdata/scan/real/hcloud-initializing.tfstate")),
        "the remote object was still being created (`status` = `initializing`) when Terraform saved the state"
    );
    assert_eq!(
        message(fixture("generic-status")),
        "the remote object was still being updated (`state` = `UPDATING`) when Terraform saved the state"
    );
}

/// The table's stderr gives each finding's own hint, ready to paste; many findings get one line per
/// rule instead.
#[test]
fn stderr_hints_carry_each_findings_address_quoted_for_a_shell() {
    let output = run_on(
        &["scan"],
        &[&root().join("testdata/scan/real/hcloud-tainted-running.tfstate")],
        1,
    );
    assert_contains(
        &output.stderr,
        "hint: tainted: if the remote object is healthy, `statectl untaint 'hcloud_server.workers[\"k8swk2\"]'`",
    );
    let output = run_on(&["scan"], &[&fixture("oci-async-provisioning")], 1);
    assert_contains(
        &output.stderr,
        "hint: transitional-state: refresh it to learn whether the operation finished: `statectl refresh --target oci_core_instance.app --write`",
    );
    let output = Test::new().args(["scan", "testdata/scan"]).run().code(1);
    assert!(
        output
            .stderr
            .contains("hint: tainted: if the remote object is healthy, `statectl untaint ADDRESS`")
            && output.stderr.contains("in `--format json`"),
        "{}",
        output.stderr
    );
}

#[test]
fn provider_shaped_fixtures_give_exactly_their_findings() {
    for (name, expected) in FIXTURES {
        let output = Test::new()
            .args(["scan", "--format", "json"])
            .arg(fixture(name))
            .run();
        assert_eq!(
            output.code,
            i32::from(expected.iter().any(|(severity, _, _)| *severity != "note")),
            "{name}: exit code\n{}",
            output.stderr
        );
        let document = output.json();
        let found: Vec<(String, String, String)> = document["states"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|finding| {
                (
                    finding["severity"].as_str().unwrap().to_owned(),
                    finding["rule"].as_str().unwrap().to_owned(),
                    finding["address"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let expected: Vec<(String, String, String)> = expected
            .iter()
            .map(|(severity, rule, address)| {
                (
                    (*severity).to_owned(),
                    (*rule).to_owned(),
                    (*address).to_owned(),
                )
            })
            .collect();
        assert_eq!(found, expected, "{name}");
    }
}

#[test]
fn evidence_names_the_attribute_and_its_value() {
    let document = scan_json(&[&fixture("oci-async-provisioning")], 1).json();
    let findings = document["states"][0]["findings"].as_array().unwrap();
    assert_eq!(
        findings[0]["evidence"][0],
        serde_json::json!({"path": "state", "value": "PROVISIONING"})
    );
    let missing: Vec<&str> = crate::builder::strings_of(&findings[1]["evidence"], "path");
    assert_eq!(missing, ["private_ip", "subnet_id", "boot_volume_id"]);
    assert!(
        findings[1]["message"]
            .as_str()
            .unwrap()
            .starts_with("created with `async = true`")
    );
    let cf = scan_json(&[&fixture("cf-tainted-in-progress")], 1).json();
    let finding = &cf["states"][0]["findings"][0];
    assert_eq!(
        finding["evidence"][0],
        serde_json::json!({"path": "last_operation.state", "value": "in progress"})
    );
    assert!(
        finding["hint"]
            .as_str()
            .unwrap()
            .starts_with("refresh first")
    );
}

#[test]
fn the_whole_fixture_folder_in_one_run() {
    let output = Test::new()
        .args(["scan", "--format", "json", "testdata/scan"])
        .run()
        .code(1);
    let document = output.json();
    // The folder's real states (`real/`) are scanned too.
    assert_eq!(document["summary"]["states"], FIXTURES.len() + REAL.len());
    assert_eq!(document["summary"]["errors"], 3);
}

/// `state` with `sensitive_attributes` set to `paths` on every instance (current and deposed).
fn with_sensitive(state: &std::path::Path, paths: &Value) -> Vec<u8> {
    let mut document: Value = serde_json::from_slice(&std::fs::read(state).unwrap()).unwrap();
    for resource in document["resources"].as_array_mut().unwrap() {
        for instance in resource["instances"].as_array_mut().unwrap() {
            instance["sensitive_attributes"] = paths.clone();
        }
    }
    serde_json::to_vec_pretty(&document).unwrap()
}

/// A finding never shows the value of an attribute `sensitive_attributes` marks: not a status
/// (`state` = `PROVISIONING`), not a deposed object's remote id, in no format, while what the
/// values say is still found. A path that does not start at an attribute hides every value.
#[test]
fn findings_mask_the_values_of_sensitive_attributes_in_every_format() {
    let get_attr = |name: &str| serde_json::json!([{"type": "get_attr", "value": name}]);
    let cases = [
        (
            "oci-async-provisioning",
            serde_json::json!([get_attr("state")]),
            "PROVISIONING",
            "transitional-state",
        ),
        (
            "deposed",
            serde_json::json!([get_attr("id")]),
            "i-0a91c2e7d5f3b8146",
            "deposed-object",
        ),
        (
            "oci-async-provisioning",
            serde_json::json!([[{"type": "index", "value": {"type": "number", "value": 0}}]]),
            "PROVISIONING",
            "transitional-state",
        ),
        // A path of no steps marks the whole object; it showed everything.
        (
            "oci-async-provisioning",
            serde_json::json!([[]]),
            "PROVISIONING",
            "transitional-state",
        ),
        // A step statectl cannot follow (an index that is not a whole number, which Terraform's
        // reader accepts) beside a path it can: the paths did not read, and it showed everything.
        (
            "deposed",
            serde_json::json!([
                [{"type": "get_attr", "value": "tags"}, {"type": "index", "value": {"type": "number", "value": 1.5}}],
                get_attr("id")
            ]),
            "i-0a91c2e7d5f3b8146",
            "deposed-object",
        ),
    ];
    for (name, paths, secret, rule) in cases {
        let plain = fixture(name);
        let shown = run_on(&["scan", "--format", "json"], &[&plain], 1);
        assert_contains(&shown.stdout, secret);
        let (folder, state) = crate::files::folder_with_state(with_sensitive(&plain, &paths));
        for format in [
            "text", "json", "sarif", "github", "gitlab", "junit", "markdown",
        ] {
            let output = Test::new()
                .args(["scan", "--format", format, "--fail-on", "never"])
                .arg(&state)
                .current_dir(folder.path())
                .run()
                .code(0);
            assert!(
                !output.stdout.contains(secret) && !output.stderr.contains(secret),
                "{name} ({paths}) in {format} shows {secret}:\n{}\n{}",
                output.stdout,
                output.stderr
            );
            assert_contains(&output.stdout, rule);
        }
        let document = run_on(&["scan", "--format", "json"], &[&state], 1).json();
        let evidence: Vec<&Value> = document["states"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|finding| finding["rule"] == rule)
            .flat_map(|finding| finding["evidence"].as_array().unwrap())
            .collect();
        assert!(
            evidence
                .iter()
                .any(|item| item["value"] == "(sensitive value)"),
            "{name}: {evidence:?}"
        );
    }
}

/// The audit and the lifecycle rules' refusals name the status they judge by, but never the value
/// of an attribute `sensitive_attributes` marks; they still judge by it.
#[test]
fn audit_and_refusals_name_a_sensitive_status_without_its_value() {
    let plain = fixture("oci-async-provisioning");
    let paths = serde_json::json!([[{"type": "get_attr", "value": "state"}]]);
    let (folder, state) = crate::files::folder_with_state(with_sensitive(&plain, &paths));
    for (args, rule) in [
        (&["audit", "--format", "json"][..], "delete-mid-operation"),
        (
            &["taint", "oci_core_instance.app", "--dry-run"][..],
            "mid-operation",
        ),
    ] {
        // Both refuse: the audit blocks the destroy, the rules the taint (exit 3).
        let output = Test::new()
            .args(args)
            .arg(&state)
            .current_dir(folder.path())
            .run()
            .code(3);
        let command = args[0];
        let said = format!("{}{}", output.stdout, output.stderr);
        assert!(!said.contains("PROVISIONING"), "{command}: {said}");
        assert_contains(&said, rule);
        assert_contains(&said, "still being created (`state` = `(sensitive value)`)");
    }
}

/// The parse's notes of the attributes the detectors read and of the lines are a shortcut, never a
/// change: every state of testdata/ and the corpus gets the same findings (and locations) scanned
/// from notes as from walking every instance's attributes and counting lines afterwards, with the
/// built-in catalog and with a rules file whose entries read other attributes (a path that is not a name, a name nested in a block, generic names of its own).
#[test]
fn findings_from_the_parses_notes_are_the_findings_from_walking() {
    use statectl::state::legacy::StateBytes;
    use statectl_analysis::scan::{Rules, noting, scan};

    let (_folder, rules_file) = file_with(
        "rules.toml",
        r#"
[generic]
attributes = ["phase"]
pending = ["Pending"]

[[resource]]
type = "terraform_data"
path = "$.input.value"
pending = ["prod-eu-west-1-1"]
required = ["output"]

[[resource]]
type = "aws_instance"
path = "root_block_device.volume_type"
pending = ["gp3"]
"#,
    );
    let mut with_rules = Rules::load(&rules_file).unwrap();
    with_rules.data_sources = true;
    let (mut compared, mut findings) = (0, 0);
    for file in crate::builder::test_and_corpus_states() {
        let bytes = StateBytes::new(std::fs::read(&file).unwrap().into());
        let Ok(walked) = bytes.parse() else {
            continue;
        };
        for rules in [&Rules::default(), &with_rules] {
            // With the lines noted too (the rules locate findings): the locations compare as well.
            assert!(rules.locations);
            let noted = bytes.parse_noting(&noting(rules)).unwrap();
            let walked_findings = scan(&walked, rules).map(|found| found.findings);
            findings += walked_findings.as_ref().map_or(0, Vec::len);
            let from_walks = format!("{walked_findings:?}");
            let from_notes = format!("{:?}", scan(&noted, rules).map(|found| found.findings));
            assert_eq!(from_notes, from_walks, "{}", file.display());
        }
        compared += 1;
    }
    assert!(compared >= 40, "states compared: {compared}");
    assert!(findings >= 50, "findings compared: {findings}");
}

/// Attribute names written with escapes are the names Go decodes them to (`"st\u0061te"` is
/// `state`), for the detectors as for Terraform: every fixture gives the same findings and
/// evidence with its attribute keys so written as plainly.
#[test]
fn escaped_attribute_names_are_read_as_their_decoded_names() {
    let folder = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (name, _) in FIXTURES {
        let plain = std::fs::read_to_string(fixture(name)).unwrap();
        let escaped = [
            ("\"state\":", "\"st\\u0061te\":"),
            ("\"id\":", "\"i\\u0064\":"),
            ("\"last_operation\":", "\"l\\u0061st_operation\":"),
            ("\"lifecycle_state\":", "\"lifecycle_st\\u0061te\":"),
            ("\"private_ip\":", "\"priv\\u0061te_ip\":"),
        ]
        .iter()
        .fold(plain.clone(), |text, (from, to)| text.replace(from, to));
        if escaped == plain {
            continue;
        }
        let copy = folder.path().join(format!("{name}.tfstate"));
        std::fs::write(&copy, &escaped).unwrap();
        let read = |path: &std::path::Path| {
            let output = Test::new()
                .args(["scan", "--format", "json", "--fail-on", "never"])
                .arg(path)
                .run()
                .code(0);
            let document = output.json();
            let findings: Vec<(String, Value)> = document["states"][0]["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|finding| {
                    (
                        finding["rule"].as_str().unwrap().to_owned(),
                        finding["evidence"].clone(),
                    )
                })
                .collect();
            findings
        };
        assert_eq!(read(&copy), read(&fixture(name)), "{name}");
        compared += 1;
    }
    assert!(compared >= 5, "fixtures compared: {compared}");
}
