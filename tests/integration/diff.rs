//! `statectl diff OLD NEW` on real states (Terraform 1.15.5) and variants of them written to temp dirs:
//! layout and number spelling never count, every kind of change is found by address and path, secrets
//! stay masked, and the exit code says whether the states differ.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::builder::{Output, Test, assert_contains, assert_lacks, assert_starts_with, root};

/// Success and differences say nothing on stderr.
trait NoStderr {
    fn no_stderr(self) -> Self;
}

impl NoStderr for Output {
    #[track_caller]
    fn no_stderr(self) -> Output {
        assert!(self.stderr.is_empty(), "stderr: {}", self.stderr);
        self
    }
}

fn testdata(name: &str) -> PathBuf {
    root().join("testdata/states").join(name)
}

fn load(name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(testdata(name)).unwrap()).unwrap()
}

/// Writes `state` pretty-printed into `folder`.
fn write(folder: &Path, name: &str, state: &Value) -> PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(state).unwrap() + "\n").unwrap();
    path
}

/// What `statectl ARGS STATE -o -` writes, saved as `name` in `folder`.
fn rewritten(args: &[&str], state: &Path, folder: &Path, name: &str) -> PathBuf {
    let output = Test::new()
        .args(args)
        .arg(state)
        .args(["-o", "-"])
        .run()
        .code(0);
    let path = folder.join(name);
    std::fs::write(&path, output.stdout).unwrap();
    path
}

fn diff(old: &Path, new: &Path, flags: &[&str]) -> Output {
    diff_test(old, new, flags).run()
}

fn diff_test(old: &Path, new: &Path, flags: &[&str]) -> Test {
    Test::new().arg("diff").arg(old).arg(new).args(flags)
}

/// The `--format json` document.
fn json_diff(old: &Path, new: &Path, flags: &[&str]) -> Value {
    let output = diff(old, new, &[&["--format", "json"], flags].concat());
    assert!(output.stderr.is_empty(), "{}", output.stderr);
    serde_json::from_str(&output.stdout).unwrap()
}

/// `(element[first], element[second])` for each element of the JSON array `array`.
fn pairs<'v>(array: &'v Value, first: &str, second: &str) -> Vec<(&'v str, &'v str)> {
    array
        .as_array()
        .unwrap()
        .iter()
        .map(|element| {
            (
                element[first].as_str().unwrap(),
                element[second].as_str().unwrap(),
            )
        })
        .collect()
}

/// The instances array of the resource named `name`.
fn instances<'v>(state: &'v mut Value, name: &str) -> &'v mut Vec<Value> {
    state["resources"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|resource| resource["name"] == name)
        .unwrap()["instances"]
        .as_array_mut()
        .unwrap()
}

#[test]
fn a_state_equals_itself_and_its_compact_form() {
    let folder = tempfile::tempdir().unwrap();
    for name in [
        "checks.tfstate",
        "count_for_each.tfstate",
        "empty.tfstate",
        "lifecycle.tfstate",
        "modules.tfstate",
        "sensitive.tfstate",
        "values.tfstate",
    ] {
        let state = testdata(name);
        diff(&state, &state, &[]).code(0).stdout("").no_stderr();
        // Compact, and with Go's `\u003c` escapes decoded: the same content.
        let compact = folder.path().join(name);
        std::fs::write(&compact, serde_json::to_string(&load(name)).unwrap()).unwrap();
        diff(&state, &compact, &[]).code(0).stdout("").no_stderr();
        diff(&compact, &state, &["--stat"]).code(0).stdout("");
        let document = json_diff(&state, &compact, &[]);
        assert_eq!(document["equal"], true, "{name}");
        assert_eq!(document["objects"], json!([]), "{name}");
    }
}

