//! The backup written before a state is replaced: the old bytes, exactly, under the name `terraform
//! state rm` uses (`<state>.<unix-seconds>.backup`) unless the user names one.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::state::store::replace::{set_mode_like, sync_folder};

/// Where the backup goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backup {
    /// `<state>.<unix-seconds>.backup`, as `terraform state rm` names it.
    Timestamped,
    /// A path the user chose (`--backup PATH`); an existing file there is replaced.
    At(PathBuf),
    /// No backup (`--backup -`).
    Skip,
}

/// Writes `bytes` as the backup of the state at `state`, with the state's mode (a backup holds the
/// same secrets), flushed to disk with its folder entry before the state itself is touched.
pub(super) fn write_backup(
    choice: &Backup,
    state: &Path,
    bytes: &[u8],
    like: &File,
) -> io::Result<Option<PathBuf>> {
    write(choice, state, bytes, Some(like))
}

/// Writes the old bytes of a remote state to a local backup: the user's path, or
/// `<name>.<seconds>.backup` in the working directory (mode 0600: a state holds secrets).
pub(super) fn write_remote_backup(
    choice: &Backup,
    name: &str,
    bytes: &[u8],
) -> io::Result<Option<PathBuf>> {
    write(choice, &super::remote::backup_base(name), bytes, None)
}

/// The backup `choice` names (timestamped beside `base`), mode 0600 or `like`'s, flushed with its
/// folder entry.
fn write(
    choice: &Backup,
    base: &Path,
    bytes: &[u8],
    like: Option<&File>,
) -> io::Result<Option<PathBuf>> {
    let (path, mut file) = match choice {
        Backup::Skip => return Ok(None),
        Backup::At(path) => {
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(path)?;
            (path.clone(), file)
        }
        Backup::Timestamped => timestamped(base)?,
    };
    if let Some(like) = like {
        set_mode_like(&file, like)?;
    }
    file.write_all(bytes)?;
    file.sync_all()?;
    sync_folder(&path)?;
    Ok(Some(path))
}

/// Creates `<state>.<seconds>.backup`, never replacing an older backup: two writes within one second
/// get `<state>.<seconds>.1.backup` and so on, because the first backup holds the oldest state.
fn timestamped(state: &Path) -> io::Result<(PathBuf, File)> {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let base = state.as_os_str().to_string_lossy();
    for attempt in 0..1000 {
        let path = if attempt == 0 {
            PathBuf::from(format!("{base}.{seconds}.backup"))
        } else {
            PathBuf::from(format!("{base}.{seconds}.{attempt}.backup"))
        };
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "a thousand backups were written within one second",
    ))
}
