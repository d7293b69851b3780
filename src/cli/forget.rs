//! `statectl forget ADDRESS` (alias `rm`): remove instances from the state without destroying their
//! remote objects, as `terraform state rm` does, or just one deposed object with `--deposed KEY`.

use crate::cli::Printer;
use crate::cli::error::{CliError, echo};
use crate::cli::rewrite::{WriteArgs, WriteRequest, rewrite};
use crate::cli::settings::{WriteIntent, WriteSettings, deposed_key};
use crate::state::address::{ObjectAddr, Target};
use crate::state::mutate::Mutation;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to remove: a module (`module.app`), a resource (every instance: `aws_instance.web`), an
    /// instance (`aws_instance.web[0]`), or with `--deposed`, the instance holding that object.
    #[arg(value_name = "ADDRESS")]
    pub address: String,

    /// Remove only this deposed object of the instance (its remote object stays, unmanaged).
    #[arg(long, value_name = "KEY")]
    pub deposed: Option<String>,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<i32, CliError> {
    let settings = WriteSettings::resolve(&args.write, WriteIntent::ByDefault)?;
    let invalid = |error: &dyn std::fmt::Display| {
        CliError::new(format!(
            "invalid address `{}`: {error}",
            echo(&args.address)
        ))
        .with_hint(
            "an address looks like `module.app`, `aws_instance.web` or `aws_instance.web[0]`",
        )
    };
    let object: Option<ObjectAddr> = args.address.parse().ok();
    let in_address = object.as_ref().and_then(|object| object.deposed.as_deref());
    let deposed = deposed_key(args.deposed.as_deref(), in_address)?;
    let mutation = match (deposed, object) {
        (Some(key), Some(object)) => Mutation::ForgetDeposed {
            instance: object.instance,
            key,
        },
        (Some(_), None) => {
            return Err(invalid(&"`--deposed` needs a resource instance address"));
        }
        (None, _) => Mutation::Forget(
            args.address
                .parse::<Target>()
                .map_err(|error| invalid(&error))?,
        ),
    };
    let warning = matches!(mutation, Mutation::ForgetDeposed { .. }).then_some(
        "the deposed object's remote object stays where it is, no longer managed by Terraform; delete it by hand if it should go",
    );
    rewrite(
        &settings,
        &WriteRequest {
            operation: "forget",
            mutations: vec![mutation],
            warning,
            show_diff: true,
        },
        printer,
    )
}
