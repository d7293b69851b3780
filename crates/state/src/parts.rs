//! How many threads a large piece of work is cut into: one per CPU, each part big enough to be
//! worth a thread, at most [`MAX_PARTS`]. The parse of a state's resources, the check of its UTF-8
//! and a JSONPath query over many nodes all cut their work by this one rule.

use std::thread;

/// The most threads one piece of work is done with.
pub(crate) const MAX_PARTS: usize = 8;

/// How many parts to work through `length` bytes in: one per CPU, each at least `part_bytes`, at
/// most [`MAX_PARTS`].
pub(crate) fn parts(length: usize, part_bytes: usize) -> usize {
    #[cfg(test)]
    if let Some(parts) = FORCED_PARTS.get() {
        return parts;
    }
    let parts = (length / part_bytes).min(MAX_PARTS);
    if parts < 2 {
        return parts;
    }
    parts.min(thread::available_parallelism().map_or(1, usize::from))
}

#[cfg(test)]
thread_local! {
    /// Cuts every piece of work done on this thread into this many parts, however small (tests
    /// only: the parts' joins run on the small inputs tests can check by hand).
    pub(crate) static FORCED_PARTS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `work` with every piece of work on this thread cut into `parts` parts (tests only).
#[cfg(test)]
pub(crate) fn forced<T>(parts: usize, work: impl FnOnce() -> T) -> T {
    FORCED_PARTS.set(Some(parts));
    let outcome = work();
    FORCED_PARTS.set(None);
    outcome
}