#[test]
fn number_spelling_and_member_order_are_not_differences() {
    let folder = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(testdata("values.tfstate")).unwrap();
    let respelled = original
        .replace("\"fraction\": 0.1,", "\"fraction\": 1e-1,")
        .replace("\"zero\": 0\n", "\"zero\": 0.0\n")
        .replace("\"a\": 1,", "\"a\": 1.0,")
        .replace(
            "\"above_2_64\": 123456789012345678901234567890,",
            "\"above_2_64\": 1234567890123456789012345678.90e2,",
        );
    assert_ne!(respelled, original);
    let mut reordered: Value = serde_json::from_str(&respelled).unwrap();
    // The instance's members backwards.
    let instance = &mut instances(&mut reordered, "types")[0];
    let members: serde_json::Map<String, Value> = std::mem::take(instance.as_object_mut().unwrap())
        .into_iter()
        .rev()
        .collect();
    *instance = Value::Object(members);
    let new = write(folder.path(), "new.tfstate", &reordered);
    diff(&testdata("values.tfstate"), &new, &[])
        .code(0)
        .stdout("");

    // One past 2^53: the same f64, a different number.
    let changed = original.replacen(
        "\"above_2_53\": 9007199254740993,",
        "\"above_2_53\": 9007199254740992,",
        1,
    );
    let new = folder.path().join("changed.tfstate");
    std::fs::write(&new, changed).unwrap();
    let document = json_diff(&testdata("values.tfstate"), &new, &[]);
    assert_eq!(
        document["objects"][0]["attributes"],
        json!([{
            "path": "input.value.above_2_53",
            "action": "changed",
            "old": 9_007_199_254_740_993_u64,
            "new": 9_007_199_254_740_992_u64,
        }])
    );
}

#[test]
fn finds_nested_list_and_map_changes_by_path() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("values.tfstate");
    let value = &mut instances(&mut state, "types")[0]["attributes"]["input"]["value"];
    value["object"]["nested"]["deeper"][1] = json!(20);
    value["list"][0] = json!("A");
    value["list"].as_array_mut().unwrap().push(json!("c"));
    value["map"]["b"] = json!(3);
    value["map"]["has space"] = json!(4);
    value.as_object_mut().unwrap().remove("null");
    let new = write(folder.path(), "new.tfstate", &state);
    let document = json_diff(&testdata("values.tfstate"), &new, &[]);
    assert_eq!(document["equal"], false);
    let objects = document["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "{document:#}");
    assert_eq!(objects[0]["address"], "terraform_data.types");
    assert_eq!(objects[0]["action"], "changed");
    assert_eq!(objects[0]["fields"], json!([]));
    let changes: Vec<(&str, &str)> = pairs(&objects[0]["attributes"], "path", "action");
    assert_eq!(
        changes,
        [
            ("input.value.list[0]", "changed"),
            ("input.value.list[2]", "added"),
            ("input.value.map.b", "changed"),
            ("input.value.map[\"has space\"]", "added"),
            ("input.value.null", "removed"),
            ("input.value.object.nested.deeper[1]", "changed"),
        ]
    );
    let map = &objects[0]["attributes"][2];
    assert_eq!((&map["old"], &map["new"]), (&json!(2), &json!(3)));
    let added = &objects[0]["attributes"][1];
    assert_eq!((&added["old"], &added["new"]), (&Value::Null, &json!("c")));

    // The readable form: the object's line, then the unified diff of its JSON.
    let text = diff(&testdata("values.tfstate"), &new, &[])
        .code(1)
        .no_stderr();
    assert_starts_with(
        &text.stdout,
        "~ terraform_data.types\n--- terraform_data.types\n+++ terraform_data.types\n@@ ",
    );
    assert_contains(&text.stdout, "\n-              2,\n+              20,\n");
    assert_contains(
        &text.stdout,
        "\n-          \"b\": 2\n+          \"b\": 3,\n",
    );
}

#[test]
fn finds_added_and_removed_instances_in_terraform_order() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("count_for_each.tfstate");
    instances(&mut state, "counted").remove(3);
    let keyed = instances(&mut state, "keyed");
    let mut extra = keyed[0].clone();
    extra["index_key"] = json!("zzz");
    keyed.push(extra);
    let new = write(folder.path(), "new.tfstate", &state);
    diff(&testdata("count_for_each.tfstate"), &new, &[])
        .code(1)
        .stdout("- terraform_data.counted[3]\n+ terraform_data.keyed[\"zzz\"]\n");
    diff(&testdata("count_for_each.tfstate"), &new, &["--stat"])
        .code(1)
        .stdout(
            "- terraform_data.counted[3]\n+ terraform_data.keyed[\"zzz\"]\n1 added, 1 removed, 0 changed\n",
        );
    let document = json_diff(&new, &testdata("count_for_each.tfstate"), &[]);
    let actions: Vec<(&str, &str)> = pairs(&document["objects"], "address", "action");
    assert_eq!(
        actions,
        [
            ("terraform_data.counted[3]", "added"),
            ("terraform_data.keyed[\"zzz\"]", "removed"),
        ]
    );
}

