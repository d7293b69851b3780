//! Go's `encoding/json` string escaping, byte for byte, for the strings statectl writes itself.

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `text` as a JSON string literal exactly as Go's `json.Marshal` writes it: `\"` `\\` `\b` `\f`
/// `\n` `\r` `\t`, other control characters as `\u00xx`, the HTML-sensitive `<` `>` `&` and the line
/// separators U+2028 and U+2029 as `\u` escapes, everything else (non-ASCII included) raw.
pub fn write_go_string(text: &str, out: &mut String) {
    out.push('"');
    let mut run_start = 0;
    for (at, character) in text.char_indices() {
        let escaped: Option<&str> = match character {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '<' => Some("\\u003c"),
            '>' => Some("\\u003e"),
            '&' => Some("\\u0026"),
            '\u{2028}' => Some("\\u2028"),
            '\u{2029}' => Some("\\u2029"),
            control if u32::from(control) < 0x20 => None,
            _ => continue,
        };
        out.push_str(&text[run_start..at]);
        if let Some(escape) = escaped {
            out.push_str(escape);
        } else {
            let code = u32::from(character) as usize;
            out.push_str("\\u00");
            out.push(char::from(HEX[code >> 4]));
            out.push(char::from(HEX[code & 0xF]));
        }
        run_start = at + character.len_utf8();
    }
    out.push_str(&text[run_start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::write_go_string;

    fn go(text: &str) -> String {
        let mut out = String::new();
        write_go_string(text, &mut out);
        out
    }

    #[test]
    fn escapes_as_go_does() {
        assert_eq!(go("plain é 日本"), "\"plain é 日本\"");
        assert_eq!(go("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(go("<a & b>"), r#""\u003ca \u0026 b\u003e""#);
        assert_eq!(
            go("\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}"),
            "\"\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}\""
        );
        assert_eq!(go("\u{2028}\u{2029}"), r#""\u2028\u2029""#);
    }
}
