//! Real Terraform 1.15.5 as the oracle: `statectl list` prints the same lines, in the same order, as
//! `terraform state list` on every testdata state and every corpus state Terraform reads.
//!
//! `.ci/run` installs Terraform (scripts/install-terraform.sh); elsewhere these tests skip as
//! `crate::skip` says (reported, and a failure under CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::builder::{Test, root, state_files};
use crate::skip::require_corpus;

/// Runs `command` (Terraform, mostly), which must succeed; returns its stdout and stderr.
pub(crate) fn run(command: &mut Command) -> String {
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{command:?}: {text}");
    text
}

/// The AWS provider's filesystem mirror (scripts/install-aws-provider.sh, or
/// `STATECTL_AWS_PROVIDER_MIRROR`), absolute; `None` (the test skips) without it, except under CI.
pub(crate) fn aws_provider_mirror() -> Option<PathBuf> {
    crate::skip::require_installed("STATECTL_AWS_PROVIDER_MIRROR", "target/aws-provider/mirror")
        .map(|mirror| mirror.canonicalize().unwrap())
}

pub(crate) fn terraform() -> Option<PathBuf> {
    let found =
        crate::skip::require_installed("STATECTL_TERRAFORM", "target/terraform/bin/terraform")?;
    // Tests run Terraform in scratch folders, so a relative path would not find it there.
    Some(found.canonicalize().expect("Terraform's path resolves"))
}

/// `terraform state list -state=FILE`, run in an empty folder so nothing lands in the checkout.
pub(crate) fn terraform_state_list(terraform: &Path, state: &Path) -> Option<String> {
    terraform_on(terraform, state, &["state", "list"], &[])
}

/// `terraform ARGS -state=STATE AFTER`, run in an empty folder so nothing lands in the checkout:
/// its stdout, or `None` when it fails.
fn terraform_on(terraform: &Path, state: &Path, args: &[&str], after: &[&str]) -> Option<String> {
    let folder = tempfile::tempdir().unwrap();
    let output = Command::new(terraform)
        .args(args)
        .arg(format!("-state={}", state.display()))
        .args(after)
        .current_dir(folder.path())
        .output()
        .expect("terraform runs");
    output
        .status
        .success()
        .then(|| String::from_utf8(output.stdout).expect("UTF-8"))
}

#[test]
fn list_matches_terraform_on_every_testdata_state() {
    let Some(terraform) = terraform() else { return };
    let states = state_files(&root().join("testdata/states"));
    assert!(states.len() >= 5);
    for state in states {
        lists_as_terraform_does(&terraform, &state);
    }
}

/// `statectl list STATE` prints what `terraform state list` does, which reads `state`; returns
/// that listing.
pub(crate) fn lists_as_terraform_does(terraform: &Path, state: &Path) -> String {
    let expected = terraform_state_list(terraform, state)
        .unwrap_or_else(|| panic!("terraform reads {}", state.display()));
    Test::new()
        .arg("list")
        .arg(state)
        .run()
        .code(0)
        .stdout(&expected);
    expected
}

