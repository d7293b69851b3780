//! `statectl refresh [STATE]`: asks the providers (their HTTP APIs through the profiles, or with
//! `--reader plugin` their provider plugins) about the stale instances (what scan finds, or
//! `--target`/`--type`), shows each outcome and the diff of what the state would learn, and
//! with `--write` applies it through the lifecycle rules and the safe write. Without `--write` it exits
//! 1 when there are changes, 0 when none.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use statectl_analysis::scan::select::{Selected, select};

use crate::cli::duration::DurationParser;
use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::plugin_inputs::{PluginArgs, Reader, parse_reader, provider_arguments};
use crate::cli::plugin_refresh::{read_job, refreshed_changes};
use crate::cli::progress::{ProgressView, REFRESH_BAR};
use crate::cli::rewrite::{LockMode, WriteArgs, WriteRequest, finish, open};
use crate::cli::settings::{RefreshSettings, ReportTo, at_least_one};
use crate::cli::{Format, Printer, load};
use crate::reconcile::credentials::Credentials;
use crate::reconcile::engine::{Job, RunSettings, run_all};
use crate::reconcile::http::HttpClient;
use crate::reconcile::outcome::Outcome;
use crate::reconcile::plugin::cliconfig;
use crate::reconcile::plugin::discover::{SearchPaths, verify_providers};
use crate::reconcile::plugin::reader::{ReadJob, ReaderSettings, Refreshed, read_all};
use crate::reconcile::profile::{Endpoint, Profile, Profiles, parse_endpoint_override};
use crate::reconcile::progress::Progress;
use crate::state::State;
use crate::state::address::{InstanceAddr, Target};
use crate::state::mutate::Mutation;
use crate::state::write::Change;
use indicatif::ProgressBar;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only these instances (addresses as `terraform state list` takes them, or globs); repeatable.
    /// Default: the stale instances `statectl scan` finds.
    #[arg(long = "target", value_name = "ADDRESS")]
    pub targets: Vec<String>,

    /// Only instances of these resource types (globs allowed); repeatable.
    #[arg(long = "type", value_name = "TYPE")]
    pub types: Vec<String>,

    /// Apply what was learned to the state (lifecycle rules, lock, backup, crash-safe write), or with
    /// `-o -` write the refreshed state to standard output (the outcomes and the diff then go to stderr).
    #[arg(long, conflicts_with = "dry_run")]
    pub write: bool,

    /// Clear the taint of a tainted instance whose remote object the provider reports healthy
    /// (reconciled), in the same locked write, so the next apply keeps it instead of replacing it.
    /// Off by default: a taint may also be deliberate.
    #[arg(long)]
    pub untaint_healthy: bool,

    /// A profiles file (TOML) over the built-in ones (`--profiles-format` prints the format).
    #[arg(long, value_name = "FILE")]
    pub profiles: Option<PathBuf>,

    /// Print the profile format (how to write a `--profiles` file, with examples) and exit.
    #[arg(long, exclusive = true)]
    pub profiles_format: bool,

    /// A profile endpoint's base URL, e.g. `oci=https://iaas.eu-frankfurt-1.oraclecloud.com`;
    /// repeatable. Also `STATECTL_ENDPOINT_<NAME>`.
    #[arg(long = "endpoint", value_name = "NAME=URL", value_parser = parse_endpoint_override)]
    pub endpoints: Vec<(String, String)>,

    /// How many instances are polled at once.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = at_least_one)]
    pub parallelism: usize,

    /// How long to wait for each instance at most (overrides the profiles' `timeout`).
    #[arg(long, value_name = "DURATION", value_parser = DurationParser)]
    pub timeout: Option<Duration>,

    /// How long a provider plugin may take to start (`--reader plugin`): its handshake, and each of
    /// its schema and configuration calls before the first read.
    #[arg(long, value_name = "DURATION", value_parser = DurationParser, default_value = "60s")]
    pub start_timeout: Duration,

    /// How instances are asked about: `http` (the provider profiles; the default) or `plugin` (the
    /// provider plugin `terraform init` installed, read as `terraform apply -refresh-only` would);
    /// for the run, or per provider as NAME=READER (`aws=plugin`); repeatable.
    #[arg(long = "reader", value_name = "READER", value_parser = parse_reader)]
    pub readers: Vec<(Option<String>, Reader)>,

    #[command(flatten)]
    pub plugins: PluginArgs,

    /// How to print the outcomes (JSON leaves the diff out).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    #[command(flatten)]
    pub rewrite: WriteArgs,
}

