//! `statectl summary`: how many resources and instances a state holds, by type, module, provider and
//! status, as tables or JSON; with a prefix URL (`s3://bucket/prefix/`), the same counts over every
//! state below it, with how many states each Terraform version wrote.

use std::collections::BTreeMap;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use serde_json::json;

use crate::cli::error::{CliError, sanitize};
use crate::cli::many::{Found, KeyArgs, KeyFilter, for_each_state, read_found, skipped_note};
use crate::cli::{Format, Printer, StateArg, exit, load};
use crate::state::address::Mode;
use crate::state::legacy::StateBytes;
use crate::state::model::State;
use crate::state::order::instance_groups;
use crate::state::source::Source;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub state: StateArg,

    /// How to print the counts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    #[command(flatten)]
    pub keys: KeyArgs,

    /// With a prefix URL: how many states to read at once (default: the number of CPUs).
    #[arg(long, short = 'j', visible_alias = "parallelism", value_name = "N", value_parser = crate::cli::settings::at_least_one)]
    pub jobs: Option<usize>,
}

/// Instance counts under one grouping key.
type Counts = BTreeMap<String, usize>;

/// What one state, or many added up, holds.
#[derive(Debug, Default)]
struct Tally {
    resources: usize,
    instances: usize,
    by_type: Counts,
    by_module: Counts,
    by_provider: Counts,
    by_status: Counts,
}

impl Tally {
    fn of(state: &State<'_>) -> Tally {
        let mut tally = Tally {
            resources: state.resources.len(),
            ..Tally::default()
        };
        let groups = instance_groups(state);
        tally.instances = groups.len();
        for group in &groups {
            let resource = group.resource;
            let address = &resource.address;
            let type_key = if address.mode == Mode::Data {
                format!("data.{}", address.type_name)
            } else {
                address.type_name.clone()
            };
            *tally.by_type.entry(type_key).or_default() += 1;
            let module = if address.module.0.is_empty() {
                "(root)".to_owned()
            } else {
                address.module.to_string()
            };
            *tally.by_module.entry(module).or_default() += 1;
            let provider = group
                .current
                .or(group.deposed.first().copied())
                .and_then(|instance| State::provider_of(resource, instance))
                .map_or_else(
                    || "(none)".to_owned(),
                    super::super::state::provider::ProviderConfig::name,
                );
            *tally.by_provider.entry(provider).or_default() += 1;
            let status = match group.current {
                _ if address.mode == Mode::Data => "data",
                Some(instance) if instance.tainted => "tainted",
                Some(_) => "ready",
                None => "deposed only",
            };
            *tally.by_status.entry(status.to_owned()).or_default() += 1;
            if !group.deposed.is_empty() {
                *tally
                    .by_status
                    .entry("with deposed objects".to_owned())
                    .or_default() += 1;
            }
        }
        tally
    }

    fn add(&mut self, other: Tally) {
        self.resources += other.resources;
        self.instances += other.instances;
        for (mine, theirs) in [
            (&mut self.by_type, other.by_type),
            (&mut self.by_module, other.by_module),
            (&mut self.by_provider, other.by_provider),
            (&mut self.by_status, other.by_status),
        ] {
            for (key, count) in theirs {
                *mine.entry(key).or_default() += count;
            }
        }
    }

