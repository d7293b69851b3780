//! The one place that writes state files. Every write takes Terraform's lock, proves under it that
//! nobody changed the file since statectl read it, backs the old bytes up, and replaces the file so
//! that a crash leaves the old state or the new one (see `replace` for why a rename, and how it stays
//! safe for processes waiting on the lock).
//!
//! Two ways in, one way out: a single mutation locks first and reads under the lock
//! ([`Locked::read`]); a long operation (a refresh) reads without the lock, works, then locks and
//! commits against the bytes it read. [`Locked::commit`] refuses when the file differs from them.
//!
//! A state may also live in a remote backend (`remote`): the same two ways in and the same commit,
//! with the backend's own lock and a local backup of the old remote bytes.

mod backup;
mod backup_path;
pub mod interrupt;
mod local_versions;
mod lock;
pub mod lock_info;
pub mod remote;
mod replace;
pub mod versions;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use backup::Backup;
pub use backup_path::refuse_backup_over_state;
pub use local_versions::LocalBackups;
pub use lock::StateLock;
pub use lock_info::LockInfo;
pub use remote::{LockRefused, RemoteLocked, RemoteState};
pub use replace::POISON;

use crate::state::bytes::{Bytes, read_all};
use crate::state::source::Source;

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
        StoreError::new(format!(
            "{}: {what}: {}",
            path.display(),
            crate::state::source::problem(error)
        ))
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

/// A state held under its lock: a local file under Terraform's local lock, or a remote state under
/// its backend's lock.
#[derive(Debug)]
pub struct Locked {
    held: Held,
}

#[derive(Debug)]
enum Held {
    File(StateLock),
    Remote(RemoteLocked),
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
            held: Held::File(StateLock::acquire(path, operation, timeout)?),
        })
    }

    /// Locks the state `source` names; standard input has no lock.
    pub fn acquire_source(
        source: &Source,
        operation: &str,
        timeout: Duration,
    ) -> Result<Locked, StoreError> {
        match source {
            Source::Path(path) => Locked::acquire(path, operation, timeout),
            Source::Remote(backend) => Ok(Locked {
                held: Held::Remote(RemoteLocked::acquire(
                    std::sync::Arc::clone(backend),
                    operation,
                    timeout,
                )?),
            }),
            Source::Stdin => Err(StoreError::new(
                "standard input has no lock; name a state file",
            )),
        }
    }

    /// Where the locked state is, as messages name it.
    pub fn location(&self) -> String {
        match &self.held {
            Held::File(lock) => lock.path().display().to_string(),
            Held::Remote(lock) => lock.location(),
        }
    }

    pub fn info(&self) -> &LockInfo {
        match &self.held {
            Held::File(lock) => lock.info(),
            Held::Remote(lock) => lock.info(),
        }
    }

    /// The state's bytes, read under the lock.
    pub fn read(&self) -> Result<Bytes, StoreError> {
        match &self.held {
            Held::File(lock) => read_all(lock.file())
                .map_err(|error| StoreError::io(lock.path(), "cannot read the state", &error)),
            Held::Remote(lock) => lock.read().map(Bytes::from),
        }
    }

    /// Releases the lock without writing; a remote lock that cannot be released is an error naming
    /// its ID and the `force-unlock` command.
    pub fn release(self) -> Result<(), StoreError> {
        match self.held {
            Held::File(lock) => {
                drop(lock);
                Ok(())
            }
            Held::Remote(mut lock) => lock.release(),
        }
    }

    /// Replaces the state with `new`, provided it still holds exactly `expected` (the bytes the change
    /// was computed from): backup first, then the crash-safe replace, then the lock is released.
    pub fn commit(
        self,
        expected: &[u8],
        new: &[u8],
        backup: &Backup,
    ) -> Result<Committed, StoreError> {
        self.commit_pieces(expected, &[new], backup)
    }

    /// [`Locked::commit`] of a new state given as the pieces it is made of, in order (a splice's
    /// untouched runs of the old bytes and its replacements): a local file is written piece by
    /// piece, so the new state is never built whole in memory; a remote one is sent as one body.
    pub fn commit_pieces(
        self,
        expected: &[u8],
        new: &[&[u8]],
        backup: &Backup,
    ) -> Result<Committed, StoreError> {
        match self.held {
            Held::File(lock) => commit_file(lock, expected, new, backup),
            Held::Remote(lock) => lock.commit(expected, &new.concat(), backup),
        }
    }
}