#[test]
fn a_tainted_instance_is_a_status_change() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("lifecycle.tfstate");
    let instance = instances(&mut state, "uses_cbd")[0]
        .as_object_mut()
        .unwrap();
    instance.shift_insert(0, "status".into(), json!("tainted"));
    let new = write(folder.path(), "new.tfstate", &state);
    let document = json_diff(&testdata("lifecycle.tfstate"), &new, &[]);
    assert_eq!(
        document["objects"],
        json!([{
            "address": "terraform_data.uses_cbd",
            "deposed": null,
            "action": "changed",
            "fields": ["status"],
            "attributes": [],
        }])
    );
    statectl_snapshot!(
        "diff-tainted",
        diff_test(&testdata("lifecycle.tfstate"), &new, &[])
    )
    .code(1);
}

#[test]
fn deposed_objects_are_objects_of_their_own() {
    let folder = tempfile::tempdir().unwrap();
    let old = testdata("lifecycle.tfstate");
    let mut state = load("lifecycle.tfstate");
    let cbd = instances(&mut state, "cbd");
    assert_eq!(cbd[1]["deposed"], "d452a61b");
    cbd[1]["attributes"]["input"]["value"] = json!("generation 1b");
    let changed = write(folder.path(), "changed.tfstate", &state);
    let text = diff(&old, &changed, &[]).code(1);
    assert_starts_with(
        &text.stdout,
        "~ terraform_data.cbd (deposed object d452a61b)\n--- terraform_data.cbd (deposed object d452a61b)\n",
    );
    let document = json_diff(&old, &changed, &[]);
    assert_eq!(document["objects"][0]["address"], "terraform_data.cbd");
    assert_eq!(document["objects"][0]["deposed"], "d452a61b");
    assert_eq!(
        document["objects"][0]["attributes"][0]["path"],
        "input.value"
    );

    instances(&mut state, "cbd").remove(1);
    let removed = write(folder.path(), "removed.tfstate", &state);
    diff(&old, &removed, &[])
        .code(1)
        .stdout("- terraform_data.cbd (deposed object d452a61b)\n");
    let document = json_diff(&removed, &old, &[]);
    assert_eq!(document["objects"][0]["action"], "added");
    assert_eq!(document["objects"][0]["deposed"], "d452a61b");
}

#[test]
fn header_changes_come_first() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("lifecycle.tfstate");
    state["serial"] = json!(9);
    state["lineage"] = json!("00000000-1111-2222-3333-444444444444");
    state["terraform_version"] = json!("1.16.0");
    let new = write(folder.path(), "new.tfstate", &state);
    let old = testdata("lifecycle.tfstate");
    diff(&old, &new, &[]).code(1).stdout(
        "terraform_version: 1.15.5 -> 1.16.0\nserial: 8 -> 9\nlineage: bfa3c4ae-4a51-6ce0-d4e3-ad6e6b32c85f -> 00000000-1111-2222-3333-444444444444\n",
    );
    let document = json_diff(&old, &new, &[]);
    assert_eq!(
        document["changes"],
        json!({
            "terraform_version": {"old": "1.15.5", "new": "1.16.0"},
            "serial": {"old": 8, "new": 9},
            "lineage": {"old": "bfa3c4ae-4a51-6ce0-d4e3-ad6e6b32c85f", "new": "00000000-1111-2222-3333-444444444444"},
        })
    );
    assert_eq!(document["objects"], json!([]));
}

