//! The command line: clap definitions, dispatch, and turning every outcome into an exit code. Only this
//! module prints.

mod audit;
mod diff;
mod drift;
mod drift_fetch;
mod drift_report;
mod duration;
mod encryption;
mod error;
mod escape;
pub mod exit;
mod filter;
mod findings;
mod flag_value;
mod forget;
mod generate;
mod history;
mod interrupt;
mod layout;
mod lifecycle_inputs;
mod list;
mod load;
mod lock;
mod log;
mod log_fields;
mod man;
mod many;
mod object_diff;
mod plugin_inputs;
mod plugin_refresh;
mod printer;
mod progress;
mod query;
mod refresh;
mod restore;
mod rewrite;
pub(crate) mod scan;
mod settings;
mod show;
mod state_source;
mod style;
mod summary;
mod taint;
mod versions;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub use encryption::ConfigArgs;
pub use error::CliError;
pub use exit::ExitStatus;
pub use printer::{ColorChoice, Printer};

/// Find, refresh and safely rewrite the stale async resources in Terraform and OpenTofu state files.
#[derive(Debug, Parser)]
#[command(name = "statectl", version, about, max_term_width = 100)]
pub struct Cli {
    /// When to color output: auto (a terminal without NO_COLOR), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request.
    /// Credentials are never logged.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Print only data, warnings and errors: no notes (where a state was found, what was written,
    /// the backup), no progress, no hints beside findings.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List resource instances, one address a line, as `terraform state list` does.
    List(list::Args),
    /// Show one resource instance, sensitive values masked.
    Show(show::Args),
    /// Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array.
    Query(query::Args),
    /// Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on.
    Scan(scan::Args),
    /// Count resources and instances by type, module, provider and status.
    Summary(summary::Args),
    /// Mark an instance for replacement by the next apply, as `terraform taint`, with lifecycle rules.
    Taint(taint::Args),
    /// Clear an instance's taint, as `terraform untaint`.
    Untaint(taint::Args),
    /// Remove instances (or one deposed object) from the state, as `terraform state rm`; remote
    /// objects are not touched.
    #[command(visible_alias = "rm")]
    Forget(forget::Args),
    /// Ask the providers' APIs about stale instances; show outcomes and the diff; `--write` applies it.
    Refresh(refresh::Args),
    /// Hold the state lock (Terraform-compatible) while a command runs; exits with its code.
    Lock(lock::Args),
    /// Compare two states: instances added, removed and changed, attribute by attribute; exit 1 when
    /// they differ.
    Diff(diff::Args),
    /// Before a destroy: what it (or a plan) would do to each object, and what it must not do; exit 3
    /// when a rule is violated.
    Audit(audit::Args),
    /// Read every managed instance through its provider plugin and report what changed outside
    /// Terraform; never writes; exit 1 on drift.
    Drift(drift::Args),
    /// The versions the state's backend keeps (S3 object versions, local backups), newest first,
    /// with what changed from the version before.
    History(history::Args),
    /// Make an earlier version the current state: under the lock, lineage checked, serial raised
    /// above the current one, the current state backed up (and kept as a version).
    Restore(restore::Args),
}

/// Output format of the listing commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: lines and tables (`table` is the same)
    #[value(alias = "table")]
    Text,
    /// One JSON document with a `schema_version`, for scripts
    Json,
}

/// The state argument every reading command takes.
#[derive(Debug, clap::Args)]
pub struct StateArg {
    /// The state: a file, `-` for standard input, or a URL (`s3://bucket/key`,
    /// `gs://bucket/prefix/default.tfstate`, `azurerm://account/container/blob`,
    /// `oci://namespace/bucket/object`, `https://...` for the http backend). Default: the state of
    /// the backend `terraform init` recorded here (local: `terraform.tfstate`, HCP Terraform's
    /// workspace...), in the selected workspace.
    #[arg(value_name = "STATE")]
    pub state: Option<PathBuf>,

    #[command(flatten)]
    pub backend: BackendArgs,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `--version V` of the reading commands: an earlier version of the state, read instead of the
/// current one.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct VersionArg {
    /// Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a
    /// backup's file name), or `~N` for N versions before the current one.
    #[arg(long = "version", id = "state_version", value_name = "V")]
    pub version: Option<String>,
}

