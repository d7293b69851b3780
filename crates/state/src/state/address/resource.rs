//! Resources and what lies inside them: the resource mode, a resource in a
//! module instance, one instance of it, and one object (current or deposed)
//! of an instance, with the order `terraform state list` sorts them in.

use std::cmp::Ordering;
use std::fmt;

use super::key::{InstanceKey, write_optional};
use super::module::ModulePath;
use super::{AddressError, parse};

/// The resource modes that can be recorded in a state file. Terraform's
/// `ephemeral` and `list` modes never reach state, so they are not modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Managed,
    Data,
}

/// Terraform's `Resource.Less` puts data resources before managed ones
/// (`r.Mode == DataResourceMode` when the modes differ), so `data.*` lines
/// come first within each module in `terraform state list`.
impl Ord for Mode {
    fn cmp(&self, other: &Self) -> Ordering {
        fn rank(mode: Mode) -> u8 {
            match mode {
                Mode::Data => 0,
                Mode::Managed => 1,
            }
        }
        rank(*self).cmp(&rank(*other))
    }
}

impl PartialOrd for Mode {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A resource (all of its instances) in a module instance.
///
/// The derived order (module, mode, type, name) is Terraform's
/// `AbsResource.Less`.
///
/// `Display` prints what Terraform prints, which for a managed resource whose
/// type is a mode keyword or a reserved word (`data`, `resource`, `count`,
/// `var`, ...) is text that only parses back with a `resource.` prefix.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceAddr {
    pub module: ModulePath,
    pub mode: Mode,
    pub type_name: String,
    pub name: String,
}

impl ResourceAddr {
    /// Parses an absolute resource address; an instance key is an error, as
    /// in Terraform's `ParseAbsResourceStr`.
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        parse::resource(s)
    }
}

impl fmt::Display for ResourceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.module.is_root() {
            write!(f, "{}.", self.module)?;
        }
        if self.mode == Mode::Data {
            f.write_str("data.")?;
        }
        write!(f, "{}.{}", self.type_name, self.name)
    }
}

/// One instance of a resource: the unit `terraform state list` prints.
///
/// The derived order (resource, then key with no key first) is Terraform's
/// `AbsResourceInstance.Less`, which `state list` sorts by.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceAddr {
    pub resource: ResourceAddr,
    pub key: Option<InstanceKey>,
}

impl InstanceAddr {
    /// Parses an absolute resource instance address; a resource address
    /// without a key is its single unkeyed instance, as in Terraform's
    /// `ParseAbsResourceInstanceStr`.
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        parse::instance(s)
    }
}

impl fmt::Display for InstanceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.resource)?;
        write_optional(f, self.key.as_ref())
    }
}

/// One object in the state: an instance's current object (`deposed: None`)
/// or one of its deposed objects.
///
/// Printed the way Terraform's UI names deposed objects,
/// `aws_x.y[0] (deposed object 0123abcd)`. Parsing also takes the form of
/// Terraform's `AbsResourceInstanceObject.String`,
/// `aws_x.y[0] deposed object 0123abcd`, since that appears in its logs.
///
/// The derived order (instance, then current before deposed, deposed keys
/// byte-wise) is Terraform's `AbsResourceInstanceObject.Less`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectAddr {
    pub instance: InstanceAddr,
    pub deposed: Option<String>,
}

impl ObjectAddr {
    pub fn parse(s: &str) -> Result<Self, AddressError> {
        parse::object(s)
    }
}

