//! What "byte for byte" means (README, "Changing a state"), proved both ways. On a state Terraform
//! 1.15.5 wrote last, `taint`, `untaint` and `forget` leave Terraform's own bytes, also when its
//! providers come from `registry.opentofu.org` (the writer is judged from the file, not the registry).
//! On an older file, statectl changes only the object it changes and `serial`, while real Terraform
//! rewrites the whole file in each way the README lists, and takes statectl's result as the next
//! version of the state.

use std::path::{Path, PathBuf};

use serde_json::Value;
use statectl::json::Span;
use statectl::state::layout::{Evidence, Flavour, detect_flavour};
use statectl::state::write::render_instance;
use statectl::state::{State, parse};

use crate::builder::{Test, root, state_files};
use crate::oracle::terraform;
use crate::rewrite_oracle::{
    assert_same_state, copy_of, run_terraform, statectl_result, terraform_result,
};
use crate::skip::require_corpus;

/// Written by `terraform taint` (1.15.5) after its provider addresses were moved to
/// `registry.opentofu.org` (testdata/regen.sh).
fn opentofu_hosts() -> PathBuf {
    root().join("testdata/states/opentofu_hosts.tfstate")
}

#[test]
fn a_terraform_state_with_opentofu_registry_providers_gets_terraforms_order() {
    let bytes = std::fs::read(opentofu_hosts()).unwrap();
    let mut state = parse(&bytes).unwrap();
    assert_eq!(state.terraform_version.as_deref(), Some("1.15.5"));
    assert!(state.resources.iter().all(|resource| {
        resource
            .provider
            .as_ref()
            .is_some_and(|provider| provider.source.starts_with("registry.opentofu.org/"))
    }));
    assert_eq!(
        detect_flavour(&state),
        (Flavour::Terraform, Evidence::KeyOrder)
    );
    // The fixture is worth having only if OpenTofu's order would give other bytes for it.
    state.style.flavour = Flavour::OpenTofu;
    let moved = state.instances().filter(|(_, instance)| {
        render_instance(&state, instance, &[]) != instance.span.of(state.source)
    });
    assert!(moved.count() >= 3, "OpenTofu's order changes nothing here");
}

#[test]
fn on_a_terraform_state_with_opentofu_registry_providers_every_change_is_terraforms_bytes() {
    let Some(terraform) = terraform() else { return };
    let path = opentofu_hosts();
    let bytes = std::fs::read(&path).unwrap();
    let state = parse(&bytes).unwrap();
    let mut compared = 0;
    for (resource, instance) in state.instances() {
        let address = instance.address(resource).to_string();
        let (ours, theirs) = if instance.tainted {
            (
                statectl_result(&path, "untaint", &address),
                terraform_result(&terraform, &path, &["untaint"], &address),
            )
        } else {
            (
                statectl_result(&path, "taint", &address),
                terraform_result(&terraform, &path, &["taint"], &address),
            )
        };
        assert_same_state(&ours, &theirs, &format!("(un)taint {address}"));
        let ours = statectl_result(&path, "forget", &address);
        let theirs = terraform_result(&terraform, &path, &["state", "rm"], &address);
        assert_same_state(&ours, &theirs, &format!("forget {address}"));
        compared += 1;
    }
    assert!(compared >= 9, "compared {compared} instances");
}

#[test]
fn the_writer_is_judged_from_the_file_on_every_corpus_and_testdata_state() {
    let mut files: Vec<(PathBuf, Flavour)> = state_files(&root().join("testdata/states"))
        .into_iter()
        .map(|path| (path, Flavour::Terraform))
        .collect();
    if let Some(corpus) = require_corpus() {
        for (folder, flavour) in [
            ("terraform", Flavour::Terraform),
            ("opentofu", Flavour::OpenTofu),
        ] {
            files.extend(
                state_files(&corpus.join(folder))
                    .into_iter()
                    .map(|path| (path, flavour)),
            );
        }
    }
    let mut judged = 0;
    for (path, expected) in files {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(state) = parse(&bytes) else {
            continue; // refused on purpose; corpus.rs checks why
        };
        assert_eq!(state.style.flavour, expected, "{}", path.display());
        judged += 1;
    }
    assert!(judged >= 7, "judged {judged} files");
}

