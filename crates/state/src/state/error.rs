//! The error every state reader returns: what is wrong, where, and how to fix it when there is a fix.

use std::fmt;

use crate::json::{JsonError, LineColumn};

/// Where in the input a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Nowhere,
    /// A byte offset, turned into line and column before the error leaves the parser.
    Offset(usize),
    At(LineColumn),
    /// A resource instance address, for problems that belong to an instance rather than to bytes.
    Address(String),
}

/// A state that cannot be read, with one line of explanation and an optional hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateError {
    pub message: String,
    pub location: Location,
    pub hint: Option<String>,
    /// Set when the file is a legacy state of this format that a reader can upgrade and parse again
    /// (format 3; see `state::legacy`), rather than a file that cannot be read.
    pub upgradable_from: Option<u64>,
}

impl StateError {
    pub fn new(message: impl Into<String>) -> StateError {
        StateError {
            message: message.into(),
            location: Location::Nowhere,
            hint: None,
            upgradable_from: None,
        }
    }

    pub fn at(offset: usize, message: impl Into<String>) -> StateError {
        StateError {
            message: message.into(),
            location: Location::Offset(offset),
            hint: None,
            upgradable_from: None,
        }
    }

    pub fn for_address(address: impl fmt::Display, message: impl Into<String>) -> StateError {
        StateError {
            message: message.into(),
            location: Location::Address(address.to_string()),
            hint: None,
            upgradable_from: None,
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> StateError {
        self.hint = Some(hint.into());
        self
    }

    /// Turns a byte offset into a line and column of `source`.
    #[must_use]
    pub fn located_in(mut self, source: &[u8]) -> StateError {
        if let Location::Offset(offset) = self.location {
            self.location = Location::At(LineColumn::of(source, offset));
        }
        self
    }

    /// `FILE:LINE:COLUMN: MESSAGE` or `FILE: ADDRESS: MESSAGE`: one line, without the hint.
    pub fn describe(&self, file: &str) -> String {
        match &self.location {
            Location::Nowhere | Location::Offset(_) => format!("{file}: {}", self.message),
            Location::At(position) => format!("{file}:{position}: {}", self.message),
            Location::Address(address) => format!("{file}: {address}: {}", self.message),
        }
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.describe("state"))
    }
}

impl std::error::Error for StateError {}

impl From<JsonError> for StateError {
    fn from(error: JsonError) -> StateError {
        StateError::at(error.offset, format!("invalid JSON: {}", error.kind))
    }
}

/// How much of a user's text (an address, a key, a path expression) an error echoes: enough to
/// recognise it, never a screenful.
pub const ECHO_CHARS: usize = 100;

/// `text` cut to [`ECHO_CHARS`] characters, with `...` when something was cut. The CLI's `echo` also
/// escapes control characters; this is for messages built below the CLI.
pub fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(ECHO_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]).into(),
        None => text.into(),
    }
}