fn commit_file(
    lock: StateLock,
    expected: &[u8],
    new: &[&[u8]],
    backup: &Backup,
) -> Result<Committed, StoreError> {
    let path = lock.path().to_owned();
    if let Backup::At(backup) = backup {
        // Checked before the lock too (by the CLI); again here, where nothing is written yet.
        refuse_backup_over_state(backup, &path)?;
    }
    // A symlinked state is replaced where it points, as Terraform's in-place write would change it.
    let target = std::fs::canonicalize(&path)
        .map_err(|error| StoreError::io(&path, "cannot resolve the state's path", &error))?;
    // From the temporary file to the rename, one step: an interrupt lets it end (the state is
    // new), or stops it at a checkpoint (the state is old, and no temporary file is left).
    let mut step = interrupt::step();
    replace::remove_leftovers(&target);
    let file = lock.file();
    // A timestamped backup is a new file that never replaces another, so it is written beside the
    // new state's temporary file (each mostly waits on its own `fsync`: two 252 MB files take a
    // third less time side by side than one after the other) and removed again if the write stops
    // before the rename. A backup at a path the user chose may replace a file there, so it waits
    // until the state is known unchanged.
    let early = *backup == Backup::Timestamped;
    let (unchanged, (temporary, early_backup)) = unchanged_while_writing(file, expected, || {
        let write_new = || replace::write_temporary(&target, new, file);
        if early {
            let (temporary, backup) = side_by_side(write_new, || {
                backup::write_backup(backup, &path, expected, file)
            });
            (temporary, Some(backup))
        } else {
            (write_new(), None)
        }
    });
    // What the write leaves behind when it stops before the rename: the temporary file, and a
    // backup written early (the state was not replaced, so it backs up nothing).
    let early_path = match &early_backup {
        Some(Ok(Some(backup))) => Some(backup.clone()),
        _ => None,
    };
    let discard = |temporary: &std::io::Result<PathBuf>| {
        if let Ok(temporary) = temporary {
            let _ = std::fs::remove_file(temporary);
        }
        if let Some(backup) = &early_path {
            let _ = std::fs::remove_file(backup);
        }
    };
    let unchanged = unchanged.map_err(|error| {
        discard(&temporary);
        StoreError::io(&path, "cannot read the state", &error)
    })?;
    if !unchanged {
        discard(&temporary);
        let current = read_all(file)
            .map_err(|error| StoreError::io(&path, "cannot read the state", &error))?;
        return Err(changed_since_read(
            &path.display().to_string(),
            expected,
            &current,
        ));
    }
    // The new state's error first, as when the backup was written after it (a folder that takes
    // neither file says it cannot take the new state).
    if temporary.is_err() {
        discard(&temporary);
    }
    let temporary =
        temporary.map_err(|error| StoreError::io(&path, "cannot write the new state", &error))?;
    let early_backup = match early_backup.transpose() {
        Ok(written) => written,
        Err(error) => {
            discard(&Ok(temporary));
            return Err(StoreError::io(&path, "cannot write the backup", &error));
        }
    };
    if step.interrupted() {
        let _ = std::fs::remove_file(&temporary);
        step.stop();
    }
    let backup = match early_backup {
        Some(written) => written,
        None => backup::write_backup(backup, &path, expected, file).map_err(|error| {
            let _ = std::fs::remove_file(&temporary);
            StoreError::io(&path, "cannot write the backup", &error)
        })?,
    };
    if step.interrupted() {
        let _ = std::fs::remove_file(&temporary);
        step.stop();
    }
    if backup.is_some() {
        // The new file was written before the backup (beside the check); `history` orders a
        // state's versions by their files' times, so the new state's is set after the backup's.
        // Only that order depends on it: a failure leaves the write as safe.
        let _ = std::fs::File::open(&temporary)
            .and_then(|file| file.set_modified(std::time::SystemTime::now()));
    }
    replace::put_in_place(&temporary, &target)
        .map_err(|error| StoreError::io(&path, "cannot write the new state", &error))?;
    step.replaced();
    // The new state is in place; failing to poison the old file only weakens the protection of a
    // Terraform waiting on it, so it is not an error.
    let _ = replace::poison(file);
    drop(step);
    drop(lock);
    Ok(Committed { backup })
}

