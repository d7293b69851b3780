//! Reads what a Terraform or OpenTofu configuration says about destroying its resources: the
//! `lifecycle` settings of `resource` and `data` blocks and the `removed` blocks, in the root module's
//! `.tf` and `.tf.json` files and in those of the local modules it calls. Nothing is evaluated:
//! Terraform itself takes these settings only as literals, so they can be read without variables,
//! providers or `terraform init`. Override files are skipped, and modules from registries or git are
//! listed, not read.
//!
//! The native syntax is parsed with `hcl::edit` (hcl-edit, which hcl-rs re-exports) rather than into
//! `hcl::Body`, because only hcl-edit keeps the byte spans that give each block its line. The JSON
//! syntax is read with serde_json, which keeps no positions, so blocks from `.tf.json` files have
//! line 0.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use statectl_state::state::address::{Mode, ResourceAddr};

use crate::ConfigError;
use crate::module::Module;

/// Lifecycle settings of the resources a configuration declares, read from the root module's `.tf`
/// (and `.tf.json`) files and those of the local modules it calls.
#[derive(Debug, Default, Clone)]
pub struct Config {
    pub resources: Vec<ConfigResource>,
    pub removed: Vec<RemovedBlock>,
    /// Module calls whose source is not a local path (registry, git, ...): not read. For a warning.
    pub skipped_modules: Vec<SkippedModule>,
}

/// A `resource` or `data` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigResource {
    /// Module call names from the root, e.g. `["net", "subnets"]` for `module.net.module.subnets`
    /// (keys of `count`/`for_each` modules do not appear: the settings apply to every instance).
    pub module: Vec<String>,
    /// `Managed` for `resource`, `Data` for `data`.
    pub mode: Mode,
    pub type_name: String,
    pub name: String,
    pub prevent_destroy: bool,
    pub create_before_destroy: bool,
    /// OpenTofu's `lifecycle { destroy = false }` on a resource (persisted in state as
    /// `skip_destroy`). None when not set.
    pub destroy: Option<bool>,
    /// The file it is declared in (the path as joined from the folder given).
    pub file: PathBuf,
    /// 1-based line of the block; 0 in a `.tf.json` file.
    pub line: usize,
}

/// A `removed` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedBlock {
    /// Module call names of the module the block sits in.
    pub module: Vec<String>,
    /// The `from` address as written (e.g. `aws_instance.a`, `module.old`), relative to that module.
    pub from: String,
    /// `lifecycle { destroy = false }` in the removed block; None when not set.
    pub destroy: Option<bool>,
    pub file: PathBuf,
    /// 1-based line of the block; 0 in a `.tf.json` file.
    pub line: usize,
}

/// A module call that was not read because its source is not a local folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedModule {
    /// Module call names from the root, ending with the skipped call's own name.
    pub module: Vec<String>,
    pub source: String,
}

const ROOT_HINT: &str = "--config takes the root module's folder";

impl Config {
    /// Reads the configuration in `dir` (a root module folder) and the local modules it calls.
    pub fn read(dir: &Path) -> Result<Config, ConfigError> {
        let root = Module::read(dir).map_err(|error| error.with_hint(ROOT_HINT))?;
        if root.is_empty() {
            return Err(ConfigError::new(format!(
                "{}: no Terraform configuration files (*.tf, *.tofu) here",
                dir.display()
            ))
            .with_hint(ROOT_HINT));
        }
        let folder = fs::canonicalize(dir).map_err(|error| {
            ConfigError::new(format!(
                "{}: cannot read the folder: {error}",
                dir.display()
            ))
        })?;
        let mut config = Config::default();
        let mut chain = vec![Frame {
            folder,
            module: Vec::new(),
        }];
        read_module(&mut config, &root, &[], &mut chain)?;
        Ok(config)
    }

    /// The `resource`/`data` block that declares `address`: same mode, type, name, and module call
    /// names (the ModulePath's steps' `name`s, ignoring their keys).
    pub fn resource(&self, address: &ResourceAddr) -> Option<&ConfigResource> {
        let steps = &address.module.0;
        self.resources.iter().find(|resource| {
            resource.mode == address.mode
                && resource.type_name == address.type_name
                && resource.name == address.name
                && resource.module.len() == steps.len()
                && resource
                    .module
                    .iter()
                    .zip(steps.iter())
                    .all(|(name, step)| *name == step.name)
        })
    }
}