    fn tables(&self) -> [(&'static str, &Counts); 4] {
        [
            ("type", &self.by_type),
            ("module", &self.by_module),
            ("provider", &self.by_provider),
            ("status", &self.by_status),
        ]
    }
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<i32, CliError> {
    let keys = KeyFilter::new(&args.keys)?;
    let listed = match args.state.state.as_deref() {
        Some(arg) => {
            crate::cli::many::listed(&arg.to_string_lossy(), &args.state.backend, &keys, printer)?
        }
        None => None,
    };
    if let Some(sources) = listed {
        return run_many(args, sources, printer);
    }
    if !keys.is_empty() {
        return Err(CliError::new(
            "`--include` and `--exclude` choose keys below a prefix URL (`s3://bucket/prefix/`), and none is named",
        ));
    }
    let (source, bytes) = load::read(&args.state, printer)?;
    let state = load::parse_state(&source, &bytes)?;
    let tally = Tally::of(&state);
    match args.format {
        Format::Json => {
            let document = json!({
                "schema_version": 1,
                "state": source.to_string(),
                "terraform_version": state.terraform_version,
                "serial": state.serial,
                "lineage": state.lineage,
                "resources": tally.resources,
                "instances": tally.instances,
                "by_type": tally.by_type,
                "by_module": tally.by_module,
                "by_provider": tally.by_provider,
                "by_status": tally.by_status,
            });
            printer.line(
                &serde_json::to_string_pretty(&document).expect("JSON values always serialize"),
            )?;
        }
        Format::Text => {
            printer.line(&format!(
                "{} resources, {} instances (serial {}, lineage {}, written by {})",
                tally.resources,
                tally.instances,
                state.serial,
                sanitize(&state.lineage),
                state
                    .terraform_version
                    .as_deref()
                    .map_or("an unknown version".to_owned(), sanitize),
            ))?;
            for (title, counts) in tally.tables() {
                printer.line(&table(title, "instances", counts))?;
            }
        }
    }
    Ok(exit::SUCCESS)
}

/// One state of many: its counts and the Terraform version that wrote it (`None`: an empty
/// object, no state yet), or why it was not read.
type Outcome = Result<Option<(Tally, Option<String>)>, CliError>;

fn summarize(found: &Found, encryption: &statectl_encryption::StateEncryption) -> Outcome {
    let source = &found.source;
    let Some(stored) = read_found(found)? else {
        return Ok(None);
    };
    let bytes = StateBytes::new(crate::cli::encryption::open(encryption, source, stored)?);
    let state = load::parse_state(source, &bytes)?;
    Ok(Some((
        Tally::of(&state),
        state.terraform_version.as_deref().map(str::to_owned),
    )))
}

/// The counts over every listed state; a state that cannot be read is named on stderr (exit 2) and
/// the others are still counted.
fn run_many(args: &Args, sources: Vec<Source>, printer: &mut Printer) -> Result<i32, CliError> {
    let encryption = crate::cli::encryption::load(&args.state.config)?;
    let found: Vec<Found> = sources
        .into_iter()
        .map(|source| Found {
            source,
            listed: true,
        })
        .collect();
    let outcomes = for_each_state(&found, args.jobs, "summary", |found| {
        summarize(found, &encryption)
    });
    let mut total = Tally::default();
    let mut by_version = Counts::new();
    let mut failures = Vec::new();
    let mut empty = Vec::new();
    for (Found { source, .. }, outcome) in found.iter().zip(outcomes) {
        match outcome {
            Ok(Some((tally, version))) => {
                total.add(tally);
                *by_version
                    .entry(version.unwrap_or_else(|| "(unknown)".to_owned()))
                    .or_default() += 1;
            }
            Ok(None) => empty.push(source.to_string()),
            Err(error) => failures.push((source.to_string(), error)),
        }
    }
    if let Some(note) = skipped_note(&empty) {
        printer.to_stderr(&note);
    }
    let read = found.len() - failures.len() - empty.len();
    let prefix = args
        .state
        .state
        .as_deref()
        .map(|arg| statectl_backend::discover::redact(&arg.to_string_lossy()))
        .unwrap_or_default();
    match args.format {
        Format::Json => {
            let unreadable: Vec<_> = failures
                .iter()
                .map(|(state, error)| json!({ "state": state, "message": error.message, "hint": error.hint }))
                .collect();
            let document = json!({
                "schema_version": 1,
                "state": prefix,
                "states": read,
                "unreadable": unreadable,
                "empty": empty,
                "resources": total.resources,
                "instances": total.instances,
                "by_terraform_version": by_version,
                "by_type": total.by_type,
                "by_module": total.by_module,
                "by_provider": total.by_provider,
                "by_status": total.by_status,
            });
            printer.line(
                &serde_json::to_string_pretty(&document).expect("JSON values always serialize"),
            )?;
        }
        Format::Text => {
            printer.line(&format!(
                "{read} states under {}: {} resources, {} instances{}",
                sanitize(&prefix),
                total.resources,
                total.instances,
                if failures.is_empty() {
                    String::new()
                } else {
                    format!(" ({} could not be read)", failures.len())
                }
            ))?;
            printer.line(&table("written by terraform", "states", &by_version))?;
            for (title, counts) in total.tables() {
                printer.line(&table(title, "instances", counts))?;
            }
        }
    }
    for (_, error) in &failures {
        printer.error(error);
    }
    Ok(if failures.is_empty() {
        exit::SUCCESS
    } else {
        exit::ERROR
    })
}

/// A two-column table, `title` and `counted` (what the numbers count).
fn table(title: &str, counted: &str, counts: &Counts) -> String {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_header(vec![title, counted]);
    let mut rows: Vec<(&String, &usize)> = counts.iter().collect();
    // Most common first; ties alphabetical, so output is stable.
    rows.sort_by(|left, right| right.1.cmp(left.1).then_with(|| left.0.cmp(right.0)));
    for (key, count) in rows {
        table.add_row(vec![sanitize(key), count.to_string()]);
    }
    table.to_string()
}