#[test]
fn list_matches_terraform_on_corpus_states() {
    let Some(terraform) = terraform() else { return };
    let Some(corpus) = require_corpus() else {
        return;
    };
    let (mut compared, mut mismatches) = (0, Vec::new());
    for state in state_files(&corpus) {
        let ours = Test::new().arg("list").arg(&state).run();
        if ours.code != 0 {
            continue; // refused on purpose; corpus.rs checks why
        }
        let Some(expected) = terraform_state_list(&terraform, &state) else {
            continue;
        };
        // Terraform 1.15 silently drops resources whose provider it cannot read from OpenTofu files
        // (the legacy `registry.opentofu.org/-/null`, or no resource-level provider because the
        // instances carry their own): it lists nothing where statectl lists what the file holds.
        // That is the data-loss trap statectl exists to avoid, not a mismatch.
        let dropped_by_terraform = expected.is_empty()
            && std::fs::read_to_string(&state)
                .unwrap()
                .contains("registry.opentofu.org/");
        if ours.stdout != expected && !dropped_by_terraform {
            mismatches.push(format!(
                "{}
--- statectl
{}--- terraform
{}",
                state.display(),
                ours.stdout,
                expected
            ));
        }
        compared += 1;
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(
        compared >= 20,
        "compared {compared} corpus states with Terraform"
    );
}

/// `terraform taint -state=FILE ADDRESS` on a copy of `state`; returns the rewritten bytes.
fn terraform_taint(terraform: &Path, state: &Path, address: &str) -> Vec<u8> {
    let folder = tempfile::tempdir().unwrap();
    let copy = folder.path().join("terraform.tfstate");
    std::fs::copy(state, &copy).unwrap();
    let output = Command::new(terraform)
        .args(["taint", "-state=terraform.tfstate", address])
        .current_dir(folder.path())
        .output()
        .expect("terraform runs");
    assert!(
        output.status.success(),
        "terraform taint {address}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read(copy).unwrap()
}

#[test]
fn a_spliced_taint_is_byte_identical_to_terraforms_own_rewrite() {
    use statectl::state::address::Mode;
    use statectl::state::parse;
    use statectl::state::write::{Change, Splice};

    let Some(terraform) = terraform() else { return };
    let mut compared = 0;
    for path in state_files(&root().join("testdata/states")) {
        let bytes = std::fs::read(&path).unwrap();
        let state = parse(&bytes).unwrap();
        let Some((resource, instance)) = state.instances().find(|(resource, instance)| {
            resource.address.mode == Mode::Managed
                && !instance.tainted
                && instance.deposed.is_none()
        }) else {
            continue;
        };
        let address = instance.address(resource).to_string();
        let expected = terraform_taint(&terraform, &path, &address);
        let mut splice = Splice::new(state.source);
        splice.change_instance(&state, instance, &[Change::set_string("status", "tainted")]);
        splice.set_serial(&state, state.serial + 1);
        let ours = splice.apply();
        let theirs = String::from_utf8(expected).unwrap();
        // Terraform re-orders `check_results` on every write (it collects them concurrently), so that
        // member is compared as a set; everything before it must match byte for byte.
        let (our_head, our_checks) = split_check_results(&ours);
        let (their_head, their_checks) = split_check_results(&theirs);
        assert_eq!(our_head, their_head, "{} {address}", path.display());
        assert_eq!(
            our_checks,
            their_checks,
            "{} {address}: check_results as a set",
            path.display()
        );
        compared += 1;
    }
    assert!(compared >= 5, "compared {compared} taints with Terraform's");
}

/// The text before the top-level `check_results` member, and that member's entries, sorted.
pub(crate) fn split_check_results(state: &str) -> (&str, Vec<String>) {
    let at = state
        .rfind("\n  \"check_results\": ")
        .expect("Terraform writes check_results");
    let document: serde_json::Value = serde_json::from_str(state).unwrap();
    let mut entries: Vec<String> = match &document["check_results"] {
        serde_json::Value::Array(entries) => entries
            .iter()
            .map(|entry| normalized(entry).to_string())
            .collect(),
        _ => Vec::new(),
    };
    entries.sort();
    (&state[..at], entries)
}

/// Sorts arrays inside a check result (its objects come in any order too).
fn normalized(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Array(items) => {
            let mut items: Vec<serde_json::Value> = items.iter().map(normalized).collect();
            items.sort_by_key(ToString::to_string);
            serde_json::Value::Array(items)
        }
        serde_json::Value::Object(members) => members
            .iter()
            .map(|(key, value)| (key.clone(), normalized(value)))
            .collect(),
        other => other.clone(),
    }
}

/// `terraform state show -no-color -state=FILE ADDRESS`, run in an empty folder; `None` when
/// Terraform cannot show it (a provider whose schema it has no plugin for, an address it refuses).
fn terraform_state_show(terraform: &Path, state: &Path, address: &str) -> Option<String> {
    terraform_on(
        terraform,
        state,
        &["state", "show", "-no-color"],
        &[address],
    )
}

/// `state` as statectl masks it, for Terraform to show: each `terraform_data` instance's
/// `sensitive_attributes` lists again under `output` what it lists under `input`. The provider
/// copies `input` to `output` and Terraform marks only `input`, so its `state show` prints the copy
/// in clear; statectl masks it, and must then print what Terraform prints for the copy marked.
/// Returns `state` itself when it has no such instance.
fn with_output_copies_marked(state: &Path, folder: &Path) -> PathBuf {
    let Ok(mut document) =
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(state).unwrap())
    else {
        return state.to_owned();
    };
    let mut changed = false;
    for resource in document["resources"].as_array_mut().into_iter().flatten() {
        if resource["type"] != "terraform_data" {
            continue;
        }
        for instance in resource["instances"].as_array_mut().into_iter().flatten() {
            let Some(paths) = instance["sensitive_attributes"].as_array_mut() else {
                continue;
            };
            let copies: Vec<serde_json::Value> = paths
                .iter()
                .filter(|path| path[0]["value"] == "input")
                .map(|path| {
                    let mut copy = path.clone();
                    copy[0]["value"] = "output".into();
                    copy
                })
                .collect();
            changed |= !copies.is_empty();
            paths.extend(copies);
        }
    }
    if !changed {
        return state.to_owned();
    }
    let marked = folder.join(state.file_name().unwrap());
    std::fs::write(&marked, serde_json::to_vec(&document).unwrap()).unwrap();
    marked
}

