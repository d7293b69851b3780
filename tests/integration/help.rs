//! The help, completions and man pages say what the binary does: every `--format` described with one
//! default word (`text`, `table` taken as the same), `-o` named, `lock` not offering `-`, the hidden
//! `generate` nowhere, the man synopsis as `--help` prints it, and the man pages' extra sections.

use crate::builder::{Test, assert_contains, assert_lacks, root};

#[test]
fn every_format_flag_is_described_and_defaults_to_text_with_table_as_an_alias() {
    for command in [
        "list", "show", "summary", "scan", "audit", "diff", "refresh",
    ] {
        let help = Test::new().args([command, "--help"]).run().code(0).stdout;
        let after = help
            .split("--format <FORMAT>")
            .nth(1)
            .unwrap_or_else(|| panic!("{command}: no --format:\n{help}"));
        let description = after.lines().nth(1).unwrap_or_default().trim();
        assert!(
            description.starts_with("How to print"),
            "{command}: --format undescribed: {after:.200}"
        );
        assert!(after.contains("[default: text]"), "{command}: {after:.600}");
    }
    for args in [
        &["scan", "testdata/scan/clean.tfstate", "--format", "table"][..],
        &["list", "testdata/states/empty.tfstate", "--format", "table"],
        &["scan", "testdata/scan/clean.tfstate", "--format", "text"],
    ] {
        Test::new().args(args).run().code(0);
    }
}

#[test]
fn write_and_lock_help_name_what_they_take() {
    let taint = Test::new().args(["taint", "--help"]).run().code(0).stdout;
    assert_contains(&taint, "-o, --output <STDOUT>");
    assert_lacks(&taint, "<->");
    let lock = Test::new().args(["lock", "--help"]).run().code(0).stdout;
    assert_lacks(&lock, "`-` for standard input");
    assert_contains(&lock, "Not `-`: standard input has no lock");
}

#[test]
fn generate_is_in_no_help_completion_or_man_page_and_the_synopsis_matches_help() {
    let help = Test::new().arg("--help").run().code(0).stdout;
    assert_lacks(&help, "generate");
    for entry in std::fs::read_dir(root().join("completions")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("generate"),
            "{} offers generate",
            path.display()
        );
    }
    let scan = std::fs::read_to_string(root().join("man/statectl-scan.1")).unwrap();
    assert!(
        scan.contains("\\fBstatectl scan [OPTIONS] [STATE]...\\fR"),
        "{scan:.800}"
    );
    for page in std::fs::read_dir(root().join("man")).unwrap() {
        let path = page.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for section in ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
            assert!(
                text.contains(&format!(".SH \"{section}\""))
                    || text.contains(&format!(".SH {section}")),
                "{} lacks {section}",
                path.display()
            );
        }
    }
}

#[test]
fn a_dry_run_says_what_it_would_do() {
    let output = Test::new()
        .args([
            "taint",
            "terraform_data.root",
            "testdata/states/modules.tfstate",
            "--dry-run",
        ])
        .run()
        .code(1);
    assert!(
        output
            .stderr
            .ends_with("Would taint `terraform_data.root`; nothing written (--dry-run)\n"),
        "{}",
        output.stderr
    );
}

/// A taint refused because the object is mid-operation suggests `untaint` only for an instance that
/// is tainted already.
#[test]
fn a_refused_taint_of_an_untainted_instance_does_not_suggest_untaint() {
    let output = Test::new()
        .args([
            "taint",
            "oci_core_instance.app",
            "testdata/scan/oci-async-provisioning.tfstate",
            "--dry-run",
        ])
        .run()
        .code(3);
    assert_contains(&output.stderr, "[mid-operation]");
    assert_lacks(&output.stderr, "statectl untaint");
    assert_contains(
        &output.stderr,
        "and taint it only if the remote object turns out broken",
    );
}

/// A mutation where there is no state names the ways to give one, as a reading command does.
#[test]
fn a_mutation_without_a_state_here_says_how_to_give_one() {
    let folder = tempfile::tempdir().unwrap();
    for (args, operation) in [
        (&["untaint", "oci_core_instance.app"][..], "untaint"),
        (&["taint", "oci_core_instance.app", "--dry-run"], "taint"),
    ] {
        Test::new()
            .args(args)
            .current_dir(folder.path())
            .run()
            .refused("error: terraform.tfstate: cannot read the state: no such file")
            .stderr_contains(&format!(
                "hint: no state in the working directory: name the state file (`statectl {operation} ADDRESS path/to/terraform.tfstate`)"
            ));
    }
}
