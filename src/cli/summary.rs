//! `statectl summary`: how many resources and instances a state holds, by type, module, provider and
//! status, as tables or JSON; with a prefix URL (`s3://bucket/prefix/`), the same counts over every
//! state below it, with how many states each Terraform version wrote.

use std::collections::{BTreeMap, HashMap};

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use serde_json::json;

use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::many::{Bar, Found, for_each_state, skipped_note};
use crate::cli::settings::{StatesArgs, StatesSettings};
use crate::cli::{Format, Printer, load};
use crate::state::address::{Mode, ModulePath};
use crate::state::model::{Resource, State};
use crate::state::order::{EachInstanceGroup, each_instance_group_in, group_ranges};
use crate::state::provider::ProviderConfig;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub states: StatesArgs,

    /// How to print the counts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Instance counts under one grouping key.
type Counts = BTreeMap<String, usize>;

/// Instance counts by module, in Terraform's order of module instances (`module.shard[2]` before
/// `module.shard[10]`); the root module is the empty path, first.
type ModuleCounts = BTreeMap<ModulePath, usize>;

/// What one state, or many added up, holds.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    resources: usize,
    /// Instances by address, as `terraform state list` lists them; an instance's deposed objects
    /// are counted apart, in `deposed_objects`, never as instances of their own.
    instances: usize,
    deposed_objects: usize,
    by_type: Counts,
    by_module: ModuleCounts,
    by_provider: Counts,
    by_status: Counts,
}

/// Instances one after another of one resource, with one provider.
struct Run<'s> {
    resource: &'s Resource<'s>,
    provider: Option<&'s ProviderConfig>,
    instances: usize,
}

impl Run<'_> {
    /// Whether an instance of `resource` with `provider` belongs to this run (the same objects:
    /// equal ones elsewhere start a run of their own, which counts the same).
    fn continues(&self, resource: &Resource<'_>, provider: Option<&ProviderConfig>) -> bool {
        std::ptr::eq(self.resource, resource)
            && match (self.provider, provider) {
                (Some(mine), Some(theirs)) => std::ptr::eq(mine, theirs),
                (None, None) => true,
                _ => false,
            }
    }
}

/// The statuses an instance can have, as `list --format json` words them.
const STATUSES: [&str; 4] = ["data", "tainted", "ready", "deposed-only"];

