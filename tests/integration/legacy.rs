//! Format-3 states (Terraform 0.7 to 0.11) read as Terraform 1.15.5 reads them: the upgraded text is
//! byte for byte what `terraform state pull` prints, `list` equals `terraform state list`, every
//! command works on the upgraded view, and `taint`, `untaint` and `forget` write exactly what
//! `terraform taint`, `untaint` and `state rm` write (a format-4 file); a mutation statectl refuses
//! leaves the file, and its folder, as they were.

use std::path::{Path, PathBuf};

use statectl::json::LineColumn;
use statectl::state::legacy::{as_terraform_writes, upgrade_v3};

use crate::builder::{Test, assert_starts_with, root, state_files};
use crate::files::{file_names, folder_with_state};
use crate::oracle::terraform;
use crate::rewrite_oracle::{copy_of, run_terraform};
use crate::skip::require_corpus;

/// The project's own format-3 state: modules, counted instances, tainted, deposed, data sources,
/// outputs, every provider form.
fn made() -> PathBuf {
    root().join("testdata/legacy/made-v3-everything.tfstate")
}

/// Every format-3 state at hand: the project's own, the corpus's (`roundtrip__v3-*.in`), and the real
/// ones from public repositories when the shared corpus holds them (`legacy/`, see
/// testdata/legacy/README.md) or `STATECTL_LEGACY_STATES` names a folder of them.
fn format_3_states() -> Vec<PathBuf> {
    let mut states = state_files(&root().join("testdata/legacy"));
    if let Some(folder) = std::env::var_os("STATECTL_LEGACY_STATES") {
        states.extend(state_files(Path::new(&folder)));
    }
    if let Some(corpus) = require_corpus() {
        states.extend(state_files(&corpus).into_iter().filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            (name.contains("roundtrip__v3-") && name.contains(".in."))
                || path
                    .parent()
                    .is_some_and(|parent| parent.ends_with("legacy"))
        }));
    }
    states
}

#[test]
fn list_equals_terraform_state_list_on_every_format_3_state() {
    let Some(terraform) = terraform() else { return };
    let states = format_3_states();
    assert!(!states.is_empty());
    for state in states {
        let expected = crate::oracle::lists_as_terraform_does(&terraform, &state);
        assert!(!expected.is_empty(), "{} lists something", state.display());
    }
}

#[test]
fn the_upgrade_is_what_terraform_state_pull_prints() {
    let Some(terraform) = terraform() else { return };
    for state in format_3_states() {
        let text = std::fs::read_to_string(&state).unwrap();
        let folder = copy_of(&state);
        let output = run_terraform(&terraform, folder.path(), &["state", "pull"]);
        assert!(
            output.status.success(),
            "terraform pulls {}",
            state.display()
        );
        let pulled = String::from_utf8(output.stdout).unwrap();
        let upgraded = upgrade_v3(&text).unwrap();
        // `state pull` prints the state as Terraform writes it, plus a newline of its own.
        assert_eq!(
            format!("{}\n", as_terraform_writes(&upgraded)),
            pulled,
            "{}",
            state.display()
        );
    }
}

/// `(terraform command, statectl command, address)` over the project's own format-3 state.
const MUTATIONS: &[(&[&str], &str, &str)] = &[
    (&["taint"], "taint", "aws_instance.web[10]"),
    (
        &["taint"],
        "taint",
        "module.network.module.dns-zone.aws_route53_zone.this",
    ),
    (&["untaint"], "untaint", "aws_instance.web[1]"),
    // Every object of the instance: the current one and both deposed ones.
    (&["state", "rm"], "forget", "aws_instance.web[0]"),
    (&["state", "rm"], "forget", "module.network"),
    (
        &["state", "rm"],
        "forget",
        "data.terraform_remote_state.net",
    ),
];

#[test]
fn mutations_write_what_terraform_writes() {
    let Some(terraform) = terraform() else { return };
    let original = std::fs::read(made()).unwrap();
    for (theirs_command, ours_command, address) in MUTATIONS {
        let theirs_folder = copy_of(&made());
        let mut args = theirs_command.to_vec();
        args.extend(["-state=terraform.tfstate", address]);
        let output = run_terraform(&terraform, theirs_folder.path(), &args);
        assert!(
            output.status.success(),
            "terraform {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let theirs = std::fs::read(theirs_folder.path().join("terraform.tfstate")).unwrap();

        let ours_folder = copy_of(&made());
        Test::new()
            .args([ours_command, address, "terraform.tfstate"])
            .current_dir(ours_folder.path())
            .run()
            .code(0);
        let ours = std::fs::read(ours_folder.path().join("terraform.tfstate")).unwrap();
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            String::from_utf8(theirs).unwrap(),
            "{ours_command} {address}"
        );
        // The backup holds the format-3 file as it was; no lock is left behind.
        let listing = file_names(ours_folder.path());
        assert_eq!(listing.len(), 2, "{listing:?}");
        let backup = ours_folder.path().join(&listing[1]);
        assert!(listing[1].ends_with(".backup"), "{listing:?}");
        assert_eq!(std::fs::read(backup).unwrap(), original);
    }
}

