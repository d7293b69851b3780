//! Bad input: each case gets one clear error line naming the file and a place, exit 2, no panic, and
//! nothing written.

use crate::builder::Test;

fn minimal_with_instances(instances: &str) -> String {
    format!(
        r#"{{"version": 4, "serial": 1, "lineage": "x", "resources": [{{"mode": "managed", "type": "t", "name": "n", "provider": "provider[\"registry.terraform.io/hashicorp/t\"]", "instances": [{instances}]}}]}}"#
    )
}

/// Runs `statectl list` on `bytes` written to a file in a fresh folder; checks the refusal and that
/// the folder holds nothing new afterwards.
#[track_caller]
fn refused(bytes: &[u8], expected: &str) -> String {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("terraform.tfstate");
    std::fs::write(&path, bytes).unwrap();
    let output = Test::new()
        .arg("list")
        .current_dir(folder.path())
        .run()
        .refused(expected);
    assert!(
        output.stderr.starts_with("error: terraform.tfstate"),
        "the error names the file: {}",
        output.stderr
    );
    let entries: Vec<_> = std::fs::read_dir(folder.path()).unwrap().collect();
    assert_eq!(entries.len(), 1, "nothing written beside the state");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the state is untouched"
    );
    output.stderr
}

#[test]
fn empty_file() {
    refused(b"", "the state file is empty");
    refused(b"  \n", "the state file is empty");
}

#[test]
fn truncated_json() {
    let stderr = refused(
        br#"{"version": 4, "resources": [{"mode": "#,
        "the JSON ends early",
    );
    assert!(
        stderr.contains("terraform.tfstate:1:39:"),
        "line and column of the end: {stderr}"
    );
}

#[test]
fn byte_order_mark_is_named() {
    refused(b"\xEF\xBB\xBF{\"version\": 4}", "byte-order mark");
}

#[test]
fn invalid_utf8() {
    let stderr = refused(
        b"{\"version\": 4,\n \"lineage\": \"\xff\"}",
        "not valid UTF-8",
    );
    assert!(stderr.contains(":2:14:"), "{stderr}");
}

#[test]
fn top_level_array_or_string() {
    refused(
        b"[]",
        "the top level is an array, but a state is a JSON object",
    );
    refused(b"\"state\"", "the top level is a string");
}

#[test]
fn version_zero_five_and_missing() {
    refused(br#"{"version": 0}"#, "unsupported state version 0");
    refused(
        br#"{"version": 5, "resources": []}"#,
        "unsupported state version 5",
    );
    refused(br#"{"serial": 1, "resources": []}"#, "no `version` field");
    refused(br#"{"version": "4"}"#, "`version` must be an integer");
}

#[test]
fn deep_nesting() {
    let deep = format!(
        r#"{{"version": 4, "x": {}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    refused(deep.as_bytes(), "nested deeper than 10000 levels");
}

#[test]
fn two_current_objects_for_one_instance() {
    let state = minimal_with_instances(
        r#"{"index_key": 0, "attributes": {}}, {"index_key": 0, "attributes": {}}"#,
    );
    let stderr = refused(state.as_bytes(), "two current objects for one instance");
    assert!(stderr.contains("t.n[0]"), "names the address: {stderr}");
}

#[test]
fn deposed_key_not_eight_characters() {
    let state =
        minimal_with_instances(r#"{"attributes": {}}, {"deposed": "abc", "attributes": {}}"#);
    refused(
        state.as_bytes(),
        "invalid `deposed` key \"abc\": it must be 8 hexadecimal digits",
    );
}

#[test]
fn status_other_than_tainted() {
    let state = minimal_with_instances(r#"{"status": "broken", "attributes": {}}"#);
    let stderr = refused(state.as_bytes(), "invalid instance `status` \"broken\"");
    assert!(stderr.contains("terraform.tfstate:1:"), "{stderr}");
}

#[test]
fn other_structural_problems() {
    refused(
        br#"{"version": 4, "resources": [{"mode": "manged", "type": "t", "name": "n"}]}"#,
        "invalid resource `mode`",
    );
    refused(
        minimal_with_instances(r#"{"index_key": 1.5}"#).as_bytes(),
        "`index_key` 1.5 is not an integer",
    );
    refused(
        minimal_with_instances(r#"{"sensitive_attributes": [{"type": "x"}]}"#).as_bytes(),
        "sensitive_attributes",
    );
    refused(br#"{"version": 4} {"#, "after the end of the JSON document");
    refused(
        b"{\"version\": 4, \"lineage\": \"a\tb\"}",
        "raw control character U+0009",
    );
}

#[test]
fn control_characters_in_input_never_reach_the_terminal_raw() {
    let state = minimal_with_instances(r#"{"status": "\u001b[31mred", "attributes": {}}"#);
    let stderr = refused(state.as_bytes(), "invalid instance `status`");
    assert!(!stderr.contains('\u{1b}'), "escaped: {stderr:?}");
}

#[test]
fn missing_default_state_has_a_hint() {
    let folder = tempfile::tempdir().unwrap();
    Test::new()
        .arg("list")
        .current_dir(folder.path())
        .run()
        .refused("terraform.tfstate: cannot read the state: no such file")
        .stderr_contains("hint: name a state file, or `-`");
}
