//! The `-v` / `-vv` log: tracing events from statectl's own modules, written to stderr (never
//! stdout, which carries data). `-v` shows each instance's outcome and the run's progress, `-vv`
//! every request and answer. Requests are logged by method, host and path: headers (where the
//! credentials are) and queries never are, and every line is masked against the run's secrets and
//! the credential patterns before it is written (a server's answer may echo what it was sent).
//! Every value is escaped (`log_fields`). While a progress bar is drawn, a log line is written
//! above it instead of through it.

use std::io::{self, Write};
use std::sync::{Mutex, OnceLock};

use indicatif::ProgressBar;
use tracing::level_filters::LevelFilter;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The bar being drawn, if any; log lines make room for it.
static BAR: OnceLock<Mutex<Option<ProgressBar>>> = OnceLock::new();

/// Starts the log for `verbosity` (the count of `-v`); nothing is logged without one. Uncolored
/// whatever `--color` says: tracing-subscriber colors only with its `ansi` feature, which statectl
/// leaves out (asking for color without it printed "the `ansi` crate feature is required" on every
/// `-v` run on a terminal, and a debug build panicked).
pub(super) fn init(verbosity: u8) {
    let level = match verbosity {
        0 => return,
        1 => LevelFilter::INFO,
        2 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    };
    // Only statectl's own events: the HTTP and TLS crates log far more than anyone reads.
    let targets = Targets::new().with_target("statectl", level);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(StderrAboveBar)
        .with_ansi(false)
        .with_target(verbosity > 2)
        // Every value escaped: a server's status text cannot start a line of its own.
        .fmt_fields(crate::cli::log_fields::EscapedFields);
    // A second init (tests calling run twice in one process) keeps the first.
    let _ = tracing_subscriber::registry()
        .with(layer.with_filter(targets))
        .try_init();
}

/// Registers the bar log lines must be written above (`None` once it is finished).
pub(super) fn set_bar(bar: Option<ProgressBar>) {
    let slot = BAR.get_or_init(|| Mutex::new(None));
    *slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = bar;
}

#[derive(Debug, Clone, Copy)]
struct StderrAboveBar;

impl<'w> MakeWriter<'w> for StderrAboveBar {
    type Writer = LineWriter;

    fn make_writer(&'w self) -> LineWriter {
        LineWriter(Vec::with_capacity(128))
    }
}

/// One event's text, written whole when the event is done.
#[derive(Debug)]
struct LineWriter(Vec<u8>);

impl Write for LineWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        let text = std::mem::take(&mut self.0);
        let text = String::from_utf8_lossy(&text);
        let text = statectl_net::secrets::mask_message(&text);
        let write = || {
            let _ = io::stderr().lock().write_all(text.as_bytes());
        };
        let bar = BAR
            .get()
            .and_then(|slot| slot.lock().ok().and_then(|bar| bar.clone()));
        match bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }
}
