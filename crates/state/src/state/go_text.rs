//! Text as Terraform prints it, which is Go's way: `%q` (`strconv.Quote`) with `unicode.IsPrint`
//! deciding what is escaped, and HCL's rule for a name that needs no quotes.

use std::fmt::Write as _;

pub use crate::state::address::{is_go_printable, is_identifier};

/// Go's `%q` of a string: quotes, `\"` and `\\`, and escapes for what is not printable.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            printable if is_go_printable(printable) => out.push(printable),
            low if u32::from(low) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", u32::from(low));
            }
            short if u32::from(short) < 0x1_0000 => {
                let _ = write!(out, "\\u{:04x}", u32::from(short));
            }
            long => {
                let _ = write!(out, "\\U{:08x}", u32::from(long));
            }
        }
    }
    out.push('"');
    out
}

/// A name as Terraform's renderer writes an attribute or block name: bare when it is an HCL
/// identifier, else quoted with [`quote`] (`EnsureValidAttributeName`).
pub fn attribute_name(name: &str) -> String {
    if is_identifier(name) {
        name.to_owned()
    } else {
        quote(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_as_go_does() {
        assert_eq!(
            quote("a\"b\\c\n\u{1}\u{1b}é\u{a0}😀"),
            r#""a\"b\\c\n\x01\x1bé\u00a0😀""#
        );
        assert_eq!(attribute_name("instance_type"), "instance_type");
        assert_eq!(attribute_name("with-dash"), "with-dash");
        assert_eq!(attribute_name("a b"), "\"a b\"");
        assert_eq!(attribute_name("0x"), "\"0x\"");
        assert_eq!(attribute_name(""), "\"\"");
    }
}
