//! Many states in one command (`scan`, `summary`): a prefix URL (`s3://bucket/prefix/`) listed into
//! its states, `--include`/`--exclude` globs over their keys, `--max-pages`, and the states read a
//! few at a time with a progress bar on a terminal. Memory stays bounded: a listed state is only a
//! key until a worker opens it, a worker holds one state while it reads and parses it, and each
//! result is handed on, in order, as soon as the ones before it are, then dropped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use indicatif::ProgressBar;

use statectl_analysis::scan::discover::{Entry, state_files};

use crate::cli::error::{CliError, sanitize};
use crate::cli::{Printer, log};
use crate::state::bytes::Bytes;
use crate::state::source::Source;

/// Which keys below a prefix URL to read.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct KeyArgs {
    /// With a prefix URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`...): only the keys this glob matches (`*` within a
    /// path segment, `**` across them, e.g. `**/prod/*.tfstate`). Repeatable: any may match.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,

    /// With a prefix URL: skip the keys this glob matches. Repeatable. Lock objects (`*.tflock`) are
    /// always skipped.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// With a prefix URL: the most pages of keys to list (1,000 keys a page on S3, GCS and OCI); a
    /// listing still going after that is an error rather than followed for ever.
    #[arg(long, value_name = "N", default_value_t = statectl_backend::DEFAULT_MAX_PAGES, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_pages: u32,
}

/// `--include` and `--exclude`, compiled.
#[derive(Debug)]
pub(crate) struct KeyFilter {
    include: Option<globset::GlobSet>,
    exclude: Option<globset::GlobSet>,
    text: String,
    max_pages: u32,
}

impl KeyFilter {
    pub(crate) fn new(args: &KeyArgs) -> Result<KeyFilter, CliError> {
        let compile =
            |globs: &[String], flag: &str| -> Result<Option<globset::GlobSet>, CliError> {
                if globs.is_empty() {
                    return Ok(None);
                }
                let mut set = globset::GlobSetBuilder::new();
                for glob in globs {
                    let compiled = globset::GlobBuilder::new(glob)
                        .literal_separator(true)
                        .build()
                        .map_err(|error| {
                            CliError::new(format!(
                                "{flag} {}: not a glob: {}",
                                sanitize(glob),
                                error.kind()
                            ))
                        })?;
                    set.add(compiled);
                }
                set.build()
                    .map(Some)
                    .map_err(|error| CliError::new(format!("{flag}: {error}")))
            };
        let mut parts = Vec::new();
        if !args.include.is_empty() {
            parts.push(format!(" matching {}", args.include.join(" or ")));
        }
        if !args.exclude.is_empty() {
            parts.push(format!(" outside {}", args.exclude.join(" and ")));
        }
        Ok(KeyFilter {
            include: compile(&args.include, "--include")?,
            exclude: compile(&args.exclude, "--exclude")?,
            text: parts.concat(),
            max_pages: args.max_pages,
        })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.include.is_none() && self.exclude.is_none()
    }

    fn keeps(&self, key: &str) -> bool {
        self.include.as_ref().is_none_or(|set| set.is_match(key))
            && !self.exclude.as_ref().is_some_and(|set| set.is_match(key))
    }
}

