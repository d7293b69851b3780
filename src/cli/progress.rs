//! Progress of a refresh on stderr: the printer's bar on a terminal (done/total, in flight, retries),
//! and with `-v` a log line every few seconds; nothing when stderr is not a terminal and no `-v`
//! was given, so CI logs stay clean; nothing at all with `--quiet`.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use crate::cli::log;
use crate::reconcile::progress::Progress;

/// The bar's template (indicatif's).
pub(super) const REFRESH_BAR: &str =
    "{spinner} refresh [{bar:30}] {pos}/{len} done, {msg} ({elapsed})";

/// How often the bar is redrawn from the counters.
const TICK: Duration = Duration::from_millis(100);
/// How often the log says how far the run is, without a bar.
const LOG_EVERY: Duration = Duration::from_secs(2);

/// Draws `progress` until dropped.
#[derive(Debug)]
pub(super) struct ProgressView {
    /// Dropped to stop the drawer at once (not at its next tick).
    stop: Option<mpsc::Sender<()>>,
    drawer: Option<JoinHandle<()>>,
}

impl ProgressView {
    /// Draws on `bar` (from [`Printer::progress_bar`](crate::cli::Printer::progress_bar): a
    /// terminal, not `--quiet`), else logs every few seconds at `-v`, else draws nothing.
    pub(super) fn start(
        progress: Arc<Progress>,
        verbosity: u8,
        bar: Option<ProgressBar>,
    ) -> ProgressView {
        let (stop, stopped) = mpsc::channel::<()>();
        if progress.snapshot().total == 0 || (bar.is_none() && verbosity == 0) {
            return ProgressView {
                stop: None,
                drawer: None,
            };
        }
        let drawer = std::thread::spawn(move || {
            let mut logged = Instant::now();
            loop {
                let finished = matches!(
                    stopped.recv_timeout(TICK),
                    Err(RecvTimeoutError::Disconnected)
                );
                let now = progress.snapshot();
                if let Some(bar) = &bar {
                    bar.set_position(now.done as u64);
                    bar.set_message(format!(
                        "{} in flight, {} retries",
                        now.in_flight, now.retries
                    ));
                } else if logged.elapsed() >= LOG_EVERY || finished {
                    tracing::info!(
                        done = now.done,
                        total = now.total,
                        in_flight = now.in_flight,
                        retries = now.retries,
                        "progress"
                    );
                    logged = Instant::now();
                }
                if finished {
                    break;
                }
            }
            if let Some(bar) = bar {
                log::set_bar(None);
                bar.finish_and_clear();
            }
        });
        ProgressView {
            stop: Some(stop),
            drawer: Some(drawer),
        }
    }
}

impl Drop for ProgressView {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(drawer) = self.drawer.take() {
            let _ = drawer.join();
        }
    }
}
