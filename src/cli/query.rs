//! `statectl query JSONPATH`: RFC 9535 JSONPath over the whole state, printing the matched values as
//! a JSON array. The state's text is queried in place (`json::path`), with sensitive attributes and
//! outputs masked unless `--show-sensitive` is given, so no path reaches a secret; the work is bounded
//! by the state's size, and a path that needs more fails with one line naming it.

use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::settings::QuerySettings;
use crate::cli::{Printer, StateArg, load};
use crate::json::path::{Exceeded, Limits, PrintError};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The JSONPath expression, e.g. `$.resources[?@.type=='aws_instance'].instances[*].attributes.id`.
    #[arg(value_name = "JSONPATH")]
    pub path: String,

    #[command(flatten)]
    pub state: StateArg,

    #[command(flatten)]
    pub version: crate::cli::VersionArg,

    /// Show sensitive values instead of masking them.
    #[arg(long)]
    pub show_sensitive: bool,

    /// Print the result on one line.
    #[arg(long)]
    pub compact: bool,
}

pub(super) fn run(
    settings: &QuerySettings<'_>,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let (text, compact) = (settings.text, settings.compact);
    let (source, bytes) = load::read(settings.state, settings.version, printer)?;
    // The members the expression reads of each instance's attributes are noted as the parse
    // passes them (in cache), so the walk need not walk every attributes object again for them.
    let noting = crate::state::query::noting(&settings.path);
    let mut state = load::parse_state_noting(&source, &bytes, noting.as_ref())?;
    let document = crate::state::query::document(&state, &settings.path, settings.reveal).map_err(
        |problem| CliError::new(format!("{source}: {}", sanitize(&problem.to_string()))),
    )?;
    // The notes are in the document now (its known members): their memory serves the walk.
    drop(std::mem::take(&mut state.notes));
    let limits = Limits::for_document(document.len());
    let too_costly = |exceeded: Exceeded| {
        CliError::new(format!(
            "JSONPath `{}` needs more work than this {}-byte state allows ({exceeded})",
            echo(text),
            document.len()
        ))
        .with_hint(
            "name the members to follow (`$.resources[*].instances[*].attributes.id`) rather than repeating `..` and `*`",
        )
    };
    let mut selection = settings
        .path
        .select(&document, limits)
        .map_err(too_costly)?;
    let printed = selection.print(!compact, |piece| printer.out(piece));
    match printed {
        Ok(()) => {}
        Err(PrintError::Write(error)) => return Err(error),
        Err(PrintError::TooLong(exceeded)) => {
            let error = too_costly(exceeded);
            return Err(if compact {
                error
            } else {
                error.with_hint("`--compact` prints the results on one line, without indentation")
            });
        }
    }
    printer.out("\n")?;
    load::leave_to_exit(selection);
    load::leave_to_exit(document);
    load::leave_to_exit(state);
    load::leave_to_exit(bytes);
    Ok(ExitStatus::Success)
}