/// The states named by a many-state command, folders expanded and prefix URLs listed; no argument
/// means the state `terraform init` recorded.
pub(crate) fn sources(
    paths: &[PathBuf],
    backend: &crate::cli::BackendArgs,
    keys: &KeyFilter,
    printer: &mut Printer,
) -> Result<Vec<Found>, CliError> {
    let located = |arg: Option<&std::path::Path>, printer: &mut Printer| {
        let located = crate::cli::state_source::locate(arg, backend)?;
        if let Some(note) = &located.note {
            printer.note(note);
        }
        Ok::<Found, CliError>(Found::Named(located.source))
    };
    if paths.is_empty() {
        return Ok(vec![located(None, printer)?]);
    }
    let (urls, paths): (Vec<&PathBuf>, Vec<&PathBuf>) = paths
        .iter()
        .partition(|path| path.to_string_lossy().contains("://"));
    let mut remote = Vec::new();
    let mut any_listed = false;
    for url in urls {
        let text = url.to_string_lossy();
        match listed(&text, backend, keys, printer)? {
            Some(states) => {
                any_listed = true;
                remote.extend(states);
            }
            None => remote.push(located(Some(url), printer)?),
        }
    }
    if !any_listed && !keys.is_empty() {
        return Err(CliError::new(
            "`--include` and `--exclude` choose keys below a prefix URL (`s3://bucket/prefix/`), and none is named",
        ));
    }
    if remote.is_empty() && (backend.workspace.is_some() || !backend.backend_config.is_empty()) {
        return Err(CliError::new(
            "`--workspace` and `--backend-config` choose a backend's state, but only files are named",
        )
        .with_hint("leave the state arguments out to use the backend `terraform init` recorded here, or give a URL (`s3://bucket/key`)"));
    }
    if paths.is_empty() {
        return Ok(remote);
    }
    let (stdin, files): (Vec<&PathBuf>, Vec<&PathBuf>) =
        paths.into_iter().partition(|path| path.as_os_str() == "-");
    let files: Vec<PathBuf> = files.into_iter().cloned().collect();
    let mut sources: Vec<Found> = state_files(&files)
        .into_iter()
        .map(|entry| match entry {
            Entry::State(path) => Found::Named(Source::Path(path)),
            Entry::Unreadable { path, problem } => Found::Unreadable {
                problem: format!("{}: {problem}", path.display()),
                path,
            },
        })
        .collect();
    if !stdin.is_empty() {
        sources.insert(0, Found::Named(Source::Stdin));
    }
    sources.extend(remote);
    if sources.is_empty() {
        let named: Vec<String> = files
            .iter()
            .map(|path| path.display().to_string())
            .collect();
        return Err(
            CliError::new(format!("no `*.tfstate` files under {}", named.join(", ")))
                .with_hint("name state files, or folders that hold them"),
        );
    }
    Ok(sources)
}

/// The states below `url` when it is a prefix URL (`s3://bucket/prefix/`), those `keys` keeps, in key
/// order; `None` for any other argument. The count, and what was odd about the listing, go to
/// stderr; an empty listing is an error.
pub(crate) fn listed(
    url: &str,
    backend: &crate::cli::BackendArgs,
    keys: &KeyFilter,
    printer: &mut Printer,
) -> Result<Option<Vec<Found>>, CliError> {
    let overrides = crate::cli::state_source::overrides(backend);
    let Some((config, prefix)) = statectl_backend::discover::listing_from_url(url, &overrides)?
    else {
        return Ok(None);
    };
    let keep = |key: &str| keys.keeps(key);
    let options = statectl_backend::ListOptions {
        keep: &keep,
        max_pages: keys.max_pages,
    };
    let listing = statectl_backend::states_under(&config, &prefix, options)?;
    for warning in &listing.warnings {
        printer.warning(&sanitize(warning));
    }
    if listing.keys.is_empty() {
        return Err(
            CliError::new(format!("{}: no states there{}", config.origin, keys.text)).with_hint(
                "check the bucket and the prefix (it ends in `/`), and `--include`/`--exclude`",
            ),
        );
    }
    let count = listing.keys.len();
    printer.note(&format!(
        "{count} state{} under {}",
        if count == 1 { "" } else { "s" },
        config.origin
    ));
    let listing = Arc::new(listing);
    Ok(Some(
        (0..count)
            .map(|index| Found::Listed {
                listing: Arc::clone(&listing),
                index,
            })
            .collect(),
    ))
}

/// A state a many-state command reads.
#[derive(Debug)]
pub(crate) enum Found {
    /// Named on the command line, found in a folder, or the one `terraform init` recorded.
    Named(Source),
    /// Found by a listing, opened when it is read: its object exists, so "no state there" means
    /// an empty object.
    Listed {
        listing: Arc<statectl_backend::Listing>,
        index: usize,
    },
    /// Found in a folder, but not readable there (a path longer than the system takes, a folder
    /// that may not be read): an error entry of the report, while the others are read.
    Unreadable { path: PathBuf, problem: String },
}

