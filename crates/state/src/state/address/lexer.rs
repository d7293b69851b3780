//! The HCL tokens an address is written in. Terraform hands addresses to
//! HCL's `ParseTraversalAbs`, so this follows HCL's expression scanner for
//! the tokens a traversal can contain: blanks (space, tab, LF, CRLF) and
//! comments (`#`, `//`, `/* */`) may appear between any two tokens, a leading
//! byte-order mark is ignored, quoted strings are decoded with HCL's escapes,
//! and anything the traversal grammar cannot use is an error.

use super::AddressError;
use super::unicode::{is_go_printable, is_id_continue, is_id_start};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Number(String),
    Quoted(String),
    Dot,
    OpenBracket,
    CloseBracket,
    Other(char),
    End,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Ident(name) => format!("name {name:?}"),
            Tok::Number(text) => format!("number {text}"),
            Tok::Quoted(_) => "a quoted string".to_string(),
            Tok::Dot => "\".\"".to_string(),
            Tok::OpenBracket => "\"[\"".to_string(),
            Tok::CloseBracket => "\"]\"".to_string(),
            Tok::Other(c) => show_char(*c),
            Tok::End => "end of input".to_string(),
        }
    }
}

/// Quotes a character for an error message, keeping the message on one
/// line and making invisible characters visible.
fn show_char(c: char) -> String {
    if is_go_printable(c) {
        format!("\"{c}\"")
    } else if c.is_ascii() {
        format!("\"{}\"", c.escape_default())
    } else {
        format!("\"{}\"", c.escape_unicode())
    }
}

pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) at: usize,
}

pub(super) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        let pos = if src.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer { src, pos }
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn skip_blanks_and_comments(&mut self) -> Result<(), AddressError> {
        loop {
            let rest = self.rest();
            if rest.starts_with([' ', '\t', '\n']) {
                self.pos += 1;
            } else if rest.starts_with("\r\n") {
                self.pos += 2;
            } else if rest.starts_with('#') || rest.starts_with("//") {
                self.pos += rest.find('\n').map_or(rest.len(), |i| i + 1);
            } else if let Some(body) = rest.strip_prefix("/*") {
                match body.find("*/") {
                    Some(i) => self.pos += i + 4,
                    None => {
                        return Err(AddressError::new("unterminated /* comment", self.pos));
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    pub(super) fn next(&mut self) -> Result<Token, AddressError> {
        self.skip_blanks_and_comments()?;
        let at = self.pos;
        let Some(c) = self.rest().chars().next() else {
            return Ok(Token { tok: Tok::End, at });
        };
        let tok = match c {
            '.' => {
                self.pos += 1;
                Tok::Dot
            }
            '[' => {
                self.pos += 1;
                Tok::OpenBracket
            }
            ']' => {
                self.pos += 1;
                Tok::CloseBracket
            }
            '"' => Tok::Quoted(self.quoted()?),
            '0'..='9' => Tok::Number(self.number()),
            c if c == '_' || is_id_start(c) => Tok::Ident(self.ident()),
            c => {
                self.pos += c.len_utf8();
                Tok::Other(c)
            }
        };
        Ok(Token { tok, at })
    }

    fn ident(&mut self) -> String {
        let rest = self.rest();
        let mut chars = rest.char_indices();
        chars.next();
        let end = chars
            .find(|&(_, c)| !(c == '-' || is_id_continue(c)))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += end;
        rest[..end].to_string()
    }

    /// HCL's number literal: a digit followed by digits, dots and exponents
    /// (`e`, optional sign, digit), never ending in a dot. Whether the text
    /// is a usable number is decided later, as HCL does, so `1..2` is one
    /// (invalid) literal rather than a literal followed by dots.
    fn number(&mut self) -> String {
        let bytes = self.rest().as_bytes();
        let mut i = 1;
        let mut end = 1;
        loop {
            match bytes.get(i) {
                Some(b'0'..=b'9') => {
                    i += 1;
                    end = i;
                }
                Some(b'.') => i += 1,
                Some(b'e' | b'E') => {
                    let mut j = i + 1;
                    if matches!(bytes.get(j), Some(b'+' | b'-')) {
                        j += 1;
                    }
                    if !matches!(bytes.get(j), Some(b'0'..=b'9')) {
                        break;
                    }
                    i = j + 1;
                    end = i;
                }
                _ => break,
            }
        }
        let text = self.rest()[..end].to_string();
        self.pos += end;
        text
    }

    /// Decodes an HCL quoted string that must be a literal: the escapes HCL
    /// defines, `$${` and `%%{` for literal template introducers, and an
    /// error for anything that would be a template sequence, since Terraform
    /// rejects those in addresses.
    fn quoted(&mut self) -> Result<String, AddressError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let at = self.pos;
            let rest = self.rest();
            let Some(c) = rest.chars().next() else {
                return Err(AddressError::new("unterminated quoted string", open));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                '\n' | '\r' => {
                    return Err(AddressError::new(
                        "a quoted string cannot contain a line break; write \\n or \\r instead",
                        at,
                    ));
                }
                '\\' => {
                    self.pos += 1;
                    out.push(self.escape(at)?);
                }
                '$' | '%' => {
                    let after = &rest[1..];
                    if after.starts_with('{') {
                        let what = if c == '$' {
                            "interpolation"
                        } else {
                            "directive"
                        };
                        return Err(AddressError::new(
                            format!(
                                "template {what} \"{c}{{\" is not allowed in an address; write \"{c}{c}{{\" for a literal \"{c}{{\""
                            ),
                            at,
                        ));
                    }
                    if after.starts_with(c) && after[1..].starts_with('{') {
                        out.push(c);
                        out.push('{');
                        self.pos += 3;
                    } else {
                        out.push(c);
                        self.pos += 1;
                    }
                }
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// Decodes the escape whose backslash is at `at`; `self.pos` is just
    /// past the backslash.
    fn escape(&mut self, at: usize) -> Result<char, AddressError> {
        let Some(selector) = self.rest().chars().next() else {
            return Err(AddressError::new("unterminated quoted string", at));
        };
        self.pos += selector.len_utf8();
        let simple = match selector {
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            _ => None,
        };
        if let Some(c) = simple {
            return Ok(c);
        }
        let digits = match selector {
            'u' => 4,
            'U' => 8,
            '\n' | '\r' => {
                return Err(AddressError::new(
                    "a quoted string cannot contain a line break; write \\n or \\r instead",
                    at,
                ));
            }
            other => {
                return Err(AddressError::new(
                    format!(
                        "unknown escape sequence \"\\{}\" in quoted string",
                        other.escape_debug()
                    ),
                    at,
                ));
            }
        };
        let hex: String = self
            .rest()
            .chars()
            .take(digits)
            .take_while(char::is_ascii_hexdigit)
            .collect();
        if hex.len() != digits {
            return Err(AddressError::new(
                format!("\"\\{selector}\" must be followed by exactly {digits} hexadecimal digits"),
                at,
            ));
        }
        self.pos += digits;
        let code = u32::from_str_radix(&hex, 16).expect("only hex digits were taken");
        char::from_u32(code).ok_or_else(|| {
            AddressError::new(
                format!("\"\\{selector}{hex}\" is not a Unicode scalar value"),
                at,
            )
        })
    }
}
