//! Where a state comes from: a path, standard input (`-`), Terraform's default `terraform.tfstate`, or
//! a remote backend.

use std::fmt;
use std::fs::File;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::state::bytes::{self, Bytes};
use crate::state::error::StateError;
use crate::state::read_stamps::BeforeReading;
use crate::state::sniff;
use crate::state::store::RemoteState;

/// The file Terraform's local backend uses when no path is given.
pub const DEFAULT_STATE: &str = "terraform.tfstate";

/// A state's origin, named the way errors show it.
#[derive(Debug, Clone)]
pub enum Source {
    Path(PathBuf),
    Stdin,
    /// A state a remote backend keeps (S3, HTTP), named by its location.
    Remote(Arc<dyn RemoteState>),
}

impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        match (self, other) {
            (Source::Path(one), Source::Path(other)) => one == other,
            (Source::Stdin, Source::Stdin) => true,
            (Source::Remote(one), Source::Remote(other)) => one.location() == other.location(),
            _ => false,
        }
    }
}

impl Eq for Source {}

impl Source {
    /// `-` is standard input; no argument means `terraform.tfstate` in the working directory.
    pub fn from_arg(arg: Option<&Path>) -> Source {
        match arg {
            Some(path) if path.as_os_str() == "-" => Source::Stdin,
            Some(path) => Source::Path(path.to_owned()),
            None => Source::Path(PathBuf::from(DEFAULT_STATE)),
        }
    }

    /// [`Source::read_only`], but a remote backend's "no state there" is `Ok(None)`. For an object a
    /// listing just found, that means an empty one (Terraform's azurerm lock leaves one behind; a
    /// console's folder marker is one), which Terraform reads as no state at all. Only for commands
    /// that read (a scan, a summary): a local file may be mapped.
    pub fn read_existing(&self) -> Result<Option<Bytes>, StateError> {
        let Source::Remote(backend) = self else {
            return self.read_only().map(Some);
        };
        let Some(bytes) = backend
            .get()
            .map_err(|error| remote_error(&backend.location(), error))?
        else {
            return Ok(None);
        };
        let prefix = &bytes[..bytes.len().min(sniff::PREFIX)];
        sniff::bytes(prefix, false).map_err(|error| error.located_in(prefix))?;
        Ok(Some(Bytes::from(bytes)))
    }

    /// Reads all bytes. A missing default file gets a hint on how to name one. What is plainly not a
    /// state (a device, an encrypted or compressed file) is refused from its first bytes, before the
    /// rest is read; a pipe or standard input is read up to [`bytes::MAX_STATE_BYTES`].
    pub fn read(&self) -> Result<Bytes, StateError> {
        self.read_as(Access::Copied)
    }

    /// [`Source::read`] for a command that only reads: a large local file is mapped read-only
    /// instead of copied (see `bytes::map_all`). The bytes must not be committed back.
    pub fn read_only(&self) -> Result<Bytes, StateError> {
        self.read_as(Access::Mapped)
    }

    fn read_as(&self, access: Access) -> Result<Bytes, StateError> {
        match self {
            Source::Remote(backend) => self.read_existing()?.ok_or_else(|| {
                remote_error(
                    &backend.location(),
                    crate::state::store::remote::no_state(backend.as_ref()),
                )
            }),
            Source::Stdin => {
                let stdin = std::io::stdin();
                let mut stdin = stdin.lock();
                let cannot = |error: std::io::Error| {
                    StateError::new(format!("cannot read standard input: {}", problem(&error)))
                };
                let prefix = bytes::read_prefix(&mut stdin, sniff::PREFIX).map_err(cannot)?;
                sniff::bytes(&prefix, false).map_err(|error| error.located_in(&prefix))?;
                let bytes = bytes::read_stream(stdin, prefix).map_err(cannot)?;
                if bytes.trim_ascii().is_empty() {
                    return Err(StateError::new("standard input is empty").with_hint(
                        "`terraform state pull` prints nothing when there is no state yet; is the pipe's other end in the right folder?",
                    ));
                }
                Ok(bytes)
            }
            Source::Path(path) => read_path(path, access).map_err(|error| {
                let error = match error {
                    Refused::Io(error) => StateError::new(format!(
                        "cannot read the state: {}",
                        problem(&error)
                    )),
                    Refused::State(error) => return error,
                };
                if path.to_string_lossy().contains("://") {
                    error.with_hint("statectl reads `s3://`, `gs://`, `azurerm://`, `oci://` and `http(s)://` URLs; for another backend, run it where `terraform init` ran, or `terraform state pull | statectl list -`")
                } else if path.as_os_str() == DEFAULT_STATE {
                    error.with_hint("name a state file, or `-` to read standard input (`terraform state pull | statectl list -`)")
                } else {
                    error
                }
            }),
        }
    }
}

