//! The cursor: reads JSON text in one pass, validating as it goes, and hands out byte spans instead of
//! building a tree.
//!
//! Why not serde_json: a rewrite splices changed instances into the original bytes, so the parser must
//! know where every value starts and ends; Go's reader rules (case-insensitive keys, last duplicate wins)
//! must be applied by the caller, which sees every member in order; and a 100,000-deep nesting must be a
//! clear error, not a stack overflow, so skipping a value is iterative.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::json::LineIndex;
use crate::json::utf8::{Behind, Checked, Checking, NotUtf8};
use crate::json::{bytes, skip, wide};

/// The deepest nesting of arrays and objects any command accepts in a document, counted from the
/// document's root: the one limit of every reader (the cursor here, and every later walk over a value
/// it accepted: `show`, `diff`, `query`), so that no command takes a state another refuses.
///
/// The figure is Go's `encoding/json` (`maxNestingDepth` in its scanner, which Terraform's state
/// reader uses): the scanner pushes one entry per `[` or `{` and fails once more than 10,000 are
/// open, so a document 10,000 containers deep is read and one 10,001 deep is refused.
pub const MAX_DEPTH: usize = 10_000;

/// A byte range `start..end` in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The text this span covers in `source`.
    pub fn of<'a>(&self, source: &'a str) -> &'a str {
        &source[self.start..self.end]
    }
}

/// What went wrong, at which byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub offset: usize,
    pub kind: JsonErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// The text ended while a value was still open.
    UnexpectedEnd {
        expected: &'static str,
    },
    /// A character that cannot stand here.
    Unexpected {
        found: char,
        expected: &'static str,
    },
    /// A raw control character inside a string (JSON requires it escaped).
    ControlCharacter {
        code: u32,
    },
    InvalidEscape,
    InvalidNumber,
    TooDeep,
    TrailingData {
        found: char,
    },
    /// Bytes that are not UTF-8 text, found by a cursor that checks them as it reads
    /// ([`Cursor::checking`]); its reader asks the one-pass check for the exact offset.
    NotUtf8,
}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonErrorKind::UnexpectedEnd { expected } => {
                write!(
                    formatter,
                    "the JSON ends early, expected {expected} (is the file truncated?)"
                )
            }
            JsonErrorKind::Unexpected { found, expected } => {
                write!(
                    formatter,
                    "unexpected {}, expected {expected}",
                    describe(*found)
                )
            }
            JsonErrorKind::ControlCharacter { code } => {
                write!(
                    formatter,
                    "a raw control character U+{code:04X} inside a string (it must be escaped)"
                )
            }
            JsonErrorKind::InvalidEscape => {
                formatter.write_str("an invalid escape sequence inside a string")
            }
            JsonErrorKind::InvalidNumber => formatter.write_str("an invalid number"),
            JsonErrorKind::TooDeep => {
                write!(formatter, "values nested deeper than {MAX_DEPTH} levels")
            }
            JsonErrorKind::TrailingData { found } => {
                write!(
                    formatter,
                    "unexpected {} after the end of the JSON document",
                    describe(*found)
                )
            }
            JsonErrorKind::NotUtf8 => formatter.write_str("bytes that are not UTF-8 text"),
        }
    }
}

/// Shows a character safely: control characters and quotes escaped, so input never reaches a terminal raw.
fn describe(found: char) -> String {
    format!("character '{}'", found.escape_debug())
}

type Result<T> = std::result::Result<T, JsonError>;

/// A position in a JSON text, with the reads the state parser needs.
#[derive(Debug)]
pub struct Cursor<'a> {
    text: Text<'a>,
    bytes: &'a [u8],
    position: usize,
    depth: usize,
    /// Open containers while skipping a value: `true` for an object. Kept between calls to avoid
    /// allocating for every skipped attribute object.
    stack: Vec<bool>,
}

