//! What the man pages say beyond `--help`: the synopsis as `--help` prints it, and the EXIT
//! STATUS, ENVIRONMENT, FILES and EXAMPLES sections. Every example runs against the repository's
//! own files from its root: the integration test `docs` reads them back from `man/` and runs
//! each, so they cannot drift from the binary.

use clap_mangen::roff::{Roff, bold, roman};

/// One example of a man page: what it shows (with `exit N` when it does not exit 0) and the
/// command line, run from the repository root.
pub(super) struct Example {
    pub what: &'static str,
    pub line: &'static str,
}

/// An [`Example`] literal (a struct literal, so that the arrays below are promoted to statics).
macro_rules! example {
    ($what:expr, $line:expr $(,)?) => {
        Example {
            what: $what,
            line: $line,
        }
    };
}

/// The examples of `statectl COMMAND` (`""` for the top page).
#[expect(
    clippy::too_many_lines,
    reason = "a table of examples, one arm per command"
)]
pub(super) fn examples(command: &str) -> &'static [Example] {
    match command {
        "" => &[
            example!(
                "Scan the bundled fixtures for stale async resources (exit 1: findings)",
                "statectl scan testdata/scan/",
            ),
            example!(
                "List a state's instances as terraform state list does",
                "statectl list testdata/states/modules.tfstate",
            ),
        ],
        "list" => &[
            example!(
                "Every instance, in Terraform's order",
                "statectl list testdata/states/modules.tfstate",
            ),
            example!(
                "Instances inside one module instance",
                "statectl list testdata/states/modules.tfstate 'module.app[\"blue\"]'",
            ),
            example!(
                "Only the tainted ones, as JSON",
                "statectl list testdata/states/lifecycle.tfstate --tainted --format json",
            ),
        ],
        "show" => &[
            example!(
                "One instance, sensitive values masked",
                "statectl show terraform_data.password testdata/states/sensitive.tfstate",
            ),
            example!(
                "A deposed object",
                "statectl show 'terraform_data.cbd (deposed object d452a61b)' testdata/states/lifecycle.tfstate",
            ),
        ],
        "query" => &[example!(
            "Every resource type, as a JSON array",
            "statectl query '$.resources[*].type' testdata/states/modules.tfstate",
        )],
        "scan" => &[
            example!(
                "Every state below a folder (exit 1: findings at warning or above)",
                "statectl scan testdata/scan/",
            ),
            example!("A clean state", "statectl scan testdata/scan/clean.tfstate",),
            example!(
                "SARIF for code scanning, failing only on errors (exit 1: some are)",
                "statectl scan testdata/scan/ --format sarif --fail-on error",
            ),
        ],
        "summary" => &[example!(
            "Counts by type, module, provider and status",
            "statectl summary testdata/states/count_for_each.tfstate",
        )],
        "taint" => &[
            example!(
                "The diff of a taint, nothing written (exit 1: something would change)",
                "statectl taint terraform_data.root testdata/states/modules.tfstate --dry-run",
            ),
            example!(
                "The tainted state on standard output, for terraform state push -",
                "statectl taint terraform_data.root testdata/states/modules.tfstate -o -",
            ),
        ],
        "untaint" => &[example!(
            "Clear a taint, showing the diff only (exit 1: something would change)",
            "statectl untaint 'terraform_data.workers[1]' testdata/states/lifecycle.tfstate --dry-run",
        )],
        "forget" => &[
            example!(
                "Remove a module's instances, showing the diff only (exit 1: something would change)",
                "statectl forget module.single testdata/states/modules.tfstate --dry-run",
            ),
            example!(
                "Remove one deposed object (exit 1: something would change)",
                "statectl forget terraform_data.cbd --deposed d452a61b testdata/states/lifecycle.tfstate --dry-run",
            ),
        ],
        "refresh" => &[
            example!(
                "A state with nothing stale asks nobody",
                "statectl refresh testdata/states/modules.tfstate",
            ),
            example!(
                "How to write a provider profile",
                "statectl refresh --profiles-format",
            ),
        ],
        "lock" => &[example!(
            "Hold the lock while a command runs, and exit with its code",
            "statectl lock testdata/states/modules.tfstate -- true",
        )],
        "diff" => &[example!(
            "One line per changed object (exit 1: the states differ)",
            "statectl diff testdata/states/lifecycle.tfstate testdata/states/opentofu_hosts.tfstate --stat",
        )],
        "audit" => &[
            example!(
                "What a destroy of the whole state would do, with the configuration's rules",
                "statectl audit testdata/audit/destroy/terraform.tfstate --config testdata/audit/destroy",
            ),
            example!(
                "A destroy prevent_destroy blocks (exit 1: a warning)",
                "statectl audit testdata/audit/prevent-destroy/terraform.tfstate --config testdata/audit/prevent-destroy",
            ),
            example!(
                "What a plan does (terraform show -json PLAN > plan.json)",
                "statectl audit testdata/audit/removed-forget/terraform.tfstate --plan testdata/audit/removed-forget/plan.json --config testdata/audit/removed-forget",
            ),
        ],
        "drift" => &[
            example!(
                "Instances of Terraform's built-in provider (terraform_data) have no remote object to read",
                "statectl drift testdata/states/modules.tfstate",
            ),
            example!(
                "An ignore names the resource type first (exit 2: refused)",
                "statectl drift testdata/states/modules.tfstate --ignore tags",
            ),
        ],
        "history" => &[example!(
            "The versions of a local state: the file and the backups beside it",
            "statectl history testdata/tour/terraform.tfstate",
        )],
        "restore" => &[example!(
            "What restoring the newest version would write, the serial raised (exit 1: a dry run that would change the state)",
            "statectl restore testdata/tour/terraform.tfstate --version terraform.tfstate --dry-run",
        )],
        _ => &[],
    }
}

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Done; nothing found, nothing to change."),
    (
        "1",
        "Findings, differences or pending changes (a scan finding at --fail-on, states that differ, a --dry-run or a refresh without --write with something to change).",
    ),
    (
        "2",
        "Error: bad input, an unreadable state, a network failure, a usage error, a state locked by someone else or changed since it was read. Nothing is written.",
    ),
    (
        "3",
        "Blocked: a lifecycle rule refused the change (or an audit found a violation). Nothing is written.",
    ),
    ("130", "Interrupted. Nothing is half-written."),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    ("NO_COLOR", "Turns color off, as --color never does."),
    (
        "TF_WORKSPACE",
        "The workspace whose state is read, under --workspace and over terraform workspace select.",
    ),
    (
        "TF_DATA_DIR",
        "Where terraform init wrote the backend cache (default .terraform).",
    ),
    (
        "TF_ENCRYPTION",
        "OpenTofu's state encryption configuration, merged over the configuration's encryption block.",
    ),
    (
        "TF_VAR_name",
        "A variable's value for the configuration's encryption and provider blocks.",
    ),
    (
        "AWS_*, GOOGLE_*, ARM_*, OCI_*, TF_HTTP_*, TF_TOKEN_host",
        "The credentials and settings of the s3, gcs, azurerm, oci, http and cloud backends, read as Terraform reads them (see README.md, Remote state).",
    ),
    (
        "STATECTL_ENDPOINT_name",
        "A refresh profile endpoint's base URL, as --endpoint name=URL.",
    ),
    (
        "CF_ACCESS_TOKEN",
        "The Cloud Foundry token refresh sends (with the other provider credentials the profiles name).",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "terraform.tfstate",
        "The state read when no STATE is given and no backend was initialised.",
    ),
    (
        ".terraform/terraform.tfstate, .terraform/environment",
        "The backend terraform init recorded, and the selected workspace.",
    ),
    (
        "*.tf, *.tf.json, *.tofu, *.tofu.json",
        "The configuration in the working directory (or --config DIR): its encryption block, and the lifecycle and removed blocks taint, untaint, forget, refresh and audit apply (--no-config leaves them out).",
    ),
    (
        ".statectl.toml",
        "Scan rules and [[protect]] policies, found in the working directory or the nearest folder above.",
    ),
    (
        "STATE.UNIX-SECONDS.backup",
        "The old state, written before a local state is replaced (--backup PATH elsewhere, --backup - for none).",
    ),
    (
        ".terraform.tfstate.lock.info",
        "Terraform's lock information, beside a local state while statectl holds its lock.",
    ),
];

