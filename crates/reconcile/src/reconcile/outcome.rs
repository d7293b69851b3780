//! The per-instance outcome both readers return: reconciled (with the attribute patch), still
//! pending at the deadline, failed (the remote says so: a taint is proposed), gone (a removal is
//! proposed), or an error with the last status and a short body excerpt.

use std::fmt;

/// What reconciling one instance came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The remote object reached a target state; `attributes` is the instance's new attributes JSON
    /// (`None` when nothing in state changes).
    Reconciled {
        status: String,
        attributes: Option<serde_json::Value>,
    },
    /// Still in progress when the deadline came.
    Pending { last_status: String },
    /// The remote object reports a failure; `attributes` is what the state learns of it (the
    /// failed status itself, say), `None` when nothing changes.
    Failed {
        status: String,
        message: String,
        attributes: Option<serde_json::Value>,
    },
    /// The remote object no longer exists.
    Gone,
    /// Nothing conclusive: the last HTTP status (if a response came) and an excerpt of its body.
    Error {
        message: String,
        status: Option<u16>,
        excerpt: String,
    },
}

impl Outcome {
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Reconciled { .. } => "reconciled",
            Outcome::Pending { .. } => "pending",
            Outcome::Failed { .. } => "failed",
            Outcome::Gone => "gone",
            Outcome::Error { .. } => "error",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Reconciled { status, attributes } => {
                let changed = if attributes.is_some() {
                    ""
                } else {
                    ", state already current"
                };
                write!(formatter, "reconciled ({status}{changed})")
            }
            Outcome::Pending { last_status } => write!(formatter, "still pending ({last_status})"),
            Outcome::Failed {
                status, message, ..
            } if message.is_empty() => {
                write!(formatter, "failed ({status})")
            }
            Outcome::Failed {
                status, message, ..
            } => {
                write!(formatter, "failed ({status}: {message})")
            }
            Outcome::Gone => formatter.write_str("gone"),
            Outcome::Error {
                message,
                status: Some(status),
                excerpt,
            } if !excerpt.is_empty() => {
                write!(formatter, "error: {message} (HTTP {status}: {excerpt})")
            }
            Outcome::Error {
                message,
                status: Some(status),
                ..
            } => write!(formatter, "error: {message} (HTTP {status})"),
            Outcome::Error { message, .. } => write!(formatter, "error: {message}"),
        }
    }
}

/// At most `limit` characters of a response body, on one line, control characters escaped: enough to
/// tell an HTML error page from a JSON error, never a whole body in a terminal. The run's secrets and
/// the credential patterns are masked before it is cut, so that a cut never leaves part of a token
/// that a mask of the whole would have caught.
pub fn excerpt(body: &[u8], limit: usize) -> String {
    let text = String::from_utf8_lossy(body);
    let text = statectl_net::secrets::mask_message(&text);
    let mut out = String::new();
    for character in text.chars().take(limit) {
        if character.is_control() {
            out.extend(character.escape_default());
        } else {
            out.push(character);
        }
    }
    if text.chars().count() > limit {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_on_one_line() {
        assert_eq!(
            excerpt(b"{\"code\":\"x\"}\n<html>", 12),
            "{\"code\":\"x\"}…"
        );
        assert_eq!(excerpt(b"a\nb\x1b[31m", 100), "a\\nb\\u{1b}[31m");
    }

    #[test]
    fn says_what_happened() {
        assert_eq!(
            Outcome::Error {
                message: "server error".into(),
                status: Some(503),
                excerpt: "busy".into()
            }
            .to_string(),
            "error: server error (HTTP 503: busy)"
        );
        assert_eq!(
            Outcome::Pending {
                last_status: "PROVISIONING".into()
            }
            .to_string(),
            "still pending (PROVISIONING)"
        );
    }
}
