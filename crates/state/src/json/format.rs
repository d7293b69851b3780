//! Go's reformatting of raw JSON: what `json.MarshalIndent` (or `json.Marshal`) does to a
//! `json.RawMessage` such as an instance's `attributes`.
//!
//! Go compacts a raw value (dropping whitespace and escaping `<` `>` `&` U+2028 U+2029 inside strings),
//! then indents the whole document. Everything else, number spelling and other escapes included, is
//! kept as written. Reproducing exactly this is what makes a re-rendered instance equal to the bytes
//! Terraform wrote.

use crate::json::bytes::skip_layout;

/// How a document is laid out: indented by a unit (Terraform's two spaces) or compact on one line
/// (OpenTofu 1.8 to 1.11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The indentation unit, or `None` for compact output.
    pub indent: Option<String>,
}

impl Layout {
    pub fn compact() -> Layout {
        Layout { indent: None }
    }

    pub fn indented(unit: &str) -> Layout {
        Layout {
            indent: Some(unit.to_owned()),
        }
    }

    /// Starts a new line at `depth` levels of indentation below `base`; nothing when compact.
    pub fn newline(&self, base: &str, depth: usize, out: &mut String) {
        if let Some(unit) = &self.indent {
            out.push('\n');
            out.push_str(base);
            for _ in 0..depth {
                out.push_str(unit);
            }
        }
    }

    /// The separator after an object key: `": "` when indented, `":"` when compact.
    pub fn colon(&self) -> &'static str {
        if self.indent.is_some() { ": " } else { ":" }
    }
}

/// Appends the valid JSON value `raw` to `out` as Go would write it when nested `depth` levels deep
/// below the line prefix `base`.
pub fn reformat(raw: &str, layout: &Layout, base: &str, depth: usize, out: &mut String) {
    let bytes = raw.as_bytes();
    let mut depth = depth;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b' ' | b'\t' | b'\n' | b'\r' => at += 1,
            b'"' => at = copy_string(raw, at, out),
            open @ (b'{' | b'[') => {
                out.push(char::from(open));
                at += 1;
                let next = skip_layout(bytes, at);
                if matches!(bytes.get(next), Some(b'}' | b']')) {
                    // Go keeps empty containers on one line: `{}` and `[]`.
                    out.push(char::from(bytes[next]));
                    at = next + 1;
                } else {
                    depth += 1;
                    layout.newline(base, depth, out);
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.saturating_sub(1);
                layout.newline(base, depth, out);
                out.push(char::from(close));
                at += 1;
            }
            b',' => {
                out.push(',');
                layout.newline(base, depth, out);
                at += 1;
            }
            b':' => {
                out.push_str(layout.colon());
                at += 1;
            }
            _ => {
                // A number or literal: copy it as spelled.
                let end = bytes[at..]
                    .iter()
                    .position(|byte| {
                        matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                    })
                    .map_or(bytes.len(), |length| at + length);
                out.push_str(&raw[at..end]);
                at = end;
            }
        }
    }
}

/// Copies the string literal starting at `start` (a `"`), escaping what Go's compaction escapes, and
/// returns the offset after its closing quote.
fn copy_string(raw: &str, start: usize, out: &mut String) -> usize {
    let bytes = raw.as_bytes();
    let mut run_start = start;
    let mut at = start + 1;
    loop {
        match bytes[at] {
            b'"' => {
                out.push_str(&raw[run_start..=at]);
                return at + 1;
            }
            // An escape is copied as written; skipping its second byte keeps `\"` from ending the string.
            b'\\' => at += 2,
            html @ (b'<' | b'>' | b'&') => {
                out.push_str(&raw[run_start..at]);
                out.push_str(match html {
                    b'<' => "\\u003c",
                    b'>' => "\\u003e",
                    _ => "\\u0026",
                });
                at += 1;
                run_start = at;
            }
            0xE2 if bytes.get(at + 1) == Some(&0x80)
                && matches!(bytes.get(at + 2), Some(0xA8 | 0xA9)) =>
            {
                out.push_str(&raw[run_start..at]);
                out.push_str(if bytes[at + 2] == 0xA8 {
                    "\\u2028"
                } else {
                    "\\u2029"
                });
                at += 3;
                run_start = at;
            }
            _ => at += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Layout, reformat};

    fn indented(raw: &str, depth: usize) -> String {
        let mut out = String::new();
        reformat(raw, &Layout::indented("  "), "", depth, &mut out);
        out
    }

    #[test]
    fn indents_like_marshal_indent() {
        let raw = r#"{"a":1,"b":[],"c":{},"d":[1,{"e":null}]}"#;
        let expected = "{\n  \"a\": 1,\n  \"b\": [],\n  \"c\": {},\n  \"d\": [\n    1,\n    {\n      \"e\": null\n    }\n  ]\n}";
        assert_eq!(indented(raw, 0), expected);
        let reindented = indented(&expected.replace('\n', "\n      "), 0);
        assert_eq!(
            reindented, expected,
            "whitespace in the input does not matter"
        );
    }

    #[test]
    fn keeps_numbers_and_escapes_but_escapes_html() {
        let raw = "[1.50, 123456789012345678901234567890, 1e400, \"\\u0041 \\\" <&> \u{2028}\"]";
        let mut out = String::new();
        reformat(raw, &Layout::compact(), "", 0, &mut out);
        assert_eq!(
            out,
            r#"[1.50,123456789012345678901234567890,1e400,"\u0041 \" \u003c\u0026\u003e \u2028"]"#
        );
    }

    #[test]
    fn nests_below_a_base_prefix() {
        assert_eq!(indented("[1]", 2), "[\n      1\n    ]");
    }
}