/// The synopsis as `--help` prints it (`statectl scan [OPTIONS] [STATE]...`).
pub(super) fn synopsis(roff: &mut Roff, usage: &str) {
    roff.control("SH", ["SYNOPSIS"]);
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    roff.text([bold(usage.to_owned())]);
}

/// EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES for `statectl COMMAND` (`""`: the top page).
pub(super) fn sections(roff: &mut Roff, command: &str) {
    for (title, items) in [
        ("EXIT STATUS", EXIT_STATUS),
        ("ENVIRONMENT", ENVIRONMENT),
        ("FILES", FILES),
    ] {
        roff.control("SH", [title]);
        for (name, text) in items {
            roff.control("TP", []);
            roff.text([bold(*name)]);
            roff.text([roman(*text)]);
        }
    }
    let examples = examples(command);
    if examples.is_empty() {
        return;
    }
    roff.control("SH", ["EXAMPLES"]);
    roff.text([roman(
        "Each runs from the root of statectl's repository, on the files it ships.",
    )]);
    for example in examples {
        roff.control("PP", []);
        roff.text([roman(example.what)]);
        roff.control("PP", []);
        roff.control("RS", ["4"]);
        roff.text([bold(format!("$ {}", example.line))]);
        roff.control("RE", []);
    }
}