impl Found {
    /// Where the state is read from (a listed one opened now, sharing the listing's clients).
    pub(crate) fn source(&self) -> Source {
        match self {
            Found::Named(source) => source.clone(),
            Found::Listed { listing, index } => Source::Remote(listing.open(&listing.keys[*index])),
            Found::Unreadable { path, .. } => Source::Path(path.clone()),
        }
    }
}

/// The bytes of `found`'s state; `None` for a listed object that holds no state (an empty one:
/// Terraform's azurerm lock leaves one behind, a console's folder marker is one), which Terraform
/// reads as no state yet and a scan skips. A state named on its own must exist.
pub(crate) fn read_found(found: &Found, source: &Source) -> Result<Option<Bytes>, CliError> {
    let read = match found {
        Found::Unreadable { problem, .. } => return Err(CliError::new(sanitize(problem))),
        Found::Listed { .. } => source.read_existing(),
        Found::Named(_) => source.read_only().map(Some),
    };
    read.map_err(|error| CliError::state(source, &error))
}

/// The stderr note for the listed objects skipped as empty, if any.
pub(crate) fn skipped_note(empty: &[String]) -> Option<String> {
    if empty.is_empty() {
        return None;
    }
    // Keys from a listing: whatever the bucket holds, escaped.
    let shown: Vec<String> = empty.iter().take(5).map(|name| sanitize(name)).collect();
    let more = match empty.len() - shown.len() {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    Some(format!(
        "skipped {} empty object{} (no state yet, as Terraform reads them): {}{more}",
        empty.len(),
        if empty.len() == 1 { "" } else { "s" },
        shown.join(", "),
    ))
}

/// How many results each worker may have waiting for the consumer. The consumer shares the CPUs
/// with the workers and runs only between their time slices: with four a worker, 2,070 small
/// states kept the workers waiting for it a third of the time (0.28 s for a scan that takes 0.19 s
/// with 64).
const RESULTS_AHEAD_PER_WORKER: usize = 64;

/// How many results in a row the consumer waits for once it must wait, unless a worker waits for
/// it: woken for each, it took a context switch a state (3,200 for 2,070 small states, a seventh
/// of the CPU time of their scan on two CPUs).
const RESULTS_A_WAKE: usize = 8;

/// How much the results waiting for the consumer may weigh together (about a byte a unit) before
/// the workers wait for it: a large state's result (a scan's findings) can be tens of megabytes,
/// and 64 of them a worker would not be.
const WAITING_WEIGHT: usize = 256 << 20;

/// `work` over every source, `jobs` at a time (default: the number of CPUs), and `each` over the
/// results on this thread, in the sources' order, each as soon as the ones before it are done. The
/// workers run at most [`RESULTS_AHEAD_PER_WORKER`] results each ahead of the one `each` waits
/// for, and start no state while the results waiting weigh [`WAITING_WEIGHT`] (by `weight`) or
/// more, so however many sources there are, only that much waits in memory. A bar counts the
/// states done when stderr is a terminal and there are several.
pub(crate) fn for_each_state<S: Sync, T: Send>(
    sources: &[S],
    jobs: Option<usize>,
    bar: &Bar,
    work: impl Fn(&S) -> T + Sync,
    weight: impl Fn(&T) -> usize + Sync,
    mut each: impl FnMut(&S, T),
) {
    let workers = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .clamp(1, sources.len().max(1));
    let queue = Queue::new(
        workers * RESULTS_AHEAD_PER_WORKER,
        WAITING_WEIGHT,
        sources.len(),
    );
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let _stop = queue.stop_on_unwind();
                while let Some(index) = queue.take(sources.len()) {
                    let result = work(&sources[index]);
                    bar.advance();
                    let weight = weight(&result);
                    queue.finish(index, result, weight);
                }
            });
        }
        // A consumer that panics stops the workers too, or the scope would wait for them forever.
        let _stop = queue.stop_on_unwind();
        for (index, source) in sources.iter().enumerate() {
            // `None`: a worker panicked; the scope's end passes its panic on.
            let Some(result) = queue.next(index) else {
                break;
            };
            each(source, result);
        }
        queue.stop();
    });
}

