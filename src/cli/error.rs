//! The error a command returns: one line saying what is wrong and where, an optional hint, an exit code.

use std::fmt;

use crate::cli::exit::ExitStatus;
use crate::state::StateError;
use crate::state::error::{Location, shorten};
use crate::state::source::Source;

#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub hint: Option<String>,
    pub code: ExitStatus,
}

impl CliError {
    pub fn new(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            hint: None,
            code: ExitStatus::Error,
        }
    }

    /// An error whose message already says what and where (only made safe to print), with its hint.
    pub fn said(message: &str, hint: Option<String>) -> CliError {
        CliError {
            message: sanitize(message),
            hint,
            code: ExitStatus::Error,
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    /// A state problem, named with the file it is in.
    pub fn state(source: &Source, error: &StateError) -> CliError {
        let mut error = error.clone();
        if let Location::Address(address) = &error.location {
            error.location = Location::Address(echo(address));
        }
        CliError {
            message: error.describe(&source.to_string()),
            hint: error.hint.clone(),
            code: ExitStatus::Error,
        }
    }
}

/// The store's refusals and failures (the lock, the re-read check, the commit) already say what and
/// where; they reach the user as they are, with their hint.
impl From<crate::state::store::StoreError> for CliError {
    fn from(error: crate::state::store::StoreError) -> CliError {
        CliError::said(&error.message, error.hint)
    }
}

/// A profile file's problem names the file, line and column itself.
impl From<crate::reconcile::profile::ProfileError> for CliError {
    fn from(error: crate::reconcile::profile::ProfileError) -> CliError {
        CliError::said(&error.message, error.hint)
    }
}

/// A rules or policy file that cannot be read or is invalid names the file (and the place) itself;
/// the hint points at the README section that documents what is wrong.
impl From<statectl_analysis::settings_file::SettingsFileError> for CliError {
    fn from(error: statectl_analysis::settings_file::SettingsFileError) -> CliError {
        use statectl_analysis::settings_file::Section;
        let hint = match error.section() {
            Section::Rules => "see README, \"Rules file\", for the format",
            Section::Policy => "see README, \"Lifecycle rules\", for the policy format",
        };
        CliError::new(error.to_string()).with_hint(hint)
    }
}

impl From<crate::reconcile::http::HttpClientError> for CliError {
    fn from(error: crate::reconcile::http::HttpClientError) -> CliError {
        CliError::new(error.to_string())
    }
}

/// Credentials that cannot be loaded name the variable or file (paths and names come from the user's
/// environment, so they are escaped).
impl From<crate::reconcile::credentials::CredentialsError> for CliError {
    fn from(error: crate::reconcile::credentials::CredentialsError) -> CliError {
        CliError::new(sanitize(&error.to_string()))
    }
}

/// A `--target` that does not parse, or a selection that picks nothing (the target is echoed, so it
/// is escaped).
impl From<statectl_analysis::scan::select::SelectError> for CliError {
    fn from(error: statectl_analysis::scan::select::SelectError) -> CliError {
        match error {
            statectl_analysis::scan::select::SelectError::RulePath(error) => CliError::from(error),
            other => CliError::new(sanitize(&other.to_string())),
        }
    }
}

/// A rules file's JSONPath that needs more work than an instance's attributes allow (the path and the
/// address are echoed, so they are escaped).
impl From<statectl_analysis::scan::status::RulePathError> for CliError {
    fn from(error: statectl_analysis::scan::status::RulePathError) -> CliError {
        CliError::new(sanitize(&error.to_string())).with_hint(
            "the rules file (`.statectl.toml` or `--rules`) gives this `path`: name the attributes to follow rather than repeating `..` and `*`",
        )
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

/// Makes text from an input file safe to echo to a terminal or a CI log: control characters (C0, DEL,
/// C1) and the bidirectional overrides become escapes, so a crafted state cannot move the cursor,
/// change colours, start a line of its own or show its text in another order than it is.
pub(crate) fn sanitize(text: &str) -> String {
    sanitized(text).into_owned()
}

/// [`sanitize`] without a copy when there is nothing to escape (most text), for hot paths (`list`
/// prints an address per line).
pub(crate) fn sanitized(text: &str) -> std::borrow::Cow<'_, str> {
    // Printable ASCII, most text, is answered by its bytes (a character at a time is slower).
    if text.bytes().all(|byte| matches!(byte, b' '..=b'~')) || !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        if needs_escape(character) {
            out.extend(character.escape_default());
        } else {
            out.push(character);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A control character, or one that reorders the text around it (Unicode's bidirectional
/// embeddings, overrides, isolates and marks).
pub(crate) fn needs_escape(character: char) -> bool {
    character.is_control()
        || matches!(
            character,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// Text given on the command line or read from a state, made safe to echo in an error: at most
/// 100 characters then `...` (see [`shorten`]), control characters escaped (see [`sanitize`]).
pub(super) fn echo(text: &str) -> String {
    sanitize(&shorten(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_shortens_long_text_and_escapes_control_characters() {
        assert_eq!(echo("aws_instance.web"), "aws_instance.web");
        let long = "é".repeat(150);
        assert_eq!(echo(&long), format!("{}...", "é".repeat(100)));
        assert_eq!(echo(&"a".repeat(100)), "a".repeat(100));
        assert_eq!(echo("a\u{1b}[31m"), "a\\u{1b}[31m");
        assert_eq!(echo("a\u{1b}b"), "a\\u{1b}b");
        assert_eq!(echo("a\u{202e}b\u{9b}c"), "a\\u{202e}b\\u{9b}c");
    }

    #[test]
    fn loader_errors_convert_with_their_line_and_hint() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("missing.toml");

        let rules = statectl_analysis::scan::rules::Rules::load(&path).unwrap_err();
        let policy = statectl_analysis::policy::file::Policy::load(&path).unwrap_err();
        for (line, cli, hint) in [
            (
                rules.to_string(),
                CliError::from(rules),
                "see README, \"Rules file\", for the format",
            ),
            (
                policy.to_string(),
                CliError::from(policy),
                "see README, \"Lifecycle rules\", for the policy format",
            ),
        ] {
            assert_eq!(cli.message, line);
            assert_eq!(cli.hint.as_deref(), Some(hint));
            assert_eq!(cli.code, ExitStatus::Error);
        }
    }

    #[test]
    fn a_target_echoed_in_an_error_is_escaped() {
        let error = statectl_analysis::scan::select::SelectError::Target {
            target: "a\u{1b}[31m".to_owned(),
            reason: "bad".to_owned(),
        };
        assert_eq!(
            CliError::from(error).message,
            "invalid --target `a\\u{1b}[31m`: bad"
        );
    }
}
