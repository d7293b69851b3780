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

use crate::cli::drift_report::{Entry, EntryKind, Report, render};
use crate::cli::duration::DurationParser;
use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::findings::ReportFormat;
use crate::cli::plugin_inputs::parse_provider_config;
use crate::cli::plugin_refresh::read_job;
use crate::cli::refresh::{PluginRun, plugin_reader_settings};
use crate::cli::settings::{DriftSettings, at_least_one};
use crate::cli::{Printer, StateArg, load};
use crate::reconcile::outcome::Outcome;
use crate::reconcile::plugin::reader::{ReadJob, ReaderSettings, Refreshed, read_all};
use crate::state::State;
use crate::state::legacy::StateBytes;
use crate::state::sensitive::{self, CtyStep};
use crate::state::store::Locked;

/// The source of the provider built into Terraform.
const BUILTIN: &str = "terraform.io/builtin/terraform";

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub state: StateArg,

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

    /// How many instances are read at once, over all providers.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = at_least_one)]
    pub parallelism: usize,

    /// How long one instance's read may take at most.
    #[arg(long, value_name = "DURATION", value_parser = DurationParser)]
    pub timeout: Option<Duration>,

    /// How long a provider plugin may take to start: its handshake, and each of its schema and
    /// configuration calls before the first read.
    #[arg(long, value_name = "DURATION", value_parser = DurationParser, default_value = "60s")]
    pub start_timeout: Duration,

    /// Where provider plugins are, instead of `.terraform/providers` under --config (or the
    /// working directory); repeatable.
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,

    /// A provider configuration's arguments, a JSON object laid over the literal ones of its
    /// `provider` block in --config; NAME is `aws` or `aws.ALIAS`; repeatable.
    #[arg(long = "provider-config", value_name = "NAME=FILE", value_parser = parse_provider_config)]
    pub provider_configs: Vec<(String, PathBuf)>,

    /// Hold the state's lock while reading (Terraform-compatible). Off by default: drift never
    /// writes, and a lock would block an apply meanwhile.
    #[arg(long)]
    pub lock: bool,

    /// How long `--lock` waits for the lock, as Terraform's `-lock-timeout` (e.g. `30s`).
    #[arg(long, value_name = "DURATION", value_parser = DurationParser)]
    pub lock_timeout: Option<Duration>,

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

/// The check the settings describe.
fn drift(settings: &DriftSettings, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let locked = match settings.lock {
        Some(timeout) => Some(Locked::acquire_source(
            &settings.source,
            "statectl drift",
            timeout,
        )?),
        None => None,
    };
    let result = read_and_compare(settings, locked.as_ref(), printer);
    if let Some(locked) = locked {
        locked.release()?;
    }
    let (report, interrupted) = result?;
    let text = render(&report, settings)?;
    printer.out(&text)?;
    for (address, message) in report.errors() {
        printer.error_line(&sanitize(&format!("{address}: {message}")));
    }
    if interrupted {
        printer.warning("interrupted: the report above holds the instances read so far");
        return Ok(ExitStatus::Interrupted);
    }
    Ok(report.exit_status())
}

/// Reads the state (under `locked` when held) and every chosen instance through its provider.
/// `true` with the report when Ctrl-C cut the reads short.
fn read_and_compare(
    settings: &DriftSettings,
    locked: Option<&Locked>,
    printer: &mut Printer,
) -> Result<(Report, bool), CliError> {
    let stored = match locked {
        Some(locked) => locked.read()?,
        None => settings
            .source
            .read()
            .map_err(|error| CliError::state(&settings.source, &error))?,
    };
    if let Some(note) = &settings.source_note {
        printer.note(note);
    }
    let plaintext = crate::cli::encryption::open(&settings.encryption, &settings.source, stored)?;
    let bytes = StateBytes::new(plaintext);
    let state = load::parse_state(&settings.source, &bytes)?;
    let rules = crate::cli::scan::load_rules(None)?;
    let selected: Vec<Selected> = select(&state, &rules, &settings.selection)?
        .into_iter()
        .filter(|one| in_modules(one, settings))
        .collect();
    let mut report = Report::new(settings.source.to_string(), selected.len(), &settings.rules);
    let mut jobs = Vec::new();
    let mut read = Vec::new();
    for one in &selected {
        match &one.provider {
            // Terraform's own provider (`terraform_data`) is built into Terraform: no plugin to
            // start, and no remote object to drift.
            Some(provider) if provider.source == BUILTIN => report.builtin += 1,
            Some(provider) => {
                jobs.push(read_job(one, &provider.text, state.source));
                read.push(one);
            }
            None => report.entries.push(Entry::error(
                one,
                "no provider in the state to read it with".to_owned(),
            )),
        }
    }
    if jobs.is_empty() {
        return Ok((report, false));
    }
    let reader = plugin_reader_settings(
        &PluginRun {
            config: settings.config.as_deref(),
            inputs: &settings.inputs,
            plugins: &settings.plugins,
            parallelism: settings.parallelism,
            timeout: settings.timeout,
        },
        jobs.iter().map(|job| job.provider.as_str()),
        printer,
    )?;
    let Some(answers) = read_everything(jobs, &reader)? else {
        return Ok((report, true));
    };
    for (one, answer) in read.iter().zip(answers) {
        for warning in &answer.warnings {
            printer.warning(&sanitize(&format!("{}: {warning}", one.address)));
        }
        let entry = compare(one, &state, answer, settings, &mut report.muted);
        if let Some(entry) = entry {
            report.entries.push(entry);
        }
    }
    Ok((report, false))
}

/// Whether `one` is in a module `--module` names (or below it); every instance without the flag.
fn in_modules(one: &Selected, settings: &DriftSettings) -> bool {
    if settings.modules.is_empty() {
        return true;
    }
    let steps = &one.address.resource.module.0;
    (1..=steps.len()).any(|length| {
        let prefix = crate::state::address::ModulePath(steps[..length].to_vec()).to_string();
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
            if let Ok(paths) = sensitive::parse_paths(
                &Value::Array(object.sensitive_attributes.clone()).to_string(),
            ) {
                secrets.extend(paths);
            }
            let secrets = sensitive::with_copies(&one.type_name, secrets);
            let reveal: &[Vec<CtyStep>] = if settings.show_sensitive {
                &[]
            } else {
                &secrets
            };
            let changes: Vec<AttributeChange> = changed_attributes(
                &one.type_name,
                (&object.prior, &object.attributes),
                &object.computed_only,
                reveal,
                &settings.rules,
                muted,
            );
            if changes.is_empty() {
                return None;
            }
            let (mut before, mut after) = (object.prior, object.attributes);
            for side in [&mut before, &mut after] {
                sensitive::mask(side, reveal);
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
        .and_then(|span| sensitive::parse_paths(span.of(source)).ok())
        .unwrap_or_default()
}
