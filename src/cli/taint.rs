//! `statectl taint ADDRESS` and `statectl untaint ADDRESS`: mark an instance's current object for
//! replacement by the next apply, or clear the mark, as `terraform taint` / `terraform untaint` do,
//! with the lifecycle rules and the safe write.

use crate::cli::Printer;
use crate::cli::error::{CliError, echo};
use crate::cli::exit::ExitStatus;
use crate::cli::rewrite::{WriteArgs, WriteRequest, rewrite};
use crate::cli::settings::{WriteIntent, WriteSettings};
use crate::state::address::InstanceAddr;
use crate::state::mutate::Mutation;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The instance, e.g. `aws_instance.web`, `aws_instance.web[0]`, `module.app.aws_instance.web["a"]`.
    #[arg(value_name = "ADDRESS")]
    pub address: String,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub(super) fn run_taint(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    mark(args, "taint", Mutation::Taint, printer)
}

pub(super) fn run_untaint(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    mark(args, "untaint", Mutation::Untaint, printer)
}

/// Taint or untaint (`operation`) the instance the arguments name, with the safe write.
fn mark(
    args: &Args,
    operation: &'static str,
    mutation: fn(InstanceAddr) -> Mutation,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let settings = WriteSettings::resolve(&args.write, WriteIntent::ByDefault)?;
    let address = instance_address(&args.address)?;
    rewrite(
        &settings,
        &WriteRequest {
            operation,
            mutations: vec![mutation(address)],
            warning: None,
            show_diff: true,
        },
        printer,
    )
}

/// An instance address as Terraform's `taint` reads it: without a key it is the unkeyed instance.
pub(super) fn instance_address(text: &str) -> Result<InstanceAddr, CliError> {
    text.parse().map_err(|error| {
        CliError::new(format!("invalid address `{}`: {error}", echo(text)))
            .with_hint("an instance address looks like `aws_instance.web`, `aws_instance.web[0]` or `module.app.aws_instance.web[\"a\"]`")
    })
}
