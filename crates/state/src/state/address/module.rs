//! Module instance paths (`module.a["k"].module.b[0]`): their steps, the
//! order Terraform sorts them in, how they print, and which paths lie below
//! which.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use super::key::{InstanceKey, write_optional};
use super::{AddressError, parse};

/// One `module.NAME` or `module.NAME[KEY]` step of a module path.
///
/// The derived order (name, then key with no key first) is the per-step
/// comparison in Terraform's `ModuleInstance.Less`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleStep {
    pub name: String,
    pub key: Option<InstanceKey>,
}

impl fmt::Display for ModuleStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "module.{}", self.name)?;
        write_optional(f, self.key.as_ref())
    }
}

/// A module instance path; the root module is the empty path and prints as
/// the empty string, like the state file's `module` field for root resources.
///
/// The steps are shared: every resource of a module holds the same path, and the parser hands each
/// resource a copy of the last one it read (a clone of a vector of strings was several allocations
/// a resource).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ModulePath(pub Arc<[ModuleStep]>);

impl ModulePath {
    pub fn root() -> Self {
        ModulePath(Arc::from([]))
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Parses a module path as it appears in a state file's `module` field or
    /// on the command line. The empty string is the root module because
    /// Terraform's state reader only parses the field when it is non-empty;
    /// anything else goes through the same syntax as every other address, so
    /// e.g. a string of blanks is rejected just as Terraform rejects it.
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        parse::module_path(s)
    }

    /// Terraform's `ModuleInstance.IsAncestor`: a strictly shorter path whose
    /// steps name the same modules, where a step without a key stands for
    /// every instance of that module call.
    pub fn is_ancestor_of(&self, other: &ModulePath) -> bool {
        self.0.len() < other.0.len()
            && self.0.iter().zip(other.0.iter()).all(|(ours, theirs)| {
                ours.name == theirs.name && (ours.key.is_none() || ours.key == theirs.key)
            })
    }
}

/// Terraform's `ModuleInstance.Less`: a shorter path sorts first whatever its
/// names, so every root resource precedes every module resource and
/// `module.z` precedes `module.a.module.b`; equal lengths compare step by step.
impl Ord for ModulePath {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for ModulePath {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::rejects;
    use super::ModulePath;

    #[test]
    fn module_path_parse_matches_state_file_module_field() {
        assert_eq!(ModulePath::parse("").unwrap(), ModulePath::root());
        assert_eq!(ModulePath::root().to_string(), "");
        for s in [
            r#"module.a["k"]"#,
            "module.a.module.b[0]",
            r#"module.x["a.b"].module.y"#,
        ] {
            let p: ModulePath = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
        }
        rejects(
            ModulePath::parse,
            "aws_x.y",
            "a module path must start with \"module.\", found name \"aws_x\"",
            Some(0),
        );
        rejects(
            ModulePath::parse,
            "module.a.aws_x.y",
            "unexpected name \"aws_x\" after the module path",
            Some(8),
        );
        // Terraform parses any non-empty field, and blanks are not an address.
        rejects(ModulePath::parse, "  ", "the address is empty", None);
    }
}
