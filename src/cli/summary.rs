//! `statectl summary`: how many resources and instances a state holds, by type, module, provider and
//! status, as tables or JSON.

use std::collections::BTreeMap;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use serde_json::json;

use crate::cli::error::CliError;
use crate::cli::{Format, Printer, StateArg, exit, load};
use crate::state::address::Mode;
use crate::state::model::State;
use crate::state::order::instance_groups;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub state: StateArg,

    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Instance counts under one grouping key.
type Counts = BTreeMap<String, usize>;

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<i32, CliError> {
    let (source, bytes) = load::read(&args.state, printer)?;
    let state = load::parse_state(&source, &bytes)?;
    let (mut by_type, mut by_module, mut by_provider, mut by_status) =
        (Counts::new(), Counts::new(), Counts::new(), Counts::new());
    let groups = instance_groups(&state);
    for group in &groups {
        let resource = group.resource;
        let address = &resource.address;
        let type_key = if address.mode == Mode::Data {
            format!("data.{}", address.type_name)
        } else {
            address.type_name.clone()
        };
        *by_type.entry(type_key).or_default() += 1;
        let module = if address.module.0.is_empty() {
            "(root)".to_owned()
        } else {
            address.module.to_string()
        };
        *by_module.entry(module).or_default() += 1;
        let provider = group
            .current
            .or(group.deposed.first().copied())
            .and_then(|instance| State::provider_of(resource, instance))
            .map_or_else(
                || "(none)".to_owned(),
                super::super::state::provider::ProviderConfig::name,
            );
        *by_provider.entry(provider).or_default() += 1;
        let status = match group.current {
            _ if address.mode == Mode::Data => "data",
            Some(instance) if instance.tainted => "tainted",
            Some(_) => "ready",
            None => "deposed only",
        };
        *by_status.entry(status.to_owned()).or_default() += 1;
        if !group.deposed.is_empty() {
            *by_status
                .entry("with deposed objects".to_owned())
                .or_default() += 1;
        }
    }
    let resources = state.resources.len();
    let instances = groups.len();
    match args.format {
        Format::Json => {
            let document = json!({
                "schema_version": 1,
                "state": source.to_string(),
                "terraform_version": state.terraform_version,
                "serial": state.serial,
                "lineage": state.lineage,
                "resources": resources,
                "instances": instances,
                "by_type": by_type,
                "by_module": by_module,
                "by_provider": by_provider,
                "by_status": by_status,
            });
            printer.line(
                &serde_json::to_string_pretty(&document).expect("JSON values always serialize"),
            )?;
        }
        Format::Text => {
            printer.line(&format!(
                "{resources} resources, {instances} instances (serial {}, lineage {}, written by {})",
                state.serial,
                crate::cli::error::sanitize(&state.lineage),
                state.terraform_version.as_deref().map_or("an unknown version".to_owned(), crate::cli::error::sanitize),
            ))?;
            for (title, counts) in [
                ("type", &by_type),
                ("module", &by_module),
                ("provider", &by_provider),
                ("status", &by_status),
            ] {
                printer.line(&table(title, counts))?;
            }
        }
    }
    Ok(exit::SUCCESS)
}

fn table(title: &str, counts: &Counts) -> String {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_header(vec![title, "instances"]);
    let mut rows: Vec<(&String, &usize)> = counts.iter().collect();
    // Most common first; ties alphabetical, so output is stable.
    rows.sort_by(|left, right| right.1.cmp(left.1).then_with(|| left.0.cmp(right.0)));
    for (key, count) in rows {
        table.add_row(vec![crate::cli::error::sanitize(key), count.to_string()]);
    }
    table.to_string()
}
