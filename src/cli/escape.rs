//! Text from a state, a server or the command line, escaped by the rules of each place it is printed,
//! so that no name, key or value can forge output: a terminal or CI log (control characters and
//! bidirectional overrides as visible escapes, in [`crate::cli::error::sanitize`]), GitHub's workflow
//! commands, Markdown (a pull-request comment), and XML (JUnit). JSON needs nothing beyond serde's own
//! escaping. Each function takes pieces that are still raw; the report formats escape every piece
//! they did not write themselves.

use std::fmt::Write;

use crate::cli::error::{needs_escape, sanitize};

/// The message of a GitHub workflow command (`::error file=...::MESSAGE`): `text` may hold the
/// line breaks the report itself put there (encoded as the runner decodes them); any other control
/// character, which only a state or a server could have put there, is shown as an escape.
pub(crate) fn github_data(text: &str) -> String {
    github_encoded(text, |character| match character {
        '%' => Some("%25"),
        '\r' => Some("%0D"),
        '\n' => Some("%0A"),
        _ => None,
    })
}

/// A workflow command's property (`file`, `title`): as [`github_data`], and `:` and `,`, which end a
/// property, encoded too. A property is one line: a line break in it is shown as `\n`.
pub(crate) fn github_property(text: &str) -> String {
    github_encoded(text, |character| match character {
        '%' => Some("%25"),
        ':' => Some("%3A"),
        ',' => Some("%2C"),
        _ => None,
    })
}

/// `text` with the characters `encoded` names percent-encoded and every other control character
/// shown as an escape.
fn github_encoded(text: &str, encoded: impl Fn(char) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match encoded(character) {
            Some(code) => out.push_str(code),
            None => push_visible(character, &mut out),
        }
    }
    out
}

/// `text` as a Markdown code span that survives a table cell: control characters as escapes (so a
/// line break cannot end the row), `|` escaped (GitHub's tables split on it even in code), and a
/// fence of more backticks than any run inside, so nothing in it is read as Markdown or HTML.
pub(crate) fn markdown_code(text: &str) -> String {
    let text = sanitize(text).replace('|', "\\|");
    let longest = text
        .split(|character| character != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    // A span that starts or ends with a backtick (or a space) needs a space inside its fence; the
    // Markdown reader strips one on each side.
    if longest > 0 || text.starts_with(' ') || text.ends_with(' ') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// `text` as plain Markdown prose in a table cell or a list item: the characters Markdown or GitHub
/// could act on are backslash-escaped, so no HTML, link, image, code span, emphasis or table cell can
/// start in it and `@name` or `#12` are not read as a mention or a reference; an underscore inside
/// a word (`last_operation`) is left alone, as Markdown leaves it; control characters are shown as
/// escapes.
pub(crate) fn markdown_text(text: &str) -> String {
    let text = sanitize(text);
    let characters: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (index, &character) in characters.iter().enumerate() {
        let inside_word = || {
            let alphanumeric = |at: Option<&char>| at.is_some_and(|c| c.is_alphanumeric());
            index > 0
                && alphanumeric(characters.get(index - 1))
                && alphanumeric(characters.get(index + 1))
        };
        let special = matches!(
            character,
            '\\' | '`' | '*' | '~' | '[' | ']' | '<' | '>' | '!' | '|' | '&' | '@' | '#'
        ) || (character == '_' && !inside_word());
        if special {
            out.push('\\');
        }
        out.push(character);
    }
    out
}

/// XML character data (an element's text): markup characters as entities; the line breaks and tabs
/// the report put there kept; a carriage return as a reference (a reader would turn it into a line
/// break); any other control character, or a code point XML 1.0 cannot hold, shown as an escape.
pub(crate) fn xml_text(text: &str) -> String {
    xml(text, false)
}

/// An XML attribute value: as [`xml_text`], with line breaks and tabs as references too (a reader
/// would turn them into spaces).
pub(crate) fn xml_attribute(text: &str) -> String {
    xml(text, true)
}

fn xml(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' | '\t' => out.push(character),
            '\u{FFFE}' | '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(character));
            }
            other => push_visible(other, &mut out),
        }
    }
    out
}

