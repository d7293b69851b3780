//! `statectl drift [STATE]`: reads every managed instance (or those `--target`, `--type` and
//! `--module` choose) through its own provider plugin, as `terraform plan -refresh-only` reads it,
//! and reports what changed outside Terraform: the attributes whose value the provider now gives
//! otherwise (less the known noise, see `statectl_analysis::drift`), and the instances whose object
//! is gone. Exit 0 when nothing drifted, 1 when something did, 2 when anything could not be read:
//! an instance not read is never reported as unchanged.
//!
//! Read-only by construction: there is no write path here at all, and no lock unless `--lock` asks
//! for one (a lock would block the applies a scheduled check runs beside).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use statectl_analysis::diff::AttributeChange;
use statectl_analysis::drift::{Muted, changed_attributes, gone_ignored};
use statectl_analysis::scan::select::{Selected, select};

use crate::cli::drift_fetch::{Ahead, Fetched};
use crate::cli::drift_report::{Entry, EntryKind, Report, render};
use crate::cli::duration::DurationParser;
use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::findings::ReportFormat;
use crate::cli::plugin_inputs::PluginArgs;
use crate::cli::plugin_refresh::read_job;
use crate::cli::refresh::{PluginRun, plugin_reader_settings};
use crate::cli::settings::{DriftSettings, DriftTarget as Target, at_least_one};
use crate::cli::{BackendArgs, ConfigArgs, Printer, load};
use crate::reconcile::outcome::Outcome;
use crate::reconcile::plugin::reader::{ReadJob, ReaderSettings, Refreshed, read_all};
use crate::state::State;
use crate::state::legacy::StateBytes;
use crate::state::sensitive::{self, CtyStep};
use crate::state::source::Source;
use crate::state::store::Locked;

/// The source of the provider built into Terraform.
const BUILTIN: &str = "terraform.io/builtin/terraform";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The states: files, `-`, URLs (`s3://bucket/key`, ...), or working directories where
    /// `terraform init` ran (each one's backend state, read with its own providers and `provider`
    /// blocks); several in one run, one report. Default: the working directory's state.
    #[arg(value_name = "STATE|DIR")]
    pub states: Vec<PathBuf>,

    #[command(flatten)]
    pub backend: BackendArgs,

    #[command(flatten)]
    pub config: ConfigArgs,

    /// Only these instances (addresses as `terraform state list` takes them, or globs); repeatable.
    /// Default: every managed instance.
    #[arg(long = "target", value_name = "ADDRESS")]
    pub targets: Vec<String>,

    /// Only instances of these resource types (globs allowed); repeatable.
    #[arg(long = "type", value_name = "TYPE")]
    pub types: Vec<String>,

    /// Only instances in these modules or below them (`module.net`, globs allowed); repeatable.
    #[arg(long = "module", value_name = "MODULE")]
    pub modules: Vec<String>,

    /// Not drift: changes at this attribute path (or below it) of this resource type, globs in both
    /// parts (`aws_instance.tags.LastScanned`, `*.tags_all.*`); repeatable. `[[drift.ignore]]` in
    /// `.statectl.toml` adds more, each with its reason.
    #[arg(long = "ignore", value_name = "TYPE.PATH")]
    pub ignores: Vec<String>,

    /// Report every change the read shows, as `terraform plan -refresh-only` does: no noise rules
    /// (by default changes in attributes only the provider sets, and null <-> empty collections,
    /// are counted, not reported); ignores still apply.
    #[arg(long)]
    pub all_changes: bool,

    /// How many instances are read at once, over all providers (and remote states fetched at once).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = at_least_one)]
    pub parallelism: usize,

    /// How long one instance's read may take at most.
    #[arg(long, value_name = "DURATION", value_parser = DurationParser)]
    pub timeout: Option<Duration>,

    /// How long a provider plugin may take to start: its handshake, and each of its schema and
    /// configuration calls before the first read.
    #[arg(long, value_name = "DURATION", value_parser = DurationParser, default_value = "60s")]
    pub start_timeout: Duration,

    #[command(flatten)]
    pub plugins: PluginArgs,

    /// Hold the state's lock while reading (Terraform-compatible). Off by default: drift never
    /// writes, and a lock would block an apply meanwhile.
    #[arg(long)]
    pub lock: bool,

    /// How long `--lock` waits for the lock, as Terraform's `-lock-timeout` (e.g. `30s`).
    #[arg(long, value_name = "DURATION", value_parser = DurationParser)]
    pub lock_timeout: Option<Duration>,

    /// With `--workspace GLOB` (`'*'`, `'prod-*'`): the most pages of the backend's workspace
    /// listing to read (1,000 names a page on S3, GCS and OCI, 100 workspaces on HCP Terraform);
    /// a listing still going after that is an error rather than followed for ever.
    #[arg(long, value_name = "N", default_value_t = statectl_backend::DEFAULT_MAX_PAGES, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_pages: u32,

    /// How to print the report.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,

    /// Show sensitive values instead of masking them.
    #[arg(long)]
    pub show_sensitive: bool,
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let settings = DriftSettings::resolve(args)?;
    drift(&settings, printer)
}