pub(super) fn run(
    args: &Args,
    verbosity: u8,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    if args.profiles_format {
        printer.out(crate::reconcile::profile::FORMAT)?;
        return Ok(ExitStatus::Success);
    }
    let settings = RefreshSettings::resolve(args)?;
    refresh(&settings, verbosity, printer)
}

/// The refresh the settings describe.
fn refresh(
    settings: &RefreshSettings,
    verbosity: u8,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let profiles = match &settings.profiles {
        Some(path) => Profiles::load(path),
        None => Ok(Profiles::builtin()),
    }
    .and_then(|profiles| {
        profiles
            .check_overrides(&settings.endpoints)
            .map(|()| profiles)
    })?;
    let mut loaded = open(&settings.write, "refresh", LockMode::ReadFirst, printer)?;
    let locked = loaded.locked.take();
    let state = load::parse_state(&loaded.source, &loaded.bytes)?;
    settings.readers.check_names(&state)?;
    let rules = crate::cli::scan::load_rules(None)?;
    let selected = select(&state, &rules, &settings.selection)?;
    tracing::debug!(selected = selected.len(), "stale instances selected");
    let Prepared {
        jobs,
        plugin_jobs,
        plugin_rows,
        mut rows,
        per_host,
    } = prepare(&selected, &state, &profiles, settings)?;
    tracing::debug!(
        jobs = jobs.len(),
        plugin_reads = plugin_jobs.len(),
        "requests prepared"
    );
    // Plugin outcomes follow the HTTP ones.
    for (position, row) in plugin_rows.iter().enumerate() {
        rows[*row].1 = Some(jobs.len() + position);
    }
    let reader_settings = if plugin_jobs.is_empty() {
        None
    } else {
        Some(plugin_reader_settings(
            &PluginRun {
                config: settings.write.config.as_deref(),
                inputs: &settings.write.inputs,
                plugins: &settings.plugins,
                parallelism: settings.parallelism,
                timeout: settings.timeout,
            },
            plugin_jobs.iter().map(|job| job.provider.as_str()),
            printer,
        )?)
    };
    let total = jobs.len() + plugin_jobs.len();
    let progress = Arc::new(Progress::new(total));
    let outcomes = ask_everyone(
        jobs,
        plugin_jobs,
        reader_settings.as_ref(),
        per_host,
        settings,
        &progress,
        (verbosity, printer.progress_bar(total, REFRESH_BAR)),
    )?;
    let Some(outcomes) = outcomes else {
        let so_far = progress.outcomes();
        report(
            printer,
            settings.report_to,
            &render_outcomes(&rows, &so_far, settings.format),
        )?;
        printer
            .warning("interrupted: the outcomes above are those known so far; nothing was written");
        return Ok(ExitStatus::Interrupted);
    };
    let (http_outcomes, refreshed) = outcomes;
    for (row, one) in plugin_rows.iter().zip(&refreshed) {
        for warning in &one.warnings {
            printer.warning(&sanitize(&format!("{}: {warning}", rows[*row].0)));
        }
    }
    let outcomes: Vec<Option<Outcome>> = http_outcomes
        .into_iter()
        .chain(refreshed.iter().map(|one| one.outcome.clone()))
        .map(Some)
        .collect();
    let proposed = proposed_mutations(
        &rows,
        &selected,
        &outcomes,
        &refreshed,
        &state,
        settings.untaint_healthy,
    );
    let table = render_outcomes(&rows, &outcomes, settings.format);
    report(printer, settings.report_to, &table)?;
    let request = WriteRequest {
        operation: "refresh",
        mutations: proposed.mutations,
        warning: None,
        show_diff: settings.show_diff,
    };
    let code = finish(&settings.write, &request, &loaded, locked, &state, printer)?;
    printer.hints(&still_tainted_hints(&proposed.still_tainted));
    let skipped = rows.iter().any(|(_, index, _)| index.is_none());
    Ok(run_code(code, proposed.errors > 0 || skipped, &outcomes))
}

/// The run's exit code from the write's (`code`): an error or a skipped instance makes it 2; an
/// instance still pending at the deadline was not resolved, which makes it 1 at least, whatever else
/// was written.
fn run_code(code: ExitStatus, failed: bool, outcomes: &[Option<Outcome>]) -> ExitStatus {
    let unresolved = outcomes
        .iter()
        .flatten()
        .any(|outcome| matches!(outcome, Outcome::Pending { .. }));
    if failed {
        code.and(ExitStatus::Error)
    } else if unresolved {
        code.and(ExitStatus::Findings)
    } else {
        code
    }
}

/// What a finished run learned: the HTTP outcomes, then what the plugins read.
type Answers = (Vec<Outcome>, Vec<Refreshed>);