/// Older files Terraform 1.15.5 did not write: `(corpus file, instance to taint, instance to forget)`.
/// 0.12-era files (`attributes_flat`, `depends_on`, `each`, legacy `provider.null`, 4-space indents,
/// unsorted resources) and one Terraform 1.10 file.
const OLDER: &[(&str, &str, &str)] = &[
    (
        "terraform/internal__states__statefile__testdata__roundtrip__v4-simple.in.tfstate",
        "null_resource.foo[0]",
        "null_resource.foo[1]",
    ),
    (
        "terraform/internal__states__statefile__testdata__roundtrip__v4-modules.in.tfstate",
        "module.modA.null_resource.resource",
        r#"module.modB.null_resource.bar["a"]"#,
    ),
    (
        "terraform/internal__states__statefile__testdata__roundtrip__v4-legacy-simple.in.tfstate",
        "null_resource.bar",
        "null_resource.foo[1]",
    ),
    (
        "terraform/internal__states__statefile__testdata__roundtrip__v4-legacy-modules.in.tfstate",
        r#"module.modB.null_resource.bar["b"]"#,
        "null_resource.bar",
    ),
    (
        "terraform/internal__states__statefile__testdata__roundtrip__v4-legacy-foreach.in.tfstate",
        "module.modA.null_resource.resource",
        "module.modA.null_resource.resource",
    ),
    (
        "terraform/testing__equivalence-tests__tests__null_provider_update__terraform.tfstate",
        "null_resource.null_resource",
        "null_resource.null_resource",
    ),
];

/// The input with `serial` raised by one, and how far that moved the bytes after it.
fn with_serial_raised(state: &State<'_>) -> (String, usize, isize) {
    let span = state.serial_span.expect("the file has a serial");
    let raised = (state.serial + 1).to_string();
    let mut text = state.source.to_owned();
    text.replace_range(span.start..span.end, &raised);
    let shift = raised.len().cast_signed() - (span.end - span.start).cast_signed();
    (text, span.start, shift)
}

fn shifted(span: Span, serial_at: usize, shift: isize) -> Span {
    if span.start < serial_at {
        return span;
    }
    let by = |at: usize| at.checked_add_signed(shift).unwrap();
    Span::new(by(span.start), by(span.end))
}

/// The current object of `address` in `state`, with its resource.
fn object<'s, 'a>(
    state: &'s State<'a>,
    address: &str,
) -> (
    &'s statectl::state::Resource<'a>,
    &'s statectl::state::Instance<'a>,
) {
    state
        .instances()
        .find(|(resource, instance)| {
            instance.deposed.is_none() && instance.address(resource).to_string() == address
        })
        .unwrap_or_else(|| panic!("no {address}"))
}

#[track_caller]
fn assert_taint_changed_only_the_instance_and_serial(path: &Path, address: &str, output: &str) {
    let bytes = std::fs::read(path).unwrap();
    let state = parse(&bytes).unwrap();
    let (_, instance) = object(&state, address);
    let (base, serial_at, shift) = with_serial_raised(&state);
    let span = shifted(instance.span, serial_at, shift);
    let (before, after) = (&base[..span.start], &base[span.end..]);
    let what = format!("taint {address} in {}", path.display());
    assert!(
        output.starts_with(before),
        "{what}: bytes before the instance changed"
    );
    assert!(
        output.ends_with(after) && output.len() >= before.len() + after.len(),
        "{what}: bytes after the instance changed"
    );
    // The instance's new bytes hold what it held, plus the taint.
    let new: Value = serde_json::from_str(&output[before.len()..output.len() - after.len()])
        .unwrap_or_else(|error| panic!("{what}: the new instance is not JSON: {error}"));
    let mut expected: Value = serde_json::from_str(instance.span.of(state.source)).unwrap();
    expected["status"] = Value::from("tainted");
    assert_eq!(new, expected, "{what}");
}

#[track_caller]
fn assert_forget_removed_only_the_object_and_raised_serial(
    path: &Path,
    address: &str,
    output: &str,
) {
    let bytes = std::fs::read(path).unwrap();
    let state = parse(&bytes).unwrap();
    let (resource, instance) = object(&state, address);
    // The last object of a resource takes the resource with it, as `terraform state rm` does.
    let element = if resource.instances.len() == 1 {
        resource.span
    } else {
        instance.span
    };
    let (base, serial_at, shift) = with_serial_raised(&state);
    let element = shifted(element, serial_at, shift);
    let what = format!("forget {address} in {}", path.display());
    let common = base
        .bytes()
        .zip(output.bytes())
        .take_while(|(left, right)| left == right)
        .count();
    let start = common.min(element.start);
    let end = start + (base.len() - output.len());
    assert!(
        end >= element.end,
        "{what}: fewer bytes went than the object holds"
    );
    assert_eq!(
        format!("{}{}", &base[..start], &base[end..]),
        output,
        "{what}: something besides one removed range changed"
    );
    // What went is the object and the separator around it: whitespace and at most one comma.
    let around = format!("{}{}", &base[start..element.start], &base[element.end..end]);
    assert!(
        around
            .trim_matches(|c: char| c.is_ascii_whitespace() || c == ',')
            .is_empty()
            && around.matches(',').count() <= 1,
        "{what}: removed {around:?} besides the object"
    );
}

