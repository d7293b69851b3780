//! Address filters for `list`: a Terraform address (a module contains its resources, a resource its
//! instances, as `terraform state list ADDRESS` reads it) or a glob with `*` and `?`.

use statectl_analysis::glob::Glob;

use crate::cli::error::{CliError, echo};
use crate::state::address::{InstanceAddr, Target};

#[derive(Debug)]
pub(super) enum Pattern {
    Address(Target),
    Glob(Glob),
}

impl Pattern {
    pub(super) fn parse(text: &str) -> Result<Pattern, CliError> {
        if Glob::is_glob(text) {
            return Ok(Pattern::Glob(Glob::new(text)));
        }
        text.parse::<Target>().map(Pattern::Address).map_err(|error| {
            CliError::new(format!("invalid address `{}`: {error}", echo(text)))
                .with_hint("use an address such as `module.app`, `aws_instance.web` or `aws_instance.web[0]`, or a glob such as `*_bucket.*`")
        })
    }

    pub(super) fn matches(&self, address: &InstanceAddr, printed: &str) -> bool {
        match self {
            Pattern::Address(target) => target.matches(address),
            Pattern::Glob(glob) => glob.matches(printed),
        }
    }
}
