//! The writing engine: every instance of every writer-exact file, re-rendered from the model and
//! spliced back, gives the input byte for byte; and a changed instance is rendered as its writer would.

use statectl::state::parse;
use statectl::state::write::{Change, Splice, render_instance, rerender_all};

use crate::builder::{root, state_files};
use crate::skip::require_corpus;

/// The corpus files its README calls writer-exact: byte for byte what Go's writer produces. Not
/// `roundtrip__v4-cbd.in`, which the README lists too: it has `create_before_destroy` before
/// `private`, while Terraform's struct (and Terraform 1.15.5 itself, asked to rewrite that file) puts
/// `private` first; Terraform's own roundtrip test compares structs, not bytes, so it never noticed.
const WRITER_EXACT: &[&str] = &[
    "terraform/internal__states__statefile__testdata__roundtrip__v4-modules.in.tfstate",
    "terraform/internal__states__statefile__testdata__roundtrip__v4-foreach.in.tfstate",
    "terraform/internal__states__statefile__testdata__roundtrip__v4-legacy-modules.in.tfstate",
    "terraform/internal__states__statefile__testdata__roundtrip__v4-legacy-modules.out.tfstate",
    "terraform/internal__states__statefile__testdata__roundtrip__v4-legacy-foreach.in.tfstate",
    "terraform/internal__states__statefile__testdata__roundtrip__v4-legacy-foreach.out.tfstate",
    "terraform/internal__states__statefile__testdata__roundtrip__v3-builtin.out.tfstate",
    "terraform/internal__command__testdata__show-json-state__sensitive-variables__terraform.tfstate",
    "terraform/internal__command__testdata__show-json__conditions__for-refresh.tfstate",
    "terraform/internal__command__testdata__state-identities-backend-default__terraform.tfstate",
    "terraform/testing__equivalence-tests__tests__fully_populated_complex_destroy__terraform.tfstate",
    "terraform/testing__equivalence-tests__tests__null_provider_update__terraform.tfstate",
    "terraform/testing__equivalence-tests__tests__drift_relevant_attributes__terraform.tfstate",
    "terraform/testing__equivalence-tests__tests__basic_json_string_update__terraform.tfstate",
    "opentofu/internal__states__statefile__testdata__roundtrip__v4-foreach.in.tfstate",
];

#[track_caller]
fn assert_rerender_is_identity(path: &std::path::Path) {
    let bytes = std::fs::read(path).unwrap();
    let state = parse(&bytes).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let rendered = rerender_all(&state);
    if rendered.as_bytes() != bytes.as_slice() {
        let first_difference = rendered
            .bytes()
            .zip(bytes.iter())
            .position(|(left, right)| left != *right)
            .unwrap_or(0);
        let context = |text: &[u8]| {
            String::from_utf8_lossy(
                &text[first_difference.saturating_sub(80)..(first_difference + 80).min(text.len())],
            )
            .into_owned()
        };
        panic!(
            "{}: re-render differs at byte {first_difference}\n--- expected\n{}\n--- rendered\n{}",
            path.display(),
            context(&bytes),
            context(rendered.as_bytes())
        );
    }
}

#[test]
fn forced_rerender_of_writer_exact_corpus_files_is_byte_identical() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    for file in WRITER_EXACT {
        assert_rerender_is_identity(&corpus.join(file));
    }
}

#[test]
fn forced_rerender_of_real_terraform_states_is_byte_identical() {
    let states = state_files(&root().join("testdata/states"));
    assert!(
        states.len() >= 5,
        "testdata has states written by real Terraform"
    );
    // The scan fixtures are written as Terraform 1.15 (or OpenTofu 1.12) would write them, too.
    let states = states
        .into_iter()
        .chain(state_files(&root().join("testdata/scan")));
    for state in states {
        assert_rerender_is_identity(&state);
    }
}