#[test]
fn the_json_document_field_by_field() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("modules.tfstate");
    state["serial"] = json!(state["serial"].as_u64().unwrap() + 1);
    state["outputs"]["extra"] = json!({"value": "x", "type": "string"});
    let root = instances(&mut state, "root");
    root[0]["attributes"]["input"]["value"] = json!("changed");
    root[0]["dependencies"] = json!(["terraform_data.nowhere"]);
    root[0]["x_unknown"] = json!(true);
    let new = write(folder.path(), "new.tfstate", &state);
    let old = testdata("modules.tfstate");
    let document = json_diff(&old, &new, &[]);
    let source: Value = load("modules.tfstate");
    assert_eq!(document["schema_version"], 1);
    assert_eq!(document["equal"], false);
    assert_eq!(document["sensitive_masked"], true);
    assert_eq!(document["old"]["path"], old.to_string_lossy().as_ref());
    assert_eq!(document["old"]["serial"], source["serial"]);
    assert_eq!(document["old"]["lineage"], source["lineage"]);
    assert_eq!(document["old"]["terraform_version"], "1.15.5");
    assert_eq!(document["new"]["path"], new.to_string_lossy().as_ref());
    assert_eq!(
        document["new"]["serial"],
        source["serial"].as_u64().unwrap() + 1
    );
    assert_eq!(
        document["changes"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["serial"]
    );
    assert_eq!(
        document["outputs"],
        json!({
            "added": [{"name": "extra", "sensitive": false, "what": [], "old": null, "new": "x"}],
            "removed": [],
            "changed": [],
        })
    );
    let objects = document["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1);
    let object = &objects[0];
    assert_eq!(object["address"], "terraform_data.root");
    assert_eq!(object["deposed"], Value::Null);
    assert_eq!(object["action"], "changed");
    assert_eq!(object["fields"], json!(["dependencies", "x_unknown"]));
    assert_eq!(
        object["attributes"],
        json!([{
            "path": "input.value",
            "action": "changed",
            "old": "root module",
            "new": "changed",
        }])
    );
}

#[test]
fn stat_counts_each_object_and_totals() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("count_for_each.tfstate");
    let counted = instances(&mut state, "counted");
    counted[0]["attributes"]["input"] = json!({"value": "x", "type": "string"});
    counted[0]["attributes"]["triggers_replace"] = json!("y");
    counted[0]["status"] = json!("tainted");
    counted[1]["schema_version"] = json!(1);
    counted.remove(11);
    let set = instances(&mut state, "set");
    let mut extra = set[0].clone();
    extra["index_key"] = json!("d");
    set.push(extra);
    let new = write(folder.path(), "new.tfstate", &state);
    diff(&testdata("count_for_each.tfstate"), &new, &["--stat"])
        .code(1)
        .stdout(
            "~ terraform_data.counted[0]   3 attributes, status\n\
             ~ terraform_data.counted[1]   schema_version\n\
             - terraform_data.counted[11]\n\
             + terraform_data.set[\"d\"]\n\
             1 added, 1 removed, 2 changed\n",
        );
}

