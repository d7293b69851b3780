//! Where a report is written, and what a format sets aside until the end: a [`Spool`] holds the
//! records of the states already reported when the document must open with totals (JSON's summary,
//! JUnit's counts), in memory while small, then in an unnamed temporary
//! file, so a report of any number of states costs no more memory than one of a few. A
//! [`PrettyArray`] writes one JSON array element at a time, in the bytes `serde_json`'s pretty
//! printer gives for the whole document.

use std::io::{Read, Seek, SeekFrom, Write};

use serde_json::Value;
use tempfile::SpooledTempFile;

use crate::cli::Printer;
use crate::cli::error::CliError;

/// A report's destination: standard output (through the printer, which escapes what a terminal
/// would act on invisibly), or a buffer.
pub(crate) trait Out {
    fn text(&mut self, text: &str) -> Result<(), CliError>;
}

impl Out for Printer {
    fn text(&mut self, text: &str) -> Result<(), CliError> {
        self.out(text)
    }
}

impl Out for Vec<u8> {
    fn text(&mut self, text: &str) -> Result<(), CliError> {
        self.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

/// Kept in memory up to this size; past it, in a temporary file.
const IN_MEMORY: usize = 4 << 20;

/// Text set aside until what comes before it in the report is known.
pub(crate) struct Spool {
    file: SpooledTempFile,
}

impl std::fmt::Debug for Spool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spool")
            .field("on_disk", &self.file.is_rolled())
            .finish_non_exhaustive()
    }
}

impl Spool {
    pub(crate) fn new() -> Spool {
        Spool {
            file: SpooledTempFile::new(IN_MEMORY),
        }
    }

    pub(crate) fn text(&mut self, text: &str) -> Result<(), CliError> {
        self.file
            .write_all(text.as_bytes())
            .map_err(|error| spool_error(&error))
    }

    /// Writes what was set aside to `out`, in order, in pieces that end on a character's end.
    pub(crate) fn copy_to(mut self, out: &mut dyn Out) -> Result<(), CliError> {
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(|error| spool_error(&error))?;
        let mut buffer = vec![0; 64 << 10];
        // The bytes of a character cut by the end of the last read, moved to the front.
        let mut carried = 0;
        loop {
            let read = self
                .file
                .read(&mut buffer[carried..])
                .map_err(|error| spool_error(&error))?;
            let filled = carried + read;
            let whole = match std::str::from_utf8(&buffer[..filled]) {
                Ok(text) => text.len(),
                // Only written text is read back: an invalid sequence is a cut character.
                Err(cut) => cut.valid_up_to(),
            };
            if read == 0 {
                return match filled {
                    0 => Ok(()),
                    _ => Err(CliError::new(
                        "the report set aside in a temporary file came back cut",
                    )),
                };
            }
            out.text(std::str::from_utf8(&buffer[..whole]).expect("checked above"))?;
            buffer.copy_within(whole..filled, 0);
            carried = filled - whole;
        }
    }
}

fn spool_error(error: &std::io::Error) -> CliError {
    CliError::new(format!(
        "cannot set the report aside in a temporary file: {error}"
    ))
    .with_hint("set TMPDIR to a folder with room for the report")
}

/// The placeholder a document holds where its array goes.
const PLACE: &str = "@statectl-array@";

/// A JSON array inside a pretty-printed document, written one element at a time.
#[derive(Debug)]
pub(crate) struct PrettyArray {
    spool: Spool,
    /// The spaces before each element's lines: two more than before the array's key.
    indent: String,
    elements: usize,
}

impl PrettyArray {
    /// An array whose key is `depth` levels into the document (1: a key of the top object).
    pub(crate) fn new(depth: usize) -> PrettyArray {
        PrettyArray {
            spool: Spool::new(),
            indent: "  ".repeat(depth + 1),
            elements: 0,
        }
    }

    /// The placeholder to put in the document where the array goes.
    pub(crate) fn place() -> Value {
        Value::String(PLACE.to_owned())
    }

    pub(crate) fn push(&mut self, element: &impl serde::Serialize) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(element).expect("a report always serializes");
        let mut indented = String::with_capacity(text.len() + text.len() / 8 + 2);
        indented.push_str(if self.elements == 0 { "\n" } else { ",\n" });
        for (number, line) in text.split('\n').enumerate() {
            if number > 0 {
                indented.push('\n');
            }
            indented.push_str(&self.indent);
            indented.push_str(line);
        }
        self.spool.text(&indented)?;
        self.elements += 1;
        Ok(())
    }

    /// Writes `document` (holding [`PrettyArray::place`] once, `depth` levels in) pretty-printed,
    /// the array's elements where the placeholder is, and a newline: the bytes of the whole
    /// document printed at once.
    pub(crate) fn write_in(
        self,
        document: &impl serde::Serialize,
        out: &mut dyn Out,
    ) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(document).expect("a report always serializes");
        let quoted = format!("\"{PLACE}\"");
        let (before, after) = text
            .split_once(&quoted)
            .expect("the document holds the array's placeholder");
        out.text(before)?;
        if self.elements == 0 {
            out.text("[]")?;
        } else {
            out.text("[")?;
            self.spool.copy_to(out)?;
            out.text("\n")?;
            out.text(&self.indent[2..])?;
            out.text("]")?;
        }
        out.text(after)?;
        out.text("\n")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_array_written_element_by_element_is_the_document_printed_at_once() {
        let elements = [
            json!({"path": "a", "findings": [], "error": null}),
            json!({"path": "b\nc", "findings": [{"rule": "x", "evidence": [1, {"k": []}]}]}),
            json!([]),
            json!("plain"),
        ];
        for count in 0..=elements.len() {
            let whole = json!({"schema_version": 1, "runs": [{"tool": {"a": 1}, "results": elements[..count]}], "after": {"x": [1]}});
            let mut array = PrettyArray::new(3);
            for element in &elements[..count] {
                array.push(element).unwrap();
            }
            let document = json!({"schema_version": 1, "runs": [{"tool": {"a": 1}, "results": PrettyArray::place()}], "after": {"x": [1]}});
            let mut out = Vec::new();
            array.write_in(&document, &mut out).unwrap();
            let expected = serde_json::to_string_pretty(&whole).unwrap() + "\n";
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }

    #[test]
    fn a_spool_gives_back_what_it_was_given_past_its_memory() {
        let mut spool = Spool::new();
        let line = "x".repeat(1000) + "\n";
        for _ in 0..(IN_MEMORY / 1000 + 10) {
            spool.text(&line).unwrap();
        }
        assert!(spool.file.is_rolled());
        let mut out = Vec::new();
        spool.copy_to(&mut out).unwrap();
        assert_eq!(out.len(), line.len() * (IN_MEMORY / 1000 + 10));
        assert!(out.chunks(line.len()).all(|chunk| chunk == line.as_bytes()));
    }

    #[test]
    fn a_spool_gives_back_characters_whole_across_its_reads() {
        /// Fails on a piece that would not be text on its own.
        struct Pieces(Vec<String>);
        impl Out for Pieces {
            fn text(&mut self, text: &str) -> Result<(), CliError> {
                self.0.push(text.to_owned());
                Ok(())
            }
        }
        let mut spool = Spool::new();
        // Three-byte characters after one byte: the 64 KiB reads end inside characters.
        let text = format!("x{}", "\u{2028}é✓".repeat(40_000));
        spool.text(&text).unwrap();
        let mut pieces = Pieces(Vec::new());
        spool.copy_to(&mut pieces).unwrap();
        assert!(pieces.0.len() > 1);
        assert_eq!(pieces.0.concat(), text);
    }
}
