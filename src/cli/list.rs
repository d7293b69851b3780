//! `statectl list`: resource instance addresses in `terraform state list` order, with filters.

use std::fmt::Write;
use std::path::Path;

use serde_json::{Value, json};

use crate::cli::error::{CliError, echo, sanitized};
use crate::cli::exit::ExitStatus;
use crate::cli::filter::Pattern;
use crate::cli::settings::InstanceFilter;
use crate::cli::settings::ListSettings;
use crate::cli::{Format, Printer, StateArg, load};
use crate::state::address::{InstanceKey, Mode, Target};
use crate::state::model::Resource;
use crate::state::model::State;
use crate::state::order::{
    InstanceGroup, each_instance_group, each_instance_group_in, group_start_from,
};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub state: StateArg,

    #[command(flatten)]
    pub version: crate::cli::VersionArg,

    /// Only instances inside these addresses (`module.app`, `aws_instance.web`) or matching these globs
    /// (`*_bucket.*`).
    #[arg(value_name = "ADDRESS")]
    pub patterns: Vec<String>,

    /// Only instances of this resource type (repeatable).
    #[arg(long = "type", value_name = "TYPE")]
    pub types: Vec<String>,

    /// Only instances in this module or below it (`module.app`).
    #[arg(long, value_name = "MODULE")]
    pub module: Option<String>,

    /// Only instances whose current object is tainted.
    #[arg(long)]
    pub tainted: bool,

    /// Only instances that have deposed objects.
    #[arg(long)]
    pub deposed: bool,

    /// How to print the instances.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `statectl list module.app`, from the habit of `terraform state list module.app`: the address went
/// where the state goes. When no such file exists and the argument reads as an address, the hint
/// says the order.
fn address_for_a_state(error: CliError, arg: Option<&Path>) -> CliError {
    let Some(arg) = arg else {
        return error;
    };
    let text = arg.to_string_lossy();
    let an_address = error.hint.is_none()
        && !text.contains('/')
        && arg
            .extension()
            .is_none_or(|extension| extension != "tfstate")
        && std::fs::symlink_metadata(arg).is_err()
        && (text.parse::<Target>().is_ok()
            || Pattern::parse(&text).is_ok_and(|_| text.contains('*')));
    if !an_address {
        return error;
    }
    error.with_hint(format!(
        "`{}` looks like an address: the state comes first (`statectl list STATE {}`), or `-` to read standard input",
        echo(&text),
        statectl_analysis::scan::hint::shell_word(&text)
    ))
}

/// Text lines are written in batches of about this many bytes.
const BATCH_BYTES: usize = 64 << 10;

pub(super) fn run(
    settings: &ListSettings<'_>,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let filter = &settings.filter;
    let (source, bytes) = load::read(settings.state, settings.version, printer)
        .map_err(|error| address_for_a_state(error, settings.state.state.as_deref()))?;
    let state = load::parse_state_reading_once(&source, &bytes)?;
    match settings.format {
        Format::Text => print_lines(&state, filter, printer)?,
        Format::Json => {
            let mut listed = Vec::new();
            let mut lines = Lines::new(filter);
            for group in each_instance_group(&state) {
                if let Some(address) = lines.address(&group) {
                    listed.push(describe(&group, address));
                }
            }
            let document =
                json!({ "schema_version": 1, "state": source.to_string(), "instances": listed });
            printer.json_line(&document)?;
        }
    }
    load::leave_to_exit(state);
    load::leave_to_exit(bytes);
    Ok(ExitStatus::Success)
}

/// Below this many instance objects, a thread for the second half of the lines costs more than it
/// saves.
const HALVES_FROM_OBJECTS: usize = 16_384;

/// The text lines, in batches; a large state's second half is formatted on a thread of its own
/// while the first is formatted and written (formatting was a seventh of `list` at 1 GB).
fn print_lines(
    state: &State<'_>,
    filter: &InstanceFilter<'_>,
    printer: &mut Printer,
) -> Result<(), CliError> {
    let objects = state.order.len();
    let middle = if objects < HALVES_FROM_OBJECTS {
        objects
    } else {
        group_start_from(state, objects / 2)
    };
    std::thread::scope(|scope| {
        let second = (middle < objects)
            .then(|| {
                statectl_state::parts::spawn_in(scope, || {
                    let mut batches = Vec::new();
                    Lines::new(filter).batches(
                        each_instance_group_in(state, middle..objects),
                        |batch| {
                            batches.push(batch.to_owned());
                            Ok(())
                        },
                    )?;
                    Ok::<_, CliError>(batches)
                })
            })
            .flatten();
        let (first, second) = match second {
            Some(thread) => (0..middle, Some(thread)),
            None => (0..objects, None),
        };
        Lines::new(filter).batches(each_instance_group_in(state, first), |batch| {
            printer.out(batch)
        })?;
        if let Some(thread) = second {
            let batches = thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            for batch in &batches {
                printer.out(batch)?;
            }
        }
        Ok(())
    })
}