/// Runs the HTTP jobs and the plugin reads together on one thread, with the progress view, until all
/// are done or Ctrl-C comes (`None`: the outcomes so far are in `progress`).
fn ask_everyone(
    jobs: Vec<Job>,
    plugin_jobs: Vec<ReadJob>,
    reader_settings: Option<&ReaderSettings>,
    per_host: usize,
    settings: &RefreshSettings,
    progress: &Arc<Progress>,
    (verbosity, bar): (u8, Option<ProgressBar>),
) -> Result<Option<Answers>, CliError> {
    let http_count = jobs.len();
    let client = Arc::new(HttpClient::new(per_host)?);
    let run_settings = RunSettings {
        parallelism: settings.parallelism,
        deadline: settings.timeout,
    };
    // One thread: the work is waiting on the network, and on a small machine a second worker costs
    // more in wake-ups than it gains (measured with benches/refresh_bench.sh).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CliError::new(format!("cannot start the async runtime: {error}")))?;
    let view = ProgressView::start(progress.clone(), verbosity, bar);
    let read_by_plugins = async {
        match reader_settings {
            Some(settings) => {
                let read = read_all(plugin_jobs, settings).await;
                for (position, refreshed) in read.iter().enumerate() {
                    progress.started();
                    progress.finished(http_count + position, refreshed.outcome.clone());
                }
                read
            }
            None => Vec::new(),
        }
    };
    let outcomes = runtime.block_on(async {
        tokio::select! {
            outcomes = async {
                tokio::join!(run_all(jobs, client, run_settings, progress.clone()), read_by_plugins)
            } => Some(outcomes),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    drop(view);
    // Whatever is left (requests cut off by Ctrl-C, idle connections, resolver threads) is dropped
    // without waiting: nothing in it matters once the outcomes are in hand.
    runtime.shutdown_background();
    Ok(outcomes)
}

/// What a run asks: one HTTP job per instance a profile covers, one plugin read per instance a
/// plugin reader takes, and one row per selected instance (its address, where its outcome will be, or
/// why it was skipped).
struct Prepared {
    jobs: Vec<Job>,
    plugin_jobs: Vec<ReadJob>,
    /// The rows the plugin reads fill, in `plugin_jobs` order.
    plugin_rows: Vec<usize>,
    rows: Vec<Row>,
    per_host: usize,
}

/// One selected instance in the outcome table: its address, the index of its outcome (HTTP outcomes
/// first, then the plugin reads), or why it was skipped.
type Row = (String, Option<usize>, Option<String>);

/// Turns the selected instances into jobs. The endpoint and the credentials are read once per
/// profile, before any request: a missing token stops the run here.
fn prepare(
    selected: &[Selected],
    state: &State<'_>,
    profiles: &Profiles,
    settings: &RefreshSettings,
) -> Result<Prepared, CliError> {
    let env = |name: &str| std::env::var(name).ok();
    let readers = &settings.readers;
    let mut jobs = Vec::new();
    let mut plugin_jobs = Vec::new();
    let mut plugin_rows = Vec::new();
    let mut rows: Vec<Row> = Vec::with_capacity(selected.len());
    let mut credentials: HashMap<String, Arc<Credentials>> = HashMap::new();
    let mut endpoints: HashMap<String, Arc<Endpoint>> = HashMap::new();
    let mut per_host = 8;
    let mut profile_copies: HashMap<String, Arc<Profile>> = HashMap::new();
    for one in selected {
        let address = one.address.to_string();
        if let Some(provider) = &one.provider
            && readers.for_provider(&provider.source) == Reader::Plugin
        {
            plugin_rows.push(rows.len());
            rows.push((address, None, None));
            plugin_jobs.push(read_job(one, &provider.text, state.source));
            continue;
        }
        let Some(profile) = profiles.for_type(&one.type_name) else {
            let skipped = format!(
                "no profile for type `{}`; Terraform refreshes it: `{}`",
                one.type_name,
                statectl_analysis::scan::hint::terraform_refresh_command(&address)
            );
            rows.push((address, None, Some(skipped)));
            continue;
        };
        let endpoint = if let Some(endpoint) = endpoints.get(&profile.type_name) {
            endpoint.clone()
        } else {
            let endpoint = Arc::new(profile.endpoint(&settings.endpoints, &env)?);
            endpoints.insert(profile.type_name.clone(), endpoint.clone());
            endpoint
        };
        let creds = if let Some(creds) = credentials.get(&profile.type_name) {
            creds.clone()
        } else {
            let loaded = Credentials::load(&profile.auth, &env, &profile.type_name)?;
            let loaded = Arc::new(loaded);
            credentials.insert(profile.type_name.clone(), loaded.clone());
            loaded
        };
        per_host = per_host.max(profile.limits.per_host);
        let attributes: serde_json::Value = one
            .attributes
            .and_then(|span| serde_json::from_str(span.of(state.source)).ok())
            .unwrap_or(serde_json::Value::Null);
        rows.push((address, Some(jobs.len()), None));
        // One copy of each profile, shared by its jobs.
        let shared = profile_copies
            .entry(profile.type_name.clone())
            .or_insert_with(|| Arc::new(profile.clone()))
            .clone();
        jobs.push(Job {
            label: one.address.to_string(),
            profile: shared,
            endpoint,
            credentials: creds,
            attributes,
            operation: one.operation,
        });
    }
    Ok(Prepared {
        jobs,
        plugin_jobs,
        plugin_rows,
        rows,
        per_host,
    })
}

/// Where the provider plugins are and how each provider configuration is configured: the literal
/// arguments of its `provider` block in `--config`, with `--provider-config` files laid over them.
/// Every provider's package is found and checked against the lock file here, before any is
/// launched: a package Terraform would refuse stops the run.
pub(super) fn plugin_reader_settings<'p>(
    run: &PluginRun<'_>,
    providers: impl Iterator<Item = &'p str>,
    printer: &mut Printer,
) -> Result<ReaderSettings, CliError> {
    let config_dir = run
        .config
        .map_or_else(|| PathBuf::from("."), std::path::Path::to_owned);
    let configs = provider_arguments(
        run.config,
        run.inputs,
        &run.plugins.provider_configs,
        printer,
    )?
    .into_iter()
    .map(|(name, arguments)| (name, serde_json::Value::Object(arguments)))
    .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cli_config = cliconfig::config_files(&|name| std::env::var(name).ok(), home.as_deref());
    let dev_overrides = cliconfig::dev_overrides(&cli_config)
        .map_err(|error| CliError::said(&error.to_string(), None))?;
    if !dev_overrides.is_empty() {
        // Terraform's own warning, on one line.
        printer.warning(&sanitize(&format!(
            "Provider development overrides are in effect: {}; the behavior may therefore not match any released version of the provider",
            dev_overrides
                .iter()
                .map(|(source, dir)| format!("{} in {}", cliconfig::for_display(source), dir.display()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut paths = SearchPaths {
        plugin_dirs: run.plugins.dirs.clone(),
        config_dir,
        data_dir: std::env::var_os("TF_DATA_DIR")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from),
        dev_overrides,
        ..SearchPaths::default()
    };
    verify_providers(providers, &mut paths)
        .map_err(|error| CliError::said(&error.to_string(), error.hint()))?;
    Ok(ReaderSettings {
        paths,
        configs,
        parallelism: run.parallelism,
        timeout: run.timeout,
        start_timeout: run.plugins.start_timeout,
    })
}

/// What starting the provider plugins needs from a command's settings (`refresh`, `drift`).
pub(super) struct PluginRun<'s> {
    /// `--config DIR`: its `provider` blocks, and where `.terraform/providers` is.
    pub config: Option<&'s std::path::Path>,
    pub inputs: &'s statectl_tfconfig::values::Inputs,
    pub plugins: &'s crate::cli::settings::PluginSettings,
    pub parallelism: usize,
    pub timeout: Option<Duration>,
}

/// What the outcomes propose to the state.
struct Proposed {
    mutations: Vec<Mutation>,
    /// How many instances ended in an error.
    errors: usize,
    /// Tainted instances the provider reports healthy whose taint stays (no `--untaint-healthy`).
    still_tainted: Vec<String>,
}

/// What each outcome proposes to the state (a refreshed object, a taint for a failure, a removal for
/// a gone object, with `--untaint-healthy` the taint of a healthy object cleared).
fn proposed_mutations(
    rows: &[Row],
    selected: &[Selected],
    outcomes: &[Option<Outcome>],
    refreshed: &[Refreshed],
    state: &State<'_>,
    untaint_healthy: bool,
) -> Proposed {
    let http_count = outcomes.len() - refreshed.len();
    let tainted: HashSet<InstanceAddr> = state
        .instances()
        .filter(|(_, object)| object.deposed.is_none() && object.tainted)
        .map(|(resource, object)| object.address(resource))
        .collect();
    let mut proposed = Proposed {
        mutations: Vec::new(),
        errors: 0,
        still_tainted: Vec::new(),
    };
    for (row, (_, index, _)) in rows.iter().enumerate() {
        let Some(index) = index else { continue };
        // Rows are made one per selected instance, in the same order.
        let instance = selected[row].address.clone();
        let object = index
            .checked_sub(http_count)
            .and_then(|position| refreshed[position].object.as_ref());
        let outcome = outcomes[*index]
            .as_ref()
            .expect("a finished run has every outcome");
        let healthy_but_tainted =
            matches!(outcome, Outcome::Reconciled { .. }) && tainted.contains(&instance);
        if healthy_but_tainted && !untaint_healthy {
            proposed.still_tainted.push(instance.to_string());
        }
        let untaint = healthy_but_tainted && untaint_healthy;
        if let (Some(object), Outcome::Reconciled { .. }) = (object, outcome) {
            let changes = refreshed_changes(&selected[row], state.source, object);
            if !changes.is_empty() || untaint {
                proposed.mutations.push(Mutation::Refresh {
                    instance,
                    changes,
                    taint: false,
                    untaint,
                });
            }
            continue;
        }
        match outcome {
            Outcome::Reconciled { attributes, .. } if attributes.is_some() || untaint => {
                proposed.mutations.push(Mutation::Refresh {
                    instance,
                    changes: attributes_set(attributes.as_ref()),
                    taint: false,
                    untaint,
                });
            }
            Outcome::Failed { attributes, .. } => proposed.mutations.push(Mutation::Refresh {
                instance,
                changes: attributes_set(attributes.as_ref()),
                taint: true,
                untaint: false,
            }),
            Outcome::Gone => proposed
                .mutations
                .push(Mutation::Forget(Target::Instance(instance))),
            Outcome::Error { .. } => proposed.errors += 1,
            _ => {}
        }
    }
    proposed
}

/// The change that stores an HTTP profile's answer as the instance's attributes, if it gave any.
fn attributes_set(attributes: Option<&serde_json::Value>) -> Vec<Change> {
    attributes
        .map(|attributes| Change::Set {
            field: "attributes",
            json: attributes.to_string(),
        })
        .into_iter()
        .collect()
}

/// What to run next for each instance the provider reports healthy that stays tainted: the next
/// apply would replace a healthy object.
fn still_tainted_hints(addresses: &[String]) -> Vec<String> {
    addresses
        .iter()
        .map(|address| {
            format!(
                "`{}` is reconciled (its remote object is healthy) but still tainted, so the next `terraform apply` replaces it; to keep it: `{}` (or refresh with `--untaint-healthy`)",
                sanitize(address),
                statectl_analysis::scan::hint::untaint_command(&sanitize(address))
            )
        })
        .collect()
}

/// Prints the outcome table where the settings say: stdout, or stderr when stdout carries the state.
fn report(printer: &mut Printer, to: ReportTo, text: &str) -> Result<(), CliError> {
    match to {
        ReportTo::Stdout => printer.out(text),
        ReportTo::Stderr => {
            printer.report_on_stderr(text);
            Ok(())
        }
    }
}

/// The outcome table or JSON; `None` is an instance an interrupted run had not finished.
fn render_outcomes(
    rows: &[(String, Option<usize>, Option<String>)],
    outcomes: &[Option<Outcome>],
    format: Format,
) -> String {
    match format {
        Format::Json => {
            let items: Vec<serde_json::Value> = rows
                .iter()
                .map(|(address, index, skipped)| match index {
                    Some(index) => match &outcomes[*index] {
                        Some(outcome) => json!({"address": address, "outcome": outcome.kind(), "detail": outcome.to_string()}),
                        None => json!({"address": address, "outcome": "interrupted", "detail": "interrupted before an answer"}),
                    },
                    None => json!({"address": address, "outcome": "skipped", "detail": skipped}),
                })
                .collect();
            let mut text =
                serde_json::to_string_pretty(&json!({"schema_version": 1, "instances": items}))
                    .expect("JSON values serialize");
            text.push('\n');
            text
        }
        Format::Text => {
            if rows.is_empty() {
                return "no stale instances to refresh\n".to_owned();
            }
            // Addresses and outcomes whole, never wrapped: the address is copied into the next
            // command.
            let mut table = vec![vec!["address".to_owned(), "outcome".to_owned()]];
            for (address, index, skipped) in rows {
                let text = match index {
                    Some(index) => outcomes[*index].as_ref().map_or_else(
                        || "interrupted before an answer".to_owned(),
                        ToString::to_string,
                    ),
                    None => format!("skipped: {}", skipped.as_deref().unwrap_or_default()),
                };
                table.push(vec![sanitize(address), sanitize(&text)]);
            }
            crate::cli::layout::columns(&table, "", &|_, cell| cell.to_owned())
        }
    }
}