/// How the state's backend is chosen beyond what `terraform init` recorded.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BackendArgs {
    /// The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`.
    #[arg(long, value_name = "NAME")]
    pub workspace: Option<String>,

    /// A backend setting over those `terraform init` recorded (or a URL's): `KEY=VALUE`, or an HCL
    /// file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win.
    #[arg(long = "backend-config", value_name = "KEY=VALUE|FILE")]
    pub backend_config: Vec<String>,
}

/// clap's own message, through the credential masks when they change it (then without color).
fn print_clap_error(error: &clap::Error) {
    let plain = error.render().to_string();
    match statectl_net::secrets::mask_message(&plain) {
        std::borrow::Cow::Borrowed(_) => {
            let _ = error.print();
        }
        std::borrow::Cow::Owned(masked) => {
            use std::io::Write as _;
            let _ = if error.use_stderr() {
                std::io::stderr().lock().write_all(masked.as_bytes())
            } else {
                std::io::stdout().lock().write_all(masked.as_bytes())
            };
        }
    }
}

/// Runs statectl with the process arguments and returns the exit code.
/// The stack `main` runs [`run`] on: room for every walk of a value nested
/// [`json::MAX_DEPTH`](crate::json::MAX_DEPTH) levels deep (measured: a debug build's `diff` of two
/// such values needs 24 MiB; this is ten times that). Only the pages a run touches are committed.
pub const STACK_BYTES: usize = 256 << 20;

pub fn run() -> i32 {
    // `statectl generate` writes the completions and man pages for packaging: parsed on its own, so
    // that neither they nor `--help` offer it.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| first == "generate")
    {
        return generate::main();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints usage errors itself (exit 2) and help/version (exit 0); a refused value
            // that holds a credential (`--endpoint cf=http://admin:PW@...`) is echoed masked.
            print_clap_error(&error);
            return if error.use_stderr() {
                ExitStatus::Error.code()
            } else {
                ExitStatus::Success.code()
            };
        }
    };
    let mut printer = Printer::new(cli.color, cli.quiet);
    log::init(cli.verbose);
    let outcome = match cli.command {
        Command::List(args) => {
            settings::ListSettings::resolve(&args).and_then(|s| list::run(&s, &mut printer))
        }
        Command::Show(args) => {
            settings::ShowSettings::resolve(&args).and_then(|s| show::run(&s, &mut printer))
        }
        Command::Query(args) => {
            settings::QuerySettings::resolve(&args).and_then(|s| query::run(&s, &mut printer))
        }
        Command::Scan(args) => scan::run(&args, &mut printer),
        Command::Summary(args) => summary::run(&args, &mut printer),
        Command::Taint(args) => taint::run_taint(&args, &mut printer),
        Command::Untaint(args) => taint::run_untaint(&args, &mut printer),
        Command::Forget(args) => forget::run(args, &mut printer),
        Command::Lock(args) => lock::run(&settings::LockSettings::resolve(&args), &mut printer),
        Command::Refresh(args) => refresh::run(&args, cli.verbose, &mut printer),
        Command::Diff(args) => diff::run(&args, &mut printer),
        Command::Audit(args) => audit::run(&settings::AuditSettings::resolve(&args), &mut printer),
        Command::Drift(args) => drift::run(&args, &mut printer),
        Command::History(args) => history::run(&args, &mut printer),
        Command::Restore(args) => restore::run(&args, &mut printer),
    };
    let outcome = outcome.and_then(|status| printer.flush().map(|()| status));
    let mut status = match outcome {
        Ok(status) => status,
        Err(error) => {
            printer.error(&error);
            error.code
        }
    };
    // A local state rewritten in place while it was read (Terraform's local backend writes so):
    // what was answered from it may mix two states, so the run cannot succeed.
    for path in crate::state::read_stamps::changed_since_read() {
        printer.error(&CliError::state(
            &crate::state::source::Source::Path(path),
            &crate::state::source::rewritten_while_read(),
        ));
        status = status.and(ExitStatus::Error);
    }
    // A remote lock that an error path could not release: said last, with its ID and the
    // `force-unlock` command, because it needs a person's attention. It is an error of its own,
    // which does not hide a block or an interrupt that came first (see `exit`).
    for error in crate::state::store::remote::take_release_failures() {
        printer.error(&CliError::from(error));
        status = status.and(ExitStatus::Error);
    }
    status.code()
}
