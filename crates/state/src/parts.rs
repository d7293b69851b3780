//! How many threads a large piece of work is cut into: one per CPU, each part big enough to be
//! worth a thread, at most [`MAX_PARTS`]. The parse of a state's resources, the check of its UTF-8,
//! a JSONPath query over many nodes and scan's line numbers all cut their work by this one rule.

use std::thread;

/// The most threads one piece of work is done with.
pub const MAX_PARTS: usize = 8;

/// A worker's stack, as a main thread's: the work recurses only as deep as its own bounded inputs
/// (a JSONPath filter as deep as the expression nests), never as deep as a document.
const WORKER_STACK: usize = 8 << 20;

/// How many parts to work through `length` bytes in: one per CPU, each at least `part_bytes`, at
/// most [`MAX_PARTS`].
pub fn parts(length: usize, part_bytes: usize) -> usize {
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

/// `work` done on each of `parts`, the first on this thread and each other on a thread of its own,
/// the answers in the parts' order. A part whose thread the system will not start is done on this
/// thread; a part that panics panics here.
pub fn each_on_a_thread<T: Sync, R: Send>(parts: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let Some((first, others)) = parts.split_first() else {
        return Vec::new();
    };
    let work = &work;
    thread::scope(|scope| {
        let workers: Vec<_> = others
            .iter()
            .map(|part| spawn_in(scope, move || work(part)))
            .collect();
        let mut answers = Vec::with_capacity(parts.len());
        answers.push(work(first));
        for (worker, part) in workers.into_iter().zip(others) {
            answers.push(match worker {
                Some(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => work(part),
            });
        }
        answers
    })
}

/// `work` started on a thread of `scope` (with a main thread's stack), or `None` when the system
/// will not start one: the caller then does the work itself.
pub fn spawn_in<'scope, R: Send + 'scope>(
    scope: &'scope thread::Scope<'scope, '_>,
    work: impl FnOnce() -> R + Send + 'scope,
) -> Option<thread::ScopedJoinHandle<'scope, R>> {
    #[cfg(test)]
    if THREADS_REFUSED.get() {
        return None;
    }
    thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn_scoped(scope, work)
        .ok()
}

/// `items` cut into at most `parts` consecutive runs of about equal `weight`, none empty.
pub fn runs<T>(items: Vec<T>, parts: usize, weight: impl Fn(&T) -> usize) -> Vec<Vec<T>> {
    let total = items
        .iter()
        .map(&weight)
        .fold(0usize, usize::saturating_add);
    let share = (total / parts.max(1)).saturating_add(1);
    let mut runs: Vec<Vec<T>> = vec![Vec::new()];
    let mut run_weight = 0usize;
    for item in items {
        if run_weight >= share && runs.len() < parts {
            runs.push(Vec::new());
            run_weight = 0;
        }
        run_weight = run_weight.saturating_add(weight(&item));
        runs.last_mut().expect("one run at least").push(item);
    }
    runs.retain(|run| !run.is_empty());
    runs
}

#[cfg(test)]
thread_local! {
    /// Cuts every piece of work done on this thread into this many parts, however small (tests
    /// only: the parts' joins run on the small inputs tests can check by hand).
    pub(crate) static FORCED_PARTS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
thread_local! {
    /// Makes [`spawn_in`] on this thread answer as a system that starts no thread would (tests
    /// only: the fallbacks run where a container's thread limit is reached).
    pub(crate) static THREADS_REFUSED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `work` as if the system started no thread for [`spawn_in`] on this thread (tests only).
#[cfg(test)]
pub(crate) fn without_threads<T>(work: impl FnOnce() -> T) -> T {
    THREADS_REFUSED.set(true);
    let outcome = work();
    THREADS_REFUSED.set(false);
    outcome
}

/// Runs `work` with every piece of work on this thread cut into `parts` parts (tests only).
#[cfg(test)]
pub(crate) fn forced<T>(parts: usize, work: impl FnOnce() -> T) -> T {
    FORCED_PARTS.set(Some(parts));
    let outcome = work();
    FORCED_PARTS.set(None);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the system starts no thread, every part is done on the calling thread, in order; where
    /// it does, every part but the first is done on a thread of its own.
    #[test]
    fn each_part_is_done_on_this_thread_when_no_thread_starts() {
        let parts: Vec<usize> = (0..5).collect();
        let here = thread::current().id();
        let work = |part: &usize| (part * 10, thread::current().id());
        let alone = without_threads(|| each_on_a_thread(&parts, work));
        assert_eq!(
            alone.iter().map(|(answer, _)| *answer).collect::<Vec<_>>(),
            [0, 10, 20, 30, 40]
        );
        assert!(alone.iter().all(|(_, thread)| *thread == here));
        let spread = each_on_a_thread(&parts, work);
        assert_eq!(
            spread.iter().map(|(answer, _)| *answer).collect::<Vec<_>>(),
            [0, 10, 20, 30, 40]
        );
        assert_eq!(spread[0].1, here);
        assert!(spread[1..].iter().all(|(_, thread)| *thread != here));
    }

    #[test]
    fn runs_are_consecutive_about_equal_and_never_empty() {
        let items: Vec<usize> = (1..=10).collect();
        let cut = runs(items.clone(), 3, |item| *item);
        assert_eq!(cut.concat(), items);
        assert_eq!(cut.len(), 3);
        assert!(
            cut.iter()
                .all(|run| run.iter().sum::<usize>() <= 55 / 3 + 10),
            "{cut:?}"
        );
        assert_eq!(
            runs(vec![100, 1, 1], 4, |item| *item),
            [vec![100], vec![1, 1]]
        );
        assert_eq!(
            runs(Vec::<usize>::new(), 4, |item| *item),
            Vec::<Vec<usize>>::new()
        );
        assert_eq!(runs(vec![0, 0, 0], 2, |item| *item), [vec![0, 0, 0]]);
    }

    #[test]
    fn each_part_is_worked_in_order() {
        let parts: Vec<u64> = (0..7).collect();
        let answers = each_on_a_thread(&parts, |part| (part * part, thread::current().id()));
        assert_eq!(
            answers
                .iter()
                .map(|(square, _)| *square)
                .collect::<Vec<_>>(),
            [0, 1, 4, 9, 16, 25, 36]
        );
        // The first part on the calling thread, the others each on one of their own.
        assert_eq!(answers[0].1, thread::current().id());
        let mut threads: Vec<_> = answers.iter().map(|(_, id)| *id).collect();
        threads.sort_by_key(|id| format!("{id:?}"));
        threads.dedup();
        assert_eq!(threads.len(), 7);
        assert!(each_on_a_thread(&[] as &[u64], |part| *part).is_empty());
    }
}
