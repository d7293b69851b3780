//! Snapshot tests of the CLI (insta): for each command on the bundled test data, the exit code,
//! stdout and stderr pinned together in one file under `tests/integration/snapshots/`, so a change in
//! what a user sees shows up as a diff in review. Temporary folders, backup timestamps and ports are
//! filtered out. To accept a deliberate change: `INSTA_UPDATE=always cargo test --test integration
//! snapshots` and review the `.snap` diff.

use std::path::Path;

use crate::builder::{Test, root};
use crate::files::folder_with_copy;

/// Runs statectl in `folder` and pins what it printed under `name`.
#[track_caller]
fn pin(name: &str, folder: &Path, args: &[&str]) {
    statectl_snapshot!(name, Test::new().current_dir(folder).args(args));
}

/// Pins each case `(name, command line)` run in `folder` (the command line split at spaces).
#[track_caller]
fn pin_each(folder: &Path, cases: &[(&str, &str)]) {
    for (name, command_line) in cases {
        let args: Vec<&str> = command_line.split(' ').collect();
        pin(name, folder, &args);
    }
}

/// A copy of `fixture` as `terraform.tfstate` in a fresh folder, for the commands that write.
fn scratch(fixture: &str) -> tempfile::TempDir {
    folder_with_copy(root().join(fixture))
}

#[test]
fn reading_commands() {
    pin_each(
        &root(),
        &[
            ("list", "list testdata/states/modules.tfstate"),
            (
                "list-json-tainted",
                "list testdata/states/lifecycle.tfstate --format json",
            ),
            (
                "show-masked",
                "show terraform_data.password testdata/states/sensitive.tfstate",
            ),
            (
                "query",
                "query $.resources[*].type testdata/states/count_for_each.tfstate --compact",
            ),
            ("summary", "summary testdata/states/modules.tfstate"),
            (
                "diff",
                "diff testdata/states/values.tfstate testdata/states/lifecycle.tfstate --stat",
            ),
        ],
    );
}

#[test]
fn scan_and_audit() {
    pin_each(
        &root(),
        &[
            ("scan-folder", "scan testdata/scan"),
            (
                "scan-oci-json",
                "scan testdata/scan/oci-async-provisioning.tfstate --format json",
            ),
            (
                "scan-helm-github",
                "scan testdata/scan/real/helm-pending-upgrade.tfstate --format github",
            ),
            (
                "audit-destroy",
                "audit testdata/audit/destroy/terraform.tfstate",
            ),
            // The audit's findings in JSON are scan's: evidence values decoded, a `location`.
            (
                "audit-oci-json",
                "audit testdata/scan/oci-async-provisioning.tfstate --format json",
            ),
            (
                "audit-skip-destroy-github",
                "audit testdata/audit/skip-destroy/terraform.tfstate --plan testdata/audit/skip-destroy/plan.json --format github",
            ),
            (
                "audit-skip-destroy-markdown",
                "audit testdata/audit/skip-destroy/terraform.tfstate --plan testdata/audit/skip-destroy/plan.json --format markdown",
            ),
            (
                "scan-lifecycle-table",
                "scan testdata/states/lifecycle.tfstate",
            ),
        ],
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
    pin_each(
        &root(),
        &[
            ("scan-clean", "scan testdata/scan/clean.tfstate"),
            (
                "scan-folder-markdown",
                "scan testdata/scan --format markdown",
            ),
            ("scan-folder-gitlab", "scan testdata/scan --format gitlab"),
            (
                "scan-lifecycle-junit",
                "scan testdata/states/lifecycle.tfstate --format junit",
            ),
        ],
    );
    let folder = scratch("testdata/audit/destroy/terraform.tfstate");
    std::fs::copy(
        root().join("testdata/audit/destroy/policy.toml"),
        folder.path().join("policy.toml"),
    )
    .unwrap();
    pin_each(
        folder.path(),
        &[
            ("audit-policy-reason", "audit --policy policy.toml"),
            (
                "audit-policy-reason-markdown",
                "audit --policy policy.toml --format markdown",
            ),
            // The hint above does not suggest `statectl forget`, which this is:
            (
                "audit-policy-forget-refused",
                "forget module.app[\"blue\"].terraform_data.server --policy policy.toml",
            ),
        ],
    );
}

#[test]
fn mutations() {
    let folder = scratch("testdata/scan/cf-tainted-in-progress.tfstate");
    pin_each(
        folder.path(),
        &[(
            "untaint-blocked",
            "untaint cloudfoundry_service_instance.orders_db",
        )],
    );
    let folder = scratch("testdata/scan/deposed.tfstate");
    pin_each(
        folder.path(),
        &[(
            "forget-deposed-dry-run",
            "forget aws_instance.web --deposed 1a2b3c4d --dry-run",
        )],
    );
    let folder = scratch("testdata/scan/clean.tfstate");
    pin_each(
        folder.path(),
        &[
            ("taint-written", "taint terraform_data.release"),
            (
                "taint-contradictory-flags",
                "taint terraform_data.release --dry-run -o -",
            ),
        ],
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