/// What `first` and `second` give, `first` run on a thread of its own while this one runs `second`
/// (one after the other when the system will not start a thread).
fn side_by_side<A: Send, B>(first: impl Fn() -> A + Sync, second: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|scope| {
        if let Some(running) = crate::parts::spawn_in(scope, &first) {
            let second = second();
            let first = running
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (first, second)
        } else {
            (first(), second())
        }
    })
}

/// Whether `file` still holds `expected` ([`same_bytes`]), checked on a second thread while this
/// one runs `write` (the new state's temporary file), and what `write` gave. Both read and write
/// the whole state and neither needs the other until the rename, which waits for both: a changed
/// state is still refused before anything is in place, and the temporary file is then removed. On
/// one thread (the system would not start another) the check runs first.
fn unchanged_while_writing<T>(
    file: &std::fs::File,
    expected: &[u8],
    write: impl FnOnce() -> T,
) -> (std::io::Result<bool>, T) {
    side_by_side(|| same_bytes(file, expected), write)
}

/// Whether `file` holds exactly `expected`, compared a block at a time (a second copy of a 250 MB
/// state in memory would buy nothing).
fn same_bytes(file: &std::fs::File, expected: &[u8]) -> std::io::Result<bool> {
    use std::os::unix::fs::FileExt;
    if file.metadata()?.len() != expected.len() as u64 {
        return Ok(false);
    }
    let mut block = vec![0; 1 << 20];
    let mut offset = 0;
    while offset < expected.len() {
        let read = file.read_at(&mut block, offset as u64)?;
        if read == 0 || block[..read] != expected[offset..(offset + read).min(expected.len())] {
            return Ok(false);
        }
        offset += read;
    }
    // A file that grew after the size check shows more bytes here.
    Ok(file.read_at(&mut block[..1], offset as u64)? == 0)
}

