//! GitLab: `--format gitlab` (Code Quality) checked against GitLab's documented format
//! (`tests/data/gitlab-code-quality.schema.json`), its fingerprints stable across runs, working
//! folders and machines; and the CI/CD component (`templates/scan.yml`): its script, taken from the
//! template, run outside GitLab in a fake project folder with the real statectl on the PATH.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use serde_json::Value;

use crate::builder::{Test, assert_contains, root};
use crate::files::folder_with;

const SCHEMA: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gitlab-code-quality.schema.json"
));

static VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(SCHEMA).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
});

/// Every violation of GitLab's format, as `<JSON pointer>: <message>`.
pub(crate) fn validate(report: &Value) -> Result<(), Vec<String>> {
    crate::sarif_schema::violations(&VALIDATOR, report, "")
}

#[test]
fn the_schema_holds_what_gitlab_documents() {
    let issue = serde_json::json!({
        "description": "d", "check_name": "c", "fingerprint": "f", "severity": "minor",
        "location": { "path": "lib/a.js", "lines": { "begin": 42 } },
    });
    assert_eq!(validate(&serde_json::json!([issue])), Ok(()));
    for (pointer, wrong) in [
        ("/severity", Value::from("warning")),
        ("/location/path", Value::from("./lib/a.js")),
        ("/location/lines/begin", Value::from(0)),
        ("/fingerprint", Value::Null),
    ] {
        let mut bad = issue.clone();
        *bad.pointer_mut(pointer).unwrap() = wrong;
        assert!(validate(&serde_json::json!([bad])).is_err(), "{pointer}");
    }
    let mut no_line = issue;
    no_line["location"].as_object_mut().unwrap().remove("lines");
    assert!(validate(&serde_json::json!([no_line])).is_err());
}

fn quality_report(output: &crate::builder::Output) -> Value {
    let report: Value = serde_json::from_str(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}\n{}", output.stdout));
    if let Err(errors) = validate(&report) {
        panic!(
            "not GitLab's format:\n{}\n{}",
            errors.join("\n"),
            output.stdout
        );
    }
    report
}

fn issues(report: &Value) -> &Vec<Value> {
    report.as_array().unwrap()
}

#[test]
fn scan_and_audit_speak_gitlab_code_quality() {
    let output = Test::new()
        .args([
            "scan",
            "--format",
            "gitlab",
            "testdata/scan/oci-async-provisioning.tfstate",
            "testdata/states/lifecycle.tfstate",
        ])
        .run()
        .code(1);
    let report = quality_report(&output);
    let first = &issues(&report)[0];
    assert_eq!(first["check_name"], "transitional-state");
    assert_eq!(first["severity"], "major");
    assert_eq!(
        first["location"],
        serde_json::json!({ "path": "testdata/scan/oci-async-provisioning.tfstate", "lines": { "begin": 14 } })
    );
    assert_eq!(
        first["description"],
        "oci_core_instance.app: the remote object was still being created (`state` = `PROVISIONING`) when Terraform saved the state"
    );
    // One issue per finding, each with its own fingerprint (GitLab shows one issue per fingerprint),
    // the same finding twice in a state included.
    let fingerprints: std::collections::BTreeSet<&str> = issues(&report)
        .iter()
        .map(|issue| issue["fingerprint"].as_str().unwrap())
        .collect();
    assert_eq!(fingerprints.len(), issues(&report).len());
    assert_eq!(issues(&report).len(), 5, "{}", output.stdout);

    // The audit: violations are critical.
    let audit = Test::new()
        .args([
            "audit",
            "testdata/audit/skip-destroy/terraform.tfstate",
            "--plan",
            "testdata/audit/skip-destroy/plan.json",
            "--format",
            "gitlab",
        ])
        .run()
        .code(3);
    let audit = quality_report(&audit);
    assert_eq!(issues(&audit)[0]["check_name"], "delete-skip-destroy");
    assert_eq!(issues(&audit)[0]["severity"], "critical");
    assert_eq!(issues(&audit)[0]["location"]["lines"]["begin"], 1);

    // No finding: an empty array; an unreadable state: a blocker issue.
    let clean = Test::new()
        .args(["scan", "--format", "gitlab", "testdata/scan/clean.tfstate"])
        .run()
        .code(0);
    assert_eq!(clean.stdout, "[]\n");
    let folder = folder_with("bad.tfstate", "[]");
    let broken = Test::new()
        .args(["scan", "--format", "gitlab", "bad.tfstate"])
        .current_dir(folder.path())
        .run()
        .code(2);
    let broken = quality_report(&broken);
    assert_eq!(issues(&broken)[0]["check_name"], "unreadable-state");
    assert_eq!(issues(&broken)[0]["severity"], "blocker");
}

/// A fake checkout: `states/` with two of the test states, at `folder`.
fn checkout(folder: &Path) {
    std::fs::create_dir_all(folder.join("states/prod")).unwrap();
    for (fixture, at) in [
        (
            "testdata/scan/oci-async-provisioning.tfstate",
            "states/prod/oci.tfstate",
        ),
        (
            "testdata/scan/real/hcloud-tainted-running.tfstate",
            "states/hcloud.tfstate",
        ),
    ] {
        std::fs::copy(root().join(fixture), folder.join(at)).unwrap();
    }
}

