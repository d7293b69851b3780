//! `statectl drift` over many remote states (a workspace glob, several URLs): their bytes fetched a
//! window of `--parallelism` (at most 16) at a time, each on a thread of its own, ahead of the
//! checks that use them in order. A glob over hundreds of workspaces then waits on the backend
//! once per window, not once per state; memory stays bounded by the window. With `--lock` nothing
//! is fetched ahead: each state is read under its lock, taken in order.

use std::collections::VecDeque;

use crate::cli::settings::DriftTarget as Target;
use crate::state::bytes::Bytes;
use crate::state::error::StateError;
use crate::state::source::Source;

/// The most states fetched ahead, whatever `--parallelism` says: each may be as large as a state
/// gets, and the batch they join already holds up to 256 MiB.
const MOST_AHEAD: usize = 16;

/// A remote state's bytes; `None` for a listed workspace that has no state yet.
pub(super) type Fetched = Result<Option<Bytes>, StateError>;

/// The states of a group fetched ahead, in the group's order.
pub(super) struct Ahead {
    window: usize,
    next: usize,
    fetched: VecDeque<Option<Fetched>>,
}

impl Ahead {
    /// Fetches `window` states at a time, at most [`MOST_AHEAD`] (1: none ahead).
    pub(super) fn new(window: usize) -> Ahead {
        Ahead {
            window: window.min(MOST_AHEAD),
            next: 0,
            fetched: VecDeque::new(),
        }
    }

    /// What was fetched for `group[position]` (positions asked in order): `None` when it is read
    /// where it is used (a local file, or no window).
    pub(super) fn take(&mut self, group: &[&Target], position: usize) -> Option<Fetched> {
        if self.window < 2 {
            return None;
        }
        if position >= self.next {
            let end = position.saturating_add(self.window).min(group.len());
            self.fetched = fetch_all(&group[position..end]).into();
            self.next = end;
        }
        self.fetched.pop_front().flatten()
    }
}

/// Each remote state of `targets` fetched on a thread of its own; one the system will not start a
/// thread for (a process limit) is fetched on this thread, in its turn, rather than ending the run.
fn fetch_all(targets: &[&Target]) -> Vec<Option<Fetched>> {
    std::thread::scope(|scope| {
        let fetching: Vec<_> = targets
            .iter()
            .map(|target| {
                matches!(target.source, Source::Remote(_)).then(|| {
                    let thread = std::thread::Builder::new()
                        .spawn_scoped(scope, move || fetch(target))
                        .ok();
                    (target, thread)
                })
            })
            .collect();
        fetching
            .into_iter()
            .map(|remote| {
                remote.map(|(target, thread)| match thread {
                    Some(thread) => thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    None => fetch(target),
                })
            })
            .collect()
    })
}

/// A listed workspace's state may not exist yet; a state named directly must.
fn fetch(target: &Target) -> Fetched {
    if target.workspace.is_some() {
        target.source.read_existing()
    } else {
        target.source.read().map(Some)
    }
}
