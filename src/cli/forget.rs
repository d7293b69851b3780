//! `statectl forget ADDRESS... [STATE]` (alias `rm`): remove instances from the state without
//! destroying their remote objects, as `terraform state rm` does (several addresses in one locked
//! write), or just one deposed object with `--deposed KEY`.

use std::path::{Path, PathBuf};

use crate::cli::Printer;
use crate::cli::error::{CliError, echo};
use crate::cli::exit::ExitStatus;
use crate::cli::rewrite::{WriteArgs, WriteRequest, rewrite};
use crate::cli::settings::{WriteIntent, WriteSettings, deposed_key};
use crate::state::address::{ObjectAddr, Target};
use crate::state::mutate::Mutation;

// The state is the last of the positional arguments when it looks like one (see `split_state`), or
// `--state`: clap cannot put an optional positional after a list.
#[derive(Debug, clap::Args)]
#[command(mut_arg("state", |arg| arg.long("state").value_name("STATE")))]
pub struct Args {
    /// What to remove: modules (`module.app`), resources (every instance: `aws_instance.web`),
    /// instances (`aws_instance.web[0]`), or with `--deposed`, the instance holding that object. The
    /// last argument is the state instead when it is `-`, a URL, a path with a `/`, a `*.tfstate`
    /// name or an existing file (or give it with `--state`).
    #[arg(value_name = "ADDRESS", num_args = 1.., required = true)]
    pub addresses: Vec<String>,

    /// Remove only this deposed object of the instance (its remote object stays, unmanaged).
    #[arg(long, value_name = "KEY")]
    pub deposed: Option<String>,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub(super) fn run(mut args: Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    if args.write.state.state.is_none()
        && let Some(state) = split_state(&mut args.addresses)
    {
        args.write.state.state = Some(state);
    }
    let settings = WriteSettings::resolve(&args.write, WriteIntent::ByDefault)?;
    let invalid = |address: &str, error: &dyn std::fmt::Display| {
        CliError::new(format!("invalid address `{}`: {error}", echo(address))).with_hint(
            "an address looks like `module.app`, `aws_instance.web` or `aws_instance.web[0]`",
        )
    };
    let mutation = |address: &String| -> Result<Mutation, CliError> {
        let object: Option<ObjectAddr> = address.parse().ok();
        let in_address = object.as_ref().and_then(|object| object.deposed.as_deref());
        let deposed = deposed_key(args.deposed.as_deref(), in_address)?;
        Ok(match (deposed, object) {
            (Some(key), Some(object)) => Mutation::ForgetDeposed {
                instance: object.instance,
                key,
            },
            (Some(_), None) => {
                return Err(invalid(
                    address,
                    &"`--deposed` needs a resource instance address",
                ));
            }
            (None, _) => Mutation::Forget(
                address
                    .parse::<Target>()
                    .map_err(|error| invalid(address, &error))?,
            ),
        })
    };
    let mutations = args
        .addresses
        .iter()
        .map(mutation)
        .collect::<Result<Vec<_>, _>>()?;
    let warning = mutations
        .iter()
        .any(|mutation| matches!(mutation, Mutation::ForgetDeposed { .. }))
        .then_some(
            "the deposed object's remote object stays where it is, no longer managed by Terraform; delete it by hand if it should go",
        );
    rewrite(
        &settings,
        &WriteRequest {
            operation: "forget",
            mutations,
            warning,
            show_diff: true,
        },
        printer,
    )
}

/// Takes the state off the end of `arguments` when the last of several is one: `-`, a URL, a path
/// with a `/`, a `*.tfstate` name, or something that exists on disk. An address is none of these
/// (`terraform.tfstate` would read as the resource `terraform.tfstate`, hence the name rule).
fn split_state(arguments: &mut Vec<String>) -> Option<PathBuf> {
    let [.., last] = arguments.as_slice() else {
        return None;
    };
    let is_state = arguments.len() > 1
        && (last == "-"
            || last.contains("://")
            || last.contains('/')
            || Path::new(last)
                .extension()
                .is_some_and(|extension| extension == "tfstate")
            || std::fs::symlink_metadata(last).is_ok());
    is_state.then(|| PathBuf::from(arguments.pop().unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::split_state;

    #[test]
    fn the_last_argument_is_the_state_only_when_it_looks_like_one() {
        let split = |arguments: &[&str]| {
            let mut arguments: Vec<String> = arguments.iter().map(|&a| a.to_owned()).collect();
            let state = split_state(&mut arguments);
            (arguments, state.map(|path| path.display().to_string()))
        };
        let owned = |arguments: &[&str]| arguments.iter().map(|&a| a.to_owned()).collect();
        assert_eq!(split(&["a.b"]), (owned(&["a.b"]), None));
        assert_eq!(split(&["a.b", "c.d"]), (owned(&["a.b", "c.d"]), None));
        for state in ["-", "s3://b/k", "dir/x", "prod.tfstate", "Cargo.toml"] {
            assert_eq!(
                split(&["a.b", state]),
                (owned(&["a.b"]), Some(state.to_owned())),
                "{state}"
            );
        }
    }
}
