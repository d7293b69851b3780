//! Byte offsets turned into the line and column that people and editors count in.

use std::fmt;

/// A 1-based line and 1-based column (in characters) of a byte offset in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineColumn {
    pub line: usize,
    pub column: usize,
}

impl LineColumn {
    /// Finds the line and column of `offset` in `text`. Offsets past the end point just after the last
    /// character, which is where a truncated document's error belongs.
    pub fn of(text: &[u8], offset: usize) -> LineColumn {
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |newline| newline + 1);
        // Count characters, not bytes, so a column after non-ASCII text matches an editor's; a byte
        // that does not start a UTF-8 character (a continuation byte) does not count.
        let column = before[line_start..]
            .iter()
            .filter(|&&byte| (byte & 0xC0) != 0x80)
            .count()
            + 1;
        LineColumn { line, column }
    }
}

impl fmt::Display for LineColumn {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}:{}", self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::LineColumn;

    #[test]
    fn counts_lines_and_characters() {
        let text = "{\n  \"é\": x".as_bytes();
        assert_eq!(LineColumn::of(text, 0).to_string(), "1:1");
        assert_eq!(LineColumn::of(text, 2).to_string(), "2:1");
        let x = text.iter().position(|&byte| byte == b'x').unwrap();
        assert_eq!(LineColumn::of(text, x).to_string(), "2:8");
        assert_eq!(LineColumn::of(text, 999).to_string(), "2:9");
    }
}
