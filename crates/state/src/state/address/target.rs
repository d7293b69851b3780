//! The addresses a user may name on the command line (a module, a resource
//! or one resource instance) and which resource instances each of them
//! selects, as `terraform state list` decides it.

use std::fmt;

use super::module::ModulePath;
use super::resource::{InstanceAddr, ResourceAddr};
use super::{AddressError, parse};

/// What `terraform state list ADDR` (and the other `state` commands) accept
/// as ADDR, classified the way Terraform's `ParseTarget` does: a resource
/// address without a key is the whole resource, never its unkeyed instance,
/// so parsing only produces `Instance` with `Some` key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    Module(ModulePath),
    Resource(ResourceAddr),
    Instance(InstanceAddr),
}

impl Target {
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        parse::target(s)
    }

    /// Whether `terraform state list TARGET` would list `instance`
    /// (`StateMeta.lookupResourceInstanceAddr`).
    ///
    /// A module target lists its own module, every module `is_ancestor_of`
    /// accepts, and every module its `TargetContains` accepts; see
    /// `target_contains` for the one asymmetry that produces. A
    /// resource target looks the resource up by its exact module instance,
    /// so `module.a.aws_x.y` does not list `module.a[0].aws_x.y`.
    pub fn matches(&self, instance: &InstanceAddr) -> bool {
        match self {
            Target::Module(path) => {
                let module = &instance.resource.module;
                path == module || path.is_ancestor_of(module) || target_contains(path, module)
            }
            Target::Resource(resource) => *resource == instance.resource,
            Target::Instance(wanted) => wanted == instance,
        }
    }
}

/// Terraform's `ModuleInstance.TargetContains` for a module instance. Unlike
/// `ModulePath::is_ancestor_of`, only the *last* step of `target` may leave
/// its key out to cover every instance; earlier steps must match exactly.
/// `state list` combines both, which is why `module.a.module.b` lists
/// `module.a[0].module.b.module.c` but not `module.a[0].module.b`.
fn target_contains(target: &ModulePath, other: &ModulePath) -> bool {
    if other.0.len() < target.0.len() {
        return false;
    }
    for (i, (ours, theirs)) in target.0.iter().zip(other.0.iter()).enumerate() {
        if ours.name != theirs.name {
            return false;
        }
        if i + 1 == target.0.len() && ours.key.is_none() {
            return true;
        }
        if ours.key != theirs.key {
            return false;
        }
    }
    true
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Module(path) => write!(f, "{path}"),
            Target::Resource(resource) => write!(f, "{resource}"),
            Target::Instance(instance) => write!(f, "{instance}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{instance, res, step, target};
    use super::super::{InstanceAddr, InstanceKey, Mode, ModulePath};
    use super::Target;

    #[test]
    fn classifies_targets_like_parse_target() {
        assert_eq!(
            target("module.a"),
            Target::Module(ModulePath(vec![step("a", None)].into()))
        );
        assert_eq!(
            target("module.a[0].module.b"),
            Target::Module(ModulePath(
                vec![step("a", Some(InstanceKey::Int(0))), step("b", None)].into()
            ))
        );
        // No key means the whole resource, never its unkeyed instance.
        assert_eq!(
            target("aws_x.y"),
            Target::Resource(res(ModulePath::root(), Mode::Managed, "aws_x", "y"))
        );
        assert_eq!(
            target("aws_x.y[0]"),
            Target::Instance(InstanceAddr {
                resource: res(ModulePath::root(), Mode::Managed, "aws_x", "y"),
                key: Some(InstanceKey::Int(0)),
            })
        );
        // A keyed resource target is an instance, and an instance address
        // without key is the unkeyed instance.
        assert_eq!(instance("aws_x.y").key, None);
    }

    /// Each case: a target, an instance, and whether the target covers it.
    fn covers(cases: &[(&str, &str, bool)]) {
        for &(wanted, instance_text, expected) in cases {
            assert_eq!(
                target(wanted).matches(&instance(instance_text)),
                expected,
                "{wanted} covers {instance_text}"
            );
        }
    }

    /// Expectations follow command/state_meta.go lookupResourceInstanceAddr.
    #[test]
    fn module_targets_match_like_state_list() {
        covers(&[
            // The module itself and everything below it.
            ("module.a", "module.a.x.y", true),
            ("module.a", "module.a.module.b.module.c.x.y[0]", true),
            // No key covers every instance of the call (IsAncestor and
            // TargetContains both treat a missing key that way).
            ("module.a", "module.a[0].x.y", true),
            ("module.a", r#"module.a["k"].module.b.x.y"#, true),
            // Names are compared whole, and only as a prefix of the path.
            ("module.a", "module.ab.x.y", false),
            ("module.a", "x.y", false),
            ("module.a", "module.b.module.a.x.y", false),
            // A key selects just that instance.
            ("module.a[0]", "module.a[0].x.y", true),
            ("module.a[0]", "module.a[0].module.c.x.y", true),
            ("module.a[0]", "module.a[1].x.y", false),
            ("module.a[0]", r#"module.a["0"].x.y"#, false),
            ("module.a[0]", "module.a.x.y", false),
            // The asymmetry: for a module at the target's own depth only the last
            // step may omit its key (TargetContains); deeper modules go through
            // IsAncestor, where every step may.
            ("module.a.module.b", "module.a.module.b.x.y", true),
            ("module.a.module.b", "module.a.module.b[0].x.y", true),
            (
                "module.a.module.b",
                "module.a[0].module.b.module.c.x.y",
                true,
            ),
            ("module.a.module.b", "module.a[0].module.b.x.y", false),
        ]);
        // A root "target" (not parseable, only constructible) covers everything.
        assert!(Target::Module(ModulePath::root()).matches(&instance("module.a[0].x.y")));
    }

    #[test]
    fn resource_and_instance_targets_match_exactly() {
        covers(&[
            ("aws_x.y", "aws_x.y", true),
            ("aws_x.y", "aws_x.y[0]", true),
            ("aws_x.y", r#"aws_x.y["k"]"#, true),
            ("aws_x.y", "aws_x.yy", false),
            ("aws_x.y", "data.aws_x.y", false),
            ("aws_x.y", "module.a.aws_x.y", false),
            // state.Resource looks the module up by its exact instance address.
            ("module.a.aws_x.y", "module.a[0].aws_x.y", false),
            ("module.a[0].aws_x.y", "module.a[0].aws_x.y[3]", true),
            ("aws_x.y[0]", "aws_x.y[0]", true),
            ("aws_x.y[0]", "aws_x.y", false),
            ("aws_x.y[0]", r#"aws_x.y["0"]"#, false),
            ("aws_x.y[0]", "aws_x.y[1]", false),
        ]);
    }
}
