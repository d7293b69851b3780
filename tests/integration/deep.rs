//! One nesting limit for every command (issue 24, item 20): Go's `encoding/json` reads a document
//! 10,000 containers deep (`statectl::json::MAX_DEPTH`), and so does every statectl command; one
//! level more is the same one line from each. `show` failed from 127 levels (serde_json's limit) and
//! `diff` said `path: "", old: null, new: null`, while `list` took 9,000.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::builder::{Test, assert_contains};

/// The containers around an instance's attribute value: the document, `resources`, the resource,
/// `instances`, the instance and `attributes`.
const AROUND_A_VALUE: usize = 6;

/// A state whose `terraform_data.deep` holds an `input` nested `levels` containers deep (arrays and
/// objects in turn), around the string `leaf`.
fn deep_state(folder: &Path, name: &str, levels: usize, leaf: &str) -> PathBuf {
    let mut value = String::new();
    for level in 0..levels {
        value.push_str(if level % 2 == 0 { "[" } else { "{\"a\":" });
    }
    value.push('"');
    value.push_str(leaf);
    value.push('"');
    for level in (0..levels).rev() {
        value.push(if level % 2 == 0 { ']' } else { '}' });
    }
    let state = format!(
        r#"{{"version":4,"terraform_version":"1.15.5","serial":1,"lineage":"deep","outputs":{{}},"resources":[{{"mode":"managed","type":"terraform_data","name":"deep","provider":"provider[\"terraform.io/builtin/terraform\"]","instances":[{{"schema_version":0,"attributes":{{"id":"1","input":{value}}},"sensitive_attributes":[]}}]}}]}}"#
    );
    let path = folder.join(name);
    std::fs::write(&path, state).unwrap();
    path
}

#[test]
fn diff_finds_the_change_at_the_bottom_of_a_value_as_deep_as_terraform_reads() {
    let folder = tempfile::tempdir().unwrap();
    let levels = statectl::json::MAX_DEPTH - AROUND_A_VALUE;
    let old = deep_state(folder.path(), "old.tfstate", levels, "old");
    let new = deep_state(folder.path(), "new.tfstate", levels, "new");
    let output = Test::new()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .args(["--format", "json"])
        .run()
        .code(1);
    let document: Value = serde_json::from_str(&output.stdout).unwrap();
    let change = &document["objects"][0]["attributes"][0];
    let path = change["path"].as_str().unwrap();
    assert!(
        path.starts_with("input[0].a[0].a") && path.matches('[').count() == levels.div_ceil(2),
        "{path:.200}"
    );
    assert_eq!(
        (&change["old"], &change["new"]),
        (&"old".into(), &"new".into())
    );
    // The commands that read every instance take it too.
    for command in ["list", "summary", "scan"] {
        let output = Test::new().arg(command).arg(&old).run();
        assert!(output.code < 2, "{command}: {}", output.stderr);
    }
}

#[test]
fn show_and_the_text_diff_go_past_serde_jsons_128_levels() {
    let folder = tempfile::tempdir().unwrap();
    let old = deep_state(folder.path(), "old.tfstate", 1_000, "old");
    let new = deep_state(folder.path(), "new.tfstate", 1_000, "new");
    let shown = Test::new()
        .args(["show", "terraform_data.deep"])
        .arg(&old)
        .run()
        .code(0);
    assert!(shown.stdout.contains("\"old\""), "{:.300}", shown.stdout);
    let json = Test::new()
        .args(["show", "terraform_data.deep", "--format", "json"])
        .arg(&old)
        .run()
        .code(0);
    // Past serde_json's own limit: read back with statectl's reader.
    let document = statectl::json::parse_value(&json.stdout).unwrap();
    assert!(document["attributes"]["input"].is_array());
    let diff = Test::new().arg("diff").arg(&old).arg(&new).run().code(1);
    assert!(
        diff.stdout.contains("-  ") && diff.stdout.contains("\"new\""),
        "{:.300}",
        diff.stdout
    );
}

#[test]
fn one_level_more_is_the_same_one_line_from_every_command() {
    let folder = tempfile::tempdir().unwrap();
    let levels = statectl::json::MAX_DEPTH - AROUND_A_VALUE + 1;
    deep_state(folder.path(), "deep.tfstate", levels, "x");
    let line = Test::new()
        .args(["list", "deep.tfstate"])
        .current_dir(folder.path())
        .run()
        .code(2)
        .stderr;
    assert!(
        line.starts_with("error: deep.tfstate:1:")
            && line.ends_with(": invalid JSON: values nested deeper than 10000 levels\n"),
        "{line}"
    );
    for args in [
        &["show", "terraform_data.deep", "deep.tfstate"][..],
        &["diff", "deep.tfstate", "deep.tfstate"],
        &["summary", "deep.tfstate"],
        &["query", "$.serial", "deep.tfstate"],
        &["taint", "terraform_data.deep", "deep.tfstate"],
    ] {
        let output = Test::new().args(args).current_dir(folder.path()).run();
        assert_eq!(
            (output.code, output.stderr.as_str()),
            (2, line.as_str()),
            "{args:?}"
        );
    }
    let scan = Test::new()
        .args(["scan", "deep.tfstate"])
        .current_dir(folder.path())
        .run()
        .code(2);
    assert_contains(&scan.stderr, &line);
}