/// A module folder being read and the module it is read as. The chain of these from the root tells a
/// module that calls itself (which Terraform would follow until the path grows too long) from one
/// folder called twice side by side, which is fine.
struct Frame {
    folder: PathBuf,
    module: Vec<String>,
}

/// What one module's files declare, before the module-wide checks.
#[derive(Default)]
struct Declarations {
    resources: Vec<(ConfigResource, Place)>,
    removed: Vec<RemovedBlock>,
    calls: Vec<Call>,
}

struct Call {
    name: String,
    source: String,
    place: Place,
}

/// Where a block or an argument is: `file:line:column`, or only the file in the JSON syntax.
#[derive(Debug, Clone)]
struct Place {
    file: PathBuf,
    line: usize,
    column: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(formatter, "{}", self.file.display())
        } else {
            write!(
                formatter,
                "{}:{}:{}",
                self.file.display(),
                self.line,
                self.column
            )
        }
    }
}

fn read_module(
    config: &mut Config,
    source: &Module,
    module: &[String],
    chain: &mut Vec<Frame>,
) -> Result<(), ConfigError> {
    let dir = source.dir();
    let mut found = Declarations::default();
    for file in source.files() {
        if file.is_json() {
            read_json(&file.path, file.json()?, module, &mut found)?;
        } else {
            Native::new(&file.path, &file.text).read(file.native()?, module, &mut found)?;
        }
    }

    let mut declared: HashMap<(Mode, &str, &str), &Place> = HashMap::new();
    for (resource, place) in &found.resources {
        let key = (resource.mode, &*resource.type_name, &*resource.name);
        if let Some(first) = declared.insert(key, place) {
            let kind = match resource.mode {
                Mode::Managed => "resource",
                Mode::Data => "data",
            };
            return Err(ConfigError::new(format!(
                "{place}: duplicate {kind} \"{}\" \"{}\", already declared at {first}",
                resource.type_name, resource.name
            ))
            .with_hint("Terraform requires resource names to be unique per type in each module"));
        }
    }
    let mut called: HashMap<&str, &Place> = HashMap::new();
    for call in &found.calls {
        if let Some(first) = called.insert(&call.name, &call.place) {
            return Err(ConfigError::new(format!(
                "{}: duplicate module call `{}`, already declared at {first}",
                call.place, call.name
            )));
        }
    }

    config
        .resources
        .extend(found.resources.into_iter().map(|(resource, _)| resource));
    config.removed.extend(found.removed);
    for call in found.calls {
        let mut child = module.to_vec();
        child.push(call.name.clone());
        if !(call.source.starts_with("./") || call.source.starts_with("../")) {
            config.skipped_modules.push(SkippedModule {
                module: child,
                source: call.source,
            });
            continue;
        }
        // Dropping the `.` steps keeps the paths in messages and in `file` readable; `..` steps stay,
        // since removing them would be wrong across symbolic links.
        let child_dir: PathBuf = dir.join(&call.source).components().collect();
        let missing = || {
            ConfigError::new(format!(
                "{}: module `{}`: no folder at `{}`",
                call.place,
                call.name,
                child_dir.display()
            ))
            .with_hint("check the module's `source`")
        };
        let folder = fs::canonicalize(&child_dir).map_err(|_| missing())?;
        if !folder.is_dir() {
            return Err(missing());
        }
        if let Some(caller) = chain.iter().find(|frame| frame.folder == folder) {
            return Err(ConfigError::new(format!(
                "{}: module cycle: {} calls `{}`, the folder of {}",
                call.place,
                describe_module(&child),
                call.source,
                describe_module(&caller.module)
            ))
            .with_hint("a module cannot call itself, directly or through the modules it calls"));
        }
        let files = Module::read(&child_dir)?;
        chain.push(Frame {
            folder,
            module: child.clone(),
        });
        read_module(config, &files, &child, chain)?;
        chain.pop();
    }
    Ok(())
}

fn describe_module(module: &[String]) -> String {
    if module.is_empty() {
        return "the root module".to_owned();
    }
    let path: Vec<String> = module.iter().map(|name| format!("module.{name}")).collect();
    format!("`{}`", path.join("."))
}

mod arguments;
mod json;
mod native;

use json::read_json;
use native::Native;

#[cfg(test)]
mod tests;
