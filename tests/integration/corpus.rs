//! Every file of the shared corpus gets the outcome its README names: parsed (and a no-op rewrite gives
//! the input back), or refused with one clear line and exit 2.

use statectl::state::legacy::StateBytes;
use statectl::state::{parse, write};

use crate::builder::{Test, state_files};
use crate::skip::require_corpus;

/// The refusals the corpus README names, by a fragment of the file name.
const REFUSED: &[(&str, &str)] = &[
    ("roundtrip__v1-simple.in", "this is a format-1 state"),
    (
        "backend-change__.terraform__terraform",
        "Terraform's backend cache",
    ),
    ("invalid-provider-for-resource", "invalid provider address"),
    (
        "init-encryption-with-state",
        "the state is encrypted by OpenTofu",
    ),
    (
        "SYNTHETIC-opentofu-encrypted-wrapper",
        "the state is encrypted by OpenTofu",
    ),
];

fn refusal_for(name: &str) -> Option<&'static str> {
    REFUSED
        .iter()
        .find(|(fragment, _)| name.contains(fragment))
        .map(|(_, message)| *message)
}

#[test]
fn every_corpus_file_gets_its_named_outcome() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    let files = state_files(&corpus);
    assert!(
        files.len() >= 40,
        "the corpus has its files: {}",
        files.len()
    );
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(message) = refusal_for(&name) {
            let output = Test::new().arg("list").arg(&file).run().refused(message);
            assert!(
                output.stderr.contains(&file.display().to_string()),
                "{name}: the error names the file"
            );
        } else {
            Test::new().arg("list").arg(&file).run().code(0);
            let bytes = StateBytes::new(std::fs::read(&file).unwrap().into());
            let state = bytes
                .parse()
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            if bytes.is_upgraded() {
                // A format-3 state is read through its upgrade (legacy.rs checks that text).
                continue;
            }
            let untouched = write::Splice::new(state.source).apply();
            assert_eq!(
                untouched.as_bytes(),
                &*bytes,
                "{name}: a no-op rewrite gives back the input bytes"
            );
        }
    }
}

#[test]
fn legacy_refusals_say_how_to_upgrade() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    let file = corpus
        .join("terraform/internal__states__statefile__testdata__roundtrip__v1-simple.in.tfstate");
    Test::new()
        .arg("list")
        .arg(&file)
        .run()
        .refused("this is a format-1 state, from before Terraform 0.7")
        .stderr_contains("hint: upgrade it with Terraform 0.12 or later")
        .stderr_contains("`terraform state pull > upgraded.tfstate`");
    let encrypted = corpus.join(
        "opentofu/internal__command__testdata__init-encryption-with-state__terraform.tfstate",
    );
    Test::new()
        .arg("list")
        .arg(&encrypted)
        .run()
        .refused(
            "the state is encrypted by OpenTofu, and no state encryption is configured to open it",
        )
        .stderr_contains(
            "hint: give the encryption configuration: run in (or point --config at) the directory",
        )
        .stderr_contains("or set TF_ENCRYPTION");
}

#[test]
fn the_last_duplicate_key_wins_as_in_go() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    let bytes = std::fs::read(corpus.join(
        "opentofu/internal__states__statefile__testdata__roundtrip__v4-legacy-modules.out.tfstate",
    ))
    .unwrap();
    let state = parse(&bytes).unwrap();
    let module_a = state
        .resources
        .iter()
        .find(|resource| resource.address.to_string() == "module.modA.null_resource.resource")
        .unwrap();
    assert_eq!(
        module_a.instances[0].dependencies(state.source),
        ["var.input"]
    );
}

#[test]
fn opentofu_fields_are_read() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    let bytes = std::fs::read(
        corpus.join("synthetic/SYNTHETIC-opentofu-1.12-skip_destroy-provider_foreach.tfstate"),
    )
    .unwrap();
    let state = parse(&bytes).unwrap();
    assert_eq!(
        state.style.flavour,
        statectl::state::layout::Flavour::OpenTofu
    );
    let instances: Vec<_> = state.instances().map(|(_, instance)| instance).collect();
    assert!(instances.iter().all(|instance| instance.skip_destroy));
    let provider = instances[1].provider.as_ref().unwrap();
    assert_eq!(
        (provider.source.as_str(), provider.alias.as_deref()),
        ("registry.opentofu.org/hashicorp/aws", Some("by_region"))
    );
    assert!(instances[1].identity().is_some());
}

#[test]
fn terraform_112_features_are_read() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    let bytes =
        std::fs::read(corpus.join("synthetic/SYNTHETIC-terraform-1.12plus-features.tfstate"))
            .unwrap();
    let state = parse(&bytes).unwrap();
    let web: Vec<_> = state
        .instances()
        .filter(|(resource, _)| resource.address.name == "web")
        .map(|(_, instance)| instance)
        .collect();
    assert!(web[0].tainted && web[0].create_before_destroy && web[0].identity().is_some());
    assert_eq!(web[0].identity_schema_version(state.source), Some(0));
    assert_eq!(web[1].deposed.as_deref(), Some("6e7c3f1a"));
    assert!(
        state
            .check_results
            .is_some_and(|span| span.of(state.source).starts_with('['))
    );
    assert!(
        state
            .outputs
            .iter()
            .any(|output| output.name == "db_password" && output.sensitive)
    );
}
