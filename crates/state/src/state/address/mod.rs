//! Terraform resource addresses as `statectl` reads, prints, sorts and
//! matches them: module paths (`module.a["k"].module.b[0]`), resources
//! (`aws_x.y`, `data.aws_x.y`), resource instances (`aws_x.y["k"]`), state
//! objects (an instance plus an optional deposed key) and the targets a user
//! may name on the command line. Parsing accepts what Terraform's
//! `addrs.ParseTargetStr` accepts (HCL traversal syntax, including its
//! whitespace, comments and quoted-string escapes), `Display` prints exactly
//! what Terraform prints, and `Ord` reproduces the order of
//! `terraform state list`. The behaviour was checked against Terraform's
//! `internal/addrs` and `internal/command/state_list.go`/`state_meta.go` and
//! HCL's `hclsyntax` scanner; no code was taken from them.
//!
//! The public types live in `key` (instance keys), `module` (module paths),
//! `resource` (resources, instances, state objects), `target` (command-line
//! targets) and `error`. Text becomes an address in three stages: `lexer`
//! splits it into HCL tokens, `traversal` assembles those into `.name` and
//! `[key]` steps, and `parse` reads the steps as an address, with `number`
//! deciding which number literals are usable keys. `unicode` holds the
//! character tables that lexing and printing share.

mod error;
mod key;
mod lexer;
mod module;
mod number;
mod parse;
mod resource;
mod target;
#[cfg(test)]
mod test_support;
mod traversal;
mod unicode;

pub use error::AddressError;
pub use key::InstanceKey;
pub use module::{ModulePath, ModuleStep};
pub use resource::{InstanceAddr, Mode, ObjectAddr, ResourceAddr};
pub use target::Target;
pub(crate) use unicode::identifier_length;
pub use unicode::{is_go_printable, is_identifier};

/// `FromStr` by each address type's own `parse`, so that clap and `str::parse` read addresses
/// exactly as the rest of statectl does.
macro_rules! from_str_by_parse {
    ($($address:ty),+) => {$(
        impl std::str::FromStr for $address {
            type Err = AddressError;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                <$address>::parse(text)
            }
        }
    )+};
}

from_str_by_parse!(ModulePath, ResourceAddr, InstanceAddr, ObjectAddr, Target);
