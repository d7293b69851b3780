//! The JSON reports of `scan` and `audit` against the schemas checked in under `schema/` (generated
//! from the report types by `statectl generate`; `generated` keeps them fresh): every report these
//! fixtures give, findings, unreadable states, plans and deposed objects included, is valid.

use serde_json::Value;

use crate::builder::{Test, root};

/// Every violation of `schema` (a file under schema/) by `document`, as `<pointer>: <message>`.
fn violations(schema: &str, document: &Value) -> Vec<String> {
    let schema: Value =
        serde_json::from_slice(&std::fs::read(root().join("schema").join(schema)).unwrap())
            .unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the checked-in schema compiles");
    validator
        .iter_errors(document)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}

fn json_of(args: &[&str]) -> Value {
    let output = Test::new().args(args).args(["--format", "json"]).run();
    serde_json::from_str(&output.stdout)
        .unwrap_or_else(|error| panic!("{args:?}: {error}: {}", output.stdout))
}

#[test]
fn scan_reports_follow_their_schema() {
    let not_a_state = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(not_a_state.path(), "{ not json").unwrap();
    let scan = root().join("testdata/scan");
    let runs = [
        vec![scan.to_string_lossy().into_owned()],
        vec![
            scan.join("oci-async-provisioning.tfstate")
                .to_string_lossy()
                .into_owned(),
            not_a_state.path().to_string_lossy().into_owned(),
        ],
    ];
    for args in runs {
        let mut all = vec!["scan", "--fail-on", "note"];
        all.extend(args.iter().map(String::as_str));
        let document = json_of(&all);
        assert!(
            document["states"]
                .as_array()
                .is_some_and(|states| !states.is_empty()),
            "{document}"
        );
        assert_eq!(
            violations("scan.schema.json", &document),
            Vec::<String>::new()
        );
    }
}

#[test]
fn audit_reports_follow_their_schema() {
    let audit = root().join("testdata/audit");
    let mut checked = 0;
    for case in [
        "destroy",
        "deposed",
        "prevent-destroy",
        "skip-destroy",
        "tainted-replace",
    ] {
        let folder = audit.join(case);
        let state = folder
            .join("terraform.tfstate")
            .to_string_lossy()
            .into_owned();
        let mut runs = vec![vec!["audit".to_owned(), state.clone()]];
        let plan = folder.join("plan.json");
        if plan.exists() {
            runs.push(vec![
                "audit".to_owned(),
                state.clone(),
                "--plan".to_owned(),
                plan.to_string_lossy().into_owned(),
            ]);
        }
        for args in runs {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let document = json_of(&args);
            assert_eq!(
                violations("audit.schema.json", &document),
                Vec::<String>::new(),
                "{args:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked} audits checked");
}

/// The schemas are strict where the reports are: a report missing a field or with a severity
/// that is not one of the three fails them (so the tests above could fail).
#[test]
fn the_schemas_refuse_what_the_reports_never_hold() {
    let mut document = json_of(&["scan", &root().join("testdata/scan").to_string_lossy()]);
    document["states"][0]["findings"][0]["severity"] = Value::from("fatal");
    document.as_object_mut().unwrap().remove("failed");
    let found = violations("scan.schema.json", &document);
    assert!(found.iter().any(|line| line.contains("fatal")), "{found:?}");
    assert!(
        found.iter().any(|line| line.contains("failed")),
        "{found:?}"
    );
}