/// One state's counts while its runs are added, keyed by what the state already holds (no key is
/// built, cloned or compared as text per run): settled into the tally's maps at the end.
#[derive(Default)]
struct Counting<'s> {
    /// By mode and type.
    by_type: HashMap<(Mode, &'s str), usize>,
    /// The module of the runs just counted, and their instances: runs come in Terraform's order,
    /// module by module, so the map by module is touched once a module.
    module: Option<(&'s ModulePath, usize)>,
    /// By provider configuration, one entry per shared configuration (its address is its key).
    by_provider: HashMap<Option<*const ProviderConfig>, (Option<&'s ProviderConfig>, usize)>,
}

impl<'s> Counting<'s> {
    /// Adds a run's instances to the counts by type, module and provider.
    fn count(&mut self, run: &Run<'s>, tally: &mut Tally) {
        let address = &run.resource.address;
        *self
            .by_type
            .entry((address.mode, address.type_name.as_str()))
            .or_default() += run.instances;
        match &mut self.module {
            Some((module, count)) if *module == &address.module => *count += run.instances,
            _ => {
                if let Some((module, count)) = self.module.replace((&address.module, run.instances))
                {
                    *tally.by_module.entry(module.clone()).or_default() += count;
                }
            }
        }
        let key = run.provider.map(std::ptr::from_ref);
        self.by_provider.entry(key).or_insert((run.provider, 0)).1 += run.instances;
    }

    /// The counts, into the tally's maps.
    fn settle(self, tally: &mut Tally) {
        for ((mode, type_name), count) in self.by_type {
            let type_key = if mode == Mode::Data {
                format!("data.{type_name}")
            } else {
                type_name.to_owned()
            };
            *tally.by_type.entry(type_key).or_default() += count;
        }
        if let Some((module, count)) = self.module {
            *tally.by_module.entry(module.clone()).or_default() += count;
        }
        for (provider, count) in self.by_provider.into_values() {
            let provider = provider.map_or_else(|| "(none)".to_owned(), ProviderConfig::name);
            *tally.by_provider.entry(provider).or_default() += count;
        }
    }
}

/// Below this many instance objects a thread, counting them on a thread of its own costs more
/// than it saves.
const PART_OBJECTS: usize = 8_192;

impl Tally {
    /// The one pass after the parse reads every instance record (a quarter of a million in a
    /// 252 MB state, long out of the cache): on every CPU, as `scan`'s detectors read them.
    fn of(state: &State<'_>) -> Tally {
        Tally::in_parts(
            state,
            statectl_state::parts::parts(state.order.len(), PART_OBJECTS),
        )
    }

    /// [`Tally::of`], the instance groups cut into `parts` runs counted side by side.
    fn in_parts(state: &State<'_>, parts: usize) -> Tally {
        let mut tally = Tally::default();
        for counted in
            statectl_state::parts::each_on_a_thread(&group_ranges(state, parts), |objects| {
                Tally::of_groups(each_instance_group_in(state, objects.clone()))
            })
        {
            tally.add(counted);
        }
        tally.resources = state.resources.len();
        tally
    }

    /// The counts of the instances `groups` (all but the resources').
    fn of_groups(groups: EachInstanceGroup<'_, '_>) -> Tally {
        let mut tally = Tally::default();
        let mut counting = Counting::default();
        // The instances of a resource share its type and module, and nearly always its provider:
        // they are counted in runs of one resource and one provider, and each run is added to the
        // counts once (a run the order splits is added twice, which adds up the same), instead of
        // three keys built and looked up an instance.
        let mut run: Option<Run<'_>> = None;
        // By status, in the order of `STATUSES`.
        let mut statuses = [0; STATUSES.len()];
        for group in groups {
            tally.instances += 1;
            let resource = group.resource;
            let provider = group
                .current
                .or(group.deposed.first().copied())
                .and_then(|instance| State::provider_of(resource, instance));
            match &mut run {
                Some(run) if run.continues(resource, provider) => run.instances += 1,
                _ => {
                    if let Some(ended) = run.replace(Run {
                        resource,
                        provider,
                        instances: 1,
                    }) {
                        counting.count(&ended, &mut tally);
                    }
                }
            }
            // One status an instance, so that the rows add up to the instances; the words are
            // `list --format json`'s.
            let status = match group.current {
                _ if resource.address.mode == Mode::Data => 0,
                Some(instance) if instance.tainted => 1,
                Some(_) => 2,
                None => 3,
            };
            statuses[status] += 1;
            tally.deposed_objects += group.deposed.len();
        }
        if let Some(ended) = run {
            counting.count(&ended, &mut tally);
        }
        counting.settle(&mut tally);
        for (status, count) in STATUSES.into_iter().zip(statuses) {
            if count > 0 {
                *tally.by_status.entry(status.to_owned()).or_default() += count;
            }
        }
        tally
    }

    fn add(&mut self, other: Tally) {
        self.resources += other.resources;
        self.instances += other.instances;
        self.deposed_objects += other.deposed_objects;
        for (module, count) in other.by_module {
            *self.by_module.entry(module).or_default() += count;
        }
        for (mine, theirs) in [
            (&mut self.by_type, other.by_type),
            (&mut self.by_provider, other.by_provider),
            (&mut self.by_status, other.by_status),
        ] {
            for (key, count) in theirs {
                *mine.entry(key).or_default() += count;
            }
        }
    }

    /// The counts by module, named as addresses name them (`(root)` for the root module), in
    /// Terraform's order.
    fn modules(&self) -> Vec<(String, usize)> {
        self.by_module
            .iter()
            .map(|(module, count)| {
                let name = if module.0.is_empty() {
                    "(root)".to_owned()
                } else {
                    module.to_string()
                };
                (name, *count)
            })
            .collect()
    }

    /// `--format json`'s document: `head` (what the state or states are), then the counts, with
    /// how many states each Terraform version wrote when several were added up.
    fn document(&self, head: serde_json::Value, by_version: Option<&Counts>) -> serde_json::Value {
        let serde_json::Value::Object(mut document) = head else {
            unreachable!("the head is an object literal")
        };
        document.insert("resources".into(), self.resources.into());
        document.insert("instances".into(), self.instances.into());
        document.insert("deposed_objects".into(), self.deposed_objects.into());
        if let Some(by_version) = by_version {
            document.insert("by_terraform_version".into(), json!(by_version));
        }
        let by_module: serde_json::Map<String, serde_json::Value> = self
            .modules()
            .into_iter()
            .map(|(name, count)| (name, count.into()))
            .collect();
        document.insert("by_type".into(), json!(self.by_type));
        document.insert("by_module".into(), by_module.into());
        document.insert("by_provider".into(), json!(self.by_provider));
        document.insert("by_status".into(), json!(self.by_status));
        document.into()
    }

    /// Each table's title and rows, in key order (modules in Terraform's).
    fn tables(&self) -> [(&'static str, Vec<(String, usize)>); 4] {
        let rows = |counts: &Counts| {
            counts
                .iter()
                .map(|(key, count)| (key.clone(), *count))
                .collect()
        };
        [
            ("type", rows(&self.by_type)),
            ("module", self.modules()),
            ("provider", rows(&self.by_provider)),
            ("status", rows(&self.by_status)),
        ]
    }
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let states = StatesSettings::resolve(&args.states)?;
    let found = states.sources(printer)?;
    // One state named on its own (or none: the working directory's) gets its own details; several,
    // a folder or a prefix URL are added up.
    let one = match found.as_slice() {
        [found @ Found::Named(_)] if states.names_one() => Some(found),
        _ => None,
    };
    let Some(found) = one else {
        return run_many(args.format, &states, &found, printer);
    };
    let source = &found.source();
    let bytes = load::open_found(found, source, &states.encryption, states.version)?
        .ok_or_else(|| CliError::new(format!("{source}: no state")))?;
    let state = load::parse_state_reading_once(source, &bytes)?;
    let tally = Tally::of(&state);
    match args.format {
        Format::Json => {
            let head = json!({
                "schema_version": 1,
                "state": source.to_string(),
                "terraform_version": state.terraform_version,
                "serial": state.serial,
                "lineage": state.lineage,
            });
            let document = tally.document(head, None);
            printer.json_line(&document)?;
        }
        Format::Text => {
            printer.line(&format!(
                "{} resources, {} instances{} (serial {}, lineage {}, written by {})",
                tally.resources,
                tally.instances,
                deposed_note(tally.deposed_objects),
                state.serial,
                sanitize(&state.lineage),
                state
                    .terraform_version
                    .as_deref()
                    .map_or("an unknown version".to_owned(), sanitize),
            ))?;
            for (title, rows) in tally.tables() {
                printer.line(&table(title, "instances", rows))?;
            }
        }
    }
    load::leave_to_exit(state);
    load::leave_to_exit(bytes);
    Ok(ExitStatus::Success)
}

/// One state of many: its counts and the Terraform version that wrote it (`None`: an empty
/// object, no state yet), or why it was not read.
type Outcome = Result<Option<(Tally, Option<String>)>, CliError>;

fn summarize(
    found: &Found,
    encryption: &statectl_encryption::StateEncryption,
    version: Option<&str>,
) -> Outcome {
    let source = found.source();
    let Some(bytes) = load::open_found(found, &source, encryption, version)? else {
        return Ok(None);
    };
    let state = load::parse_state(&source, &bytes)?;
    Ok(Some((
        Tally::of(&state),
        state.terraform_version.as_deref().map(str::to_owned),
    )))
}

/// The counts over several states; a state that cannot be read is named on stderr (exit 2) and
/// the others are still counted.
fn run_many(
    format: Format,
    states: &StatesSettings<'_>,
    found: &[Found],
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let mut total = Tally::default();
    let mut by_version = Counts::new();
    let mut failures = Vec::new();
    let mut empty = Vec::new();
    for_each_state(
        found,
        states.jobs,
        &Bar::start(found.len(), "summary", printer),
        |found| summarize(found, &states.encryption, states.version),
        // A state's counts: an entry a type, module and provider, each key a few dozen bytes.
        |outcome| {
            outcome
                .as_ref()
                .ok()
                .and_then(Option::as_ref)
                .map_or(0, |(tally, _)| {
                    (tally.by_type.len() + tally.by_module.len() + tally.by_provider.len()) * 128
                })
        },
        |found, outcome| match outcome {
            Ok(Some((tally, version))) => {
                total.add(tally);
                *by_version
                    .entry(version.unwrap_or_else(|| "(unknown)".to_owned()))
                    .or_default() += 1;
            }
            Ok(None) => empty.push(found.source().to_string()),
            Err(error) => failures.push((found.source().to_string(), error)),
        },
    );
    if let Some(note) = skipped_note(&empty) {
        printer.note(&note);
    }
    let read = found.len() - failures.len() - empty.len();
    let prefix = states
        .paths
        .iter()
        .map(|arg| statectl_backend::discover::redact(&arg.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(", ");
    match format {
        Format::Json => {
            let unreadable: Vec<_> = failures
                .iter()
                .map(|(state, error)| json!({ "state": state, "message": error.message, "hint": error.hint }))
                .collect();
            let head = json!({
                "schema_version": 1,
                "state": prefix,
                "states": read,
                "unreadable": unreadable,
                "empty": empty,
            });
            let document = total.document(head, Some(&by_version));
            printer.json_line(&document)?;
        }
        Format::Text => {
            printer.line(&format!(
                "{read} states {} {}: {} resources, {} instances{}{}",
                if states.paths.len() > 1 {
                    "from"
                } else {
                    "under"
                },
                sanitize(&prefix),
                total.resources,
                total.instances,
                deposed_note(total.deposed_objects),
                if failures.is_empty() {
                    String::new()
                } else {
                    format!(" ({} could not be read)", failures.len())
                }
            ))?;
            let versions = by_version
                .iter()
                .map(|(version, count)| (version.clone(), *count));
            printer.line(&table("written by terraform", "states", versions.collect()))?;
            for (title, rows) in total.tables() {
                printer.line(&table(title, "instances", rows))?;
            }
        }
    }
    for (_, error) in &failures {
        printer.error(error);
    }
    Ok(if failures.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Error
    })
}

/// `, and N deposed objects` when there are any: objects an instance still holds besides its
/// current one (Terraform lists the instance once), so they are not among its instances.
fn deposed_note(deposed: usize) -> String {
    match deposed {
        0 => String::new(),
        1 => ", and 1 deposed object".to_owned(),
        many => format!(", and {many} deposed objects"),
    }
}

/// A two-column table, `title` and `counted` (what the numbers count), of `rows` in key order.
fn table(title: &str, counted: &str, mut rows: Vec<(String, usize)>) -> String {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_header(vec![title, counted]);
    // Most common first; ties keep the key order (a stable sort), so output is stable.
    rows.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
    for (key, count) in rows {
        table.add_row(vec![sanitize(&key), count.to_string()]);
    }
    table.to_string()
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;

    /// A state of `resources` resources in several modules, of several types and providers, with
    /// counted and data resources, tainted instances and deposed objects, written out of order.
    fn mixed_state(resources: usize) -> String {
        let mut text = String::from(
            r#"{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l", "outputs": {}, "resources": ["#,
        );
        for index in (0..resources).rev() {
            let module = match index % 3 {
                0 => String::new(),
                1 => format!(r#""module": "module.m{}", "#, index % 5),
                _ => format!(r#""module": "module.shard[{}]", "#, index % 4),
            };
            let mode = if index % 7 == 0 { "data" } else { "managed" };
            let mut instances = String::new();
            for key in 0..index % 4 {
                let status = if index % 5 == 1 && key == 0 {
                    r#""status": "tainted", "#
                } else {
                    ""
                };
                let deposed = if index % 11 == 2 && key == 1 {
                    r#", {"index_key": 1, "deposed": "0000000a", "schema_version": 0, "attributes": {}}"#
                } else {
                    ""
                };
                if key > 0 {
                    instances.push_str(", ");
                }
                write!(
                    instances,
                    r#"{{"index_key": {key}, {status}"schema_version": 0, "attributes": {{}}}}{deposed}"#
                )
                .unwrap();
            }
            if index % 13 == 3 {
                // Only a deposed object: an instance of its own, deposed-only.
                instances =
                    r#"{"deposed": "0000000b", "schema_version": 0, "attributes": {}}"#.into();
            }
            if index + 1 < resources {
                text.push_str(", ");
            }
            write!(
                text,
                r#"{{{module}"mode": "{mode}", "type": "t_{}", "name": "r{index}", "provider": "provider[\"registry.terraform.io/h/p{}\"]", "instances": [{instances}]}}"#,
                index % 6,
                index % 3
            )
            .unwrap();
        }
        text.push_str("]}");
        text
    }

    /// Counted in runs on several threads, a state's tally is the one counted in one pass.
    #[test]
    fn a_tally_counted_in_runs_is_the_tally_of_one_pass() {
        let text = mixed_state(600);
        let state = statectl_state::state::parse(text.as_bytes()).unwrap();
        let whole = Tally::in_parts(&state, 1);
        assert!(
            whole.instances > 500 && whole.deposed_objects > 10,
            "{whole:?}"
        );
        assert_eq!(whole.by_status.len(), 4, "{:?}", whole.by_status);
        for parts in [2, 3, 7, state.order.len() + 1] {
            assert_eq!(Tally::in_parts(&state, parts), whole, "{parts} parts");
        }
    }
}