/// The error for a state that changed between statectl's read and its lock, saying how when both
/// versions parse.
fn changed_since_read(location: &str, expected: &[u8], current: &[u8]) -> StoreError {
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
        "{location}: the state changed since statectl read it{how}; nothing was written"
    ))
    .with_hint("run the command again to work from the current state")
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{FileExt, PermissionsExt};

    use super::*;

    const OLD: &str = "{\"version\": 4, \"serial\": 3, \"lineage\": \"l-1\", \"resources\": []}\n";
    const NEW: &str = "{\"version\": 4, \"serial\": 4, \"lineage\": \"l-1\", \"resources\": []}\n";

    fn folder_with_state(text: &str) -> (tempfile::TempDir, PathBuf) {
        let folder = tempfile::tempdir().unwrap();
        let state = folder.path().join("terraform.tfstate");
        std::fs::write(&state, text).unwrap();
        (folder, state)
    }

    /// Locks the state at `path`, reads it and commits `NEW` over it, without a backup.
    fn write_new(path: &Path) {
        let locked = Locked::acquire(path, "test", Duration::ZERO).unwrap();
        let bytes = locked.read().unwrap();
        locked
            .commit(&bytes, NEW.as_bytes(), &Backup::Skip)
            .unwrap();
    }

    #[test]
    fn refuses_to_commit_over_a_state_that_changed_since_it_was_read() {
        let (_folder, state) = folder_with_state(OLD);
        let read_earlier = std::fs::read(&state).unwrap();
        // Someone else wrote serial 4 meanwhile.
        std::fs::write(&state, NEW).unwrap();
        let locked = Locked::acquire(&state, "test", Duration::ZERO).unwrap();
        let error = locked
            .commit(&read_earlier, b"{}", &Backup::Timestamped)
            .unwrap_err();
        assert!(
            error.message.ends_with(
                "the state changed since statectl read it (serial 3 became 4); nothing was written"
            ),
            "{}",
            error.message
        );
        assert_eq!(std::fs::read_to_string(&state).unwrap(), NEW);
        assert_eq!(
            std::fs::read_dir(state.parent().unwrap()).unwrap().count(),
            1
        );
    }

    /// The check that the state is unchanged runs beside the writing of the new file: a change it
    /// finds late (the last byte of a state larger than its read block) still refuses the commit,
    /// and the temporary file already written is removed with nothing else written.
    #[test]
    fn a_change_found_while_the_new_file_is_written_leaves_nothing_behind() {
        let padding = " ".repeat(6 << 20);
        let read_text =
            format!("{{\"version\": 4, \"serial\": 3, \"lineage\": \"l-1\"{padding}}}\n");
        let changed = format!("{}\t", &read_text[..read_text.len() - 1]);
        let (_folder, state) = folder_with_state(&changed);
        let locked = Locked::acquire(&state, "test", Duration::ZERO).unwrap();
        let new_text = read_text.replace("\"serial\": 3", "\"serial\": 4");
        let error = locked
            .commit(
                read_text.as_bytes(),
                new_text.as_bytes(),
                &Backup::Timestamped,
            )
            .unwrap_err();
        assert!(
            error
                .message
                .ends_with("the state changed since statectl read it; nothing was written"),
            "{}",
            error.message
        );
        assert_eq!(std::fs::read_to_string(&state).unwrap(), changed);
        let names: Vec<_> = std::fs::read_dir(state.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["terraform.tfstate"]);
    }

    /// A timestamped backup is written beside the new state's file, before the check ends; a backup
    /// at a path the user chose may replace a file there, so it waits for the check: a refused
    /// commit leaves the file at that path as it was, and a timestamped one leaves no backup.
    #[test]
    fn a_refused_commit_leaves_the_backup_path_as_it_was() {
        let (folder, state) = folder_with_state(OLD);
        let read_earlier = std::fs::read(&state).unwrap();
        std::fs::write(&state, NEW).unwrap();
        let chosen = folder.path().join("mine.backup");
        std::fs::write(&chosen, "the user's own file").unwrap();
        for backup in [Backup::At(chosen.clone()), Backup::Timestamped] {
            let locked = Locked::acquire(&state, "test", Duration::ZERO).unwrap();
            let error = locked.commit(&read_earlier, b"{}", &backup).unwrap_err();
            assert!(
                error.message.ends_with("nothing was written"),
                "{}",
                error.message
            );
            assert_eq!(
                std::fs::read_to_string(&chosen).unwrap(),
                "the user's own file"
            );
            assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 2);
        }
        // Unrefused, both kinds hold the state they back up, and the new state is in place.
        for backup in [Backup::At(chosen.clone()), Backup::Timestamped] {
            let locked = Locked::acquire(&state, "test", Duration::ZERO).unwrap();
            let bytes = locked.read().unwrap();
            let written = locked.commit(&bytes, OLD.as_bytes(), &backup).unwrap();
            assert_eq!(
                std::fs::read_to_string(written.backup.unwrap()).unwrap(),
                NEW
            );
            assert_eq!(std::fs::read_to_string(&state).unwrap(), OLD);
            std::fs::write(&state, NEW).unwrap();
        }
    }

    /// A timestamped backup that cannot be written (every name it may take for this second and the
    /// next two is taken) stops the write beside which it ran: the state as it was, the temporary
    /// file removed, nothing but the files that were there.
    #[test]
    fn a_backup_that_cannot_be_written_stops_the_write_and_leaves_nothing() {
        let (folder, state) = folder_with_state(OLD);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let base = state.display().to_string();
        for seconds in now..now + 3 {
            std::fs::write(format!("{base}.{seconds}.backup"), "taken").unwrap();
            for attempt in 1..1000 {
                std::fs::write(format!("{base}.{seconds}.{attempt}.backup"), "taken").unwrap();
            }
        }
        let before = std::fs::read_dir(folder.path()).unwrap().count();
        let locked = Locked::acquire(&state, "test", Duration::ZERO).unwrap();
        let bytes = locked.read().unwrap();
        let error = locked
            .commit(&bytes, NEW.as_bytes(), &Backup::Timestamped)
            .unwrap_err();
        assert!(
            error.message.contains("cannot write the backup")
                && error.message.contains("a thousand backups"),
            "{}",
            error.message
        );
        assert_eq!(std::fs::read_to_string(&state).unwrap(), OLD);
        assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), before);
    }

    /// Where the system starts no second thread, the check runs before the new file is written:
    /// a changed state is refused with nothing left, an unchanged one is replaced.
    #[test]
    fn a_commit_checks_on_its_own_thread_when_no_other_starts() {
        let (_folder, state) = folder_with_state(OLD);
        let read_earlier = std::fs::read(&state).unwrap();
        std::fs::write(&state, NEW).unwrap();
        let refused = crate::parts::without_threads(|| {
            Locked::acquire(&state, "test", Duration::ZERO)
                .unwrap()
                .commit(&read_earlier, b"{}", &Backup::Timestamped)
        });
        assert!(
            refused
                .unwrap_err()
                .message
                .ends_with("(serial 3 became 4); nothing was written")
        );
        assert_eq!(
            std::fs::read_dir(state.parent().unwrap()).unwrap().count(),
            1
        );
        let (_other, fresh) = folder_with_state(OLD);
        crate::parts::without_threads(|| write_new(&fresh));
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), NEW);
    }

    /// `history` orders a state's versions by their files' times: the new state must not look
    /// older than the backup of the state it replaced, though its file is written first.
    #[test]
    fn the_new_state_is_no_older_than_its_backup() {
        // Large enough that writing and flushing either file outlasts a tick of the clock that
        // stamps files.
        let padding = " ".repeat(16 << 20);
        let old = OLD.replacen(' ', &padding, 1);
        let (_folder, state) = folder_with_state(&old);
        let locked = Locked::acquire(&state, "test", Duration::ZERO).unwrap();
        let bytes = locked.read().unwrap();
        let new = NEW.replacen(' ', &padding, 1);
        let committed = locked
            .commit(&bytes, new.as_bytes(), &Backup::Timestamped)
            .unwrap();
        let modified = |path: &Path| std::fs::metadata(path).unwrap().modified().unwrap();
        let backup = committed.backup.unwrap();
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), old);
        assert!(modified(&state) >= modified(&backup));
    }

    #[test]
    fn a_superseded_file_is_poisoned_for_whoever_still_holds_it_open() {
        let (_folder, state) = folder_with_state(OLD);
        // A reader (or a lock waiter) that opened the state before the write.
        let waiting = std::fs::File::open(&state).unwrap();
        write_new(&state);
        assert_eq!(std::fs::read_to_string(&state).unwrap(), NEW);
        let mut seen = vec![0; OLD.len().max(POISON.len())];
        let read = waiting.read_at(&mut seen, 0).unwrap();
        assert!(
            seen[..read].starts_with(POISON),
            "{:?}",
            String::from_utf8_lossy(&seen[..read])
        );
        assert!(serde_json::from_slice::<serde_json::Value>(&seen[..read]).is_err());
    }

    #[test]
    fn a_file_with_another_name_is_not_poisoned() {
        let (folder, state) = folder_with_state(OLD);
        let other_name = folder.path().join("hard-link.tfstate");
        std::fs::hard_link(&state, &other_name).unwrap();
        write_new(&state);
        assert_eq!(std::fs::read_to_string(&other_name).unwrap(), OLD);
    }

    #[test]
    fn a_symlinked_state_is_replaced_where_it_points_and_stays_a_link() {
        let (folder, target) = folder_with_state(OLD);
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = folder.path().join("link.tfstate");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let locked = Locked::acquire(&link, "test", Duration::ZERO).unwrap();
        let bytes = locked.read().unwrap();
        let committed = locked
            .commit(&bytes, NEW.as_bytes(), &Backup::Timestamped)
            .unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), NEW);
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let backup = committed.backup.unwrap();
        assert!(
            backup
                .to_string_lossy()
                .starts_with(&*link.to_string_lossy())
        );
        assert_eq!(std::fs::read_to_string(backup).unwrap(), OLD);
    }

    #[test]
    fn leftovers_of_killed_writers_are_removed_under_the_lock() {
        let (folder, state) = folder_with_state(OLD);
        let leftover = folder.path().join(".terraform.tfstate.statectl-999999.tmp");
        std::fs::write(&leftover, "half a state").unwrap();
        let unrelated = folder.path().join(".other.tfstate.statectl-1.tmp");
        std::fs::write(&unrelated, "not ours").unwrap();
        write_new(&state);
        assert!(!leftover.exists());
        assert!(unrelated.exists());
    }

    #[test]
    fn the_lock_info_sidecar_names_the_holder_while_held_and_goes_with_the_lock() {
        // (POSIX locks exclude other processes only; the integration tests run two.)
        let (folder, state) = folder_with_state(OLD);
        let locked = Locked::acquire(&state, "taint", Duration::ZERO).unwrap();
        let sidecar = folder.path().join(".terraform.tfstate.lock.info");
        let info = LockInfo::parse(&std::fs::read(&sidecar).unwrap()).unwrap();
        assert_eq!(info, *locked.info());
        assert_eq!(info.operation, "taint");
        let mode = std::fs::metadata(&sidecar).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        drop(locked);
        assert!(!sidecar.exists());
    }
}