/// statectl's `taint` and `forget` results for each older file, in scratch copies.
fn statectl_on_older(corpus: &Path) -> Vec<(PathBuf, &'static str, String, &'static str, String)> {
    OLDER
        .iter()
        .map(|(file, taint, forget)| {
            let path = corpus.join(file);
            let tainted = statectl_result(&path, "taint", taint);
            let forgotten = statectl_result(&path, "forget", forget);
            (path, *taint, tainted, *forget, forgotten)
        })
        .collect()
}

#[test]
fn on_older_files_statectl_changes_only_the_object_and_serial() {
    let Some(corpus) = require_corpus() else {
        return;
    };
    for (path, taint, tainted, forget, forgotten) in statectl_on_older(&corpus) {
        assert_taint_changed_only_the_instance_and_serial(&path, taint, &tainted);
        assert_forget_removed_only_the_object_and_raised_serial(&path, forget, &forgotten);
    }
}

#[test]
fn terraform_takes_statectls_result_on_older_files_as_the_next_version() {
    let Some(terraform) = terraform() else { return };
    let Some(corpus) = require_corpus() else {
        return;
    };
    for (path, taint, tainted, forget, forgotten) in statectl_on_older(&corpus) {
        for (change, ours) in [
            (format!("taint {taint}"), tainted),
            (format!("forget {forget}"), forgotten),
        ] {
            let what = format!("{change} in {}", path.display());
            // Pushed over the original: Terraform checks lineage and serial, and reads every object.
            let folder = copy_of(&path);
            std::fs::write(folder.path().join("new.tfstate"), &ours).unwrap();
            let pushed =
                run_terraform(&terraform, folder.path(), &["state", "push", "new.tfstate"]);
            assert!(
                pushed.status.success(),
                "{what}: terraform state push: {}",
                String::from_utf8_lossy(&pushed.stderr)
            );
            let listed = run_terraform(&terraform, folder.path(), &["state", "list"]);
            assert!(listed.status.success(), "{what}");
            let ours_listed = Test::new().arg("list").arg("-").stdin(ours).run().code(0);
            assert_eq!(
                String::from_utf8_lossy(&listed.stdout),
                ours_listed.stdout,
                "{what}: Terraform reads what statectl wrote"
            );
        }
    }
}

/// One thing the README says Terraform's rewrite of an older file does, the README's words for it,
/// and the check that Terraform's output (after `terraform taint`) shows it and the input did not.
struct Claim {
    words: &'static str,
    files: &'static [&'static str],
    holds: fn(input: &Document, output: &Document) -> bool,
}

/// A state as text and as JSON.
struct Document {
    text: String,
    json: Value,
}

impl Document {
    fn new(text: String) -> Document {
        let json = serde_json::from_str(&text).unwrap();
        Document { text, json }
    }

    fn resources(&self) -> &[Value] {
        self.json["resources"].as_array().unwrap()
    }

    fn instances(&self) -> impl Iterator<Item = &Value> {
        self.resources()
            .iter()
            .flat_map(|resource| resource["instances"].as_array().unwrap())
    }

    fn addresses(&self) -> Vec<(String, String, String, String)> {
        let field = |resource: &Value, name: &str| resource[name].as_str().unwrap_or("").to_owned();
        self.resources()
            .iter()
            .map(|resource| {
                (
                    field(resource, "module"),
                    field(resource, "mode"),
                    field(resource, "type"),
                    field(resource, "name"),
                )
            })
            .collect()
    }

    fn has_legacy_provider(&self) -> bool {
        self.resources().iter().any(|resource| {
            resource["provider"]
                .as_str()
                .unwrap()
                .replace(' ', "")
                .starts_with("provider.")
        })
    }
}

/// A round-trip fixture of Terraform's state file tests, in the corpus.
macro_rules! roundtrip {
    ($name:literal) => {
        concat!(
            "terraform/internal__states__statefile__testdata__roundtrip__",
            $name,
            ".in.tfstate"
        )
    };
}

const SIMPLE: &str = roundtrip!("v4-simple");
const MODULES: &str = roundtrip!("v4-modules");
const LEGACY_SIMPLE: &str = roundtrip!("v4-legacy-simple");
const LEGACY_MODULES: &str = roundtrip!("v4-legacy-modules");
const LEGACY_FOREACH: &str = roundtrip!("v4-legacy-foreach");
const TF_1_10: &str =
    "terraform/testing__equivalence-tests__tests__null_provider_update__terraform.tfstate";

/// A state Terraform 1.10 wrote, then Terraform's round-trip fixtures: older files all.
const EVERY_OLDER: &[&str] = &[
    TF_1_10,
    SIMPLE,
    MODULES,
    LEGACY_SIMPLE,
    LEGACY_MODULES,
    LEGACY_FOREACH,
];
/// The round-trip fixtures, written before `check_results` and `sensitive_attributes` were.
const ROUNDTRIP: &[&str] = EVERY_OLDER.split_at(1).1;