/// The instances' printed addresses, filtered.
struct Lines<'f, 's, 'a> {
    filter: &'f InstanceFilter<'f>,
    needs_address: bool,
    /// The resource whose printed address `prefix` holds, kept while consecutive instances share
    /// it: formatting an address per line was a sixth of `list`'s time on large states.
    prefix_of: Option<&'s Resource<'a>>,
    /// Written over, never allocated again: a fresh string per resource had the two halves'
    /// threads waiting on the allocator's lock.
    prefix: String,
    printed: String,
}

impl<'f, 's, 'a> Lines<'f, 's, 'a> {
    fn new(filter: &'f InstanceFilter<'f>) -> Self {
        Lines {
            filter,
            needs_address: !filter.patterns.is_empty() || filter.module.is_some(),
            prefix_of: None,
            prefix: String::new(),
            printed: String::new(),
        }
    }

    /// The address `group` is printed as, when the filter lets it through.
    fn address(&mut self, group: &InstanceGroup<'s, 'a>) -> Option<&str> {
        let filter = self.filter;
        let wanted = (filter.types.is_empty()
            || filter.types.contains(&group.resource.address.type_name))
            && (!filter.tainted || group.tainted())
            && (!filter.deposed || !group.deposed.is_empty());
        if !wanted {
            return None;
        }
        if !self
            .prefix_of
            .is_some_and(|resource| std::ptr::eq(resource, group.resource))
        {
            self.prefix.clear();
            let _ = write!(self.prefix, "{}", group.resource.address);
            self.prefix_of = Some(group.resource);
        }
        let printed = &mut self.printed;
        printed.clear();
        printed.push_str(&self.prefix);
        if let Some(key) = group.key {
            let _ = write!(printed, "{key}");
        }
        if self.needs_address {
            let address = group.address();
            let matched = (filter.patterns.is_empty()
                || filter
                    .patterns
                    .iter()
                    .any(|pattern| pattern.matches(&address, printed)))
                && filter
                    .module
                    .as_ref()
                    .is_none_or(|module| module.matches(&address));
            if !matched {
                return None;
            }
        }
        Some(printed)
    }

    /// The text lines of `groups`, handed to `emit` a batch of about [`BATCH_BYTES`] at a time,
    /// each line whole (so a secret within a line is masked as before): one write per line was a
    /// tenth of `list` on large states.
    fn batches(
        &mut self,
        groups: impl Iterator<Item = InstanceGroup<'s, 'a>>,
        mut emit: impl FnMut(&str) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        let mut batch = String::new();
        for group in groups {
            // A name or key from the state may hold control characters: escaped, so an address
            // stays one line and cannot restyle the terminal (the JSON keeps them, escaped as JSON).
            if let Some(address) = self.address(&group) {
                batch.push_str(&sanitized(address));
                batch.push('\n');
                if batch.len() >= BATCH_BYTES {
                    emit(&batch)?;
                    batch.clear();
                }
            }
        }
        if !batch.is_empty() {
            emit(&batch)?;
        }
        Ok(())
    }
}

/// The JSON record of one instance (the `list --format json` schema, version 1).
fn describe(group: &InstanceGroup<'_, '_>, address: &str) -> Value {
    let resource = group.resource;
    let current = group.current;
    let provider = current
        .and_then(|instance| instance.provider.as_ref())
        .or(resource.provider.as_ref())
        .map(|provider| provider.text.clone());
    let module =
        (!resource.address.module.0.is_empty()).then(|| resource.address.module.to_string());
    let index_key = match group.key {
        None => Value::Null,
        Some(InstanceKey::Int(number)) => json!(number),
        Some(InstanceKey::Str(text)) => json!(text),
    };
    let status = match current {
        None => "deposed-only",
        Some(instance) if instance.tainted => "tainted",
        Some(_) => "ready",
    };
    json!({
        "address": address,
        "module": module,
        "mode": if resource.address.mode == Mode::Data { "data" } else { "managed" },
        "type": resource.address.type_name,
        "name": resource.address.name,
        "index_key": index_key,
        "provider": provider,
        "status": status,
        "tainted": group.tainted(),
        "deposed": group.deposed.iter().filter_map(|instance| instance.deposed.as_deref()).collect::<Vec<_>>(),
        "create_before_destroy": current.is_some_and(|instance| instance.create_before_destroy),
        "skip_destroy": current.is_some_and(|instance| instance.skip_destroy),
        "schema_version": current.map(|instance| instance.schema_version),
    })
}
