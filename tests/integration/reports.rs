//! Reports read in a CI log, on a terminal and in a pull request (items 8 and 9 of issue 25): the
//! table never splits an address or a rule id and has no width limit in a pipe, whatever `COLUMNS`
//! says; the Markdown comment puts findings first, the clean states on one line, and stays within
//! GitHub's 65,536 characters however many states or findings there are, saying what it left out.

use std::path::Path;

use serde_json::json;

use crate::builder::{Test, root};
use crate::files::folder_with;

/// GitHub's limit for a comment's body.
const COMMENT_LIMIT: usize = 65_536;

/// A state with `count` tainted instances of one resource, in module `module`.
fn tainted_state(module: &str, count: usize) -> String {
    let instances: Vec<_> = (0..count)
        .map(|index| {
            json!({ "index_key": format!("ctrl-{index:02}"), "status": "tainted", "schema_version": 0,
                    "attributes": { "id": format!("vm-{index}") }, "sensitive_attributes": [] })
        })
        .collect();
    serde_json::to_string_pretty(&json!({
        "version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l", "outputs": {},
        "resources": [{
            "module": module, "mode": "managed", "type": "proxmox_virtual_environment_vm", "name": "this",
            "provider": "provider[\"registry.terraform.io/bpg/proxmox\"]", "instances": instances,
        }],
    }))
    .unwrap()
}

#[test]
fn the_table_keeps_addresses_whole_with_no_width_limit_in_a_pipe() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir(folder.path().join("clusters")).unwrap();
    std::fs::write(
        folder.path().join("clusters/talos.tfstate"),
        tainted_state("module.talos", 2),
    )
    .unwrap();
    for columns in ["80", "40"] {
        let output = Test::new()
            .args(["scan", "clusters"])
            .current_dir(folder.path())
            .env("COLUMNS", columns)
            .run()
            .code(1);
        // Grouped under the state, named relative to the folder scanned; each finding's severity,
        // rule and address on one line, whole.
        assert_eq!(
            output.stdout,
            "talos.tfstate (2 instances)\n  warning  tainted  module.talos.proxmox_virtual_environment_vm.this[\"ctrl-00\"]\n           tainted: the next apply destroys and re-creates it\n  warning  tainted  module.talos.proxmox_virtual_environment_vm.this[\"ctrl-01\"]\n           tainted: the next apply destroys and re-creates it\n\n2 findings: 2 warnings\n",
            "COLUMNS={columns}"
        );
    }
    // The audit and refresh tables too: one object a line, the address whole.
    let audit = Test::new()
        .args(["audit", "clusters/talos.tfstate"])
        .current_dir(folder.path())
        .env("COLUMNS", "40")
        .run()
        .code(0);
    assert!(
        audit.stdout.lines().any(|line| line
            == "destroy     module.talos.proxmox_virtual_environment_vm.this[\"ctrl-01\"]"),
        "{}",
        audit.stdout
    );
}

/// `count` copies of `fixture` as `states/NNNNN.tfstate` under `folder`.
fn copies(folder: &Path, fixture: &str, prefix: &str, count: usize) {
    let bytes = std::fs::read(root().join(fixture)).unwrap();
    for index in 0..count {
        std::fs::write(folder.join(format!("{prefix}-{index:05}.tfstate")), &bytes).unwrap();
    }
}

#[test]
fn the_markdown_comment_stays_within_githubs_limit_and_says_what_it_left_out() {
    let folder = tempfile::tempdir().unwrap();
    let states = folder.path().join("states");
    std::fs::create_dir(&states).unwrap();
    // 1,500 states with 3 findings each, 700 clean ones.
    copies(
        &states,
        "testdata/states/lifecycle.tfstate",
        "finding",
        1_500,
    );
    copies(&states, "testdata/scan/clean.tfstate", "zclean", 700);
    let output = Test::new()
        .args(["scan", "states", "--format", "markdown"])
        .current_dir(folder.path())
        .run()
        .code(1);
    let comment = &output.stdout;
    assert!(
        comment.chars().count() <= COMMENT_LIMIT,
        "{} characters",
        comment.chars().count()
    );
    assert!(
        comment.starts_with(
            "## statectl scan\n\n**4500 findings: 4500 warnings, in 1500 of 2200 states (700 clean)**\n\n### `states/finding-00000.tfstate`\n"
        ),
        "{}",
        &comment[..400]
    );
    // What did not fit is counted, and where to see it named.
    let left_out = comment
        .lines()
        .find(|line| line.starts_with("_Left out to stay within GitHub's comment limit: "))
        .unwrap_or_else(|| panic!("no left-out line"));
    let shown = comment.matches("\n| warning | ").count();
    let left: usize = left_out
        .trim_start_matches("_Left out to stay within GitHub's comment limit: ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(shown + left, 4_500, "{left_out}");
    assert!(
        left_out
            .ends_with("`statectl scan --format json` (or `--format sarif`) reports them all._"),
        "{left_out}"
    );
    // The clean states: one line, named until it is long enough, then counted.
    let clean = comment
        .lines()
        .find(|line| {
            line.starts_with("**700 states with no findings**: `states/zclean-00000.tfstate`")
        })
        .unwrap_or_else(|| panic!("no clean line"));
    assert!(clean.ends_with(" more"), "{clean}");
    assert!(comment.contains("\n**What to do**\n"));

    // One state with 20,000 findings: cut inside the state, the comment still whole.
    let one = folder_with("big.tfstate", tainted_state("module.big", 20_000));
    let output = Test::new()
        .args(["scan", "big.tfstate", "--format", "markdown"])
        .current_dir(one.path())
        .run()
        .code(1);
    assert!(output.stdout.chars().count() <= COMMENT_LIMIT);
    assert!(
        output
            .stdout
            .contains("findings of 1 state. `statectl scan --format json`"),
        "{}",
        output
            .stdout
            .lines()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .join("\n")
    );
}