/// The hand-over between the workers and the thread that consumes their results in order.
struct Queue<T> {
    inner: Mutex<QueueInner<T>>,
    changed: Condvar,
    /// How far past the next result to hand on a worker may start.
    window: usize,
    /// How much the results waiting may weigh before no worker starts another state.
    most_weight: usize,
    /// How many sources there are.
    total: usize,
}

struct QueueInner<T> {
    /// The next source a worker takes.
    taken: usize,
    /// The next result to hand on.
    handed: usize,
    /// The results done and not handed on yet, with their weights.
    done: BTreeMap<usize, (T, usize)>,
    /// What the results in `done` weigh together.
    waiting: usize,
    /// Set when the consumer stops or a worker panicked: everyone leaves.
    stopped: bool,
    /// The result the consumer waits for, while it waits.
    consumer_waits_for: Option<usize>,
    /// How many workers wait for the consumer to hand results on.
    workers_waiting: usize,
}

impl<T> QueueInner<T> {
    /// Whether the consumer waits and should be woken: its result is done, and so are the next
    /// few (up to [`RESULTS_A_WAKE`] in all, or to the last), or a worker waits for it.
    fn consumer_may_go(&self, total: usize) -> bool {
        let Some(index) = self.consumer_waits_for else {
            return false;
        };
        let end = index.saturating_add(RESULTS_A_WAKE).min(total);
        self.done.contains_key(&index)
            && (self.workers_waiting > 0 || (index..end).all(|next| self.done.contains_key(&next)))
    }
}

impl<T> Queue<T> {
    fn new(window: usize, most_weight: usize, total: usize) -> Queue<T> {
        Queue {
            inner: Mutex::new(QueueInner {
                taken: 0,
                handed: 0,
                done: BTreeMap::new(),
                waiting: 0,
                stopped: false,
                consumer_waits_for: None,
                workers_waiting: 0,
            }),
            changed: Condvar::new(),
            window: window.max(1),
            most_weight,
            total,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueInner<T>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next source for a worker, once it is within the window and the results waiting weigh
    /// less than the most; `None` when all are taken. (No wait here can last: a result waits only
    /// behind the next one to hand on, which was taken before it, so a worker not waiting here is
    /// on it.)
    fn take(&self, total: usize) -> Option<usize> {
        let mut inner = self.lock();
        loop {
            if inner.stopped || inner.taken >= total {
                return None;
            }
            if inner.taken < inner.handed + self.window && inner.waiting < self.most_weight {
                inner.taken += 1;
                return Some(inner.taken - 1);
            }
            // The consumer may be waiting for more results in a row than will come while this
            // worker waits: it goes on with what is done.
            inner.workers_waiting += 1;
            if inner.consumer_may_go(self.total) {
                self.changed.notify_all();
            }
            inner = self
                .changed
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
            inner.workers_waiting -= 1;
        }
    }

    fn finish(&self, index: usize, result: T, weight: usize) {
        let mut inner = self.lock();
        inner.waiting = inner.waiting.saturating_add(weight);
        inner.done.insert(index, (result, weight));
        // Only a change that lets someone go wakes anyone (a result lets no worker go).
        let wake = inner.consumer_may_go(self.total);
        drop(inner);
        if wake {
            self.changed.notify_all();
        }
    }

    /// The result for `index`, once done; `None` when the workers stopped without it.
    fn next(&self, index: usize) -> Option<T> {
        let mut inner = self.lock();
        loop {
            if let Some((result, weight)) = inner.done.remove(&index) {
                inner.waiting = inner.waiting.saturating_sub(weight);
                inner.handed = index + 1;
                let wake = inner.workers_waiting > 0;
                drop(inner);
                if wake {
                    self.changed.notify_all();
                }
                return Some(result);
            }
            if inner.stopped {
                return None;
            }
            inner.consumer_waits_for = Some(index);
            inner = self
                .changed
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
            inner.consumer_waits_for = None;
        }
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }

    /// A guard that stops the queue when its thread unwinds (a worker or the consumer), so nobody
    /// waits for what it would have done.
    fn stop_on_unwind(&self) -> StopOnUnwind<'_, T> {
        StopOnUnwind(self)
    }
}

struct StopOnUnwind<'q, T>(&'q Queue<T>);

