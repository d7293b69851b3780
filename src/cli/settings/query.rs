//! `statectl query`'s flags resolved: the JSONPath parsed (a typo fails before a 250 MB state is
//! read), whether sensitive values are shown, how the result is printed.

use crate::cli::StateArg;
use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::query::Args;
use crate::json::path::{JsonPath, SyntaxError};

/// The resolved flags of `query`.
#[derive(Debug)]
pub(crate) struct QuerySettings<'a> {
    pub state: &'a StateArg,
    /// `--version`: the earlier version to read instead of the current state.
    pub version: Option<&'a str>,
    pub path: JsonPath,
    /// The expression as written, for messages.
    pub text: &'a str,
    /// `--show-sensitive`: values are not masked.
    pub reveal: bool,
    /// `--compact`: the result on one line.
    pub compact: bool,
}

impl<'a> QuerySettings<'a> {
    pub(crate) fn resolve(args: &'a Args) -> Result<QuerySettings<'a>, CliError> {
        let path = JsonPath::parse(&args.path).map_err(|error| invalid(&args.path, &error))?;
        Ok(QuerySettings {
            state: &args.state,
            version: args.version.version.as_deref(),
            path,
            text: &args.path,
            reveal: args.show_sensitive,
            compact: args.compact,
        })
    }
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::QuerySettings;
    use crate::cli::{Cli, Command};

    #[test]
    fn a_typo_in_the_path_fails_before_the_state_is_read() {
        let cli = Cli::try_parse_from(["statectl", "query", "$.[", "missing.tfstate"]).unwrap();
        let Command::Query(args) = cli.command else {
            unreachable!("parsed as query")
        };
        let error = QuerySettings::resolve(&args).unwrap_err();
        assert!(
            error
                .message
                .starts_with("invalid JSONPath `$.[` at column 3:"),
            "{}",
            error.message
        );
        assert!(error.hint.unwrap().contains("RFC 9535"));
    }
}
