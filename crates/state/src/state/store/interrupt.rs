//! What a signal (Ctrl-C, a CI job's SIGTERM) may interrupt in a write, and what it cleans up.
//!
//! A write has steps that must finish once begun, or not begin at all: taking a lock and writing its
//! lock info, the commit (backup, temporary file, rename; a remote backend's put), releasing a lock.
//! Each runs as a [`Step`], holding one process-wide mutex. The CLI's signal handler calls
//! [`interrupt`], which waits for the step in progress (if any) to end, then takes the mutex for
//! good, so that no step starts again: it removes the lock infos this process wrote, releases its
//! remote locks, and tells whether a state was replaced. The process ends right after. So a signal
//! leaves the state old or new, no lock behind, and no temporary file: a step that sees the
//! interrupt at one of its checkpoints removes what it wrote and waits for the end instead of going
//! on to the point of no return.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::state::store::StoreError;
use crate::state::store::lock_info::LockInfo;

/// Set by [`interrupt`] before it waits for the step in progress.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What an interrupt must clean up, behind the mutex every step holds.
static HELD: Mutex<Held> = Mutex::new(Held {
    lock_infos: Vec::new(),
    replaced: false,
});

struct Held {
    /// The local lock infos this process wrote, with their lock IDs.
    lock_infos: Vec<(PathBuf, String)>,
    /// Whether a commit replaced a state.
    replaced: bool,
}

/// One step of a write that an interrupt lets finish, and keeps from starting.
pub(super) struct Step(MutexGuard<'static, Held>);

/// Begins a step; once an interrupt came, it never returns (the process is ending).
pub(super) fn step() -> Step {
    let held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    let step = Step(held);
    if INTERRUPTED.load(Ordering::SeqCst) {
        step.stop();
    }
    step
}

impl Step {
    /// Whether an interrupt came while this step ran: the caller removes what it wrote and calls
    /// [`Step::stop`] before the point of no return. (A method, though the flag is global: only a
    /// step's holder may act on it.)
    #[expect(clippy::unused_self, reason = "asked of the step in progress")]
    pub(super) fn interrupted(&self) -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }

    /// Lets the interrupt end the process: this thread waits, holding nothing.
    pub(super) fn stop(self) -> ! {
        drop(self);
        // The handler ends the process within moments; should it never (it cannot, but a thread
        // can die), the process ends itself as the handler would.
        for _ in 0..60 {
            std::thread::sleep(Duration::from_millis(500));
        }
        std::process::exit(130)
    }

    /// Records a lock info this process wrote, for an interrupt to remove.
    pub(super) fn wrote_lock_info(&mut self, path: &Path, id: &str) {
        self.0.lock_infos.push((path.to_owned(), id.to_owned()));
    }

    /// Forgets a lock info this process removed.
    pub(super) fn removed_lock_info(&mut self, id: &str) {
        self.0.lock_infos.retain(|(_, held)| held != id);
    }

    /// Records that a state was replaced: an interrupt from now on comes after the write.
    pub(super) fn replaced(&mut self) {
        self.0.replaced = true;
    }
}

/// What an interrupt found and did.
#[derive(Debug)]
pub struct Interruption {
    /// A state was replaced before the interrupt could stop it.
    pub replaced: bool,
    /// Remote locks that could not be released, each naming its ID and `force-unlock`.
    pub errors: Vec<StoreError>,
}

/// For the signal handler: lets the step in progress end, keeps any other from starting (for the
/// rest of the process's life), removes this process's lock infos and releases its remote locks.
/// The caller ends the process right after.
pub fn interrupt() -> Interruption {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    for (path, id) in &held.lock_infos {
        // Only our own: another process may hold the lock now (see `lock`'s `Drop`).
        if LockInfo::read_file(path).is_some_and(|info| info.id == *id) {
            let _ = std::fs::remove_file(path);
        }
    }
    let errors = super::remote::release_all_held();
    let replaced = held.replaced;
    // Held until the process ends: no step starts again.
    std::mem::forget(held);
    Interruption { replaced, errors }
}