#[test]
fn the_corpus_format_3_states_take_a_taint_as_terraform_does() {
    let Some(terraform) = terraform() else { return };
    let Some(corpus) = require_corpus() else {
        return;
    };
    let cases = [
        ("v3-simple", "null_resource.foo[1]"),
        ("v3-bigint", "module.child.null_resource.foo"),
    ];
    for (name, address) in cases {
        let state = corpus.join(format!(
            "terraform/internal__states__statefile__testdata__roundtrip__{name}.in.tfstate"
        ));
        let theirs_folder = copy_of(&state);
        let output = run_terraform(
            &terraform,
            theirs_folder.path(),
            &["taint", "-state=terraform.tfstate", address],
        );
        assert!(output.status.success());
        let ours_folder = copy_of(&state);
        Test::new()
            .args(["taint", address, "terraform.tfstate"])
            .current_dir(ours_folder.path())
            .run()
            .code(0);
        assert_eq!(
            std::fs::read_to_string(ours_folder.path().join("terraform.tfstate")).unwrap(),
            std::fs::read_to_string(theirs_folder.path().join("terraform.tfstate")).unwrap(),
            "{name}: taint {address}"
        );
    }
}

#[test]
fn a_refused_mutation_leaves_the_folder_as_it_was() {
    let original = std::fs::read(made()).unwrap();
    // Terraform refuses these too: a data source cannot be tainted; nothing is at that address.
    for (command, address, message) in [
        ("taint", "data.aws_ami.ubuntu", "data"),
        ("untaint", "aws_instance.web[7]", "aws_instance.web[7]"),
        ("forget", "aws_instance.nothing", "aws_instance.nothing"),
    ] {
        let folder = copy_of(&made());
        Test::new()
            .args([command, address, "terraform.tfstate"])
            .current_dir(folder.path())
            .run()
            .refused(message);
        assert_eq!(
            std::fs::read(folder.path().join("terraform.tfstate")).unwrap(),
            original
        );
        assert_eq!(file_names(folder.path()), ["terraform.tfstate"]);
    }
    // A format-3 file that cannot be upgraded is refused before anything else happens.
    let broken = String::from_utf8(original)
        .unwrap()
        .replace("\"dns-zone\"", "\"dns zone\"");
    let (folder, _) = folder_with_state(&broken);
    let output = Test::new()
        .args(["taint", "aws_instance.web[10]", "terraform.tfstate"])
        .current_dir(folder.path())
        .run()
        .refused("invalid module path [\"root\", \"network\", \"dns zone\"]");
    // It points at that module's `path`.
    let path_at = broken[..broken.find("\"dns zone\"").unwrap()]
        .rfind('[')
        .unwrap();
    let position = LineColumn::of(broken.as_bytes(), path_at);
    assert_starts_with(
        &output.stderr,
        &format!("error: terraform.tfstate:{position}: "),
    );
    assert_eq!(
        std::fs::read_to_string(folder.path().join("terraform.tfstate")).unwrap(),
        broken
    );
    assert_eq!(file_names(folder.path()), ["terraform.tfstate"]);
}

#[test]
fn every_command_reads_the_upgraded_view() {
    let state = made();
    Test::new()
        .arg("show")
        .arg("aws_instance.web[0]")
        .arg(&state)
        .run()
        .code(0)
        .stdout_contains(r#"ami           = "ami-12345678""#)
        .stdout_contains(r#""tags.Name"   = "web-0""#);
    Test::new()
        .args(["scan", "--format", "json"])
        .arg(&state)
        .run()
        .code(1)
        .stdout_contains(r#""rule": "tainted""#)
        .stdout_contains(r#""rule": "deposed-object""#)
        .stdout_contains("aws_instance.web[1]");
    Test::new()
        .arg("summary")
        .arg(&state)
        .run()
        .code(0)
        .stdout_contains("8 resources, 11 instances, and 2 deposed objects (serial 41")
        .stdout_contains("written by 0.11.14")
        .stdout_contains("terraform.io/builtin/terraform");
    Test::new()
        .args(["query", "$.outputs.tags.type"])
        .arg(&state)
        .run()
        .code(0)
        .stdout_contains("\"map\"");
    Test::new()
        .arg("audit")
        .arg(&state)
        .run()
        // The deposed objects are findings.
        .code(1)
        .stdout_contains("module.network.module.dns-zone.aws_route53_zone.this")
        .stdout_contains("11 objects: 11 destroy");
    // A format-3 state against the same state tainted by statectl (a format-4 file now): the one
    // difference is the taint.
    let folder = copy_of(&state);
    Test::new()
        .args(["taint", "aws_instance.web[10]", "terraform.tfstate"])
        .current_dir(folder.path())
        .run()
        .code(0);
    Test::new()
        .arg("diff")
        .arg(&state)
        .arg(folder.path().join("terraform.tfstate"))
        .run()
        .code(1)
        .stdout_contains("aws_instance.web[10]");
    Test::new()
        .arg("diff")
        .arg(&state)
        .arg(&state)
        .run()
        .code(0);
}

#[test]
fn formats_1_and_2_and_the_backend_cache_are_refused() {
    let folder = tempfile::tempdir().unwrap();
    for version in [1, 2] {
        let path = folder.path().join(format!("v{version}.tfstate"));
        std::fs::write(
            &path,
            format!("{{\"version\": {version}, \"serial\": 1, \"modules\": []}}"),
        )
        .unwrap();
        Test::new()
            .arg("list")
            .arg(&path)
            .run()
            .refused(&format!("this is a format-{version} state"))
            .stderr_contains("hint: upgrade it with Terraform 0.12 or later");
    }
    let cache = folder.path().join("terraform.tfstate");
    std::fs::write(
        &cache,
        r#"{"version": 3, "serial": 0, "lineage": "x", "backend": {"type": "s3", "config": {}, "hash": 1}, "modules": [{"path": ["root"], "outputs": {}, "resources": {}}]}"#,
    )
    .unwrap();
    Test::new()
        .arg("list")
        .arg(&cache)
        .run()
        .refused("this is Terraform's backend cache");
}
