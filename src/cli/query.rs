//! `statectl query JSONPATH`: RFC 9535 JSONPath over the whole state (through jsonpath-rust), printing
//! the matched values as a JSON array. Sensitive attributes and outputs are masked before the query
//! runs, so no path can reach a secret unless `--show-sensitive` is given.

use jsonpath_rust::JsonPath;
use jsonpath_rust::parser::errors::JsonPathError;
use pest::error::LineColLocation;
use serde_json::Value;

use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::{Printer, StateArg, exit, load};
use crate::state::model::State;
use crate::state::sensitive::{self, MASK};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The JSONPath expression, e.g. `$.resources[?@.type=='aws_instance'].instances[*].attributes.id`.
    #[arg(value_name = "JSONPATH")]
    pub path: String,

    #[command(flatten)]
    pub state: StateArg,

    /// Show sensitive values instead of masking them.
    #[arg(long)]
    pub show_sensitive: bool,

    /// Print the result on one line.
    #[arg(long)]
    pub compact: bool,
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<i32, CliError> {
    let (source, bytes) = load::read(&args.state, printer)?;
    let state = load::parse_state(&source, &bytes)?;
    let mut document: Value = serde_json::from_str(state.source).map_err(|error| {
        CliError::new(format!(
            "{source}: cannot decode the state for a query: {error}"
        ))
    })?;
    if !args.show_sensitive {
        mask_document(&state, &mut document)
            .map_err(|problem| CliError::new(format!("{source}: {problem}")))?;
    }
    let matches = document.query(&args.path).map_err(|error| {
        CliError::new(format!(
            "invalid JSONPath `{}`{}",
            echo(&args.path),
            jsonpath_problem(&error)
        ))
        .with_hint("JSONPath follows RFC 9535 and starts at `$`, e.g. `$.resources[*].type` or `$..instances[?@.status=='tainted']`")
    })?;
    let result = Value::Array(matches.into_iter().cloned().collect());
    let text = if args.compact {
        serde_json::to_string(&result)
    } else {
        serde_json::to_string_pretty(&result)
    };
    printer.line(&text.expect("JSON values always serialize"))?;
    Ok(exit::SUCCESS)
}

/// The parser's complaint on one line: ` at column N: expected ...`. Its own message is a multi-line
/// caret diagram, which breaks the one-line rule for errors.
fn jsonpath_problem(error: &JsonPathError) -> String {
    let one_line = |text: &str| sanitize(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    match error {
        JsonPathError::PestError(error) => {
            let (LineColLocation::Pos((_, column)) | LineColLocation::Span((_, column), _)) =
                error.line_col;
            // The grammar's rule names (`wildcard_selector`) read better as words.
            let message = error.variant.message().replace('_', " ");
            format!(" at column {column}: {}", one_line(&message))
        }
        other => format!(": {}", one_line(&other.to_string())),
    }
}

/// Masks, in the decoded document, every attribute the state marks sensitive and every sensitive output.
fn mask_document(state: &State<'_>, document: &mut Value) -> Result<(), String> {
    if let Some(outputs) = member_mut(document, "outputs").and_then(Value::as_object_mut) {
        for output in &state.outputs {
            if output.sensitive
                && let Some(value) = outputs
                    .get_mut(output.name.as_ref())
                    .and_then(|output| member_mut(output, "value"))
            {
                *value = Value::String(MASK.to_owned());
            }
        }
    }
    let Some(resources) = member_mut(document, "resources").and_then(Value::as_array_mut) else {
        return Ok(());
    };
    for (resource, decoded) in state.resources.iter().zip(resources.iter_mut()) {
        let Some(instances) = member_mut(decoded, "instances").and_then(Value::as_array_mut) else {
            continue;
        };
        for (instance, decoded) in resource.instances.iter().zip(instances.iter_mut()) {
            let Some(span) = instance.sensitive_attributes else {
                continue;
            };
            let paths =
                sensitive::parse_paths(span.of(state.source)).map_err(|error| error.to_string())?;
            if let Some(attributes) = member_mut(decoded, "attributes") {
                sensitive::mask(attributes, &paths);
            }
        }
    }
    Ok(())
}

/// A member by name as Go's reader finds it: exactly, else ignoring ASCII case (the last such key).
fn member_mut<'v>(value: &'v mut Value, name: &str) -> Option<&'v mut Value> {
    let object = value.as_object_mut()?;
    let key = if object.contains_key(name) {
        name.to_owned()
    } else {
        object
            .keys()
            .rev()
            .find(|key| key.eq_ignore_ascii_case(name))?
            .clone()
    };
    object.get_mut(&key)
}
