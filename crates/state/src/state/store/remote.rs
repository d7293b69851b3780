//! The seam between the store and a state kept elsewhere (an S3 bucket, an HTTP backend): what a
//! remote backend must do (read the bytes, take and release Terraform's lock, replace the state), and
//! the lock held on one, which keeps every rule the local store keeps: wait as Terraform's
//! `-lock-timeout` waits, re-read under the lock and refuse when the state changed, back the old bytes
//! up locally before replacing them, and never leave the lock behind.
//!
//! The backends themselves live in `statectl-backend`, which talks to the network; this module knows
//! only the trait, so the state engine stays free of network crates.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::duration::Deadline;
use crate::state::store::StoreError;
use crate::state::store::lock_info::LockInfo;

/// A state kept by a remote backend, as Terraform's `remote.Client` and `statemgr.Locker` see it.
pub trait RemoteState: Send + Sync + fmt::Debug {
    /// Where the state lives, for every message and output: `s3://bucket/env:/dev/terraform.tfstate`.
    fn location(&self) -> String;

    /// The name local backups take, before `.<unix seconds>.backup`: the state object's own name.
    fn backup_name(&self) -> String;

    /// The `Path` of the lock info this process writes, as the backend's Terraform writes it (S3:
    /// `bucket/key`).
    fn lock_path(&self) -> String {
        self.location()
    }

    /// The state's bytes; `Ok(None)` when the backend has no state there yet.
    fn get(&self) -> Result<Option<Vec<u8>>, StoreError>;

    /// Takes the lock with `info` (its ID is the lock's ID), or says why not.
    fn lock(&self, info: &LockInfo) -> Result<(), LockRefused>;

    /// Replaces the state with `bytes` while `lock` is held.
    fn put(&self, bytes: &[u8], lock: &LockInfo) -> Result<(), StoreError>;

    /// Releases the lock taken with `lock`.
    fn unlock(&self, lock: &LockInfo) -> Result<(), StoreError>;

    /// The ID `terraform force-unlock` takes for the lock taken with `lock`: its own ID, except where
    /// the backend's Terraform names locks otherwise (gcs: the lock object's generation; HCP
    /// Terraform: `org/workspace`).
    fn force_unlock_id(&self, lock: &LockInfo) -> String {
        lock.id.clone()
    }

    /// What to check when the backend has no state where it was told to look: the settings that
    /// name the state object, in this backend's own words.
    fn missing_state_hint(&self) -> &'static str {
        "check the backend's settings and the workspace; `terraform workspace list` shows the workspaces"
    }

    /// The versions the backend keeps of the state, where statectl can read them (`None`: this
    /// backend keeps none, or statectl does not read them yet).
    fn versions(&self) -> Option<&dyn super::versions::StateVersions> {
        None
    }
}

/// Why a lock was not taken.
#[derive(Debug)]
pub enum LockRefused {
    /// Someone else holds it; their lock info when the backend could tell. Waiting may help.
    Held(Option<Box<LockInfo>>),
    /// Anything else (access denied, the network): waiting will not help.
    Failed(StoreError),
}

/// Terraform's `statemgr.LockWithContext` pauses one second after a refused attempt, doubling up to
/// sixteen; statectl starts shorter, so that a lock released soon is taken soon.
const FIRST_PAUSE: Duration = Duration::from_millis(250);
const MAX_PAUSE: Duration = Duration::from_secs(16);

/// The locks this process holds on remote states, so that an interrupt can release them before the
/// process ends (a local lock goes with the process; a remote one would stay until force-unlocked).
static HELD: Mutex<Vec<(Arc<dyn RemoteState>, LockInfo)>> = Mutex::new(Vec::new());

/// A remote state held under its lock. Dropping it releases the lock.
#[derive(Debug)]
pub struct RemoteLocked {
    backend: Arc<dyn RemoteState>,
    info: LockInfo,
    released: bool,
}