#[test]
fn sensitive_values_are_masked_unless_asked() {
    let folder = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(testdata("sensitive.tfstate")).unwrap();
    // `terraform_data.password.input` is sensitive as a whole; `connection.input.password` and
    // `connection.input.hosts[1]` are sensitive inside a dynamic value (`{"value": .., "type": ..}`).
    let mut state: Value = serde_json::from_str(&original).unwrap();
    instances(&mut state, "password")[0]["attributes"]["input"]["value"] = json!("swordfish-1");
    let connection = &mut instances(&mut state, "connection")[0]["attributes"]["input"]["value"];
    connection["password"] = json!("swordfish-2");
    connection["hosts"][1] = json!("swordfish-host");
    state["outputs"]["password"]["value"] = json!("swordfish-3");
    let new = write(folder.path(), "new.tfstate", &state);
    let old = testdata("sensitive.tfstate");
    for flags in [
        &[][..],
        &["--stat"],
        &["--format", "json"],
        &["--format", "markdown"],
    ] {
        let output = diff(&old, &new, flags).code(1);
        for secret in ["swordfish", "hunter2", "db2-secret-host"] {
            assert!(
                !output.stdout.contains(secret),
                "{flags:?} shows {secret}:\n{}",
                output.stdout
            );
        }
    }
    statectl_snapshot!("diff-sensitive-masked", diff_test(&old, &new, &[])).code(1);
    let document = json_diff(&old, &new, &[]);
    let connection = &document["objects"][0];
    assert_eq!(connection["address"], "terraform_data.connection");
    for change in connection["attributes"].as_array().unwrap() {
        assert_eq!(change["old"], "(sensitive value)", "{change}");
        assert_eq!(change["new"], "(sensitive value)", "{change}");
    }
    assert_eq!(
        document["outputs"]["changed"][0]["new"],
        "(sensitive value)"
    );

    let revealed = diff(&old, &new, &["--show-sensitive"]).code(1);
    for secret in [
        "swordfish-1",
        "swordfish-2",
        "swordfish-3",
        "swordfish-host",
    ] {
        assert_contains(&revealed.stdout, secret);
    }
    let document = json_diff(&old, &new, &["--show-sensitive"]);
    assert_eq!(document["sensitive_masked"], false);
    assert_eq!(document["outputs"]["changed"][0]["new"], "swordfish-3");
    let paths: Vec<&str> =
        crate::builder::strings_of(&document["objects"][0]["attributes"], "path");
    assert_eq!(paths, ["input.value.hosts[1]", "input.value.password"]);
}

#[test]
fn markdown_has_a_table_and_a_diff_block() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("lifecycle.tfstate");
    state["serial"] = json!(9);
    instances(&mut state, "workers")[0]["attributes"]["input"]["value"] = json!("worker zero");
    instances(&mut state, "uses_cbd").clear();
    let new = write(folder.path(), "new.tfstate", &state);
    statectl_snapshot!(
        "diff-markdown",
        diff_test(
            &testdata("lifecycle.tfstate"),
            &new,
            &["--format", "markdown"]
        )
    )
    .code(1)
    .no_stderr();
    let state = testdata("lifecycle.tfstate");
    diff(&state, &state, &["--format", "markdown"])
        .code(0)
        .stdout("The states are equal.\n");
}

#[test]
fn shows_exactly_what_taint_changed() {
    let folder = tempfile::tempdir().unwrap();
    let old = testdata("sensitive.tfstate");
    let new = rewritten(
        &["taint", "terraform_data.public"],
        &old,
        folder.path(),
        "tainted.tfstate",
    );
    let document = json_diff(&old, &new, &[]);
    assert_eq!(document["changes"], json!({"serial": {"old": 4, "new": 5}}));
    assert_eq!(
        document["objects"],
        json!([{
            "address": "terraform_data.public",
            "deposed": null,
            "action": "changed",
            "fields": ["status"],
            "attributes": [],
        }])
    );
    diff(&old, &new, &["--stat"])
        .code(1)
        .stdout("serial: 4 -> 5\n~ terraform_data.public  status\n0 added, 0 removed, 1 changed\n");
    // Untainting gives the same content back.
    let back = rewritten(
        &["untaint", "terraform_data.public"],
        &new,
        folder.path(),
        "back.tfstate",
    );
    diff(&old, &back, &[]).code(1).stdout("serial: 4 -> 6\n");
}

#[test]
fn reads_either_side_from_standard_input() {
    let old = testdata("modules.tfstate");
    let bytes = std::fs::read(&old).unwrap();
    Test::new()
        .args(["diff", "-"])
        .arg(&old)
        .stdin(bytes.clone())
        .run()
        .code(0)
        .stdout("");
    Test::new()
        .arg("diff")
        .arg(testdata("lifecycle.tfstate"))
        .args(["-", "--stat"])
        .stdin(bytes)
        .run()
        .code(1)
        .stdout_contains("serial: 8 -> ");
}

