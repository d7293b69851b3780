//! How far a reconcile run has come, kept as it goes: instances done, in flight, retries spent, and
//! each outcome as soon as it is known. The CLI draws the bar and the progress log from it, and an
//! interrupted run still reports the outcomes it had.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::reconcile::outcome::Outcome;

/// The shared record of one run; every job writes its own slot.
#[derive(Debug)]
pub struct Progress {
    total: usize,
    done: AtomicUsize,
    in_flight: AtomicUsize,
    retries: AtomicUsize,
    outcomes: Mutex<Vec<Option<Outcome>>>,
}

/// The counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    pub total: usize,
    pub done: usize,
    pub in_flight: usize,
    pub retries: usize,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress {
            total,
            done: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            retries: AtomicUsize::new(0),
            outcomes: Mutex::new(vec![None; total]),
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            total: self.total,
            done: self.done.load(Ordering::Relaxed),
            in_flight: self.in_flight.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
        }
    }

    /// A job got its slot and starts talking to the provider.
    pub fn started(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
    }

    /// A request is sent again after a throttle, a 5xx or a transport failure.
    pub fn retried(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
    }

    /// Job `index` came to `outcome`.
    pub fn finished(&self, index: usize, outcome: Outcome) {
        let mut outcomes = self
            .outcomes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(slot) = outcomes.get_mut(index) {
            *slot = Some(outcome);
        }
        drop(outcomes);
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// Every job's outcome, `None` for those not finished.
    pub fn outcomes(&self) -> Vec<Option<Outcome>> {
        self.outcomes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_keeps_each_outcome_in_its_slot() {
        let progress = Progress::new(3);
        progress.started();
        progress.started();
        progress.retried();
        progress.finished(1, Outcome::Gone);
        assert_eq!(
            progress.snapshot(),
            Snapshot {
                total: 3,
                done: 1,
                in_flight: 1,
                retries: 1
            }
        );
        assert_eq!(progress.outcomes(), vec![None, Some(Outcome::Gone), None]);
    }
}