impl fmt::Display for ObjectAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.instance)?;
        match &self.deposed {
            Some(key) => write!(f, " (deposed object {key})"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        assert_round_trip_instance, instance, rejects, res, step, str_key, target,
    };
    use super::super::{InstanceKey, ModulePath, Target};
    use super::{InstanceAddr, Mode, ObjectAddr, ResourceAddr};

    #[test]
    fn round_trips_nested_module_instance() {
        let parsed = assert_round_trip_instance(r#"module.a["k"].module.b[0].aws_x.y["z"]"#);
        assert_eq!(
            parsed,
            InstanceAddr {
                resource: res(
                    ModulePath(
                        vec![
                            step("a", Some(str_key("k"))),
                            step("b", Some(InstanceKey::Int(0)))
                        ]
                        .into()
                    ),
                    Mode::Managed,
                    "aws_x",
                    "y",
                ),
                key: Some(str_key("z")),
            }
        );
        assert_eq!(
            parsed.resource.module.to_string(),
            r#"module.a["k"].module.b[0]"#
        );
    }

    #[test]
    fn round_trips_data_resources() {
        for s in [
            "data.aws_ami.ubuntu",
            "data.aws_ami.ubuntu[3]",
            "module.a.data.x.y",
            r#"module.a[1].module.b["c"].data.x.y["k"]"#,
        ] {
            let parsed = assert_round_trip_instance(s);
            assert_eq!(parsed.resource.mode, Mode::Data);
        }
        let r = ResourceAddr::parse("module.a.data.x.y").unwrap();
        assert_eq!(
            r,
            res(
                ModulePath(vec![step("a", None)].into()),
                Mode::Data,
                "x",
                "y"
            )
        );
        assert_eq!(r.to_string(), "module.a.data.x.y");
        assert_eq!(
            ResourceAddr::parse("aws_x.y").unwrap().to_string(),
            "aws_x.y"
        );
    }

    #[test]
    fn round_trips_deposed_objects() {
        for s in [
            "aws_x.y (deposed object 0123abcd)",
            r#"module.a["k"].aws_x.y[2] (deposed object deadbeef)"#,
            r#"data.x.y["(deposed object 00000000)"] (deposed object 00000000)"#,
            "aws_x.y",
        ] {
            let parsed = ObjectAddr::parse(s).unwrap();
            assert_eq!(parsed.to_string(), s);
            assert_eq!(ObjectAddr::parse(&parsed.to_string()).unwrap(), parsed);
        }
        let parsed = ObjectAddr::parse("aws_x.y[0] (deposed object 0123abcd)").unwrap();
        assert_eq!(parsed.deposed.as_deref(), Some("0123abcd"));
        assert_eq!(parsed.instance, instance("aws_x.y[0]"));
        // Terraform's own AbsResourceInstanceObject.String() form, and loose
        // spacing, are read too but printed in the UI form.
        let plain = ObjectAddr::parse("aws_x.y[0] deposed object 0123abcd").unwrap();
        assert_eq!(plain, parsed);
        let spaced = ObjectAddr::parse("aws_x.y[0]  ( deposed  object 0123abcd ) ").unwrap();
        assert_eq!(spaced, parsed);
    }

    #[test]
    fn specific_parsers_reject_the_wrong_kind() {
        rejects(
            InstanceAddr::parse,
            "  module.a",
            "expected a resource instance address, but this is a module path",
            Some(2),
        );
        rejects(
            ResourceAddr::parse,
            "aws_x.y [0]",
            "expected a resource address, but this names one instance of it",
            Some(8),
        );
        rejects(
            ResourceAddr::parse,
            "module.a",
            "expected a resource address, but this is a module path",
            None,
        );
        rejects(
            ObjectAddr::parse,
            "module.a (deposed object 01234567)",
            "a deposed object needs a resource instance address, but this is a module path",
            None,
        );
        rejects(
            InstanceAddr::parse,
            "aws_x.y (deposed object 01234567)",
            "expected \".\", \"[\" or the end of the address, found \"(\"",
            Some(8),
        );
    }

    /// Terraform prints a managed resource whose type is a keyword without
    /// the `resource.` prefix it needs to be parsed again; we print the same.
    #[test]
    fn keyword_type_names_need_the_resource_prefix() {
        let t = target("resource.count.x");
        assert_eq!(
            t,
            Target::Resource(res(ModulePath::root(), Mode::Managed, "count", "x"))
        );
        assert_eq!(t.to_string(), "count.x");
        let t = target("resource.data.x");
        assert_eq!(t.to_string(), "data.x");
        assert!(Target::parse("data.x").is_err());
    }

    /// Expected order: `terraform state list` sorts with
    /// `AbsResourceInstance.Less` (command/state_meta.go), i.e.
    /// `ModuleInstance.Less` (module_instance.go: shorter path first, then
    /// per step name then key), then `Resource.Less` (resource.go: data before
    /// managed, then type, then name), then `InstanceKeyLess`
    /// (instance_key.go: no key, then ints numerically, then strings
    /// byte-wise).
    #[test]
    fn sorts_like_terraform_state_list() {
        let expected = [
            "data.aws_caller_identity.current",
            "data.aws_caller_identity.current[0]",
            "aws_instance.a",
            "aws_instance.b[0]",
            "aws_instance.b[1]",
            "aws_instance.b[2]",
            "aws_instance.b[10]",
            r#"aws_instance.b["0"]"#,
            r#"aws_instance.c["B"]"#,
            r#"aws_instance.c["a"]"#,
            r#"aws_instance.c["a0"]"#,
            r#"aws_instance.c["b"]"#,
            r#"aws_instance.c["é"]"#,
            "aws_instance_x.a",
            "aws_s3_bucket.logs",
            "module.a.data.z.z",
            "module.a.aws_x.y",
            "module.a[0].aws_x.y",
            "module.a[1].aws_x.y",
            "module.a[10].aws_x.y",
            r#"module.a["k"].aws_x.y"#,
            "module.a-b.aws_x.y",
            "module.a_b.aws_x.y",
            "module.ab.aws_x.y",
            "module.z.aws_x.y",
            "module.a.module.z.aws_x.y",
            "module.a[0].module.a.aws_x.y",
            "module.b.module.a.aws_x.y",
            "module.a.module.a.module.a.aws_x.y",
        ];
        let mut addrs: Vec<InstanceAddr> = expected.iter().map(|s| instance(s)).collect();
        addrs.reverse();
        addrs.rotate_left(7);
        addrs.sort();
        let printed: Vec<String> = addrs.iter().map(ToString::to_string).collect();
        assert_eq!(printed, expected);
    }

    #[test]
    fn orders_pinned_pairwise() {
        let lt = |a: &str, b: &str| {
            assert!(instance(a) < instance(b), "{a} < {b}");
            assert!(instance(b) > instance(a), "{b} > {a}");
        };
        // module_instance.go ModuleInstance.Less: length beats names, so the
        // root module comes first and `module.z` precedes `module.a.module.b`.
        lt("zzz.zzz", "module.a.aaa.aaa");
        lt("module.z.aws_x.a", "module.a.module.b.aws_x.a");
        // ...and it is compared before the resource, so mode does not matter
        // across modules.
        lt("aws_x.a", "module.a.data.x.y");
        // resource.go Resource.Less: data sorts before managed in one module,
        // regardless of type and name.
        lt("data.zzz.zzz", "aaa.aaa");
        lt("module.m.data.z.z", "module.m.a.a");
        // Then type before name, byte-wise.
        lt("aws_a.z", "aws_b.a");
        lt("aws_a.a", "aws_a.b");
        lt("aws_x.Z", "aws_x.a");
        // instance_key.go InstanceKeyLess: no key < ints < strings.
        lt("aws_x.y", "aws_x.y[0]");
        lt("aws_x.y[2]", "aws_x.y[10]");
        lt("aws_x.y[99]", r#"aws_x.y["0"]"#);
        lt(r#"aws_x.y["10"]"#, r#"aws_x.y["2"]"#);
        lt(r#"aws_x.y[""]"#, r#"aws_x.y["a"]"#);
        lt(r#"aws_x.y["z"]"#, r#"aws_x.y["é"]"#);
        // Module steps compare name before key.
        lt(r#"module.a["z"].x.y"#, "module.b.x.y");
        lt("module.a.x.y", "module.a[0].x.y");

        let m = |s: &str| ModulePath::parse(s).unwrap();
        assert!(m("") < m("module.z"));
        assert!(m("module.z") < m("module.a.module.a"));
        assert!(InstanceKey::Int(i64::MAX) < InstanceKey::Str(String::new()));
        assert!(Mode::Data < Mode::Managed);

        // resource.go AbsResourceInstanceObject.Less: the current object
        // before deposed ones, deposed keys byte-wise.
        let o = |s: &str| ObjectAddr::parse(s).unwrap();
        assert!(o("aws_x.y") < o("aws_x.y (deposed object 00000000)"));
        assert!(o("aws_x.y (deposed object 00000000)") < o("aws_x.y (deposed object 0000000a)"));
        assert!(o("aws_x.y (deposed object ffffffff)") < o("aws_x.y[0]"));
    }
}
