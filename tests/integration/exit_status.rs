//! The exit status a run reports when it has two outcomes (src/cli/exit.rs), and `--quiet`.

use crate::builder::{Test, assert_contains, root};
use crate::files::folder_with;
use crate::leaks::echo::{Echo, Reply};

/// A state with an OCI instance still being created: a taint of it is blocked (exit 3).
fn provisioning_state() -> Vec<u8> {
    std::fs::read(root().join("testdata/scan/oci-async-provisioning.tfstate")).unwrap()
}

/// The regression: an http backend whose lock is taken and never released, under a write a
/// lifecycle rule blocks. The release failure is said, and the exit code stays the block's 3 (it
/// was 2, hiding the block from a script).
#[test]
fn a_lock_that_cannot_be_released_does_not_hide_a_block() {
    let state = provisioning_state();
    let server = Echo::start(move |received| match received.method.as_str() {
        "GET" => Reply {
            status: 200,
            headers: Vec::new(),
            body: state.clone(),
        },
        "LOCK" => Reply {
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
        },
        _ => Reply {
            status: 500,
            headers: Vec::new(),
            body: b"unlock is broken".to_vec(),
        },
    });
    let address = format!("http://{}/state", server.host());
    let lock_address = format!("lock_address=http://{}/lock", server.host());
    let unlock_address = format!("unlock_address=http://{}/lock", server.host());
    let output = Test::new()
        .args(["taint", "oci_core_instance.app", &address])
        .backend_config(&lock_address)
        .backend_config(&unlock_address)
        .run()
        .code(3);
    assert!(server.saw("LOCK") && server.saw("UNLOCK"), "{output:?}");
    assert!(!server.saw("POST"), "nothing may be written: {output:?}");
    assert_contains(
        &output.stderr,
        "refused by the lifecycle rules; nothing was written",
    );
    let last = output
        .stderr
        .lines()
        .rfind(|line| line.starts_with("error: "));
    assert!(
        last.is_some_and(|line| line.contains("lock")),
        "the unreleased lock is said last: {}",
        output.stderr
    );
}

/// `--quiet` keeps the data, the warnings and the errors, and drops the notes: the line saying what
/// a write did and where its backup went, and the hints beside findings.
#[test]
fn quiet_drops_notes_and_finding_hints_but_keeps_data_and_warnings() {
    let folder = folder_with("terraform.tfstate", provisioning_state());
    let run = |args: &[&str]| Test::new().current_dir(folder.path()).args(args).run();
    let chatty = run(&["scan"]).code(1);
    let quiet = run(&["scan", "--quiet"]).code(1);
    assert_eq!(quiet.stdout, chatty.stdout, "the data is the same");
    assert_contains(&chatty.stderr, "hint: ");
    assert_eq!(quiet.stderr, "");

    let tainted = run(&["taint", "oci_core_instance.app", "--force", "-q"]).code(0);
    assert_contains(&tainted.stdout, "+  \"status\": \"tainted\",");
    assert_eq!(
        tainted.stderr.lines().collect::<Vec<_>>(),
        [
            "warning: overriding taint `oci_core_instance.app` [mid-operation]: its remote object is \
          still being created (`state` = `PROVISIONING`); replacing an object whose operation has \
          not finished can orphan it"
        ],
        "the override is still said, the note of what was written is not"
    );
    let untainted = run(&["untaint", "oci_core_instance.app"]).code(0);
    assert_contains(&untainted.stderr, "serial 8 -> 9; backup");
}

#[test]
fn quiet_and_verbose_together_are_a_usage_error() {
    Test::new()
        .args(["list", "-q", "-v"])
        .run()
        .code(2)
        .stderr_contains("cannot be used with");
}
