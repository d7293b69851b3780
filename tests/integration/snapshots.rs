//! Snapshot tests of the CLI (insta): for each command on the bundled test data, the exit code,
//! stdout and stderr pinned together in one file under `tests/integration/snapshots/`, so a change in
//! what a user sees shows up as a diff in review. Temporary folders, backup timestamps and ports are
//! filtered out. To accept a deliberate change: `INSTA_UPDATE=always cargo test --test integration
//! snapshots` and review the `.snap` diff.

use std::path::Path;

use crate::builder::{Test, folder_with_copy, root};

/// Runs statectl in `folder` and pins what it printed under `name`.
#[track_caller]
fn pin(name: &str, folder: &Path, args: &[&str]) {
    statectl_snapshot!(name, Test::new().current_dir(folder).args(args));
}

/// A copy of `fixture` as `terraform.tfstate` in a fresh folder, for the commands that write.
fn scratch(fixture: &str) -> tempfile::TempDir {
    let folder = folder_with_copy(root().join(fixture));
    folder
}

#[test]
fn reading_commands() {
    let repo = root();
    pin("list", &repo, &["list", "testdata/states/modules.tfstate"]);
    pin(
        "list-json-tainted",
        &repo,
        &[
            "list",
            "testdata/states/lifecycle.tfstate",
            "--format",
            "json",
        ],
    );
    pin(
        "show-masked",
        &repo,
        &[
            "show",
            "terraform_data.password",
            "testdata/states/sensitive.tfstate",
        ],
    );
    pin(
        "query",
        &repo,
        &[
            "query",
            "$.resources[*].type",
            "testdata/states/count_for_each.tfstate",
            "--compact",
        ],
    );
    pin(
        "summary",
        &repo,
        &["summary", "testdata/states/modules.tfstate"],
    );
    pin(
        "diff",
        &repo,
        &[
            "diff",
            "testdata/states/values.tfstate",
            "testdata/states/lifecycle.tfstate",
            "--stat",
        ],
    );
}

#[test]
fn scan_and_audit() {
    let repo = root();
    pin("scan-folder", &repo, &["scan", "testdata/scan"]);
    pin(
        "scan-oci-json",
        &repo,
        &[
            "scan",
            "testdata/scan/oci-async-provisioning.tfstate",
            "--format",
            "json",
        ],
    );
    pin(
        "scan-helm-github",
        &repo,
        &[
            "scan",
            "testdata/scan/real/helm-pending-upgrade.tfstate",
            "--format",
            "github",
        ],
    );
    pin(
        "audit-destroy",
        &repo,
        &["audit", "testdata/audit/destroy/terraform.tfstate"],
    );
    // The audit's findings in JSON are scan's: evidence values decoded, a `location`.
    pin(
        "audit-oci-json",
        &repo,
        &[
            "audit",
            "testdata/scan/oci-async-provisioning.tfstate",
            "--format",
            "json",
        ],
    );
    for format in ["github", "markdown"] {
        pin(
            &format!("audit-skip-destroy-{format}"),
            &repo,
            &[
                "audit",
                "testdata/audit/skip-destroy/terraform.tfstate",
                "--plan",
                "testdata/audit/skip-destroy/plan.json",
                "--format",
                format,
            ],
        );
    }
    pin(
        "scan-lifecycle-table",
        &repo,
        &["scan", "testdata/states/lifecycle.tfstate"],
    );
}

/// Every format over several states, one of them unreadable, as the scan writes them a state at a
/// time: the bytes each format gave when the whole report was rendered at once (JSON since counts
/// the unreadable state, and says the run failed, as the exit code does).
#[test]
fn scan_formats_over_several_states() {
    let folder = tempfile::tempdir().unwrap();
    for (name, fixture) in [
        ("a-tainted.tfstate", "cf-tainted-in-progress"),
        ("c-clean.tfstate", "clean"),
        ("d-deposed.tfstate", "deposed"),
    ] {
        std::fs::copy(
            root().join(format!("testdata/scan/{fixture}.tfstate")),
            folder.path().join(name),
        )
        .unwrap();
    }
    std::fs::write(folder.path().join("b-broken.tfstate"), "{\"version\": 4, ").unwrap();
    for format in [
        "table", "json", "sarif", "junit", "markdown", "github", "gitlab",
    ] {
        pin(
            &format!("scan-several-{format}"),
            folder.path(),
            &["scan", ".", "--format", format],
        );
    }
}

/// What people and CI systems read: the grouped table, the pull-request comment, GitLab's report, the
/// audit's reasons in full (a policy's own `reason`) and a hint that never names what the policy
/// refuses.
#[test]
fn reports_for_people_and_ci() {
    let repo = root();
    pin(
        "scan-clean",
        &repo,
        &["scan", "testdata/scan/clean.tfstate"],
    );
    pin(
        "scan-folder-markdown",
        &repo,
        &["scan", "testdata/scan", "--format", "markdown"],
    );
    pin(
        "scan-folder-gitlab",
        &repo,
        &["scan", "testdata/scan", "--format", "gitlab"],
    );
    pin(
        "scan-lifecycle-junit",
        &repo,
        &[
            "scan",
            "testdata/states/lifecycle.tfstate",
            "--format",
            "junit",
        ],
    );
    let folder = scratch("testdata/audit/destroy/terraform.tfstate");
    std::fs::copy(
        root().join("testdata/audit/destroy/policy.toml"),
        folder.path().join("policy.toml"),
    )
    .unwrap();
    pin(
        "audit-policy-reason",
        folder.path(),
        &["audit", "--policy", "policy.toml"],
    );
    pin(
        "audit-policy-reason-markdown",
        folder.path(),
        &["audit", "--policy", "policy.toml", "--format", "markdown"],
    );
    // The hint above does not suggest `statectl forget`, which this is:
    pin(
        "audit-policy-forget-refused",
        folder.path(),
        &[
            "forget",
            "module.app[\"blue\"].terraform_data.server",
            "--policy",
            "policy.toml",
        ],
    );
}

#[test]
fn mutations() {
    let folder = scratch("testdata/scan/cf-tainted-in-progress.tfstate");
    pin(
        "untaint-blocked",
        folder.path(),
        &["untaint", "cloudfoundry_service_instance.orders_db"],
    );
    let folder = scratch("testdata/scan/deposed.tfstate");
    pin(
        "forget-deposed-dry-run",
        folder.path(),
        &[
            "forget",
            "aws_instance.web",
            "--deposed",
            "1a2b3c4d",
            "--dry-run",
        ],
    );
    let folder = scratch("testdata/scan/clean.tfstate");
    pin(
        "taint-written",
        folder.path(),
        &["taint", "terraform_data.release"],
    );
    pin(
        "taint-contradictory-flags",
        folder.path(),
        &["taint", "terraform_data.release", "--dry-run", "-o", "-"],
    );
}

#[test]
fn inputs_that_are_not_states() {
    let repo = root();
    for name in [
        "not-json",
        "age-armour",
        "opentofu-encrypted",
        "backend-cache",
        "plan.tfplan",
    ] {
        let file = match name {
            "plan.tfplan" => "testdata/not-states/plan.tfplan".to_owned(),
            _ => format!("testdata/not-states/{name}.tfstate"),
        };
        pin(&format!("not-a-state-{name}"), &repo, &["list", &file]);
    }
    // A format-3 state is a state: read through Terraform's upgrade.
    pin(
        "legacy-format-3-list",
        &repo,
        &["list", "testdata/legacy/made-v3-everything.tfstate"],
    );
}