/// The check the settings describe: the states in groups that share a configuration (each
/// group's providers started once for all its states), one report.
fn drift(settings: &DriftSettings, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let mut groups: Vec<Vec<&Target>> = Vec::new();
    for target in &settings.targets {
        match groups
            .iter_mut()
            .find(|group| group[0].config == target.config)
        {
            Some(group) => group.push(target),
            None => groups.push(vec![target]),
        }
    }
    for warning in &settings.warnings {
        printer.warning(&sanitize(warning));
    }
    // A single state's failure is the run's error; a workspace chosen by a glob is one of many.
    let one = settings.targets.len() == 1 && settings.targets[0].workspace.is_none();
    let mut reports = Vec::new();
    let mut interrupted = false;
    for group in groups {
        let (checked, stopped) = check_group(&group, settings, one, printer)?;
        reports.extend(checked);
        if stopped {
            interrupted = true;
            break;
        }
    }
    let text = render(&reports, settings)?;
    printer.out(&text)?;
    for report in &reports {
        if let Some(error) = &report.error {
            printer.error_line(&sanitize(error));
        }
        for (address, message) in report.errors() {
            printer.error_line(&sanitize(&format!("{address}: {message}")));
        }
    }
    if interrupted {
        printer.warning("interrupted: the reads in flight were stopped, so the report above compared none of them; nothing was written");
        return Ok(ExitStatus::Interrupted);
    }
    Ok(reports
        .iter()
        .map(Report::exit_status)
        .fold(ExitStatus::Success, ExitStatus::and))
}

/// A state read (under its lock with `--lock`), or why it could not be.
struct Opened<'t> {
    target: &'t Target,
    bytes: Result<StateBytes, CliError>,
    locked: Option<Locked>,
}

/// How many bytes of state one batch of a group holds at most (past the state that crosses it):
/// a glob over hundreds of workspaces keeps bounded memory, at the cost of starting the providers
/// again for each further batch.
const BATCH_BYTES: usize = 256 << 20;

