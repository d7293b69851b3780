//! The one place that writes state files. Every write takes Terraform's lock, proves under it that
//! nobody changed the file since statectl read it, backs the old bytes up, and replaces the file so
//! that a crash leaves the old state or the new one (see `replace` for why a rename, and how it stays
//! safe for processes waiting on the lock).
//!
//! Two ways in, one way out: a single mutation locks first and reads under the lock
//! ([`Locked::read`]); a long operation (a refresh) reads without the lock, works, then locks and
//! commits against the bytes it read. [`Locked::commit`] refuses when the file differs from them.

mod backup;
mod lock;
pub mod lock_info;
mod replace;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use backup::Backup;
pub use lock::StateLock;
pub use lock_info::LockInfo;
pub use replace::POISON;

use crate::state::bytes::{Bytes, read_all};

/// A store failure: one line saying what and where, and a hint when there is a fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    pub message: String,
    pub hint: Option<String>,
}

impl StoreError {
    pub fn new(message: impl Into<String>) -> StoreError {
        StoreError {
            message: message.into(),
            hint: None,
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> StoreError {
        self.hint = Some(hint.into());
        self
    }

    fn io(path: &Path, what: &str, error: &std::io::Error) -> StoreError {
        StoreError::new(format!("{}: {what}: {error}", path.display()))
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

/// A state file held under its lock.
#[derive(Debug)]
pub struct Locked {
    lock: StateLock,
}

/// What a commit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    pub backup: Option<PathBuf>,
}

impl Locked {
    /// Locks the state at `path` for `operation` (shown to whoever else wants the lock), waiting up to
    /// `timeout`.
    pub fn acquire(path: &Path, operation: &str, timeout: Duration) -> Result<Locked, StoreError> {
        Ok(Locked {
            lock: StateLock::acquire(path, operation, timeout)?,
        })
    }

    pub fn path(&self) -> &Path {
        self.lock.path()
    }

    pub fn info(&self) -> &LockInfo {
        self.lock.info()
    }

    /// The state's bytes, read through the locked handle.
    pub fn read(&self) -> Result<Bytes, StoreError> {
        read_all(self.lock.file())
            .map_err(|error| StoreError::io(self.path(), "cannot read the state", &error))
    }

    /// Replaces the state with `new`, provided it still holds exactly `expected` (the bytes the change
    /// was computed from): backup first, then the crash-safe replace, then the lock is released.
    pub fn commit(
        self,
        expected: &[u8],
        new: &[u8],
        backup: &Backup,
    ) -> Result<Committed, StoreError> {
        let path = self.path().to_owned();
        let current = self.read()?;
        if *current != *expected {
            return Err(changed_since_read(&path, expected, &current));
        }
        // A symlinked state is replaced where it points, as Terraform's in-place write would change it.
        let target = std::fs::canonicalize(&path)
            .map_err(|error| StoreError::io(&path, "cannot resolve the state's path", &error))?;
        replace::remove_leftovers(&target);
        let file = self.lock.file();
        let backup = backup::write_backup(backup, &path, expected, file)
            .map_err(|error| StoreError::io(&path, "cannot write the backup", &error))?;
        replace::replace(&target, new, file)
            .map_err(|error| StoreError::io(&path, "cannot write the new state", &error))?;
        // The new state is in place; failing to poison the old file only weakens the protection of a
        // Terraform waiting on it, so it is not an error.
        let _ = replace::poison(file);
        drop(self);
        Ok(Committed { backup })
    }
}

/// The error for a state that changed between statectl's read and its lock, saying how when both
/// versions parse.
fn changed_since_read(path: &Path, expected: &[u8], current: &[u8]) -> StoreError {
    let how = match (crate::state::parse(expected), crate::state::parse(current)) {
        (Ok(before), Ok(after)) if before.lineage != after.lineage => format!(
            " (lineage `{}` became `{}`: it is another state now)",
            before.lineage, after.lineage
        ),
        (Ok(before), Ok(after)) if before.serial != after.serial => {
            format!(" (serial {} became {})", before.serial, after.serial)
        }
        _ => String::new(),
    };
    StoreError::new(format!(
        "{}: the state changed since statectl read it{how}; nothing was written",
        path.display()
    ))
    .with_hint("run the command again to work from the current state")
}
