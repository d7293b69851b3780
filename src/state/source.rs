//! Where a state comes from: a path, standard input (`-`), or Terraform's default `terraform.tfstate`.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::state::bytes::{self, Bytes};
use crate::state::error::StateError;

/// The file Terraform's local backend uses when no path is given.
pub const DEFAULT_STATE: &str = "terraform.tfstate";

/// A state's origin, named the way errors show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Path(PathBuf),
    Stdin,
}

impl Source {
    /// `-` is standard input; no argument means `terraform.tfstate` in the working directory.
    pub fn from_arg(arg: Option<&Path>) -> Source {
        match arg {
            Some(path) if path.as_os_str() == "-" => Source::Stdin,
            Some(path) => Source::Path(path.to_owned()),
            None => Source::Path(PathBuf::from(DEFAULT_STATE)),
        }
    }

    /// Reads all bytes. A missing default file gets a hint on how to name one.
    pub fn read(&self) -> Result<Bytes, StateError> {
        match self {
            Source::Stdin => {
                let mut bytes = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut bytes)
                    .map_err(|error| StateError::new(format!("cannot read standard input: {error}")))?;
                Ok(Bytes::Heap(bytes))
            }
            Source::Path(path) => bytes::read_file(path).map_err(|error| {
                let problem = match error.kind() {
                    std::io::ErrorKind::NotFound => "no such file".to_owned(),
                    std::io::ErrorKind::IsADirectory => "it is a directory, not a state file".to_owned(),
                    _ => error.to_string(),
                };
                let error = StateError::new(format!("cannot read the state: {problem}"));
                if path.as_os_str() == DEFAULT_STATE {
                    error.with_hint("name a state file, or `-` to read standard input (`terraform state pull | statectl list -`)")
                } else {
                    error
                }
            }),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Path(path) => write!(formatter, "{}", path.display()),
            Source::Stdin => formatter.write_str("<stdin>"),
        }
    }
}