/// Reads the states of one group (the same configuration), then every chosen instance of them all
/// through one set of provider processes, a batch of states at a time (`BATCH_BYTES`). A state
/// that cannot be read is an error of its own report; with a single state (`one`) it is the run's
/// error. `true` with the reports when Ctrl-C cut the reads short.
fn check_group(
    group: &[&Target],
    settings: &DriftSettings,
    one: bool,
    printer: &mut Printer,
) -> Result<(Vec<Report>, bool), CliError> {
    let mut reports = Vec::new();
    let mut opened = Vec::new();
    let mut held = 0;
    let mut ahead = Ahead::new(if settings.lock.is_some() {
        1
    } else {
        settings.parallelism
    });
    for (position, target) in group.iter().enumerate() {
        let fetched = ahead.take(group, position);
        let opening = match open(target, settings, fetched, printer) {
            Ok(Some((bytes, size, locked))) => {
                held += size;
                Some((Ok(bytes), locked))
            }
            // A listed workspace without a state: nothing to check.
            Ok(None) => None,
            Err(error) if one => return Err(error),
            Err(error) => Some((Err(error), None)),
        };
        if let Some((bytes, locked)) = opening {
            opened.push(Opened {
                target,
                bytes,
                locked,
            });
        }
        if held < BATCH_BYTES && position + 1 < group.len() {
            continue;
        }
        let result = read_group(&opened, settings, one, printer);
        for state in opened.drain(..) {
            if let Some(locked) = state.locked {
                locked.release()?;
            }
        }
        held = 0;
        let (checked, stopped) = result?;
        reports.extend(checked);
        if stopped {
            return Ok((reports, true));
        }
    }
    Ok((reports, false))
}

/// The state of `target`, decrypted, its size, and its lock when `--lock` asks for one; `None` for a
/// workspace `--workspace GLOB` listed that has no state yet (Terraform lists `default` before its
/// first apply): nothing to check, and a note says so. `fetched`: its bytes when they were fetched
/// ahead (see `drift_fetch`).
fn open(
    target: &Target,
    settings: &DriftSettings,
    fetched: Option<Fetched>,
    printer: &mut Printer,
) -> Result<Option<(StateBytes, usize, Option<Locked>)>, CliError> {
    if let Some(workspace) = &target.workspace {
        let absent = match &target.source {
            Source::Path(path) => !path.exists(),
            _ => false,
        };
        if absent {
            printer.note(&sanitize(&format!(
                "workspace \"{workspace}\" has no state yet ({}): nothing to check",
                target.source
            )));
            return Ok(None);
        }
    }
    let locked = match settings.lock {
        Some(timeout) => Some(Locked::acquire_source(
            &target.source,
            "statectl drift",
            timeout,
        )?),
        None => None,
    };
    let listed_remote = matches!(target.source, Source::Remote(_));
    let stored = if let Some(workspace) = target.workspace.as_ref().filter(|_| listed_remote) {
        // A listed workspace's remote state may not exist yet: one read says which (a remote lock
        // is an object of its own, so reading beside it keeps it). A local one was checked above,
        // and is read through its lock below: opening a locked file a second time would drop the
        // lock (POSIX drops it when any handle of the file in the process closes).
        match fetched.unwrap_or_else(|| target.source.read_existing()) {
            Ok(Some(stored)) => Ok(stored),
            Ok(None) => {
                if let Some(locked) = locked {
                    locked.release()?;
                }
                printer.note(&sanitize(&format!(
                    "workspace \"{workspace}\" has no state yet ({}): nothing to check",
                    target.source
                )));
                return Ok(None);
            }
            Err(error) => Err(CliError::state(&target.source, &error)),
        }
    } else if let Some(locked) = &locked {
        locked.read().map_err(CliError::from)
    } else {
        let read = match fetched {
            // Fetched ahead with `read`, which answers `Some` or an error.
            Some(fetched) => fetched.map(Option::unwrap_or_default),
            None => target.source.read(),
        };
        read.map_err(|error| CliError::state(&target.source, &error))
    };
    let stored = match stored {
        Ok(stored) => stored,
        Err(error) => {
            if let Some(locked) = locked {
                locked.release()?;
            }
            return Err(error);
        }
    };
    if let Some(note) = &target.note {
        printer.note(note);
    }
    let plaintext = crate::cli::encryption::open(&settings.encryption, &target.source, stored)?;
    let size = plaintext.len();
    Ok(Some((StateBytes::new(plaintext), size, locked)))
}

