//! The one module loader: the configuration files of a module folder, picked as Terraform and
//! OpenTofu pick them, read once, and each parsed at most once (when a reader first asks), for the
//! lifecycle blocks, the values, the provider blocks and the encryption block alike. A file no
//! reader parses is never parsed: statectl also runs in folders whose configuration uses syntax
//! newer than its HCL parser, where only the `encryption` block may matter.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hcl::edit::structure::Body;
use serde_json::Value;

use crate::ConfigError;

/// One module folder's configuration files, read.
#[derive(Debug)]
pub struct Module {
    dir: PathBuf,
    files: Vec<SourceFile>,
}

/// One `.tf`, `.tf.json`, `.tofu` or `.tofu.json` file: its text, and its parse once made.
#[derive(Debug)]
pub(crate) struct SourceFile {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    native: OnceLock<Result<Body, ConfigError>>,
    json: OnceLock<Result<Value, ConfigError>>,
}

impl Module {
    /// Reads the configuration files of the module folder `dir`.
    pub fn read(dir: &Path) -> Result<Module, ConfigError> {
        let files = module_files(dir).map_err(|error| {
            ConfigError::new(format!(
                "{}: cannot read the folder: {error}",
                dir.display()
            ))
        })?;
        Module::read_files(dir, files)
    }

    /// [`Module::read`], or no files when the folder cannot be listed: for what a run finds in its
    /// working directory only if it is there (the `encryption` block).
    pub fn read_if_listable(dir: &Path) -> Result<Module, ConfigError> {
        Module::read_files(dir, module_files(dir).unwrap_or_default())
    }

    fn read_files(dir: &Path, paths: Vec<PathBuf>) -> Result<Module, ConfigError> {
        let mut files = Vec::with_capacity(paths.len());
        for path in paths {
            let text = statectl_state::state::bytes::read_text(&path).map_err(|error| {
                ConfigError::new(format!(
                    "{}: cannot read: {}",
                    path.display(),
                    statectl_state::state::source::problem(&error)
                ))
            })?;
            files.push(SourceFile {
                path,
                text,
                native: OnceLock::new(),
                json: OnceLock::new(),
            });
        }
        Ok(Module {
            dir: dir.to_owned(),
            files,
        })
    }

    /// The folder, as given.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the folder holds no configuration file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub(crate) fn files(&self) -> &[SourceFile] {
        &self.files
    }
}

impl SourceFile {
    /// `.tf.json` or `.tofu.json`: Terraform's JSON syntax.
    pub(crate) fn is_json(&self) -> bool {
        self.path
            .extension()
            .is_some_and(|extension| extension == "json")
    }

    /// The native syntax through hcl-edit, which keeps the byte spans that give a block its line.
    pub(crate) fn native(&self) -> Result<&Body, ConfigError> {
        self.native
            .get_or_init(|| {
                hcl::edit::parser::parse_body(&self.text).map_err(|error| {
                    let location = error.location();
                    ConfigError::new(format!(
                        "{}:{}:{}: invalid configuration: {}",
                        self.path.display(),
                        location.line(),
                        location.column(),
                        error.message().lines().next().unwrap_or_default()
                    ))
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The JSON syntax's document (serde_json keeps no positions: blocks from it have no line).
    pub(crate) fn json(&self) -> Result<&Value, ConfigError> {
        self.json
            .get_or_init(|| {
                serde_json::from_str(&self.text).map_err(|error| {
                    let full = error.to_string();
                    let position = format!(" at line {} column {}", error.line(), error.column());
                    ConfigError::new(format!(
                        "{}:{}:{}: invalid configuration: {}",
                        self.path.display(),
                        error.line(),
                        error.column(),
                        full.strip_suffix(&position).unwrap_or(&full)
                    ))
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// The configuration files of a module folder as Terraform and OpenTofu pick them: `*.tf`,
/// `*.tf.json`, `*.tofu` and `*.tofu.json` directly in it, not hidden, sorted by name; where
/// `NAME.tofu` (`NAME.tofu.json`) sits beside `NAME.tf` (`NAME.tf.json`), only the `.tofu` file,
/// as OpenTofu loads it. (Terraform also ignores editor leftovers such as `main.tf~` and
/// `#main.tf#`, which the extension already rules out.) Override files are left out: they patch
/// blocks declared in other files, and reading them would need Terraform's merge rules.
fn module_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let Some((stem, _)) = config_file_stem(name) else {
            continue;
        };
        if name.starts_with('.') || stem == "override" || stem.ends_with("_override") {
            continue;
        }
        let path = entry.path();
        if path.is_file() {
            files.push(path);
        }
    }
    // OpenTofu's extension precedence: `main.tofu` hides `main.tf`, `main.tofu.json` hides
    // `main.tf.json`.
    let shadowed: Vec<PathBuf> = files
        .iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?;
            let (stem, tofu) = config_file_stem(name)?;
            let json = Path::new(name)
                .extension()
                .is_some_and(|extension| extension == "json");
            (!tofu).then(|| {
                path.with_file_name(format!("{stem}.tofu{}", if json { ".json" } else { "" }))
            })
        })
        .filter(|tofu| files.contains(tofu))
        .map(|tofu| {
            let name = tofu
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or_default();
            tofu.with_file_name(name.replacen(".tofu", ".tf", 1))
        })
        .collect();
    files.retain(|path| !shadowed.contains(path));
    files.sort();
    Ok(files)
}

/// The name without its configuration extension, and whether it is OpenTofu's own (`.tofu`,
/// `.tofu.json`); `None` for any other file.
fn config_file_stem(name: &str) -> Option<(&str, bool)> {
    if let Some(stem) = name
        .strip_suffix(".tofu.json")
        .or_else(|| name.strip_suffix(".tofu"))
    {
        return Some((stem, true));
    }
    name.strip_suffix(".tf.json")
        .or_else(|| name.strip_suffix(".tf"))
        .map(|stem| (stem, false))
}

/// Whether `dir` holds any configuration file Terraform or OpenTofu would load (`*.tf`,
/// `*.tf.json`, `*.tofu`, `*.tofu.json`): a working directory that is a root module.
pub fn holds_configuration(dir: &Path) -> bool {
    module_files(dir).is_ok_and(|files| !files.is_empty())
}
