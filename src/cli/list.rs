//! `statectl list`: resource instance addresses in `terraform state list` order, with filters.

use std::fmt::Write;
use std::path::Path;

use serde_json::{Value, json};

use crate::cli::error::{CliError, echo, sanitized};
use crate::cli::exit::ExitStatus;
use crate::cli::filter::Pattern;
use crate::cli::settings::ListSettings;
use crate::cli::{Format, Printer, StateArg, load};
use crate::state::address::{InstanceKey, Mode, Target};
use crate::state::model::Resource;
use crate::state::order::{InstanceGroup, each_instance_group};

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
    let state = load::parse_state(&source, &bytes)?;
    let mut listed = Vec::new();
    let needs_address = !filter.patterns.is_empty() || filter.module.is_some();
    // The printed resource address, kept while consecutive instances share the resource: formatting
    // an address per line was a sixth of `list`'s time on large states.
    let mut prefix: Option<(&Resource<'_>, String)> = None;
    let mut printed = String::new();
    // Lines go out a batch at a time (each whole, so a secret within a line is masked as before):
    // one write per line was a tenth of `list` on large states.
    let mut batch = String::new();
    for group in each_instance_group(&state) {
        let wanted = (filter.types.is_empty()
            || filter.types.contains(&group.resource.address.type_name))
            && (!filter.tainted || group.tainted())
            && (!filter.deposed || !group.deposed.is_empty());
        if !wanted {
            continue;
        }
        if !prefix
            .as_ref()
            .is_some_and(|(resource, _)| std::ptr::eq(*resource, group.resource))
        {
            prefix = Some((group.resource, group.resource.address.to_string()));
        }
        printed.clear();
        printed.push_str(prefix.as_ref().map_or("", |(_, text)| text.as_str()));
        if let Some(key) = group.key {
            let _ = write!(printed, "{key}");
        }
        if needs_address {
            let address = group.address();
            let matched = (filter.patterns.is_empty()
                || filter
                    .patterns
                    .iter()
                    .any(|pattern| pattern.matches(&address, &printed)))
                && filter
                    .module
                    .as_ref()
                    .is_none_or(|module| module.matches(&address));
            if !matched {
                continue;
            }
        }
        match settings.format {
            // A name or key from the state may hold control characters: escaped, so an address
            // stays one line and cannot restyle the terminal (the JSON keeps them, escaped as JSON).
            Format::Text => {
                batch.push_str(&sanitized(&printed));
                batch.push('\n');
                if batch.len() >= BATCH_BYTES {
                    printer.out(&batch)?;
                    batch.clear();
                }
            }
            Format::Json => listed.push(describe(&group, &printed)),
        }
    }
    if !batch.is_empty() {
        printer.out(&batch)?;
    }
    if settings.format == Format::Json {
        let document =
            json!({ "schema_version": 1, "state": source.to_string(), "instances": listed });
        printer.json_line(&document)?;
    }
    load::leave_to_exit(state);
    load::leave_to_exit(bytes);
    Ok(ExitStatus::Success)
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