fn fingerprints(report: &Value) -> Vec<(String, String)> {
    issues(report)
        .iter()
        .map(|issue| {
            (
                issue["location"]["path"].as_str().unwrap().to_owned(),
                issue["fingerprint"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn fingerprints_are_the_same_on_every_run_folder_and_spelling_of_the_path() {
    let scan = |folder: &Path, states: &str| {
        let output = Test::new()
            .args(["scan", "--format", "gitlab", states])
            .current_dir(folder)
            .run()
            .code(1);
        fingerprints(&quality_report(&output))
    };
    let one = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    checkout(one.path());
    checkout(other.path());
    let first = scan(one.path(), "states");
    assert_eq!(first.len(), 5);
    assert_eq!(first[0].0, "states/hcloud.tfstate");
    assert_eq!(scan(one.path(), "states"), first, "the next run");
    assert_eq!(
        scan(other.path(), "states"),
        first,
        "another machine's checkout"
    );
    assert_eq!(scan(one.path(), "./states/"), first, "`./states/`");
    let absolute = one.path().join("states");
    assert_eq!(
        scan(one.path(), absolute.to_str().unwrap()),
        first,
        "an absolute path inside the checkout"
    );
}

/// The component's script: the lines between the two `# statectl-scan` markers of the template,
/// unindented.
fn template_script() -> String {
    let template = std::fs::read_to_string(root().join("templates/scan.yml")).unwrap();
    let mut parts = template.split("      # statectl-scan\n");
    parts.next();
    let script = parts.next().expect("the script between its markers");
    script
        .lines()
        .map(|line| line.strip_prefix("      ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs the component's script as GitLab's runner would: `sh`, the inputs as variables, in the
/// project folder.
fn run_template(folder: &Path, variables: &[(&str, &str)]) -> (i32, String, String) {
    let statectl = PathBuf::from(env!("CARGO_BIN_EXE_statectl"));
    let path = format!(
        "{}:{}",
        statectl.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("sh")
        .arg("-c")
        .arg(template_script())
        .current_dir(folder)
        .env_clear()
        .env("PATH", path)
        .env("HOME", folder)
        .env("GITLAB_CI", "true")
        .env("CI_PROJECT_DIR", folder)
        .envs(variables.iter().copied())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn the_component_script_writes_the_reports_and_fails_by_fail_on() {
    let project = tempfile::tempdir().unwrap();
    checkout(project.path());
    let variables = [
        ("STATECTL_STATES", "states"),
        ("STATECTL_FAIL_ON", "warning"),
        ("STATECTL_ARGS", "--jobs 2"),
        ("STATECTL_VERSION", ""),
        ("STATECTL_SOURCE", "https://github.com/statectl/statectl"),
    ];
    let (code, stdout, stderr) = run_template(project.path(), &variables);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // The job log: the table, grouped per state, relative to what was scanned.
    assert_contains(&stdout, "prod/oci.tfstate (3 instances)\n");
    assert!(
        stdout.ends_with("5 findings: 5 warnings, in 2 of 2 states\n"),
        "{stdout}"
    );
    // The reports GitLab reads.
    let quality: Value = serde_json::from_str(
        &std::fs::read_to_string(project.path().join("gl-code-quality-report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(validate(&quality), Ok(()));
    assert_eq!(issues(&quality).len(), 5);
    let junit = std::fs::read_to_string(project.path().join("statectl-junit.xml")).unwrap();
    let document = roxmltree::Document::parse(&junit).unwrap();
    assert_eq!(document.root_element().attribute("failures"), Some("5"));

    // `fail-on: error`: the same reports, the job passes.
    let mut lenient = variables;
    lenient[1] = ("STATECTL_FAIL_ON", "error");
    let (code, stdout, stderr) = run_template(project.path(), &lenient);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // A fail-on GitLab's `options` would have refused: one line, exit 2, no report written.
    std::fs::remove_file(project.path().join("gl-code-quality-report.json")).unwrap();
    lenient[1] = ("STATECTL_FAIL_ON", "always");
    let (code, _, stderr) = run_template(project.path(), &lenient);
    assert_eq!(
        (code, stderr.as_str()),
        (
            2,
            "statectl-scan: fail-on must be error, warning, note or never\n"
        )
    );
    assert!(!project.path().join("gl-code-quality-report.json").exists());
}

/// The YAML keys of `text` at exactly `indent` (the names a mapping declares), in order.
pub(crate) fn keys_at<'a>(text: &'a str, indent: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|line| line.strip_prefix(indent)?.strip_suffix(':'))
        .filter(|name| !name.starts_with(' '))
        .collect()
}

/// The template's text: every input it uses is declared, each reaches the script as a variable,
/// and the reports the script writes are the ones GitLab is told to read.
#[test]
fn the_component_declares_what_it_uses() {
    let template = std::fs::read_to_string(root().join("templates/scan.yml")).unwrap();
    let (spec, job) = template.split_once("\n---\n").expect("spec, then the job");
    assert!(spec.contains("\nspec:\n  inputs:\n"));
    let declared = keys_at(spec, "    ");
    assert_eq!(
        declared,
        [
            "states", "fail-on", "args", "version", "source", "image", "stage"
        ]
    );
    for used in job.split("$[[ inputs.").skip(1) {
        let name = used.split(' ').next().unwrap();
        assert!(declared.contains(&name), "undeclared input {name}");
    }
    let script = template_script();
    for variable in [
        "STATECTL_STATES",
        "STATECTL_FAIL_ON",
        "STATECTL_ARGS",
        "STATECTL_VERSION",
        "STATECTL_SOURCE",
    ] {
        assert!(
            job.contains(&format!("    {variable}: $[[ inputs.")),
            "{variable}"
        );
        assert!(script.contains(variable), "{variable}");
    }
    for report in [
        "codequality: gl-code-quality-report.json",
        "junit: statectl-junit.xml",
    ] {
        assert!(job.contains(report), "{report}");
    }
    assert!(
        script.contains(">gl-code-quality-report.json") && script.contains(">statectl-junit.xml")
    );
}
