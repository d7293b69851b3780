//! Replacing a state file so that a crash at any moment leaves the old file or the new one, never a
//! torn mix: the new bytes go to a temporary file in the same folder, are flushed, and are renamed over
//! the state; the folder entry is flushed too.
//!
//! Terraform itself rewrites in place under its lock (truncate, write, fsync), which a crash mid-write
//! leaves torn. A rename is atomic, but it moves the path to a new file while other processes may hold
//! the old one open, waiting for its lock. statectl's own waiters check, once they hold a lock, that the
//! file is still the one at the path (see `lock`). A Terraform waiting with `-lock-timeout` does not: it
//! would lock the old file, read it and write its update into a file no name points to any more. So
//! before the lock is released the old file is made unreadable as a state ([`poison`]): that Terraform
//! fails to load the state and stops, instead of losing its update.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What a superseded state file's first bytes become: not JSON (Terraform refuses to load it), not
/// empty (Terraform would read an empty file as "no state yet"), and saying why to whoever looks.
pub const POISON: &[u8] = b"statectl replaced this state file with a new one at the same path; this copy is stale, read the state again\n";

/// Writes `pieces`, one after the other, to a new temporary file beside `target`, flushed, for
/// [`put_in_place`]. `like` is the file being replaced, whose mode (and owner, where the process may
/// set it) the new file takes: a 0600 state stays 0600. On an error, nothing is left behind.
pub(super) fn write_temporary(target: &Path, pieces: &[&[u8]], like: &File) -> io::Result<PathBuf> {
    let temporary = temporary_path(target);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)?;
    let written = (|| {
        set_mode_like(&file, like)?;
        set_owner_like(&file, like);
        for piece in pieces {
            file.write_all(piece)?;
        }
        file.sync_all()
    })();
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    Ok(temporary)
}

/// Renames the `temporary` file [`write_temporary`] wrote over `target`, and flushes the folder.
pub(super) fn put_in_place(temporary: &Path, target: &Path) -> io::Result<()> {
    if let Err(error) = std::fs::rename(temporary, target) {
        let _ = std::fs::remove_file(temporary);
        return Err(error);
    }
    sync_folder(target)
}

/// Makes the superseded file `old` unreadable as a state, when no other name links to it. Only its
/// first bytes are overwritten: a reader that already streamed past them still reads the old state
/// whole, and one that starts now fails cleanly.
pub(super) fn poison(old: &File) -> io::Result<()> {
    if old.metadata()?.nlink() > 0 {
        return Ok(());
    }
    old.write_all_at(POISON, 0)?;
    old.sync_data()
}

/// Removes temporary files that writers killed mid-write left beside `target`. Only a lock holder
/// writes them, so under the lock every one found is a leftover.
pub(super) fn remove_leftovers(target: &Path) {
    let (folder, prefix) = (folder_of(target), temporary_prefix(target));
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Gives `file` the permission bits of `like`, whatever the umask did at creation.
pub(super) fn set_mode_like(file: &File, like: &File) -> io::Result<()> {
    file.set_permissions(like.metadata()?.permissions())
}

/// Gives `file` the owner and group of `like`. Only root (or the owner, for a group it belongs to) may;
/// otherwise the new file is the user's own, as any file they write.
fn set_owner_like(file: &File, like: &File) {
    if let Ok(metadata) = like.metadata() {
        let owner = rustix::process::Uid::from_raw(metadata.uid());
        let group = rustix::process::Gid::from_raw(metadata.gid());
        let _ = rustix::fs::fchown(file, Some(owner), Some(group));
    }
}

/// Flushes the folder holding `path`, so that a rename or a new file survives a power cut.
pub(super) fn sync_folder(path: &Path) -> io::Result<()> {
    File::open(folder_of(path))?.sync_all()
}

pub(super) fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

pub(super) fn temporary_prefix(target: &Path) -> String {
    let name = target
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    format!(".{name}.statectl-")
}

/// `.terraform.tfstate.statectl-<pid>.tmp` beside the target: hidden, and named for cleanup.
fn temporary_path(target: &Path) -> PathBuf {
    let mut name = OsString::from(temporary_prefix(target));
    name.push(format!("{}.tmp", std::process::id()));
    folder_of(target).join(name)
}