/// How a cursor makes text of its bytes.
#[derive(Debug, Clone)]
enum Text<'a> {
    /// Known to be UTF-8 as a whole.
    Known(&'a str),
    /// Checked a block at a time as the cursor passes the end of each (shared with the cursors of
    /// other threads); meanwhile the texts the cursor makes are checked a few hundred bytes ahead
    /// of it, in the range it holds.
    Checking(Arc<Checking<'a>>, Behind, Checked),
}

/// How far ahead of a text it makes a cursor checks the bytes, for the texts that follow: half as
/// far as the readers ask the CPU for memory ahead (`wide`), so the bytes are in cache by then
/// (checking as far as that waited for memory).
const CHECK_AHEAD: usize = 512;

/// The brackets of a container and what an error expects at them.
struct Container {
    open: u8,
    close: u8,
    name: &'static str,
    after_item: &'static str,
}

impl Container {
    const BRACES: Container = Container::of(b'{', b'}', "an object", "',' or '}' in an object");
    const BRACKETS: Container = Container::of(b'[', b']', "an array", "',' or ']' in an array");

    const fn of(open: u8, close: u8, name: &'static str, after_item: &'static str) -> Container {
        Container {
            open,
            close,
            name,
            after_item,
        }
    }
}

impl<'a> Cursor<'a> {
    pub fn new(source: &'a str) -> Cursor<'a> {
        Cursor {
            text: Text::Known(source),
            bytes: source.as_bytes(),
            position: 0,
            depth: 0,
            stack: Vec::new(),
        }
    }

    /// A cursor at `position` of `source` with `depth` containers open: for reading on, on another
    /// thread, from a place where another cursor found such containers open (see
    /// `state::parse_split`).
    pub fn resume(source: &'a str, position: usize, depth: usize) -> Cursor<'a> {
        Cursor {
            position,
            depth,
            ..Cursor::new(source)
        }
    }

    /// A cursor at the start of bytes not yet known to be UTF-8, checking each block of them
    /// (shared with other cursors over the same `checking`) once it has read past the block's end,
    /// and the bytes a little ahead of each text it makes before making it; bytes that are not
    /// UTF-8 are [`JsonErrorKind::NotUtf8`] from the read that found them, or from
    /// [`Cursor::whole`].
    pub(crate) fn checking(checking: Arc<Checking<'a>>) -> Cursor<'a> {
        let (bytes, behind) = (checking.bytes(), checking.behind(0));
        Cursor {
            bytes,
            text: Text::Checking(checking, behind, Checked::default()),
            position: 0,
            depth: 0,
            stack: Vec::new(),
        }
    }

    /// A cursor over the same text at `position` with `depth` containers open, as
    /// [`Cursor::resume`] (sharing the checking of a [`Cursor::checking`]).
    pub(crate) fn fork(&self, position: usize, depth: usize) -> Cursor<'a> {
        let text = match &self.text {
            Text::Known(source) => Text::Known(source),
            Text::Checking(checking, _, ahead) => {
                Text::Checking(checking.clone(), checking.behind(position), *ahead)
            }
        };
        Cursor {
            text,
            bytes: self.bytes,
            position,
            depth,
            stack: Vec::new(),
        }
    }

    /// The bytes the cursor reads.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The text `span` covers (checked first, for a [`Cursor::checking`]).
    pub fn text(&mut self, span: Span) -> Result<&'a str> {
        self.slice(span.start, span.end)
    }

    fn slice(&mut self, start: usize, end: usize) -> Result<&'a str> {
        match &mut self.text {
            Text::Known(source) => Ok(&source[start..end]),
            Text::Checking(checking, behind, ahead) => {
                let not_utf8 = || JsonError {
                    offset: start,
                    kind: JsonErrorKind::NotUtf8,
                };
                // The blocks the cursor has read through since it last asked, still in cache.
                if behind.end() <= start {
                    checking
                        .check_behind(behind, start)
                        .map_err(|NotUtf8| not_utf8())?;
                }
                if let Some(text) = checking.str(*ahead, start, end) {
                    return Ok(text);
                }
                if let Some(checked) = checking.check_ahead(start, CHECK_AHEAD.max(end - start)) {
                    *ahead = checked;
                    if let Some(text) = checking.str(checked, start, end) {
                        return Ok(text);
                    }
                }
                std::str::from_utf8(&self.bytes[start..end]).map_err(|_| not_utf8())
            }
        }
    }

    /// Up to where the cursor's text is known to be UTF-8 once the blocks it has read through are
    /// checked (all of it, when it was checked first): a reader that lets go of the bytes it has
    /// read must not let go of bytes still to be checked. A block found invalid is reported by the
    /// next text the cursor makes, or by [`Cursor::whole`].
    pub(crate) fn checked_to(&mut self) -> usize {
        match &mut self.text {
            Text::Known(source) => source.len(),
            Text::Checking(checking, behind, _) => {
                let _ = checking.check_behind(behind, self.position);
                checking.checked_before(behind)
            }
        }
    }

    /// The whole text, once read: for a [`Cursor::checking`], with every block the reads did not
    /// ask for checked now, and the line index when it counted lines.
    pub(crate) fn whole(&self) -> Result<(&'a str, Option<LineIndex>)> {
        match &self.text {
            Text::Known(source) => Ok((source, None)),
            Text::Checking(checking, ..) => checking.finish().map_err(|NotUtf8| JsonError {
                offset: 0,
                kind: JsonErrorKind::NotUtf8,
            }),
        }
    }

    /// The character at `at`, for a message (U+FFFD for bytes that are not one); `None` at the end.
    pub(crate) fn character_at(&self, at: usize) -> Option<char> {
        let rest = self.bytes.get(at..).filter(|rest| !rest.is_empty())?;
        let head = &rest[..rest.len().min(4)];
        let valid = match std::str::from_utf8(head) {
            Ok(text) => text,
            Err(error) => std::str::from_utf8(&head[..error.valid_up_to()]).unwrap_or_default(),
        };
        Some(valid.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    /// How many arrays and objects are open at the cursor.
    pub fn depth(&self) -> usize {
        self.depth
    }

    pub fn position(&self) -> usize {
        self.position
    }

    /// Moves to `position`, which must be a place the cursor has already validated up to.
    pub fn seek(&mut self, position: usize) {
        self.position = position;
    }

    pub fn error(&self, kind: JsonErrorKind) -> JsonError {
        JsonError {
            offset: self.position,
            kind,
        }
    }

    fn unexpected(&self, expected: &'static str) -> JsonError {
        match self.character_at(self.position) {
            Some(found) => self.error(JsonErrorKind::Unexpected { found, expected }),
            None => self.error(JsonErrorKind::UnexpectedEnd { expected }),
        }
    }

    pub fn skip_whitespace(&mut self) {
        self.position = bytes::skip_layout(self.bytes, self.position);
    }

    /// The next byte after whitespace, without consuming it.
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.bytes.get(self.position).copied()
    }

    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<()> {
        if self.peek() == Some(byte) {
            self.position += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Checks that nothing but whitespace follows the top-level value.
    pub fn finish(&mut self) -> Result<()> {
        self.skip_whitespace();
        match self.character_at(self.position) {
            None => Ok(()),
            Some(found) => Err(self.error(JsonErrorKind::TrailingData { found })),
        }
    }

    /// Reads an object, calling `member` for each key with the cursor placed before the value; `member`
    /// must consume the value. Returns the span of the whole object, braces included.
    pub fn object<E: From<JsonError>>(
        &mut self,
        mut member: impl FnMut(&mut Self, Cow<'a, str>, Span) -> std::result::Result<(), E>,
    ) -> std::result::Result<Span, E> {
        self.container(&Container::BRACES, |cursor| {
            if cursor.peek() != Some(b'"') {
                return Err(cursor.unexpected("a string key").into());
            }
            let (key, key_span) = cursor.string()?;
            cursor.expect(b':', "':' after an object key")?;
            cursor.skip_whitespace();
            member(cursor, key, key_span)
        })
    }

    /// Reads an array, calling `element` with the cursor placed before each element; `element` must
    /// consume it. Returns the span of the whole array, brackets included.
    pub fn array<E: From<JsonError>>(
        &mut self,
        element: impl FnMut(&mut Self) -> std::result::Result<(), E>,
    ) -> std::result::Result<Span, E> {
        self.container(&Container::BRACKETS, element)
    }

    /// Opens an array whose elements the caller reads one by one, as [`Cursor::array`] would: `true`
    /// when an element follows, `false` when the array is empty (its `]` read too).
    pub fn open_array(&mut self) -> Result<bool> {
        let kind = &Container::BRACKETS;
        self.expect(kind.open, kind.name)?;
        self.enter()?;
        if self.peek() == Some(kind.close) {
            self.position += 1;
            self.depth -= 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// After an element of an array opened by [`Cursor::open_array`]: `true` when another follows
    /// (the `,` read), `false` when the array ends (the `]` read).
    pub fn next_element(&mut self) -> Result<bool> {
        let kind = &Container::BRACKETS;
        if self.closes(kind.close, kind.after_item)? {
            self.depth -= 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// Reads an object or array, calling `item` with the cursor placed (whitespace skipped) before
    /// each member or element; `item` must consume it. Returns the span, brackets included.
    fn container<E: From<JsonError>>(
        &mut self,
        kind: &Container,
        mut item: impl FnMut(&mut Self) -> std::result::Result<(), E>,
    ) -> std::result::Result<Span, E> {
        self.skip_whitespace();
        let start = self.position;
        self.expect(kind.open, kind.name)?;
        self.enter()?;
        if self.peek() == Some(kind.close) {
            self.position += 1;
        } else {
            loop {
                self.skip_whitespace();
                item(self)?;
                if self.closes(kind.close, kind.after_item)? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Ok(Span::new(start, self.position))
    }

    /// After a member or an element: `,` (another follows: `false`) or `close` (the container
    /// ends: `true`), consumed; anything else is an error expecting `expected`.
    fn closes(&mut self, close: u8, expected: &'static str) -> Result<bool> {
        match self.peek() {
            Some(b',') => {
                self.position += 1;
                Ok(false)
            }
            Some(byte) if byte == close => {
                self.position += 1;
                Ok(true)
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(JsonErrorKind::TooDeep));
        }
        Ok(())
    }

    /// Reads a string and decodes its escapes; borrows when there are none (the common case).
    pub fn string(&mut self) -> Result<(Cow<'a, str>, Span)> {
        self.skip_whitespace();
        let start = self.position;
        if self.bytes.get(start) != Some(&b'"') {
            return Err(self.unexpected("a string"));
        }
        self.position += 1;
        let content_start = self.position;
        let plain_end = self.scan_plain()?;
        if self.bytes[plain_end] == b'"' {
            self.position = plain_end + 1;
            let text = self.slice(content_start, plain_end)?;
            return Ok((Cow::Borrowed(text), Span::new(start, self.position)));
        }
        let mut decoded = String::from(self.slice(content_start, plain_end)?);
        self.position = plain_end;
        loop {
            // At a backslash: decode one escape, then copy the next plain run.
            self.decode_escape(&mut decoded)?;
            let run_start = self.position;
            let run_end = self.scan_plain()?;
            decoded.push_str(self.slice(run_start, run_end)?);
            self.position = run_end;
            if self.bytes[run_end] == b'"' {
                self.position += 1;
                return Ok((Cow::Owned(decoded), Span::new(start, self.position)));
            }
        }
    }

    /// Skips a string, validating its escapes, without decoding it.
    pub fn skip_string(&mut self) -> Result<Span> {
        let start = self.position;
        self.position += 1;
        loop {
            let end = self.scan_plain()?;
            self.position = end;
            if self.bytes[end] == b'"' {
                self.position += 1;
                return Ok(Span::new(start, self.position));
            }
            self.skip_escape()?;
        }
    }

    /// From the cursor, finds the next `"` or `\` and checks that no raw control character comes before
    /// it. Returns its offset; the cursor does not move.
    fn scan_plain(&self) -> Result<usize> {
        let at = wide::next_string_special(self.bytes, self.position);
        match self.bytes.get(at) {
            Some(b'"' | b'\\') => Ok(at),
            Some(&byte) => Err(JsonError {
                offset: at,
                kind: JsonErrorKind::ControlCharacter {
                    code: u32::from(byte),
                },
            }),
            None => Err(JsonError {
                offset: at,
                kind: JsonErrorKind::UnexpectedEnd {
                    expected: "the closing '\"' of a string",
                },
            }),
        }
    }

    fn skip_escape(&mut self) -> Result<()> {
        // self.position is at the backslash.
        match self.bytes.get(self.position + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.position += 2;
                Ok(())
            }
            Some(b'u') => {
                self.hex4(self.position + 2)?;
                self.position += 6;
                Ok(())
            }
            None => Err(JsonError {
                offset: self.bytes.len(),
                kind: JsonErrorKind::UnexpectedEnd {
                    expected: "an escape sequence",
                },
            }),
            Some(_) => Err(self.error(JsonErrorKind::InvalidEscape)),
        }
    }

    fn hex4(&self, at: usize) -> Result<u32> {
        let Some(digits) = self.bytes.get(at..at + 4) else {
            return Err(JsonError {
                offset: self.bytes.len(),
                kind: JsonErrorKind::UnexpectedEnd {
                    expected: "four hex digits",
                },
            });
        };
        let mut value = 0;
        for &digit in digits {
            let nibble = char::from(digit).to_digit(16).ok_or(JsonError {
                offset: at,
                kind: JsonErrorKind::InvalidEscape,
            })?;
            value = value * 16 + nibble;
        }
        Ok(value)
    }

    fn decode_escape(&mut self, out: &mut String) -> Result<()> {
        let escape_start = self.position;
        self.skip_escape()?;
        let escaped = self.bytes[escape_start + 1];
        let decoded = match escaped {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.decode_unicode(escape_start)?,
            other => char::from(other),
        };
        out.push(decoded);
        Ok(())
    }

    /// Decodes `\uXXXX`, joining a surrogate pair when a low surrogate follows. A lone surrogate
    /// becomes U+FFFD, as Go's reader does, rather than an error.
    fn decode_unicode(&mut self, escape_start: usize) -> Result<char> {
        let first = self.hex4(escape_start + 2)?;
        if (0xD800..0xDC00).contains(&first)
            && self.bytes.get(self.position) == Some(&b'\\')
            && self.bytes.get(self.position + 1) == Some(&b'u')
        {
            let second = self.hex4(self.position + 2)?;
            if (0xDC00..0xE000).contains(&second) {
                self.position += 6;
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                return Ok(char::from_u32(combined).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
        Ok(char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    /// Reads a number by JSON's grammar and returns its span; its spelling is the caller's to keep. A
    /// number cut off by the end of the text (`1.`, `-`, `2e`) is a truncation, not a bad number.
    pub fn number(&mut self) -> Result<Span> {
        self.number_digits().map_err(|error| {
            if error.offset >= self.bytes.len() {
                JsonError {
                    offset: error.offset,
                    kind: JsonErrorKind::UnexpectedEnd {
                        expected: "the digits of a number",
                    },
                }
            } else {
                error
            }
        })
    }

    fn number_digits(&mut self) -> Result<Span> {
        self.skip_whitespace();
        let start = self.position;
        let end = skip::number_end(self.bytes, start).map_err(|offset| JsonError {
            offset,
            kind: JsonErrorKind::InvalidNumber,
        })?;
        self.position = end;
        Ok(Span::new(start, end))
    }

    fn literal(&mut self) -> Result<Span> {
        let start = self.position;
        for word in ["true", "false", "null"] {
            if self.bytes[start..].starts_with(word.as_bytes()) {
                self.position += word.len();
                return Ok(Span::new(start, self.position));
            }
            // `tr` at the very end of the text: a literal cut off, not a wrong one.
            if start < self.bytes.len() && word.as_bytes().starts_with(&self.bytes[start..]) {
                return Err(JsonError {
                    offset: self.bytes.len(),
                    kind: JsonErrorKind::UnexpectedEnd { expected: word },
                });
            }
        }
        Err(self.unexpected("a JSON value"))
    }

    /// Is the next value `null`? Consumes it when it is.
    pub fn null(&mut self) -> bool {
        if self.peek() == Some(b'n') && self.bytes[self.position..].starts_with(b"null") {
            self.position += 4;
            true
        } else {
            false
        }
    }

    /// Skips one value of any kind, validating it, and returns its span. Iterative, so nesting depth
    /// costs heap, not stack.
    pub fn skip_value(&mut self) -> Result<Span> {
        self.skip_whitespace();
        let start = self.position;
        // The fast loop, when the value is valid and shallow enough for it; else the careful one
        // below, for the exact error.
        if self.depth + skip::FAST_DEPTH as usize <= MAX_DEPTH
            && let Some(end) = skip::value_end(self.bytes, start)
        {
            self.position = end;
            return Ok(Span::new(start, end));
        }
        self.skip_value_carefully()
    }

    /// [`Cursor::skip_value`], telling `top` of the value's members when it is an object (see
    /// `skip::value_end_noting`); `true` with the span when `top` was told of every member, `false`
    /// when the value was read the careful way, which tells nothing.
    pub(crate) fn skip_value_noting<T: skip::TopMembers>(
        &mut self,
        top: &mut T,
    ) -> Result<(Span, bool)> {
        self.skip_whitespace();
        let start = self.position;
        if self.depth + skip::FAST_DEPTH as usize <= MAX_DEPTH
            && let Some(end) = skip::value_end_noting(self.bytes, start, top)
        {
            self.position = end;
            return Ok((Span::new(start, end), true));
        }
        self.skip_value_carefully().map(|span| (span, false))
    }

    /// [`Cursor::skip_value`] token by token, with the error and position of the first problem.
    fn skip_value_carefully(&mut self) -> Result<Span> {
        self.skip_whitespace();
        let start = self.position;
        let base_depth = self.depth;
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let outcome = self.skip_nested(&mut stack, base_depth);
        self.stack = stack;
        outcome?;
        Ok(Span::new(start, self.position))
    }

    fn skip_nested(&mut self, stack: &mut Vec<bool>, base_depth: usize) -> Result<()> {
        'value: loop {
            self.skip_whitespace();
            match self.bytes.get(self.position) {
                Some(&bracket @ (b'{' | b'[')) => {
                    let object = bracket == b'{';
                    self.position += 1;
                    self.open(stack, base_depth, object)?;
                    if self.peek() == Some(if object { b'}' } else { b']' }) {
                        self.position += 1;
                        stack.pop();
                    } else {
                        if object {
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.skip_string()?;
                }
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                Some(_) => {
                    self.literal()?;
                }
                None => return Err(self.unexpected("a JSON value")),
            }
            // After a complete value: close containers until one continues with a comma.
            loop {
                let Some(&in_object) = stack.last() else {
                    return Ok(());
                };
                match self.peek() {
                    Some(b',') => {
                        self.position += 1;
                        if in_object {
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if in_object => {
                        self.position += 1;
                        stack.pop();
                    }
                    Some(b']') if !in_object => {
                        self.position += 1;
                        stack.pop();
                    }
                    _ if in_object => return Err(self.unexpected("',' or '}' in an object")),
                    _ => return Err(self.unexpected("',' or ']' in an array")),
                }
            }
        }
    }

    fn open(&self, stack: &mut Vec<bool>, base_depth: usize, is_object: bool) -> Result<()> {
        stack.push(is_object);
        if base_depth + stack.len() > MAX_DEPTH {
            return Err(JsonError {
                offset: self.position - 1,
                kind: JsonErrorKind::TooDeep,
            });
        }
        Ok(())
    }

    fn member_key(&mut self) -> Result<()> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a string key"));
        }
        self.skip_string()?;
        self.expect(b':', "':' after an object key")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(text: &str) -> Result<Span> {
        let mut cursor = Cursor::new(text);
        let span = cursor.skip_value()?;
        cursor.finish()?;
        Ok(span)
    }

    #[test]
    fn skips_every_kind_of_value() {
        let text = r#" {"a": [1, -2.5e+3, true, false, null, "x\"y\u00e9"], "b": {}, "c": []} "#;
        assert_eq!(skip(text).unwrap(), Span::new(1, text.len() - 1));
    }

    #[test]
    fn rejects_malformed_values_with_offsets() {
        assert_eq!(skip("[1,]").unwrap_err().offset, 3);
        assert_eq!(skip(r#"{"a" 1}"#).unwrap_err().offset, 5);
        assert!(matches!(
            skip("[01]").unwrap_err().kind,
            JsonErrorKind::Unexpected { .. }
        ));
        assert!(matches!(
            skip("1.]").unwrap_err().kind,
            JsonErrorKind::InvalidNumber
        ));
        assert!(matches!(
            skip("\"a\tb\"").unwrap_err().kind,
            JsonErrorKind::ControlCharacter { code: 9 }
        ));
        assert!(matches!(
            skip(r#""\x""#).unwrap_err().kind,
            JsonErrorKind::InvalidEscape
        ));
        assert!(matches!(
            skip(r#"{"a":"#).unwrap_err().kind,
            JsonErrorKind::UnexpectedEnd { .. }
        ));
        assert!(matches!(
            skip("{} x").unwrap_err().kind,
            JsonErrorKind::TrailingData { found: 'x' }
        ));
        assert_eq!(
            skip("nul").unwrap_err().kind,
            JsonErrorKind::UnexpectedEnd { expected: "null" }
        );
        assert!(matches!(
            skip("nulx").unwrap_err().kind,
            JsonErrorKind::Unexpected { .. }
        ));
        for cut in ["1.", "-", "[2e", "[3e+"] {
            let error = skip(cut).unwrap_err();
            assert_eq!(
                (error.offset, error.kind),
                (
                    cut.len(),
                    JsonErrorKind::UnexpectedEnd {
                        expected: "the digits of a number"
                    }
                ),
                "{cut}"
            );
        }
    }

    #[test]
    fn finds_the_first_special_byte_at_every_position() {
        for position in 0..20 {
            for special in [b'"', b'\\', 0x01, 0x1f] {
                let mut text = vec![b'a'; 24];
                text[position] = special;
                // A later special byte must not be found first.
                text[23] = b'"';
                let text = String::from_utf8(text).unwrap();
                let cursor = Cursor::new(&text);
                let found = match cursor.scan_plain() {
                    Ok(at) => at,
                    Err(error) => error.offset,
                };
                assert_eq!(found, position, "{special:#x} at {position}");
            }
        }
        let utf8 = "é日本😀 \u{7f}\u{80}é\"";
        assert_eq!(Cursor::new(utf8).scan_plain().unwrap(), utf8.len() - 1);
    }

    /// Every cut, change and deletion of one byte of a value holding every kind of token: where the
    /// fast loop accepts, the careful one accepts too, with the same end; where the careful one
    /// refuses, the fast one gives up (so the careful one's error is the one reported).
    #[test]
    fn the_fast_skip_accepts_only_what_the_careful_one_accepts() {
        let careful = |text: &str| {
            let mut cursor = Cursor::new(text);
            cursor.skip_value_carefully().map(|span| span.end)
        };
        let sample = "{\"a\": [1, -2.5e+3, 0, 1E-2, true, false, null, \"x\\\"y\\u00e9\\n\"],\n    \"b\": {}, \"c\": [ ], \"d\": {\"e\": [{}]}, \"\u{e9}\": \"\u{65e5}\"} ,";
        let mut checked = 0;
        let mut variants = vec![sample.to_owned()];
        for at in 0..sample.len() {
            for replacement in [
                "", "#", " ", "\"", "\\", "\u{1}", "0", "-", ".", "e", "{", "]", ",",
            ] {
                if sample.is_char_boundary(at) && sample.is_char_boundary(at + 1) {
                    variants.push(format!(
                        "{}{replacement}{}",
                        &sample[..at],
                        &sample[at + 1..]
                    ));
                }
            }
            if sample.is_char_boundary(at) {
                variants.push(sample[..at].to_owned());
            }
        }
        for text in &variants {
            let start = bytes::skip_layout(text.as_bytes(), 0);
            match skip::value_end(text.as_bytes(), start) {
                Some(end) => {
                    assert_eq!(careful(text), Ok(end), "{text:?}");
                    checked += 1;
                }
                None => assert!(careful(text).is_err(), "{text:?} gave up on a valid value"),
            }
        }
        assert!(checked > 100, "{checked}");
        // Deeper than the fast loop goes: the careful one reads it.
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(skip::value_end(deep.as_bytes(), 0), None);
        assert_eq!(skip(&deep), Ok(Span::new(0, 200)));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(skip(&deep).unwrap_err().kind, JsonErrorKind::TooDeep);
        let allowed = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(skip(&allowed).is_ok());
        let one_more = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(skip(&one_more).unwrap_err().kind, JsonErrorKind::TooDeep);
    }

    #[test]
    fn decodes_escapes_and_surrogates_like_go() {
        let mut cursor = Cursor::new(r#""a\n\u00e9\ud83d\ude00\ud800x\/""#);
        let (text, _) = cursor.string().unwrap();
        assert_eq!(text, "a\né😀\u{FFFD}x/");
        let mut plain = Cursor::new(r#""plain""#);
        assert!(matches!(plain.string().unwrap().0, Cow::Borrowed("plain")));
    }

    #[test]
    fn an_array_read_element_by_element_is_read_as_array_reads_it() {
        fn by_array(text: &str) -> Result<(Vec<Span>, usize, usize)> {
            let mut cursor = Cursor::new(text);
            let mut elements = Vec::new();
            cursor.array(|cursor| {
                elements.push(cursor.skip_value()?);
                Ok::<_, JsonError>(())
            })?;
            Ok((elements, cursor.position(), cursor.depth()))
        }
        fn by_element(text: &str) -> Result<(Vec<Span>, usize, usize)> {
            let mut cursor = Cursor::new(text);
            let mut elements = Vec::new();
            if cursor.open_array()? {
                loop {
                    cursor.skip_whitespace();
                    elements.push(cursor.skip_value()?);
                    if !cursor.next_element()? {
                        break;
                    }
                }
            }
            Ok((elements, cursor.position(), cursor.depth()))
        }
        for text in [
            "[]",
            " [ ] ",
            "[1]",
            "[1, [2], {\"a\": 3}]",
            "[1,]",
            "[1 2]",
            "[",
            "[1",
            "{}",
            "",
            "[1}",
            " x",
        ] {
            assert_eq!(by_element(text), by_array(text), "{text:?}");
        }
        let resumed = Cursor::resume("[1, 2]", 4, 1);
        assert_eq!((resumed.position(), resumed.depth()), (4, 1));
    }

    #[test]
    fn object_reports_members_in_order_with_duplicates() {
        let mut cursor = Cursor::new(r#"{"k": 1, "K": 2, "k": 3}"#);
        let mut seen = Vec::new();
        cursor
            .object::<JsonError>(|cursor, key, _| {
                let value = cursor.number()?;
                seen.push(format!("{key}={}", cursor.text(value)?));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, ["k=1", "K=2", "k=3"]);
    }
}
