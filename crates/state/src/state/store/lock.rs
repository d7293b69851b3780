//! The state lock, compatible with Terraform's local backend: a POSIX `fcntl` write lock on the whole
//! state file, plus the `.lock.info` sidecar naming the holder while the lock is held.
//!
//! Terraform takes the same lock (`F_SETLK`, whole file, non-blocking), so each tool sees the other's.
//! POSIX locks belong to the process and drop when *any* handle of the file in it closes, so the lock
//! keeps the one handle statectl uses for the whole critical section: reading under the lock goes
//! through it (see `bytes::read_all`), and nothing else may open the state meanwhile.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, fcntl_lock};

use crate::duration::{Deadline, humanize};
use crate::state::store::lock_info::{LockInfo, sidecar_path};
use crate::state::store::{StoreError, interrupt};

/// How long a refused lock attempt keeps trying to learn the holder's name (or to find the lock
/// released) when the lock info file is not there.
const NAME_GRACE: Duration = Duration::from_millis(250);

/// The first pause between attempts when waiting for the lock; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(20);
const MAX_PAUSE: Duration = Duration::from_millis(500);

/// A held lock on a state file. Dropping it removes the sidecar and releases the lock.
#[derive(Debug)]
pub struct StateLock {
    file: File,
    path: PathBuf,
    sidecar: PathBuf,
    info: LockInfo,
}

impl StateLock {
    /// Locks the state at `path`, waiting up to `timeout` while someone else holds it (Terraform's
    /// `-lock-timeout`). The state must exist: statectl rewrites states, it never creates one.
    pub fn acquire(
        path: &Path,
        operation: &str,
        timeout: Duration,
    ) -> Result<StateLock, StoreError> {
        // A timeout past what the clock can hold waits as long as the process lives.
        let deadline = Deadline::after(timeout);
        let mut pause = FIRST_PAUSE;
        let file = loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)
                .map_err(|error| match error.kind() {
                    io::ErrorKind::NotFound => StoreError::new(format!(
                        "{}: cannot read the state: no such file",
                        path.display()
                    )),
                    _ => StoreError::io(path, "cannot open the state to lock it", &error),
                })?;
            // Before the lock and its sidecar: a device or a socket is never a state, and nothing
            // may be written beside it.
            file.metadata()
                .and_then(|metadata| crate::state::bytes::regular_file(&metadata))
                .map_err(|error| StoreError::io(path, "cannot read the state", &error))?;
            match fcntl_lock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {
                    // A writer that replaced the file (a rename over it) between this open and this
                    // lock leaves the lock on a file no longer at `path`: open the new one and lock it.
                    if same_file(&file, path)? {
                        break file;
                    }
                }
                Err(error)
                    if error == rustix::io::Errno::AGAIN || error == rustix::io::Errno::ACCESS =>
                {
                    let now = Instant::now();
                    if deadline.has_passed(now) {
                        // The holder writes its lock info just after it locks, and removes it just
                        // before it unlocks: in those moments there is no name to give. A short
                        // grace either finds the name or finds the lock free.
                        if let Some(holder) = holder_info(path) {
                            return Err(busy(path, Some(&holder), timeout));
                        }
                        if deadline.later_by(NAME_GRACE).has_passed(now) {
                            return Err(busy(path, None, timeout));
                        }
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                    std::thread::sleep(pause.min(deadline.left(now)));
                    pause = pause.saturating_mul(2).min(MAX_PAUSE);
                }
                Err(error) => {
                    return Err(StoreError::io(
                        path,
                        "cannot lock the state",
                        &io::Error::from(error),
                    ));
                }
            }
        };
        let lock = StateLock {
            file,
            path: path.to_owned(),
            sidecar: sidecar_path(path),
            info: LockInfo::new(operation, path),
        };
        // An interrupt from here on finds the lock info written and removes it, or finds none.
        let mut step = interrupt::step();
        lock.remove_leftover_sidecars();
        if let Err(error) = lock.write_sidecar() {
            // The lock goes without its info: `Drop` would wait for this step.
            drop(step);
            return Err(error);
        }
        step.wrote_lock_info(&lock.sidecar, &lock.info.id);
        drop(step);
        Ok(lock)
    }

    /// The locked state file's one handle.
    pub fn file(&self) -> &File {
        &self.file
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn info(&self) -> &LockInfo {
        &self.info
    }

    /// Removes the half-written lock info files of holders killed while writing one: only a holder
    /// writes them, and the lock is ours now.
    fn remove_leftover_sidecars(&self) {
        let Some(name) = self.sidecar.file_name() else {
            return;
        };
        let prefix = format!("{}.statectl-", name.to_string_lossy());
        let folder = match self.sidecar.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// Writes the sidecar as Terraform does (mode 0600, compact JSON), but through a rename, so that
    /// whoever reads it to name the holder never finds it half written.
    fn write_sidecar(&self) -> Result<(), StoreError> {
        let write = || -> io::Result<()> {
            let mut name = self.sidecar.as_os_str().to_owned();
            name.push(format!(".statectl-{}", std::process::id()));
            let temporary = PathBuf::from(name);
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&temporary)?;
            file.write_all(self.info.to_json().as_bytes())?;
            std::fs::rename(&temporary, &self.sidecar)
        };
        write().map_err(|error| {
            StoreError::io(&self.sidecar, "cannot write the lock info file", &error)
        })
    }
}

impl Drop for StateLock {
    fn drop(&mut self) {
        // One step: an interrupt meanwhile would remove a lock info that may be another's by then.
        let mut step = interrupt::step();
        // Only our own sidecar: once a rename has replaced the state, another process may already
        // hold the new file's lock and have written its own.
        let ours = LockInfo::read_file(&self.sidecar).is_some_and(|info| info.id == self.info.id);
        if ours {
            let _ = std::fs::remove_file(&self.sidecar);
        }
        step.removed_lock_info(&self.info.id);
        // Closing the handle would release the lock too; unlocking first says so explicitly.
        let _ = fcntl_lock(&self.file, FlockOperation::NonBlockingUnlock);
    }
}

/// Whether `file` is still the file at `path`.
fn same_file(file: &File, path: &Path) -> Result<bool, StoreError> {
    let held = file
        .metadata()
        .map_err(|error| StoreError::io(path, "cannot stat the locked state", &error))?;
    Ok(std::fs::metadata(path).is_ok_and(|now| now.dev() == held.dev() && now.ino() == held.ino()))
}

/// The holder's lock info, when its file is there and parses.
fn holder_info(path: &Path) -> Option<LockInfo> {
    LockInfo::read_file(&sidecar_path(path))
}

/// The error for a lock someone else holds, naming them when their lock info was found.
fn busy(path: &Path, holder: Option<&LockInfo>, waited: Duration) -> StoreError {
    let who = holder.map_or_else(
        || {
            if sidecar_path(path).exists() {
                // Half written, not JSON, or larger than any lock info.
                "another process (its lock info could not be read)".to_owned()
            } else {
                "another process (it wrote no lock info)".to_owned()
            }
        },
        ToString::to_string,
    );
    let waited = if waited.is_zero() {
        String::new()
    } else {
        format!(" after waiting {}", humanize(waited))
    };
    StoreError::new(format!(
        "{}: the state is locked by {who}{waited}",
        path.display()
    ))
    .with_hint("wait for that run to finish, or add `--lock-timeout 60s` to wait for it")
}
