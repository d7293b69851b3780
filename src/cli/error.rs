//! The error a command returns: one line saying what is wrong and where, an optional hint, an exit code.

use std::fmt;

use crate::cli::exit;
use crate::state::StateError;
use crate::state::source::Source;

#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub hint: Option<String>,
    pub code: i32,
}

impl CliError {
    pub fn new(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            hint: None,
            code: exit::ERROR,
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    /// A state problem, named with the file it is in.
    pub fn state(source: &Source, error: &StateError) -> CliError {
        CliError {
            message: error.describe(&source.to_string()),
            hint: error.hint.clone(),
            code: exit::ERROR,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

/// Makes text from an input file safe to echo to a terminal: control characters become escapes, so a
/// crafted state cannot move the cursor or change colours.
pub fn sanitize(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .map(|character| {
            if character.is_control() {
                character.escape_default().to_string()
            } else {
                character.to_string()
            }
        })
        .collect()
}