/// A backend's error as a state error; its message already names the location, which
/// [`StateError`]'s rendering adds again, so the location is taken off the front.
fn remote_error(location: &str, error: crate::state::store::StoreError) -> StateError {
    let message = error
        .message
        .strip_prefix(location)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&error.message)
        .to_owned();
    let state_error = StateError::new(message);
    match error.hint {
        Some(hint) => state_error.with_hint(hint),
        None => state_error,
    }
}

/// How a local file's bytes are held: copied (a write compares them with the file later) or mapped.
#[derive(Debug, Clone, Copy)]
enum Access {
    Copied,
    Mapped,
}

enum Refused {
    Io(std::io::Error),
    State(StateError),
}

/// A file by path: a regular file (mapped when large), or a pipe such as the `/dev/fd/63` of a
/// shell's `<(terraform state pull)`, read as a stream. A named pipe elsewhere is refused before it is
/// opened (opening one that has no writer would wait forever).
fn read_path(path: &Path, access: Access) -> Result<Bytes, Refused> {
    // `metadata` first: opening a socket fails with a puzzling "no such device or address".
    let metadata = std::fs::metadata(path).map_err(Refused::Io)?;
    let readable = bytes::readable(path, &metadata).map_err(|error| {
        if metadata.file_type().is_fifo() {
            Refused::State(
                StateError::new(format!("cannot read the state: {error}"))
                    .with_hint(bytes::PIPE_HINT),
            )
        } else {
            Refused::Io(error)
        }
    })?;
    let mut file = File::open(path).map_err(Refused::Io)?;
    // Read once, for the stamp and for the size (a folder of small states pays for every look).
    let opened = file.metadata();
    let before = BeforeReading::of_metadata(opened.as_ref().ok());
    let sniffed = |prefix: &[u8]| {
        sniff::bytes(prefix, false).map_err(|error| Refused::State(error.located_in(prefix)))
    };
    let small = match (&readable, &opened) {
        (bytes::Readable::File, Ok(metadata)) => {
            bytes::read_small(&file, metadata).map_err(Refused::Io)?
        }
        _ => None,
    };
    let read = if let Some(whole) = small {
        sniffed(&whole[..whole.len().min(sniff::PREFIX)])?;
        Bytes::Heap(whole)
    } else {
        let prefix = bytes::read_prefix(&mut file, sniff::PREFIX).map_err(Refused::Io)?;
        sniffed(&prefix)?;
        match readable {
            bytes::Readable::Pipe => return bytes::read_stream(file, prefix).map_err(Refused::Io),
            bytes::Readable::File => {
                let metadata = opened.map_err(Refused::Io)?;
                bytes::read_known(&file, &metadata, &prefix, matches!(access, Access::Copied))
                    .map_err(Refused::Io)?
            }
        }
    };
    if let Bytes::Shared { .. } = read {
        before.watch_mapped(path);
    } else if before.rewritten_open(&file, path) {
        return Err(Refused::State(rewritten_while_read()));
    }
    Ok(read)
}

/// The error for a state rewritten in place while statectl read it: at once for a copy, and by the
/// CLI when the command ends for a mapped one.
pub fn rewritten_while_read() -> StateError {
    StateError::new("the state file was rewritten while statectl read it (another process wrote it in place, as Terraform's local backend does); nothing was written")
        .with_hint("run the command again once the other process is done")
}

/// An I/O error in words, without Rust's `(os error N)` suffix.
pub fn problem(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        std::io::ErrorKind::IsADirectory => "it is a directory, not a file".to_owned(),
        _ if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            "too many levels of symbolic links (a symlink loop?)".to_owned()
        }
        _ if error.raw_os_error() == Some(rustix::io::Errno::NAMETOOLONG.raw_os_error()) => {
            "the file name is too long".to_owned()
        }
        _ => {
            let text = error.to_string();
            match text.find(" (os error") {
                Some(end) => text[..end].to_owned(),
                None => text,
            }
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Path(path) => write!(formatter, "{}", path.display()),
            Source::Stdin => formatter.write_str("<stdin>"),
            Source::Remote(backend) => formatter.write_str(&backend.location()),
        }
    }
}