impl RemoteLocked {
    /// Locks the state for `operation`, retrying while someone else holds it, up to `timeout`.
    pub fn acquire(
        backend: Arc<dyn RemoteState>,
        operation: &str,
        timeout: Duration,
    ) -> Result<RemoteLocked, StoreError> {
        let info = LockInfo::new(operation, std::path::Path::new(&backend.lock_path()));
        // A timeout past what the clock can hold waits as long as the process lives.
        let deadline = Deadline::after(timeout);
        let mut pause = FIRST_PAUSE;
        loop {
            // One step, the attempt and its record: an interrupt meanwhile waits for the answer,
            // then releases a lock that was taken.
            let step = super::interrupt::step();
            let attempt = backend.lock(&info);
            if attempt.is_ok() {
                HELD.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((Arc::clone(&backend), info.clone()));
            }
            drop(step);
            match attempt {
                Ok(()) => break,
                Err(LockRefused::Failed(error)) => return Err(error),
                Err(LockRefused::Held(holder)) => {
                    let now = Instant::now();
                    if deadline.has_passed(now) {
                        return Err(busy(&backend.location(), holder.as_deref(), timeout));
                    }
                    std::thread::sleep(pause.min(deadline.left(now)));
                    pause = pause.saturating_mul(2).min(MAX_PAUSE);
                }
            }
        }
        Ok(RemoteLocked {
            backend,
            info,
            released: false,
        })
    }

    pub fn location(&self) -> String {
        self.backend.location()
    }

    pub fn info(&self) -> &LockInfo {
        &self.info
    }

    /// The state's bytes, read while the lock is held.
    pub fn read(&self) -> Result<Vec<u8>, StoreError> {
        self.backend
            .get()?
            .ok_or_else(|| no_state(self.backend.as_ref()))
    }

    /// Replaces the state with `new`, provided it still holds exactly `expected`: the old bytes are
    /// backed up locally first, then the state is put, then the lock is released.
    pub fn commit(
        mut self,
        expected: &[u8],
        new: &[u8],
        backup: &super::Backup,
    ) -> Result<super::Committed, StoreError> {
        let location = self.backend.location();
        let current = self.read()?;
        if current != expected {
            return Err(super::changed_since_read(&location, expected, &current));
        }
        // From the backup to the release, one step: an interrupt lets the put end (the state is
        // new) or stops before it (the state is old), then releases the lock.
        let mut step = super::interrupt::step();
        let backup =
            super::backup::write_remote_backup(backup, &self.backend.backup_name(), expected)
                .map_err(|error| {
                    StoreError::new(format!(
                        "{location}: cannot write the local backup: {}; nothing was written",
                        crate::state::source::problem(&error)
                    ))
                })?;
        if step.interrupted() {
            step.stop();
        }
        self.backend.put(new, &self.info)?;
        step.replaced();
        self.release_in_step()?;
        drop(step);
        Ok(super::Committed { backup })
    }

    /// Releases the lock; when that fails, the error names the lock and how to remove it.
    pub fn release(&mut self) -> Result<(), StoreError> {
        let step = super::interrupt::step();
        let released = self.release_in_step();
        drop(step);
        released
    }

    /// [`RemoteLocked::release`], inside a step already begun.
    fn release_in_step(&mut self) -> Result<(), StoreError> {
        if self.released {
            return Ok(());
        }
        self.released = true;
        forget_held(&self.info.id);
        self.backend
            .unlock(&self.info)
            .map_err(|error| left_behind(&self.backend.force_unlock_id(&self.info), &error))
    }
}

impl Drop for RemoteLocked {
    fn drop(&mut self) {
        if !self.released {
            // An error path: the caller's error is the one to show first; a lock that cannot be
            // released is kept for the CLI to report after it ([`take_release_failures`]).
            if let Err(error) = self.release() {
                tracing::error!("{}", error.message);
                UNRELEASED
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(error);
            }
        }
    }
}

/// Locks that a drop could not release, each with the lock ID and the `force-unlock` command.
static UNRELEASED: Mutex<Vec<StoreError>> = Mutex::new(Vec::new());

