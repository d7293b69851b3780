//! How the `-v` log writes an event's fields: `message key=value key=value`, every value escaped (a
//! control character or a bidirectional override as a visible escape). A status value, a response
//! excerpt or a plugin's line comes from a server or a program statectl does not trust: written raw,
//! a `\r\n` in it would start a forged log line and an ESC would restyle the terminal.

use std::fmt;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

use crate::cli::error::sanitized;

/// The log's field formatter (`tracing_subscriber::fmt::layer().fmt_fields(EscapedFields)`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct EscapedFields;

impl<'writer> FormatFields<'writer> for EscapedFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = Escaping {
            writer,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct Escaping<'writer> {
    writer: Writer<'writer>,
    first: bool,
    result: fmt::Result,
}

impl Escaping<'_> {
    fn write(&mut self, field: &Field, value: &str) {
        if self.result.is_err() {
            return;
        }
        let separator = if self.first { "" } else { " " };
        self.first = false;
        let value = sanitized(value);
        self.result = if field.name() == "message" {
            write!(self.writer, "{separator}{value}")
        } else {
            write!(self.writer, "{separator}{}={value}", field.name())
        };
    }
}

impl Visit for Escaping<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        // As tracing's own formatter shows a `&str` field: quoted, Rust's escapes inside.
        if field.name() == "message" {
            self.write(field, value);
        } else {
            self.write(field, &format!("{value:?}"));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        // `%value` fields and the message arrive here as Display wrapped in Debug: written as
        // they are, so this is where a server's text would reach the log raw.
        self.write(field, &format!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The log line of item 17 (issue 24): a status from a server with a line break and an ESC.
    #[test]
    fn a_value_from_a_server_cannot_forge_a_log_line() {
        let captured = Captured::default();
        let sink = captured.clone();
        let layer = tracing_subscriber::fmt::layer()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .without_time()
            .with_target(false)
            .fmt_fields(EscapedFields);
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let outcome = "error: unexpected state `weird\r\nFORGED \u{1b}[31mred`";
            tracing::info!(instance = %"a.b", outcome = %outcome, path = "/x\ny", "done\u{7}");
        });
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            " INFO done\\u{7} instance=a.b outcome=error: unexpected state `weird\\r\\nFORGED \\u{1b}[31mred` path=\"/x\\ny\"\n"
        );
    }
}