#[test]
fn a_changed_instance_is_spliced_and_the_rest_stays_identical() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    let path = corpus.join("terraform/internal__command__testdata__state-identities-backend-default__terraform.tfstate");
    let bytes = std::fs::read(path).unwrap();
    let state = parse(&bytes).unwrap();
    let (_, instance) = state.instances().next().unwrap();
    let mut splice = Splice::new(state.source);
    splice.change_instance(&state, instance, &[Change::set_string("status", "tainted")]);
    splice.set_serial(&state, state.serial + 1);
    let rewritten = splice.apply();
    // The only differences: the serial, and a status line where Terraform puts it (after index_key).
    let expected = state
        .source
        .replacen(
            &format!("\"serial\": {}", state.serial),
            &format!("\"serial\": {}", state.serial + 1),
            1,
        )
        .replacen(
            "{\n          \"schema_version\"",
            "{\n          \"status\": \"tainted\",\n          \"schema_version\"",
            1,
        );
    assert_eq!(rewritten, expected);
    let reparsed = parse(rewritten.as_bytes()).unwrap();
    assert!(reparsed.instances().next().unwrap().1.tainted);
}

#[test]
fn rendering_follows_the_opentofu_order_and_compact_layout() {
    let compact = r#"{"version":4,"terraform_version":"1.9.0","serial":1,"lineage":"x","outputs":{},"resources":[{"mode":"managed","type":"t","name":"n","instances":[{"index_key":"a","provider":"provider[\"registry.opentofu.org/hashicorp/aws\"].r[\"a\"]","schema_version":0,"attributes":{"id":"1 <&>"},"sensitive_attributes":[],"identity":{"id":"1"},"identity_schema_version":0}]}],"check_results":null}
"#;
    let state = parse(compact.as_bytes()).unwrap();
    let (_, instance) = state.instances().next().unwrap();
    let rendered = render_instance(
        &state,
        instance,
        &[Change::Set {
            field: "skip_destroy",
            json: "true".into(),
        }],
    );
    assert_eq!(
        rendered,
        r#"{"index_key":"a","provider":"provider[\"registry.opentofu.org/hashicorp/aws\"].r[\"a\"]","schema_version":0,"attributes":{"id":"1 \u003c\u0026\u003e"},"sensitive_attributes":[],"skip_destroy":true,"identity":{"id":"1"},"identity_schema_version":0}"#
    );
}

#[test]
fn rendering_keeps_number_spelling_and_unknown_keys() {
    let text = "{\n    \"version\": 4,\n    \"serial\": 1,\n    \"lineage\": \"x\",\n    \"resources\": [\n        {\n            \"mode\": \"managed\", \"type\": \"t\", \"name\": \"n\",\n            \"instances\": [\n                {\"future_field\": {\"a\": 1.50}, \"attributes\": {\"big\": 123456789012345678901234567890, \"e\": 1E+2}, \"schema_version\": 0}\n            ]\n        }\n    ]\n}";
    let state = parse(text.as_bytes()).unwrap();
    let (_, instance) = state.instances().next().unwrap();
    let rendered = render_instance(&state, instance, &[]);
    let expected = "{\n                    \"schema_version\": 0,\n                    \"attributes\": {\n                        \"big\": 123456789012345678901234567890,\n                        \"e\": 1E+2\n                    },\n                    \"future_field\": {\n                        \"a\": 1.50\n                    }\n                }";
    assert_eq!(rendered, expected);
}

#[test]
fn forced_rerender_of_a_generated_state_is_byte_identical() {
    // benches/gen_state.py writes states exactly as Terraform 1.15 does, with what the small fixtures
    // lack: identity, private, dependencies, deposed objects, nested modules and big attribute sets.
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("generated.tfstate");
    let Some(python) =
        crate::skip::require_tool("STATECTL_PYTHON", "python3", "apt-get install python3")
    else {
        return;
    };
    let status = std::process::Command::new(python)
        .arg(root().join("benches/gen_state.py"))
        .args(["--instances", "1000", "--seed", "7", "--out"])
        .arg(&path)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("python3 runs");
    assert!(status.success(), "gen_state.py runs");
    assert_rerender_is_identity(&path);
    // Every resource and instance object is in the model, in file order.
    let bytes = std::fs::read(&path).unwrap();
    let state = parse(&bytes).unwrap();
    let document: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let expected: Vec<(String, usize)> = document["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| {
            (
                format!(
                    "{}.{}",
                    resource["type"].as_str().unwrap(),
                    resource["name"].as_str().unwrap()
                ),
                resource["instances"].as_array().unwrap().len(),
            )
        })
        .collect();
    let parsed: Vec<(String, usize)> = state
        .resources
        .iter()
        .map(|resource| {
            (
                format!("{}.{}", resource.address.type_name, resource.address.name),
                resource.instances.len(),
            )
        })
        .collect();
    assert_eq!(parsed, expected);
}
