//! `statectl show ADDRESS`: one resource instance, readable or as JSON, sensitive values masked unless
//! `--show-sensitive`.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::settings::deposed_key;
use crate::cli::{Format, Printer, StateArg, exit, load, render};
use crate::state::address::{Mode, ObjectAddr};
use crate::state::model::{Instance, State};
use crate::state::order::instance_groups;
use crate::state::sensitive;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The instance address, e.g. `module.app.aws_instance.web[0]`; a deposed object as
    /// `ADDRESS (deposed object KEY)` or with `--deposed KEY`.
    #[arg(value_name = "ADDRESS")]
    pub address: String,

    #[command(flatten)]
    pub state: StateArg,

    /// Show this deposed object instead of the current one.
    #[arg(long, value_name = "KEY")]
    pub deposed: Option<String>,

    /// Show sensitive values instead of masking them.
    #[arg(long)]
    pub show_sensitive: bool,

    /// How to print the instance.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<i32, CliError> {
    let wanted: ObjectAddr = args.address.parse().map_err(|error| {
        CliError::new(format!("invalid address `{}`: {error}", echo(&args.address)))
            .with_hint("an instance address looks like `aws_instance.web`, `aws_instance.web[0]` or `module.app.aws_instance.web[\"a\"]`")
    })?;
    let deposed = deposed_key(args.deposed.as_deref(), wanted.deposed.as_deref())?;
    let (source, bytes) = load::read(&args.state, printer)?;
    let state = load::parse_state(&source, &bytes)?;
    let groups = instance_groups(&state);
    let Some(group) = groups
        .iter()
        .find(|group| group.address() == wanted.instance)
    else {
        return Err(CliError::new(format!(
            "{source}: no resource instance `{}` in the state",
            echo(&wanted.instance.to_string())
        ))
        .with_hint("`statectl list` prints every address the state holds"));
    };
    let object = match &deposed {
        None => group.current.ok_or_else(|| {
            let keys: Vec<&str> = group
                .deposed
                .iter()
                .filter_map(|instance| instance.deposed.as_deref())
                .collect();
            CliError::new(format!(
                "{source}: `{}` has no current object, only deposed ones",
                wanted.instance
            ))
            .with_hint(format!(
                "show one with `--deposed KEY`; keys: {}",
                keys.join(", ")
            ))
        })?,
        Some(key) => *group
            .deposed
            .iter()
            .find(|instance| instance.deposed.as_deref() == Some(key.as_str()))
            .ok_or_else(|| {
                CliError::new(format!(
                    "{source}: `{}` has no deposed object `{}`",
                    echo(&wanted.instance.to_string()),
                    echo(key)
                ))
            })?,
    };
    let attributes = attributes(&state, object, args.show_sensitive)
        .map_err(|problem| CliError::new(format!("{source}: {}: {problem}", wanted.instance)))?;
    let address = wanted.instance.to_string();
    match args.format {
        Format::Text => printer.out(&readable(
            group.resource.address.mode,
            group,
            object,
            &address,
            &attributes,
        ))?,
        Format::Json => {
            let document = json!({
                "schema_version": 1,
                "state": source.to_string(),
                "address": address,
                "deposed": object.deposed,
                "tainted": object.tainted,
                "provider": State::provider_of(group.resource, object).map(|provider| provider.text.clone()),
                "instance_schema_version": object.schema_version,
                "create_before_destroy": object.create_before_destroy,
                "skip_destroy": object.skip_destroy,
                "dependencies": object.dependencies,
                "attributes": attributes,
                "sensitive_masked": !args.show_sensitive,
            });
            printer.line(
                &serde_json::to_string_pretty(&document).expect("JSON values always serialize"),
            )?;
        }
    }
    Ok(exit::SUCCESS)
}

/// The instance's attributes as JSON, masked unless `reveal`. Legacy flatmap attributes are shown as
/// the flat string map they are.
fn attributes(state: &State<'_>, object: &Instance<'_>, reveal: bool) -> Result<Value, String> {
    let raw = object
        .attributes_json(state.source)
        .or_else(|| object.attributes_flat.map(|span| span.of(state.source)))
        .unwrap_or("{}");
    let mut value: Value =
        serde_json::from_str(raw).map_err(|error| format!("cannot decode attributes: {error}"))?;
    if !reveal && let Some(span) = object.sensitive_attributes {
        let paths =
            sensitive::parse_paths(span.of(state.source)).map_err(|error| error.to_string())?;
        sensitive::mask(&mut value, &paths);
    }
    Ok(value)
}

fn readable(
    mode: Mode,
    group: &crate::state::order::InstanceGroup<'_, '_>,
    object: &Instance<'_>,
    address: &str,
    attributes: &Value,
) -> String {
    let mut out = String::new();
    let mut notes = Vec::new();
    if object.tainted {
        notes.push("tainted".to_owned());
    }
    if let Some(key) = &object.deposed {
        notes.push(format!("deposed object {key}"));
    }
    if object.skip_destroy {
        notes.push("skip_destroy".to_owned());
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };
    let _ = writeln!(out, "# {}:{notes}", sanitize(address));
    let keyword = if mode == Mode::Data {
        "data"
    } else {
        "resource"
    };
    let resource = &group.resource.address;
    let _ = writeln!(
        out,
        "{keyword} {} {} {{",
        render::quote(&resource.type_name),
        render::quote(&resource.name)
    );
    if let Value::Object(members) = attributes {
        render::attributes(members, 1, &mut out);
    }
    out.push_str("}\n");
    out
}
