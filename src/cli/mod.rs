//! The command line: clap definitions, dispatch, and turning every outcome into an exit code. Only this
//! module prints.

mod audit;
mod diff;
mod duration;
mod error;
pub mod exit;
mod filter;
mod findings;
mod forget;
mod generate;
mod lifecycle_inputs;
mod list;
mod load;
mod lock;
mod log;
mod object_diff;
mod plugin_inputs;
mod plugin_refresh;
mod printer;
mod progress;
mod query;
mod refresh;
mod render;
mod rewrite;
pub(crate) mod scan;
mod settings;
mod show;
mod summary;
mod taint;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub use error::CliError;
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
    /// Write shell completions and man pages (for packaging; checked in under completions/ and man/).
    #[command(hide = true)]
    Generate(generate::Args),
}

/// Output format of the listing commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// The state argument every reading command takes.
#[derive(Debug, clap::Args)]
pub struct StateArg {
    /// The state file; `-` reads standard input. Default: `terraform.tfstate` in the working directory.
    #[arg(value_name = "STATE")]
    pub state: Option<PathBuf>,
}

/// Runs statectl with the process arguments and returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints usage errors itself (exit 2) and help/version (exit 0).
            let _ = error.print();
            return if error.use_stderr() {
                exit::ERROR
            } else {
                exit::SUCCESS
            };
        }
    };
    let mut printer = Printer::new(cli.color);
    log::init(cli.verbose, printer.color_stderr());
    let outcome = match cli.command {
        Command::List(args) => list::run(&args, &mut printer),
        Command::Show(args) => show::run(&args, &mut printer),
        Command::Query(args) => query::run(&args, &mut printer),
        Command::Scan(args) => scan::run(&args, &mut printer),
        Command::Summary(args) => summary::run(&args, &mut printer),
        Command::Taint(args) => taint::run_taint(&args, &mut printer),
        Command::Untaint(args) => taint::run_untaint(&args, &mut printer),
        Command::Forget(args) => forget::run(&args, &mut printer),
        Command::Lock(args) => lock::run(&args, &mut printer),
        Command::Refresh(args) => refresh::run(&args, cli.verbose, &mut printer),
        Command::Diff(args) => diff::run(&args, &mut printer),
        Command::Audit(args) => audit::run(&args, &mut printer),
        Command::Generate(args) => generate::run(&args, &mut printer),
    };
    let outcome = outcome.and_then(|code| printer.flush().map(|()| code));
    match outcome {
        Ok(code) => code,
        Err(error) => {
            printer.error(&error);
            error.code
        }
    }
}
