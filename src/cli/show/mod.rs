//! `statectl show ADDRESS`: one resource instance, as `terraform state show` prints it or as JSON,
//! sensitive values masked unless `--show-sensitive`.

mod human;
mod number;
mod schema;

use std::fmt::Write;

use serde_json::{Value, json};
use statectl_reconcile::reconcile::plugin::value::{Attribute, AttributeKind, Block, Type};

use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::settings::ShowSettings;
use crate::cli::{Format, Printer, StateArg, load};
use crate::json::JsonErrorKind;
use crate::state::address::Mode;
use crate::state::go_text::quote;
use crate::state::model::{Instance, State};
use crate::state::order::each_instance_group;
use crate::state::sensitive::{self, CtyStep};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The instance address, e.g. `module.app.aws_instance.web[0]`; a deposed object as
    /// `ADDRESS (deposed object KEY)` or with `--deposed KEY`.
    #[arg(value_name = "ADDRESS")]
    pub address: String,

    #[command(flatten)]
    pub state: StateArg,

    #[command(flatten)]
    pub version: crate::cli::VersionArg,

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

pub(super) fn run(
    settings: &ShowSettings<'_>,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let wanted = &settings.instance;
    let (source, bytes) = load::read(settings.state, settings.version, printer)?;
    let state = load::parse_state_reading_once(&source, &bytes)?;
    let Some(group) = each_instance_group(&state).find(|group| group.is(wanted)) else {
        return Err(CliError::new(format!(
            "{source}: no resource instance `{}` in the state",
            echo(&wanted.to_string())
        ))
        .with_hint("`statectl list` prints every address the state holds"));
    };
    let object = match &settings.deposed {
        None => group.current.ok_or_else(|| {
            let keys: Vec<&str> = group
                .deposed
                .iter()
                .filter_map(|instance| instance.deposed.as_deref())
                .collect();
            CliError::new(format!(
                "{source}: `{wanted}` has no current object, only deposed ones"
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
                    echo(&wanted.to_string()),
                    echo(key)
                ))
            })?,
    };
    let (attributes, paths) = attributes(&state, &group.resource.address.type_name, object)
        .map_err(|problem| CliError::new(format!("{source}: {wanted}: {problem}")))?;
    let paths = if settings.reveal { Vec::new() } else { paths };
    let address = wanted.to_string();
    match settings.format {
        Format::Text => {
            let provider = State::provider_of(group.resource, object)
                .map(|provider| provider.text.as_ref())
                .unwrap_or_default();
            let resource = &group.resource.address;
            // No schema (another provider's): each attribute is laid out by its JSON type.
            let block = schema::known(provider, resource.mode, &resource.type_name)
                .unwrap_or_else(|| inferred(&attributes));
            let color = printer.color_stdout();
            printer.out(&readable(
                &group,
                object,
                &address,
                &block,
                &attributes,
                &paths,
                color,
            ))?;
        }
        Format::Json => {
            let mut attributes = attributes;
            sensitive::mask(&mut attributes, &paths);
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
                "dependencies": object.dependencies(state.source),
                "attributes": attributes,
                "sensitive_masked": !settings.reveal,
            });
            printer.json_line(&document)?;
        }
    }
    load::leave_to_exit(state);
    load::leave_to_exit(bytes);
    Ok(ExitStatus::Success)
}

/// Why an instance's stored attributes cannot be shown; the caller names the state and instance.
#[derive(Debug, thiserror::Error)]
enum AttributesError {
    #[error("cannot decode attributes: {0}")]
    Json(JsonErrorKind),
}

/// The instance's attributes as JSON and the paths to mask in them (`sensitive::with_copies` of a
/// `type_name` resource). Legacy flatmap attributes are the flat string map they are.
fn attributes(
    state: &State<'_>,
    type_name: &str,
    object: &Instance<'_>,
) -> Result<(Value, Vec<Vec<CtyStep>>), AttributesError> {
    let raw = object
        .attributes_json(state.source)
        .or_else(|| object.attributes_flat().map(|span| span.of(state.source)))
        .unwrap_or("{}");
    let value: Value =
        crate::json::parse_value(raw).map_err(|error| AttributesError::Json(error.kind))?;
    let paths = object
        .sensitive_attributes()
        .map(|span| sensitive::paths_to_mask(span.of(state.source)))
        .unwrap_or_default();
    Ok((value, sensitive::with_copies(type_name, paths)))
}

/// With no schema: every attribute the instance has, of a dynamic type, so that each is laid out
/// by its JSON type (a `{"value", "type"}` wrapper unwrapped).
fn inferred(attributes: &Value) -> Block {
    let names = attributes
        .as_object()
        .map(|members| members.keys())
        .into_iter()
        .flatten();
    Block {
        attributes: names
            .map(|name| Attribute {
                name: name.clone(),
                kind: AttributeKind::Typed(Type::Dynamic),
                sensitive: false,
                optional: true,
                computed: false,
                required: false,
            })
            .collect(),
        blocks: Vec::new(),
    }
}

/// `terraform state show`'s text: `# ADDRESS:` (with `(tainted)` or `(deposed object KEY)`), then
/// `resource "TYPE" "NAME" { ... }`.
fn readable(
    group: &crate::state::order::InstanceGroup<'_, '_>,
    object: &Instance<'_>,
    address: &str,
    block: &Block,
    attributes: &Value,
    sensitive: &[Vec<CtyStep>],
    color: bool,
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
    let resource = &group.resource.address;
    let keyword = if resource.mode == Mode::Data {
        "data"
    } else {
        "resource"
    };
    let _ = write!(
        out,
        "{keyword} {} {} ",
        quote(&resource.type_name),
        quote(&resource.name)
    );
    human::Render::new(sensitive, color).resource(block, attributes, &mut out);
    out.push('\n');
    out
}