/// The failures to release a lock on an error path, for the CLI to report before it exits.
pub fn take_release_failures() -> Vec<StoreError> {
    std::mem::take(&mut *UNRELEASED.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Releases every remote lock this process holds, for an interrupt handler: each failure comes back
/// as an error naming the lock ID and the `terraform force-unlock` command.
pub fn release_all_held() -> Vec<StoreError> {
    release_held(|_| true)
}

/// Releases the held locks `which` selects (all of them, but for tests, which share the process).
fn release_held(which: impl Fn(&LockInfo) -> bool) -> Vec<StoreError> {
    let held: Vec<_> = {
        let mut all = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        let (chosen, kept) = std::mem::take(&mut *all)
            .into_iter()
            .partition(|(_, info)| which(info));
        *all = kept;
        chosen
    };
    held.into_iter()
        .filter_map(|(backend, info)| {
            backend
                .unlock(&info)
                .err()
                .map(|error| left_behind(&backend.force_unlock_id(&info), &error))
        })
        .collect()
}

fn forget_held(id: &str) {
    HELD.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|(_, info)| info.id != id);
}

fn left_behind(id: &str, error: &StoreError) -> StoreError {
    StoreError::new(format!("{}; the lock {id} is still held", error.message)).with_hint(format!(
        "once nobody else is working on this state, `terraform force-unlock {id}` removes it"
    ))
}

/// The error for a state the backend does not have.
pub fn no_state(backend: &dyn RemoteState) -> StoreError {
    StoreError::new(format!("{}: there is no state there", backend.location()))
        .with_hint(backend.missing_state_hint())
}

/// The error for a lock someone else holds, naming them when the backend told who.
fn busy(location: &str, holder: Option<&LockInfo>, waited: Duration) -> StoreError {
    let who = holder.map_or_else(
        || "another process (its lock info could not be read)".to_owned(),
        ToString::to_string,
    );
    let waited = if waited.is_zero() {
        String::new()
    } else {
        format!(" after waiting {}", crate::duration::humanize(waited))
    };
    StoreError::new(format!("{location}: the state is locked by {who}{waited}"))
        .with_hint("wait for that run to finish, or add `--lock-timeout 60s` to wait for it")
}

/// The local file a remote state's backup goes to when the user names none: `<name>.<secs>.backup` in
/// the working directory.
pub(super) fn backup_base(name: &str) -> PathBuf {
    let name = name.rsplit('/').next().unwrap_or(name);
    PathBuf::from(if name.is_empty() {
        "terraform.tfstate"
    } else {
        name
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::state::store::Backup;

    /// A backend in memory: the state, the lock holder, and how many attempts were refused.
    #[derive(Debug, Default)]
    struct Memory {
        state: Mutex<Option<Vec<u8>>>,
        holder: Mutex<Option<LockInfo>>,
        refusals: AtomicUsize,
        unlock_fails: bool,
    }

    impl RemoteState for Memory {
        fn location(&self) -> String {
            "mem://bucket/terraform.tfstate".to_owned()
        }
        fn backup_name(&self) -> String {
            "terraform.tfstate".to_owned()
        }
        fn get(&self) -> Result<Option<Vec<u8>>, StoreError> {
            Ok(self.state.lock().unwrap().clone())
        }
        fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
            let mut holder = self.holder.lock().unwrap();
            if let Some(other) = &*holder {
                self.refusals.fetch_add(1, Ordering::SeqCst);
                return Err(LockRefused::Held(Some(Box::new(other.clone()))));
            }
            *holder = Some(info.clone());
            Ok(())
        }
        fn put(&self, bytes: &[u8], lock: &LockInfo) -> Result<(), StoreError> {
            assert_eq!(self.holder.lock().unwrap().as_ref().unwrap().id, lock.id);
            *self.state.lock().unwrap() = Some(bytes.to_vec());
            Ok(())
        }
        fn unlock(&self, lock: &LockInfo) -> Result<(), StoreError> {
            if self.unlock_fails {
                return Err(StoreError::new("mem://bucket: cannot delete the lock"));
            }
            let mut holder = self.holder.lock().unwrap();
            assert_eq!(
                holder.as_ref().map(|held| held.id.clone()),
                Some(lock.id.clone())
            );
            *holder = None;
            Ok(())
        }
    }

    const OLD: &[u8] =
        b"{\"version\": 4, \"serial\": 3, \"lineage\": \"l-1\", \"resources\": []}\n";
    const NEW: &[u8] =
        b"{\"version\": 4, \"serial\": 4, \"lineage\": \"l-1\", \"resources\": []}\n";

    fn memory(state: &[u8]) -> Arc<Memory> {
        Arc::new(Memory {
            state: Mutex::new(Some(state.to_vec())),
            ..Memory::default()
        })
    }

    #[test]
    fn a_commit_puts_the_new_state_backs_the_old_one_up_and_releases_the_lock() {
        let backend = memory(OLD);
        let folder = tempfile::tempdir().unwrap();
        let backup = folder.path().join("old.tfstate");
        let locked = RemoteLocked::acquire(backend.clone(), "taint", Duration::ZERO).unwrap();
        let bytes = locked.read().unwrap();
        locked
            .commit(&bytes, NEW, &Backup::At(backup.clone()))
            .unwrap();
        assert_eq!(backend.state.lock().unwrap().as_deref(), Some(NEW));
        assert_eq!(std::fs::read(&backup).unwrap(), OLD);
        assert!(backend.holder.lock().unwrap().is_none());
    }

    #[test]
    fn a_state_changed_since_it_was_read_is_refused_and_the_lock_released() {
        let backend = memory(NEW);
        let locked = RemoteLocked::acquire(backend.clone(), "refresh", Duration::ZERO).unwrap();
        let error = locked.commit(OLD, b"{}", &Backup::Skip).unwrap_err();
        assert_eq!(
            error.message,
            "mem://bucket/terraform.tfstate: the state changed since statectl read it (serial 3 became 4); nothing was written"
        );
        assert_eq!(backend.state.lock().unwrap().as_deref(), Some(NEW));
        assert!(backend.holder.lock().unwrap().is_none());
    }

    #[test]
    fn a_held_lock_is_waited_for_then_named() {
        let backend = memory(OLD);
        let mut other = LockInfo::new("apply", std::path::Path::new(""));
        other.who = "ci@runner".to_owned();
        other.version = "1.15.5".to_owned();
        *backend.holder.lock().unwrap() = Some(other.clone());
        let error = RemoteLocked::acquire(backend.clone(), "taint", Duration::from_millis(300))
            .unwrap_err();
        assert!(
            error.message.starts_with(
                "mem://bucket/terraform.tfstate: the state is locked by `ci@runner` (Terraform 1.15.5, operation `apply`"
            ),
            "{}",
            error.message
        );
        assert!(
            error.message.ends_with("after waiting 300ms"),
            "{}",
            error.message
        );
        assert!(backend.refusals.load(Ordering::SeqCst) >= 2);
        assert_eq!(backend.holder.lock().unwrap().as_ref(), Some(&other));
    }

    #[test]
    fn an_error_path_releases_the_lock_on_drop() {
        let backend = memory(OLD);
        {
            let _locked = RemoteLocked::acquire(backend.clone(), "taint", Duration::ZERO).unwrap();
            assert!(backend.holder.lock().unwrap().is_some());
        }
        assert!(backend.holder.lock().unwrap().is_none());
    }

    #[test]
    fn an_interrupt_releases_the_held_locks() {
        let backend = memory(OLD);
        let locked = RemoteLocked::acquire(backend.clone(), "lock", Duration::ZERO).unwrap();
        let id = locked.info().id.clone();
        assert!(release_held(|info| info.id == id).is_empty());
        assert!(backend.holder.lock().unwrap().is_none());
        // The interrupt handler exits the process next: the guard is never dropped.
        std::mem::forget(locked);
    }

    #[test]
    fn a_lock_that_cannot_be_released_names_its_id_and_force_unlock() {
        let backend = Arc::new(Memory {
            state: Mutex::new(Some(OLD.to_vec())),
            unlock_fails: true,
            ..Memory::default()
        });
        let mut locked = RemoteLocked::acquire(backend, "taint", Duration::ZERO).unwrap();
        let id = locked.info().id.clone();
        let error = locked.release().unwrap_err();
        drop(locked);
        assert!(
            take_release_failures().is_empty(),
            "a released lock is not released again"
        );
        assert_eq!(
            error.message,
            format!("mem://bucket: cannot delete the lock; the lock {id} is still held")
        );
        assert_eq!(
            error.hint.unwrap(),
            format!(
                "once nobody else is working on this state, `terraform force-unlock {id}` removes it"
            )
        );
    }
}