#[test]
fn colors_only_when_asked_or_on_a_terminal() {
    let folder = tempfile::tempdir().unwrap();
    let mut state = load("lifecycle.tfstate");
    instances(&mut state, "uses_cbd")[0]["status"] = json!("tainted");
    let new = write(folder.path(), "new.tfstate", &state);
    let old = testdata("lifecycle.tfstate");
    let plain = diff(&old, &new, &[]).code(1);
    assert!(!plain.stdout.contains('\x1b'), "{}", plain.stdout);
    statectl_snapshot!(
        "diff-color-always",
        diff_test(&old, &new, &["--color", "always"])
    )
    .code(1);
}

#[test]
fn refuses_what_it_cannot_read() {
    let folder = tempfile::tempdir().unwrap();
    let state = testdata("lifecycle.tfstate");
    let missing = folder.path().join("missing.tfstate");
    diff(&state, &missing, &[]).refused(&format!(
        "error: {}: cannot read the state",
        missing.display()
    ));
    let invalid = folder.path().join("invalid.tfstate");
    std::fs::write(&invalid, "{\n  \"version\": 4,\n  \"serial\": 1,,\n}\n").unwrap();
    diff(&invalid, &state, &[])
        .refused(&format!("error: {}:3:15: invalid JSON", invalid.display()));
    diff(&state, &invalid, &["--format", "json"])
        .refused(&format!("error: {}:3:15: invalid JSON", invalid.display()));
    Test::new()
        .args(["diff", "-", "-"])
        .stdin("{}")
        .run()
        .refused("OLD and NEW cannot both be `-`");
    diff(&state, &state, &["--stat", "--format", "json"]).refused("`--stat`");
}

/// A `sensitive_attributes` step statectl cannot follow (an index that is not a whole number, which
/// Terraform's reader accepts) beside paths it can: `diff` took the unreadable list for no secrets
/// and showed them, `show` and `query` refused the state. Now the value the odd path reached is
/// masked whole and the other paths as always.
#[test]
fn a_sensitive_path_statectl_cannot_follow_still_masks_in_diff_show_and_query() {
    let folder = tempfile::tempdir().unwrap();
    let odd = json!([
        {"type": "get_attr", "value": "input"},
        {"type": "get_attr", "value": "hosts"},
        {"type": "index", "value": {"value": 0.5, "type": "number"}}
    ]);
    let mut state = load("sensitive.tfstate");
    instances(&mut state, "connection")[0]["sensitive_attributes"]
        .as_array_mut()
        .unwrap()
        .push(odd);
    let old = write(folder.path(), "old.tfstate", &state);
    instances(&mut state, "connection")[0]["attributes"]["input"]["value"]["password"] =
        json!("swordfish-2");
    let new = write(folder.path(), "new.tfstate", &state);
    for flags in [&[][..], &["--format", "json"], &["--format", "markdown"]] {
        let output = diff(&old, &new, flags).code(1);
        assert_contains(&output.stdout, "terraform_data.connection");
        assert_lacks(&output.stdout, "swordfish");
    }
    for command in [
        &["show", "terraform_data.connection"][..],
        &["query", "$..input.value"],
    ] {
        let output = Test::new().args(command).arg(&new).run().code(0);
        assert_contains(&output.stdout, "(sensitive value)");
        assert_lacks(&output.stdout, "swordfish");
        assert_lacks(&output.stdout, "db2-secret-host");
    }
}

/// terraform_data copies `input` to `output` and Terraform marks only `input`: a changed secret
/// showed in clear under `output` in every format (the old binary printed it twice in each).
#[test]
fn a_terraform_data_output_copied_from_a_sensitive_input_is_masked_in_every_format() {
    let old = root().join("testdata/states/sensitive.tfstate");
    let text = std::fs::read_to_string(&old).unwrap();
    assert!(text.contains("hunter2-s3cr3t"));
    let folder = tempfile::tempdir().unwrap();
    let new = folder.path().join("new.tfstate");
    std::fs::write(&new, text.replace("hunter2-s3cr3t", "rotated-s3cr3t")).unwrap();
    for format in ["text", "json", "markdown"] {
        let output = Test::new()
            .arg("diff")
            .arg(&old)
            .arg(&new)
            .args(["--format", format])
            .run()
            .code(1);
        assert_lacks(&output.stdout, "s3cr3t");
    }
}
