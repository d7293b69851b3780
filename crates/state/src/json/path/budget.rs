//! The work an evaluation may do, sized from the text it runs over. Every JSONPath run is bounded:
//! `$..*..*..*..*` over a 100-deep array is some four million nodes from a 529-byte file, and a rules
//! file or a state from someone else must not take a machine down. A legitimate query visits each node
//! a few times, so the allowance grows with the input and a hostile one runs out of it early.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The limits of one evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Nodes visited (children listed, descendants walked, values compared), plus one for every 64
    /// bytes scanned to find where a value ends or matched against a pattern.
    pub visits: u64,
    /// Nodes held in one result list (each costs 16 bytes).
    pub kept: usize,
    /// Bytes the results print as.
    pub output: u64,
}

impl Limits {
    /// For a query over a whole document (`statectl query`): a fixed allowance for small files, then
    /// eight visits, one kept node for every eight bytes (so the lists stay under twice the file) and
    /// sixteen bytes of output per byte of input.
    pub fn for_document(bytes: usize) -> Limits {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        Limits {
            visits: 1_000_000u64.saturating_add(bytes.saturating_mul(8)),
            kept: 65_536usize.saturating_add(usize::try_from(bytes / 8).unwrap_or(usize::MAX)),
            output: (64u64 << 20).saturating_add(bytes.saturating_mul(16)),
        }
    }

    /// For a rule's path over one instance's attributes: the fixed part is small, because a state runs
    /// it once per instance and the total must stay bounded by the state's size.
    pub fn for_attributes(bytes: usize) -> Limits {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        Limits {
            visits: 10_000u64.saturating_add(bytes.saturating_mul(8)),
            kept: 1_024usize.saturating_add(usize::try_from(bytes / 8).unwrap_or(usize::MAX)),
            output: 0,
        }
    }
}

/// Which limit an evaluation ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Exceeded {
    #[error("more than {0} nodes visited")]
    Visits(u64),
    #[error("more than {0} nodes in one result list")]
    Kept(usize),
    #[error("results printing as more than {0} bytes")]
    Output(u64),
}

/// A part's visits are added to the count all parts share every this many: often enough that a
/// hostile query stops within a few milliseconds of running out, rarely enough that the threads do
/// not wait on one counter.
const SHARE_EVERY: u64 = 1 << 16;

/// The running count against [`Limits`].
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Limits,
    visits: u64,
    /// When this count is one part of a query run on several threads: the visits of all parts (and
    /// of the work before them), and how many of this part's are not added to it yet.
    shared: Option<(Arc<AtomicU64>, u64)>,
}

impl Budget {
    pub(crate) fn new(limits: Limits) -> Budget {
        Budget {
            limits,
            visits: 0,
            shared: None,
        }
    }

    /// The count of one part of a run cut across threads, started where the whole stood when it was
    /// cut (`spent`); `all` counts every part's visits (and starts at `spent` too), so that the parts
    /// together stay within the limits, not each of them.
    pub(crate) fn part(limits: Limits, spent: u64, all: Arc<AtomicU64>) -> Budget {
        Budget {
            limits,
            visits: spent,
            shared: Some((all, 0)),
        }
    }

    /// The visits spent so far (by this count: a part's include those before the cut).
    pub(crate) fn spent(&self) -> u64 {
        self.visits
    }

    /// At the end of a part: adds its visits not yet shared to the shared count, and checks the
    /// parts' whole against the limit (the count is shared only every [`SHARE_EVERY`] visits, so
    /// without this each part could overrun the limit by up to that many).
    pub(crate) fn settle(&mut self) -> Result<(), Exceeded> {
        self.share(0)
    }

    /// Adds the visits of the parts a run was cut into (`visits` beyond the cut), once they are done.
    pub(crate) fn add_parts(&mut self, visits: u64) -> Result<(), Exceeded> {
        self.visits = self.visits.saturating_add(visits);
        if self.visits > self.limits.visits {
            return Err(Exceeded::Visits(self.limits.visits));
        }
        Ok(())
    }

    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// Spends `count` visits.
    pub(crate) fn visit(&mut self, count: usize) -> Result<(), Exceeded> {
        self.visits = self
            .visits
            .saturating_add(u64::try_from(count).unwrap_or(u64::MAX));
        if self.visits > self.limits.visits {
            return Err(Exceeded::Visits(self.limits.visits));
        }
        if let Some((_, unshared)) = &mut self.shared {
            *unshared = unshared.saturating_add(u64::try_from(count).unwrap_or(u64::MAX));
        }
        self.share(SHARE_EVERY)
    }

    /// Once at least `at_least` of this part's visits are not yet shared: adds them to the shared
    /// count and checks the parts' whole (nothing for a count of its own).
    fn share(&mut self, at_least: u64) -> Result<(), Exceeded> {
        let Some((all, unshared)) = &mut self.shared else {
            return Ok(());
        };
        if *unshared < at_least {
            return Ok(());
        }
        let added = std::mem::take(unshared);
        let total = all
            .fetch_add(added, Ordering::Relaxed)
            .saturating_add(added);
        if total > self.limits.visits {
            return Err(Exceeded::Visits(self.limits.visits));
        }
        Ok(())
    }

    /// Spends the visits that scanning `bytes` bytes is worth.
    pub(crate) fn scan(&mut self, bytes: usize) -> Result<(), Exceeded> {
        self.visit(bytes / 64)
    }

    /// Checks that a result list of `length` nodes may be kept.
    pub(crate) fn keep(&self, length: usize) -> Result<(), Exceeded> {
        if length > self.limits.kept {
            return Err(Exceeded::Kept(self.limits.kept));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_grow_with_the_input_and_saturate() {
        let small = Limits::for_document(529);
        assert_eq!(small.visits, 1_000_000 + 8 * 529);
        assert!(Limits::for_document(50_000_000).visits > small.visits);
        let huge = Limits::for_document(usize::MAX);
        assert_eq!(huge.visits, u64::MAX);
        assert!(Limits::for_attributes(300).visits < small.visits);
        let mut budget = Budget::new(Limits {
            visits: 10,
            kept: 2,
            output: 0,
        });
        assert!(budget.visit(10).is_ok());
        assert_eq!(budget.visit(1), Err(Exceeded::Visits(10)));
        assert_eq!(budget.keep(3), Err(Exceeded::Kept(2)));
        assert!(budget.keep(2).is_ok());
    }

    #[test]
    fn parts_sharing_a_count_stay_within_the_limit_together() {
        let limits = Limits {
            visits: 1_000,
            kept: 10,
            output: 0,
        };
        let all = Arc::new(AtomicU64::new(0));
        let mut first = Budget::part(limits, 0, Arc::clone(&all));
        let mut second = Budget::part(limits, 0, Arc::clone(&all));
        // Each part alone is within the limit, and too few visits to have shared them yet.
        assert!(first.visit(600).is_ok());
        assert!(second.visit(600).is_ok());
        assert!(first.settle().is_ok());
        assert_eq!(second.settle(), Err(Exceeded::Visits(1_000)));
        // A count of its own settles with nothing to share.
        assert!(Budget::new(limits).settle().is_ok());
    }
}