/// Data for stdout or stderr with the characters a terminal would act on invisibly, which no format
/// escapes by its own rules, written as `\uXXXX`: the C1 controls (U+0080 to U+009F: `U+009B` starts
/// a control sequence on some terminals) and the bidirectional marks, embeddings, overrides and
/// isolates (they reorder what a terminal shows). In JSON these are the same strings (they can only
/// stand inside a string); elsewhere they are visible. The report formats have escaped the C0
/// controls already, and the color codes statectl writes itself are C0 (ESC), so they pass.
pub(crate) fn invisible_escaped(text: &str) -> std::borrow::Cow<'_, str> {
    // Each of those characters starts with one of these bytes in UTF-8 (U+0080..U+009F: C2;
    // U+061C: D8; U+200E/F, U+202A..E, U+2066..9: E2): text without them is passed as it is.
    let bytes = text.as_bytes();
    if memchr::memchr3(0xC2, 0xD8, 0xE2, bytes).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    if !text.chars().any(invisible) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        if invisible(character) {
            let _ = write!(out, "\\u{:04x}", u32::from(character));
        } else {
            out.push(character);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A C1 control, or a character that reorders the text around it.
fn invisible(character: char) -> bool {
    matches!(
        character,
        '\u{80}'..='\u{9f}'
            | '\u{061C}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Pushes `character`, or its escape when it is a control character or a bidirectional override.
fn push_visible(character: char, out: &mut String) {
    if needs_escape(character) {
        out.extend(character.escape_default());
    } else {
        out.push(character);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_commands_carry_no_raw_control_character_and_no_second_command() {
        assert_eq!(
            github_data("a%b\r\nc\u{1b}[31m\u{7}::error::x"),
            "a%25b%0D%0Ac\\u{1b}[31m\\u{7}::error::x"
        );
        assert_eq!(github_property("f:1,2%\n\u{1b}"), "f%3A1%2C2%25\\n\\u{1b}");
    }

    #[test]
    fn markdown_code_spans_hold_any_text_in_one_cell() {
        assert_eq!(markdown_code("aws_instance.web"), "`aws_instance.web`");
        assert_eq!(markdown_code("a|b"), "`a\\|b`");
        assert_eq!(markdown_code("a`b``c"), "``` a`b``c ```");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code("a\nb\u{1b}"), "`a\\nb\\u{1b}`");
        assert_eq!(markdown_code("<!-- x"), "`<!-- x`");
    }

    #[test]
    fn markdown_text_starts_nothing() {
        assert_eq!(
            markdown_text("ask @netops <b>#1</b> [x](y) *a* | `c`"),
            r"ask \@netops \<b\>\#1\</b\> \[x\](y) \*a\* \| \`c\`"
        );
        assert_eq!(markdown_text("a\nb"), "a\\\\nb");
        assert_eq!(markdown_text("last_operation _x_"), r"last_operation \_x\_");
    }

    #[test]
    fn invisible_characters_are_escaped_as_json_would_read_them() {
        assert_eq!(
            invisible_escaped("plain é 日本 \u{1b}[1m"),
            "plain é 日本 \u{1b}[1m"
        );
        let escaped = invisible_escaped("{\"a\": \"x\u{202e}y\u{9b}z\"}");
        assert_eq!(escaped, "{\"a\": \"x\\u202ey\\u009bz\"}");
        let value: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(value["a"], "x\u{202e}y\u{9b}z");
    }

    #[test]
    fn xml_escapes_markup_controls_and_line_breaks_in_attributes() {
        assert_eq!(
            xml_text("a<b>&\"'\n\t\r]]>\u{1b}\u{0}\u{FFFE}"),
            "a&lt;b&gt;&amp;&quot;&apos;\n\t&#13;]]&gt;\\u{1b}\\u{0}\\u{fffe}"
        );
        assert_eq!(xml_attribute("a\nb\tc"), "a&#10;b&#9;c");
    }
}
