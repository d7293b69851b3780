//! TEMPORARY stub, replaced by the real address module.
use std::fmt;
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    Int(i64),
    Str(String),
}
impl fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::Str(s) => write!(f, "[{s:?}]"),
        }
    }
}
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleStep {
    pub name: String,
    pub key: Option<InstanceKey>,
}
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ModulePath(pub Vec<ModuleStep>);
impl fmt::Display for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "module.{}", s.name)?;
            if let Some(k) = &s.key {
                write!(f, "{k}")?;
            }
        }
        Ok(())
    }
}
impl std::str::FromStr for ModulePath {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, AddressError> {
        if s.is_empty() {
            return Ok(ModulePath(vec![]));
        }
        Ok(ModulePath(
            s.split('.')
                .filter(|p| *p != "module")
                .map(|n| ModuleStep {
                    name: n.to_owned(),
                    key: None,
                })
                .collect(),
        ))
    }
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Data,
    Managed,
}
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceAddr {
    pub module: ModulePath,
    pub mode: Mode,
    pub type_name: String,
    pub name: String,
}
impl fmt::Display for ResourceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.module.0.is_empty() {
            write!(f, "{}.", self.module)?;
        }
        if self.mode == Mode::Data {
            f.write_str("data.")?;
        }
        write!(f, "{}.{}", self.type_name, self.name)
    }
}
impl std::str::FromStr for ResourceAddr {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, AddressError> {
        let parts: Vec<&str> = s.rsplitn(2, '.').collect();
        if parts.len() != 2 {
            return Err(AddressError {
                message: "bad".into(),
                offset: 0,
            });
        }
        Ok(ResourceAddr {
            module: ModulePath::default(),
            mode: Mode::Managed,
            type_name: parts[1].into(),
            name: parts[0].into(),
        })
    }
}
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceAddr {
    pub resource: ResourceAddr,
    pub key: Option<InstanceKey>,
}
impl fmt::Display for InstanceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.resource)?;
        if let Some(k) = &self.key {
            write!(f, "{k}")?;
        }
        Ok(())
    }
}
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectAddr {
    pub instance: InstanceAddr,
    pub deposed: Option<String>,
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Module(ModulePath),
    Resource(ResourceAddr),
    Instance(InstanceAddr),
}
impl Target {
    pub fn matches(&self, i: &InstanceAddr) -> bool {
        match self {
            Target::Module(m) => i.resource.module.0.starts_with(&m.0),
            Target::Resource(r) => &i.resource == r,
            Target::Instance(x) => x == i,
        }
    }
}
impl std::str::FromStr for Target {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, AddressError> {
        Ok(Target::Resource(s.parse()?))
    }
}
impl std::str::FromStr for ObjectAddr {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, AddressError> {
        Ok(ObjectAddr {
            instance: InstanceAddr {
                resource: s.parse()?,
                key: None,
            },
            deposed: None,
        })
    }
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressError {
    pub message: String,
    pub offset: usize,
}
impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
