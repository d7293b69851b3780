//! Many states in one command (`scan`, `summary`): a prefix URL (`s3://bucket/prefix/`) listed into
//! its states, `--include`/`--exclude` globs over their keys, and the states read a few at a time
//! with a progress bar on a terminal. Memory stays bounded: a worker holds one state while it reads
//! and parses it, and keeps only what the command asks of it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::error::CliError;
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
}

/// `--include` and `--exclude`, compiled.
#[derive(Debug)]
pub(crate) struct KeyFilter {
    include: Option<globset::GlobSet>,
    exclude: Option<globset::GlobSet>,
    text: String,
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
                                crate::cli::error::sanitize(glob),
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

/// The states below `url` when it is a prefix URL (`s3://bucket/prefix/`), those `keys` keeps, in key
/// order; `None` for any other argument. The count goes to stderr; an empty listing is an error.
pub(crate) fn listed(
    url: &str,
    backend: &crate::cli::BackendArgs,
    keys: &KeyFilter,
    printer: &mut Printer,
) -> Result<Option<Vec<Source>>, CliError> {
    let overrides = crate::cli::state_source::overrides(backend);
    let Some((config, prefix)) = statectl_backend::discover::listing_from_url(url, &overrides)?
    else {
        return Ok(None);
    };
    let states = statectl_backend::states_under(&config, &prefix, &|key| keys.keeps(key))?;
    if states.is_empty() {
        return Err(
            CliError::new(format!("{}: no states there{}", config.origin, keys.text)).with_hint(
                "check the bucket and the prefix (it ends in `/`), and `--include`/`--exclude`",
            ),
        );
    }
    printer.to_stderr(&format!(
        "{} state{} under {}\n",
        states.len(),
        if states.len() == 1 { "" } else { "s" },
        config.origin
    ));
    Ok(Some(states.into_iter().map(Source::Remote).collect()))
}

/// A state a many-state command reads, and whether a prefix listing found it.
#[derive(Debug)]
pub(crate) struct Found {
    pub source: Source,
    /// Found by a listing: its object exists, so "no state there" means an empty object.
    pub listed: bool,
}

/// The bytes of `found`'s state; `None` for a listed object that holds no state (an empty one:
/// Terraform's azurerm lock leaves one behind, a console's folder marker is one), which Terraform
/// reads as no state yet and a scan skips. A state named on its own must exist.
pub(crate) fn read_found(found: &Found) -> Result<Option<Bytes>, CliError> {
    let read = if found.listed {
        found.source.read_existing()
    } else {
        found.source.read().map(Some)
    };
    read.map_err(|error| CliError::state(&found.source, &error))
}

/// The stderr note for the listed objects skipped as empty, if any.
pub(crate) fn skipped_note(empty: &[String]) -> Option<String> {
    if empty.is_empty() {
        return None;
    }
    // Keys from a listing: whatever the bucket holds, escaped.
    let shown: Vec<String> = empty
        .iter()
        .take(5)
        .map(|name| crate::cli::error::sanitize(name))
        .collect();
    let more = match empty.len() - shown.len() {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    Some(format!(
        "skipped {} empty object{} (no state yet, as Terraform reads them): {}{more}\n",
        empty.len(),
        if empty.len() == 1 { "" } else { "s" },
        shown.join(", "),
    ))
}

/// `work` over every source, `jobs` at a time (default: the number of CPUs), results in the
/// sources' order. A bar counts the states done when stderr is a terminal and there are several.
pub(crate) fn for_each_state<S: Sync, T: Send>(
    sources: &[S],
    jobs: Option<usize>,
    verb: &str,
    work: impl Fn(&S) -> T + Sync,
) -> Vec<T> {
    let bar = Bar::start(sources.len(), verb);
    let workers = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .clamp(1, sources.len().max(1));
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, T)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(source) = sources.get(index) else {
                            break;
                        };
                        done.push((index, work(source)));
                        bar.advance();
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("a state worker does not panic"))
            .collect()
    });
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// The progress bar of a many-state command, or nothing.
#[derive(Debug)]
struct Bar(Option<ProgressBar>);

impl Bar {
    fn start(total: usize, verb: &str) -> Bar {
        if total < 2 || !std::io::stderr().is_terminal() {
            return Bar(None);
        }
        let bar = ProgressBar::with_draw_target(
            Some(total as u64),
            ProgressDrawTarget::stderr_with_hz(10),
        );
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {verb} [{{bar:30}}] {{pos}}/{{len}} states ({{elapsed}}, about {{eta}} left)"
            ))
            .expect("the template is valid")
            .progress_chars("=> "),
        );
        log::set_bar(Some(bar.clone()));
        Bar(Some(bar))
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