fn read_group(
    opened: &[Opened<'_>],
    settings: &DriftSettings,
    one: bool,
    printer: &mut Printer,
) -> Result<(Vec<Report>, bool), CliError> {
    let rules = crate::cli::scan::load_rules(None)?;
    let mut reports = Vec::new();
    let mut states: Vec<Option<(State<'_>, Vec<Selected>)>> = Vec::new();
    let mut jobs = Vec::new();
    // Which state and which of its chosen instances each job reads.
    let mut read: Vec<(usize, usize)> = Vec::new();
    for (position, state) in opened.iter().enumerate() {
        let name = match &state.target.workspace {
            Some(workspace) => format!("{} (workspace \"{workspace}\")", state.target.source),
            None => state.target.source.to_string(),
        };
        let parsed = match &state.bytes {
            Err(error) => Err(CliError::new(error.message.clone())),
            Ok(bytes) => parse_and_choose(&state.target.source, bytes, &rules, settings),
        };
        let (parsed, selected) = match parsed {
            Ok(parsed) => parsed,
            Err(error) if one => return Err(error),
            Err(error) => {
                let mut report = Report::new(name, 0, &settings.rules);
                report.workspace.clone_from(&state.target.workspace);
                report.error = Some(error.message);
                reports.push(report);
                states.push(None);
                continue;
            }
        };
        let mut report = Report::new(name, selected.len(), &settings.rules);
        report.workspace.clone_from(&state.target.workspace);
        for (index, chosen) in selected.iter().enumerate() {
            match &chosen.provider {
                // Terraform's own provider (`terraform_data`) is built into Terraform: no plugin
                // to start, and no remote object to drift.
                Some(provider) if provider.source == BUILTIN => report.builtin += 1,
                Some(provider) => {
                    jobs.push(read_job(chosen, &provider.text, parsed.source));
                    read.push((position, index));
                }
                None => report.entries.push(Entry::error(
                    chosen,
                    "no provider in the state to read it with".to_owned(),
                )),
            }
        }
        reports.push(report);
        states.push(Some((parsed, selected)));
    }
    if jobs.is_empty() {
        return Ok((reports, false));
    }
    let reader = plugin_reader_settings(
        &PluginRun {
            config: opened[0].target.config.as_deref(),
            inputs: &settings.inputs,
            plugins: &settings.plugins,
            parallelism: settings.parallelism,
            timeout: settings.timeout,
        },
        jobs.iter().map(|job| job.provider.as_str()),
        printer,
    )?;
    let Some(answers) = read_everything(jobs, &reader)? else {
        return Ok((reports, true));
    };
    for ((position, index), answer) in read.into_iter().zip(answers) {
        let Some((state, selected)) = &states[position] else {
            continue;
        };
        let chosen = &selected[index];
        for warning in &answer.warnings {
            printer.warning(&sanitize(&format!("{}: {warning}", chosen.address)));
        }
        let report = &mut reports[position];
        if let Some(entry) = compare(chosen, state, answer, settings, &mut report.muted) {
            report.entries.push(entry);
        }
    }
    Ok((reports, false))
}
/// The state in `bytes`, and the instances the settings choose in it.
fn parse_and_choose<'b>(
    source: &Source,
    bytes: &'b StateBytes,
    rules: &statectl_analysis::scan::Rules,
    settings: &DriftSettings,
) -> Result<(State<'b>, Vec<Selected>), CliError> {
    let parsed = load::parse_state(source, bytes)?;
    let selected: Vec<Selected> = select(&parsed, rules, &settings.selection)?
        .into_iter()
        .filter(|one| in_modules(one, settings))
        .collect();
    // As with `--type` and `--target`: a choice that matches nothing is a mistake, not "no drift".
    if selected.is_empty() && !settings.modules.is_empty() {
        return Err(CliError::new(
            "no managed instance in the state matches the --module given",
        )
        .with_hint("`statectl list` shows the state's addresses; a module is named with its `module.` steps (`module.net`, `module.app*`)"));
    }
    Ok((parsed, selected))
}

/// Whether `one` is in a module `--module` names (or below it); every instance without the flag.
fn in_modules(one: &Selected, settings: &DriftSettings) -> bool {
    if settings.modules.is_empty() {
        return true;
    }
    let steps = &one.address.resource.module.0;
    (1..=steps.len()).any(|length| {
        let prefix = crate::state::address::ModulePath(steps[..length].into()).to_string();
        settings.modules.iter().any(|glob| glob.matches(&prefix))
    })
}

/// Every read, on one thread (the work is waiting on the plugins), until done or Ctrl-C (`None`).
fn read_everything(
    jobs: Vec<ReadJob>,
    reader: &ReaderSettings,
) -> Result<Option<Vec<Refreshed>>, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CliError::new(format!("cannot start the async runtime: {error}")))?;
    let answers = runtime.block_on(async {
        tokio::select! {
            answers = read_all(jobs, reader) => Some(answers),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    runtime.shutdown_background();
    Ok(answers)
}

/// The report's entry for one instance's answer: `None` when it did not drift.
fn compare(
    one: &Selected,
    state: &State<'_>,
    answer: Refreshed,
    settings: &DriftSettings,
    muted: &mut Muted,
) -> Option<Entry> {
    let stored: Value = one
        .attributes
        .and_then(|span| serde_json::from_str(span.of(state.source)).ok())
        .unwrap_or(Value::Null);
    let mut secrets = stored_secrets(one, state.source);
    match (answer.outcome, answer.object) {
        (Outcome::Reconciled { .. }, Some(object)) => {
            secrets.extend(sensitive::paths_to_mask(
                &Value::Array(object.sensitive_attributes.clone()).to_string(),
            ));
            let secrets = sensitive::with_copies(&one.type_name, secrets);
            // The paths whose values are masked: none with `--show-sensitive`.
            let masked: &[Vec<CtyStep>] = if settings.show_sensitive {
                &[]
            } else {
                &secrets
            };
            let changes: Vec<AttributeChange> = changed_attributes(
                &one.type_name,
                (&object.prior, &object.attributes),
                &object.computed_only,
                masked,
                &settings.rules,
                muted,
            );
            if changes.is_empty() {
                return None;
            }
            let (mut before, mut after) = (object.prior, object.attributes);
            for side in [&mut before, &mut after] {
                sensitive::mask(side, masked);
            }
            Some(Entry::new(
                one,
                EntryKind::Changed {
                    changes,
                    before,
                    after,
                    sensitive: secrets,
                },
            ))
        }
        (Outcome::Gone, _) if gone_ignored(&one.type_name, &settings.rules, muted) => None,
        (Outcome::Gone, _) => {
            let secrets = sensitive::with_copies(&one.type_name, secrets);
            let mut before = stored;
            if !settings.show_sensitive {
                sensitive::mask(&mut before, &secrets);
            }
            Some(Entry::new(
                one,
                EntryKind::Gone {
                    before,
                    sensitive: secrets,
                },
            ))
        }
        (Outcome::Error { message, .. }, _) => {
            // The reader prefixes the address; the report names it once.
            let message = message
                .strip_prefix(&format!("{}: ", one.address))
                .map_or(message.clone(), str::to_owned);
            Some(Entry::error(one, message))
        }
        (other, _) => Some(Entry::error(
            one,
            format!("unexpected answer from the reader: {}", other.kind()),
        )),
    }
}

/// The stored object's `sensitive_attributes` paths.
fn stored_secrets(one: &Selected, source: &str) -> Vec<Vec<CtyStep>> {
    one.sensitive_attributes
        .map(|span| sensitive::paths_to_mask(span.of(source)))
        .unwrap_or_default()
}
