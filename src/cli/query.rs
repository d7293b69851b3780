//! `statectl query JSONPATH`: RFC 9535 JSONPath over the whole state, printing the matched values as
//! a JSON array. The state's text is queried in place (`json::path`), with sensitive attributes and
//! outputs masked unless `--show-sensitive` is given, so no path reaches a secret; the work is bounded
//! by the state's size, and a path that needs more fails with one line naming it.

use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::{Printer, StateArg, load};
use crate::json::path::{Exceeded, JsonPath, Limits, PrintError, SyntaxError};

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

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    // A typo fails before a 250 MB state is read.
    let path = JsonPath::parse(&args.path).map_err(|error| invalid(&args.path, &error))?;
    let (source, bytes) = load::read(&args.state, printer)?;
    let state = load::parse_state(&source, &bytes)?;
    let document =
        crate::state::query::document(&state, args.show_sensitive).map_err(|problem| {
            CliError::new(format!("{source}: {}", sanitize(&problem.to_string())))
        })?;
    let limits = Limits::for_document(document.len());
    let too_costly = |exceeded: Exceeded| {
        CliError::new(format!(
            "JSONPath `{}` needs more work than this {}-byte state allows ({exceeded})",
            echo(&args.path),
            document.len()
        ))
        .with_hint(
            "name the members to follow (`$.resources[*].instances[*].attributes.id`) rather than repeating `..` and `*`",
        )
    };
    let mut selection = path.select(&document, limits).map_err(too_costly)?;
    let printed = selection.print(!args.compact, |piece| printer.out(piece));
    match printed {
        Ok(()) => {}
        Err(PrintError::Write(error)) => return Err(error),
        Err(PrintError::TooLong(exceeded)) => {
            let error = too_costly(exceeded);
            return Err(if args.compact {
                error
            } else {
                error.with_hint("`--compact` prints the results on one line, without indentation")
            });
        }
    }
    printer.out("\n")?;
    Ok(ExitStatus::Success)
}

/// `invalid JSONPath `$.[` at column 3: expected ...`, with how a path starts.
fn invalid(path: &str, error: &SyntaxError) -> CliError {
    let place = error
        .column
        .map_or_else(|| ":".to_owned(), |column| format!(" at column {column}:"));
    CliError::new(format!(
        "invalid JSONPath `{}`{place} {}",
        echo(path),
        sanitize(&error.reason)
    ))
    .with_hint("JSONPath follows RFC 9535 and starts at `$`, e.g. `$.resources[*].type` or `$..instances[?@.status=='tainted']`")
}
