//! Whether a local state file read without a lock (the reading commands, drift, a refresh's first
//! read) was rewritten in place while statectl read it.
//! Terraform's local backend rewrites its state in place (truncate, then write; during an apply
//! too), so a read that overlapped such a write may hold half the old state and half the new, and
//! whatever the command answered from it cannot be trusted. A copy is checked as soon as it is
//! made; a mapping, read as the command goes, when the command ends. A truncation under a mapped
//! read is also caught as it happens (see `mapped`); a rewrite that completed before statectl
//! reached those bytes only shows here, in the file's size and times.
//!
//! Times are as fine as the file system keeps them (Linux 6.13 and later tell apart two writes in
//! one clock tick once a time was read, as the stamp does); the size and the inode need no clock.
//!
//! A file replaced by a rename (statectl's own writes, most editors) is no such case: the inode
//! that was read is untouched. So each file is known by its device and inode, and a path that now
//! names another one, or none, is not a change. Nothing is kept open: a folder of thousands of
//! states costs a few words each, not a file descriptor.

use std::fs::{File, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// What an in-place write changes about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: u64,
    inode: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    fn of(metadata: &Metadata) -> Stamp {
        Stamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

/// The mapped files read so far, as each stood before its first byte was read.
static MAPPED: Mutex<Vec<(PathBuf, Stamp)>> = Mutex::new(Vec::new());

/// How `file` stands before it is read; `None` when its metadata cannot be read (the read then
/// fails on its own).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BeforeReading(Option<Stamp>);

impl BeforeReading {
    /// From the open file's metadata (`None` when it could not be read: the read then fails on
    /// its own).
    pub(crate) fn of_metadata(metadata: Option<&Metadata>) -> BeforeReading {
        BeforeReading(metadata.map(Stamp::of))
    }

    /// Whether the open `file`, read from `path`, was rewritten in place since: a copy just made of
    /// it may be torn. Checked at once after copying, so a state rewritten later (an apply beside a
    /// long `drift`) is no error: the copy is whole. The handle is asked first, a look up of the
    /// path only when its stamp moved: a file replaced by a rename moves the stamp of the inode
    /// read too (its link count, so its change time), and is no rewrite when the path names another
    /// inode now. A folder of states pays one look up of a path fewer for each file.
    pub(crate) fn rewritten_open(&self, file: &File, path: &Path) -> bool {
        self.0.is_some_and(|stamp| {
            file.metadata().is_ok_and(|now| Stamp::of(&now) != stamp)
                && rewritten_since(path, &stamp)
        })
    }

    /// Keeps `path` to be checked when the command ends ([`changed_since_read`]): a mapping is
    /// read as the command goes, so a rewrite any time before the end may have reached it.
    pub(crate) fn watch_mapped(self, path: &Path) {
        if let Some(stamp) = self.0 {
            MAPPED
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((path.to_owned(), stamp));
        }
    }
}

/// The same file (device and inode) at `path`, with its size or times moved.
fn rewritten_since(path: &Path, stamp: &Stamp) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    let now = Stamp::of(&metadata);
    (now.device, now.inode) == (stamp.device, stamp.inode) && now != *stamp
}

/// The mapped files that were rewritten in place since they were read, each once, in the order
/// they were read.
pub fn changed_since_read() -> Vec<PathBuf> {
    let mapped = MAPPED.lock().unwrap_or_else(PoisonError::into_inner);
    let mut changed: Vec<PathBuf> = Vec::new();
    for (path, stamp) in mapped.iter() {
        if rewritten_since(path, stamp) && !changed.contains(path) {
            changed.push(path.clone());
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::io::Write;

    use super::*;

    #[test]
    fn a_file_rewritten_in_place_shows_and_one_replaced_or_left_alone_does_not() {
        let folder = tempfile::tempdir().unwrap();
        let [kept, rewritten, replaced, removed] = ["kept", "rewritten", "replaced", "removed"]
            .map(|name| {
                let path = folder.path().join(format!("{name}.tfstate"));
                std::fs::write(&path, "{\"version\": 4, \"serial\": 1}").unwrap();
                path
            });
        let stamps = [&kept, &rewritten, &replaced, &removed].map(|path| {
            let metadata = File::open(path).unwrap().metadata().ok();
            BeforeReading::of_metadata(metadata.as_ref())
        });
        for (path, stamp) in [&kept, &rewritten].into_iter().zip(stamps) {
            stamp.watch_mapped(path);
        }
        // As Terraform's local backend writes: the same file, truncated and written again.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&rewritten)
            .unwrap();
        file.write_all(b"{\"version\": 4, \"serial\": 2}").unwrap();
        drop(file);
        // As statectl writes: a new file renamed over the old one.
        let new = folder.path().join("new.tfstate");
        std::fs::write(&new, "{\"version\": 4, \"serial\": 2}").unwrap();
        std::fs::rename(&new, &replaced).unwrap();
        std::fs::remove_file(&removed).unwrap();

        let changed = changed_since_read();
        assert!(changed.contains(&rewritten), "{changed:?}");
        for path in [&kept, &replaced, &removed] {
            assert!(
                !changed.contains(path),
                "{} reported: {changed:?}",
                path.display()
            );
        }
    }

    /// The check a copy gets, asked of the handle that was read: a rewrite in place through
    /// another handle shows; a rename over the path, which leaves the inode read untouched, and a
    /// file left alone do not.
    #[test]
    fn an_open_file_rewritten_in_place_shows_and_one_replaced_or_left_alone_does_not() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("terraform.tfstate");
        let stamped = |path: &Path| {
            let file = File::open(path).unwrap();
            let before = BeforeReading::of_metadata(file.metadata().ok().as_ref());
            (file, before)
        };
        std::fs::write(&path, "{\"version\": 4, \"serial\": 1}").unwrap();
        let (file, before) = stamped(&path);
        assert!(!before.rewritten_open(&file, &path));

        let (file, before) = stamped(&path);
        let mut writer = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        writer
            .write_all(b"{\"version\": 4, \"serial\": 12}")
            .unwrap();
        drop(writer);
        assert!(before.rewritten_open(&file, &path));

        let (file, before) = stamped(&path);
        let new = folder.path().join("new.tfstate");
        std::fs::write(&new, "{\"version\": 4, \"serial\": 123}").unwrap();
        std::fs::rename(&new, &path).unwrap();
        assert!(!before.rewritten_open(&file, &path));

        // No stamp (the metadata could not be read): the read fails on its own, nothing to tell.
        assert!(!BeforeReading::of_metadata(None).rewritten_open(&file, &path));
    }
}