/// No object of the input has `field`, and every object of the output has it as `value`.
fn added_to_every_object(input: &Document, output: &Document, field: &str, value: &Value) -> bool {
    input
        .instances()
        .all(|instance| instance.get(field).is_none())
        && output.instances().all(|instance| instance[field] == *value)
}

const CLAIMS: &[Claim] = &[
    Claim {
        words: "raises `terraform_version`",
        files: EVERY_OLDER,
        holds: |input, output| {
            input.json["terraform_version"] != "1.15.5"
                && output.json["terraform_version"] == "1.15.5"
        },
    },
    Claim {
        words: "adds a top-level `check_results: null`",
        files: ROUNDTRIP,
        holds: |input, output| {
            input.json.get("check_results").is_none()
                && output.json.get("check_results") == Some(&Value::Null)
        },
    },
    Claim {
        words: "to every object, `sensitive_attributes: []`",
        files: ROUNDTRIP,
        holds: |input, output| {
            added_to_every_object(
                input,
                output,
                "sensitive_attributes",
                &Value::Array(Vec::new()),
            )
        },
    },
    Claim {
        words: "`identity_schema_version: 0`",
        files: EVERY_OLDER,
        holds: |input, output| {
            added_to_every_object(input, output, "identity_schema_version", &Value::from(0))
        },
    },
    Claim {
        words: "rewrites legacy `provider.null` strings as `provider[\"registry.terraform.io/-/null\"]`",
        files: &[LEGACY_SIMPLE, LEGACY_MODULES, LEGACY_FOREACH],
        holds: |input, output| {
            input.has_legacy_provider()
                && !output.has_legacy_provider()
                && output
                    .text
                    .contains(r#""provider[\"registry.terraform.io/-/null\"]""#)
        },
    },
    Claim {
        words: "drops the 0.12-era `depends_on` and `each`",
        files: &[SIMPLE, MODULES, LEGACY_SIMPLE, LEGACY_MODULES],
        holds: |input, output| {
            let has = |document: &Document| {
                (
                    document
                        .instances()
                        .any(|instance| instance.get("depends_on").is_some()),
                    document
                        .resources()
                        .iter()
                        .any(|resource| resource.get("each").is_some()),
                )
            };
            has(input) == (true, true) && has(output) == (false, false)
        },
    },
    Claim {
        words: "sorts the resources",
        files: &[MODULES, LEGACY_MODULES],
        holds: |input, output| {
            let mut sorted = output.addresses();
            sorted.sort();
            input.addresses() != sorted && output.addresses() == sorted
        },
    },
    Claim {
        words: "re-indents",
        files: &[SIMPLE, LEGACY_SIMPLE],
        holds: |input, output| {
            input.text.starts_with("{\n    \"") && output.text.starts_with("{\n  \"version\"")
        },
    },
];

#[test]
fn terraform_rewrites_older_files_in_each_way_the_readme_says() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let paragraph = readme
        .split("\n\n")
        .find(|paragraph| paragraph.contains("On an older or hand-edited file"))
        .expect("the README says what statectl does to older files");
    let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    for claim in CLAIMS {
        assert!(
            paragraph.contains(claim.words),
            "the README no longer says {:?}; update CLAIMS with it",
            claim.words
        );
    }
    let Some(terraform) = terraform() else { return };
    let Some(corpus) = require_corpus() else {
        return;
    };
    for (file, taint, forget) in OLDER {
        let path = corpus.join(file);
        let input = Document::new(std::fs::read_to_string(&path).unwrap());
        let output = Document::new(terraform_result(&terraform, &path, &["taint"], taint));
        for claim in CLAIMS.iter().filter(|claim| claim.files.contains(file)) {
            assert!(
                (claim.holds)(&input, &output),
                "Terraform's taint of {file} does not show that it {}",
                claim.words
            );
        }
        // The checks statectl passes above refuse Terraform's whole-file rewrites: they can fail.
        let theirs = output.text;
        let tainted = std::panic::catch_unwind(|| {
            assert_taint_changed_only_the_instance_and_serial(&path, taint, &theirs);
        });
        assert!(
            tainted.is_err(),
            "{file}: Terraform's taint passed the check"
        );
        let forgotten = terraform_result(&terraform, &path, &["state", "rm"], forget);
        let forgotten = std::panic::catch_unwind(|| {
            assert_forget_removed_only_the_object_and_raised_serial(&path, forget, &forgotten);
        });
        assert!(
            forgotten.is_err(),
            "{file}: Terraform's state rm passed the check"
        );
    }
}