/// Compares `statectl show` with `terraform state show` for every instance of `states` Terraform
/// can show; returns how many were compared and the mismatches.
fn compare_show(terraform: &Path, states: &[PathBuf]) -> (usize, Vec<String>) {
    let (mut compared, mut mismatches) = (0, Vec::new());
    let marked = tempfile::tempdir().unwrap();
    for state in states {
        let listed = Test::new().arg("list").arg(state).run();
        if listed.code != 0 {
            continue;
        }
        let shown_by_terraform = with_output_copies_marked(state, marked.path());
        for address in listed.stdout.lines() {
            let Some(expected) = terraform_state_show(terraform, &shown_by_terraform, address)
            else {
                continue;
            };
            let ours = Test::new().arg("show").arg(address).arg(state).run();
            if ours.stdout != expected {
                mismatches.push(format!(
                    "{} {address}\n--- statectl (exit {})\n{}{}--- terraform\n{expected}",
                    state.display(),
                    ours.code,
                    ours.stdout,
                    ours.stderr
                ));
            }
            compared += 1;
        }
    }
    (compared, mismatches)
}

/// Issue 25, item 13: `show` printed `input = { value = "blue-0" type = "string" }` and
/// `triggers_replace = null` where Terraform prints `input = "blue-0"`. Every instance of every
/// testdata state (`show.tfstate` gathers JSON strings, heredocs, odd keys, maps and sets of objects,
/// sensitive values and a data source) must print what Terraform prints.
#[test]
fn show_matches_terraform_on_every_testdata_instance() {
    let Some(terraform) = terraform() else { return };
    let (compared, mismatches) =
        compare_show(&terraform, &state_files(&root().join("testdata/states")));
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(
        compared >= 70,
        "compared {compared} instances with Terraform"
    );
}

/// The corpus states Terraform can show (the built-in provider's: it has no other provider's
/// plugin here), and values written by hand in spellings Terraform's own writer never uses.
#[test]
fn show_matches_terraform_on_corpus_states_and_odd_spellings() {
    let Some(terraform) = terraform() else { return };
    let folder = tempfile::tempdir().unwrap();
    let odd = folder.path().join("odd.tfstate");
    // (A carriage return inside a heredoc line is left out: Terraform prints it raw, statectl escapes
    // it so that a state cannot overwrite what the terminal shows.)
    let value = r#"{"numbers": [1e3, 1E+2, 1.50, -0.0, 0.000125, 123456789012345678901234567890.000],
        "controls": "bell\u0007 escape\u001b nbsp\u00a0 zero-width\u200b", "crlf": "one\r\ntwo\r\n",
        "json_with_spaces": "  {\"a\": 1}", "json_trailing": "{\"a\": 1} x",
        "deep_json": "[[[{\"k\": [\"v\"]}]]]", "unicode_key": {"日本": 1}}"#;
    let ty = r#"["object",{"numbers":["tuple",["number","number","number","number","number","number"]],"controls":"string","crlf":"string","json_with_spaces":"string","json_trailing":"string","deep_json":"string","unicode_key":["object",{"日本":"number"}]}]"#;
    let state = format!(
        r#"{{"version":4,"terraform_version":"1.15.5","serial":1,"lineage":"odd","outputs":{{}},"resources":[{{"mode":"managed","type":"terraform_data","name":"odd","provider":"provider[\"terraform.io/builtin/terraform\"]","instances":[{{"schema_version":0,"attributes":{{"id":"odd","input":{{"value":{value},"type":{ty}}},"output":null,"triggers_replace":{{"value":"","type":"string"}}}},"sensitive_attributes":[]}}]}}]}}"#
    );
    std::fs::write(&odd, state).unwrap();
    let mut states = vec![odd];
    if let Some(corpus) = require_corpus() {
        states.extend(state_files(&corpus));
    }
    let (compared, mismatches) = compare_show(&terraform, &states);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(
        compared >= 2,
        "compared {compared} instances with Terraform"
    );
}