impl<T> Drop for StopOnUnwind<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// The progress bar of a many-state command, or nothing.
#[derive(Debug)]
pub(crate) struct Bar(Option<ProgressBar>);

impl Bar {
    /// The printer's bar when there are several states.
    pub(crate) fn start(total: usize, verb: &str, printer: &Printer) -> Bar {
        if total < 2 {
            return Bar(None);
        }
        Bar(printer.progress_bar(
            total,
            &format!(
                "{{spinner}} {verb} [{{bar:30}}] {{pos}}/{{len}} states ({{elapsed}}, about {{eta}} left)"
            ),
        ))
    }

    fn advance(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if let Some(bar) = self.0.take() {
            log::set_bar(None);
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::{Bar, for_each_state};

    /// Runs `for_each_state` over `count` sources on three workers, each result weighing
    /// `weight`, the consumer waiting `pause` on each; checks that no worker ever started more
    /// than `ahead` sources past the result being handed on, and that the results come in order.
    fn in_order_within(count: usize, weight: usize, pause: Duration, ahead: usize) {
        let sources: Vec<usize> = (0..count).collect();
        let started = AtomicUsize::new(0);
        let mut seen = Vec::new();
        for_each_state(
            &sources,
            Some(3),
            &Bar(None),
            |source| {
                started.fetch_add(1, Ordering::SeqCst);
                // Uneven work, so the workers finish out of order.
                (0..(source % 7) * 1000).fold(*source, |sum, step| sum ^ step);
                *source
            },
            |_| weight,
            |source, result| {
                std::thread::sleep(pause);
                assert!(started.load(Ordering::SeqCst) <= source + 1 + ahead);
                seen.push(result);
            },
        );
        assert_eq!(seen, sources);
    }

    #[test]
    fn results_come_in_order_and_the_workers_stay_within_the_window() {
        // Three workers, a window of three times `RESULTS_AHEAD_PER_WORKER` past the result being
        // handed on.
        in_order_within(
            2_000,
            1,
            Duration::ZERO,
            3 * super::RESULTS_AHEAD_PER_WORKER,
        );
    }

    #[test]
    fn heavy_results_keep_the_workers_to_what_may_wait() {
        // Each result weighs half of what may wait: at most two wait, besides those the workers
        // took before the second arrived; a slow consumer, so the workers would run ahead if
        // they could.
        in_order_within(
            300,
            super::WAITING_WEIGHT / 2,
            Duration::from_micros(200),
            2 + 3 + 3,
        );
    }

    #[test]
    fn the_last_results_reach_the_consumer_when_fewer_than_a_wake_remain() {
        // The consumer waits for several results in a row; at the end fewer remain.
        for count in [1, 3, super::RESULTS_A_WAKE + 3] {
            let sources: Vec<usize> = (0..count).collect();
            let mut seen = Vec::new();
            for_each_state(
                &sources,
                Some(2),
                &Bar(None),
                |source| {
                    std::thread::sleep(Duration::from_millis((*source % 3) as u64));
                    *source
                },
                |_| 1,
                |_, result| seen.push(result),
            );
            assert_eq!(seen, sources);
        }
    }

    #[test]
    fn a_consumer_that_panics_ends_the_run_instead_of_leaving_the_workers_waiting() {
        let sources: Vec<usize> = (0..2_000).collect();
        let outcome = std::panic::catch_unwind(|| {
            for_each_state(
                &sources,
                Some(2),
                &Bar(None),
                |source| *source,
                |_| 1,
                |_, result| assert_ne!(result, 3, "a broken consumer"),
            );
        });
        assert!(outcome.is_err());
    }

    #[test]
    fn a_worker_that_panics_ends_the_run_instead_of_leaving_it_waiting() {
        let sources: Vec<usize> = (0..50).collect();
        let outcome = std::panic::catch_unwind(|| {
            for_each_state(
                &sources,
                Some(2),
                &Bar(None),
                |source| assert_ne!(*source, 7, "a broken worker"),
                |()| 0,
                |_, ()| {},
            );
        });
        assert!(outcome.is_err());
    }
}
