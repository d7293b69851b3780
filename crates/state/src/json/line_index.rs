//! Where a text's lines are, counted once in blocks of a few kilobytes: the line and column of an
//! offset is then its block's count plus a count inside the block. `scan` reports the line of each
//! of thousands of findings in a state of hundreds of megabytes; counting the newlines up to them
//! read the whole text from memory once more after the parse (a tenth of such a scan), while the
//! check that the text is UTF-8 holds each block in cache anyway and counts it for a few percent
//! of its own time (`json::utf8`).

use crate::json::LineColumn;
use crate::parts;

/// About how many bytes a block holds: a lookup counts at most one block's newlines, and the index
/// keeps 32 bytes a block (0.2% of the text).
pub(crate) const BLOCK_BYTES: usize = 16 << 10;

/// Below this many bytes per part, counting a text on threads of their own costs more than it saves.
const PART_BYTES: usize = 8 << 20;

/// What counting one block found: where the block starts (it ends where the next starts), its
/// newlines, and the offset of its last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counted {
    start: usize,
    newlines: usize,
    last_newline: Option<usize>,
}

impl Counted {
    /// Counts the block `text[start..end]`.
    pub(crate) fn of(text: &[u8], start: usize, end: usize) -> Counted {
        let block = &text[start..end];
        Counted {
            start,
            newlines: memchr::memchr_iter(b'\n', block).count(),
            last_newline: memchr::memrchr(b'\n', block).map(|at| start + at),
        }
    }

    /// A count kept in parts: `newlines` in the block from `start`, the last at `last_newline`.
    pub(crate) fn from_parts(
        start: usize,
        newlines: usize,
        last_newline: Option<usize>,
    ) -> Counted {
        Counted {
            start,
            newlines,
            last_newline,
        }
    }

    pub(crate) fn newlines(&self) -> usize {
        self.newlines
    }

    pub(crate) fn last_newline(&self) -> Option<usize> {
        self.last_newline
    }
}

/// One block of the index: where it starts, the newlines before it, and the offset of the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    start: usize,
    newlines_before: usize,
    last_newline_before: Option<usize>,
}

/// The lines of one text, by block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineIndex {
    /// Ascending starts, the first at 0 (none for an empty text).
    blocks: Vec<Block>,
}

impl LineIndex {
    /// The index of `text`, counted in blocks of [`BLOCK_BYTES`], on every CPU for a large text.
    pub fn of(text: &[u8]) -> LineIndex {
        let parts = parts::parts(text.len(), PART_BYTES).max(1);
        let step = text.len().div_ceil(parts).div_ceil(BLOCK_BYTES).max(1) * BLOCK_BYTES;
        let ranges: Vec<(usize, usize)> = (0..text.len())
            .step_by(step)
            .map(|start| (start, (start + step).min(text.len())))
            .collect();
        let counted = parts::each_on_a_thread(&ranges, |&(start, end)| {
            (start..end)
                .step_by(BLOCK_BYTES)
                .map(|from| Counted::of(text, from, (from + BLOCK_BYTES).min(end)))
                .collect::<Vec<_>>()
        });
        LineIndex::from_counted(counted.into_iter().flatten())
    }

    /// The index from the counts of blocks that cover a text one after another from its start.
    pub(crate) fn from_counted(counted: impl IntoIterator<Item = Counted>) -> LineIndex {
        let (mut newlines_before, mut last_newline_before) = (0, None);
        let blocks = counted
            .into_iter()
            .map(|counted| {
                let block = Block {
                    start: counted.start,
                    newlines_before,
                    last_newline_before,
                };
                newlines_before += counted.newlines;
                last_newline_before = counted.last_newline.or(last_newline_before);
                block
            })
            .collect();
        LineIndex { blocks }
    }

    /// The line and newline before `offset` of `text` (the text this index was counted from): the
    /// 0-based line, and where the line starts.
    fn line_of(&self, text: &[u8], offset: usize) -> (usize, usize) {
        let Some(block) = self
            .blocks
            .partition_point(|block| block.start <= offset)
            .checked_sub(1)
            .map(|at| self.blocks[at])
        else {
            return (0, 0);
        };
        let inside = &text[block.start..offset];
        let line = block.newlines_before + memchr::memchr_iter(b'\n', inside).count();
        let last_newline = memchr::memrchr(b'\n', inside)
            .map(|at| block.start + at)
            .or(block.last_newline_before);
        (line, last_newline.map_or(0, |newline| newline + 1))
    }

    /// The line and column of each of `offsets` (ascending) in `text`, as [`LineColumn::of`] gives
    /// them. A column is counted on from the offset before when both are on one line, so a state
    /// written on one line (hundreds of megabytes) is counted through once, not once an offset.
    pub fn line_columns(&self, text: &[u8], offsets: &[usize]) -> Vec<LineColumn> {
        self.line_columns_passing(text, offsets, |_| {})
    }

    /// [`LineIndex::line_columns`], telling `passed` each offset once it is located: a reader of
    /// a mapped text may give back the pages behind it (the next offset is counted from it, or
    /// from its own block of the index; a page read again is mapped again).
    pub fn line_columns_passing(
        &self,
        text: &[u8],
        offsets: &[usize],
        mut passed: impl FnMut(usize),
    ) -> Vec<LineColumn> {
        let mut before: Option<(usize, usize, usize)> = None;
        offsets
            .iter()
            .map(|&offset| {
                let offset = offset.min(text.len());
                let (line, line_start) = self.line_of(text, offset);
                let (from, column) = match before {
                    Some((start, at, column)) if start == line_start && at <= offset => {
                        (at, column)
                    }
                    _ => (line_start, 1),
                };
                let column = column + characters(&text[from..offset]);
                before = Some((line_start, offset, column));
                passed(offset);
                LineColumn {
                    line: line + 1,
                    column,
                }
            })
            .collect()
    }
}

/// The characters of UTF-8 `bytes`: the bytes that do not continue a character.
fn characters(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&byte| (byte & 0xC0) != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every offset of `text`, and past its end, against `LineColumn::of`, with the index counted
    /// in blocks of `block` bytes.
    fn check(text: &str, index: &LineIndex) {
        let bytes = text.as_bytes();
        let offsets: Vec<usize> = (0..=bytes.len() + 2).collect();
        let found = index.line_columns(bytes, &offsets);
        for (&offset, found) in offsets.iter().zip(found) {
            assert_eq!(found, LineColumn::of(bytes, offset), "offset {offset}");
        }
        // Alone (no column carried from an offset before), and out of order.
        for offset in (0..=bytes.len()).rev().step_by(3) {
            assert_eq!(
                index.line_columns(bytes, &[offset]),
                [LineColumn::of(bytes, offset)],
                "offset {offset}"
            );
        }
    }

    fn counted_in(text: &[u8], block: usize) -> LineIndex {
        LineIndex::from_counted(
            (0..text.len())
                .step_by(block)
                .map(|start| Counted::of(text, start, (start + block).min(text.len()))),
        )
    }

    #[test]
    fn lines_and_columns_are_those_of_counting_from_the_start() {
        let short = "{\n  \"é\": [\n\n    {\"日本\": 1},\n  x\n]}\n\n".repeat(7);
        // Lines longer than a block, whose lines start in a block before.
        let long = format!("{}\n{}\n\n", "é long line ".repeat(40), "x".repeat(300));
        for text in [short.as_str(), long.as_str(), "", "\n", "x", "\n\nx"] {
            for block in [1, 2, 7, 64, 1000] {
                check(text, &counted_in(text.as_bytes(), block));
            }
            check(text, &LineIndex::of(text.as_bytes()));
        }
    }

    #[test]
    fn a_large_text_is_indexed_alike_in_parts() {
        let text = "{\n  \"attribute\": \"välue\",\n".repeat(40_000);
        let whole = parts::forced(1, || LineIndex::of(text.as_bytes()));
        for parts in [2, 3, 8] {
            let split = parts::forced(parts, || LineIndex::of(text.as_bytes()));
            assert_eq!(split, whole, "{parts} parts");
        }
        assert_eq!(whole, counted_in(text.as_bytes(), BLOCK_BYTES));
        let offsets: Vec<usize> = (0..text.len()).step_by(997).collect();
        let found = whole.line_columns(text.as_bytes(), &offsets);
        for (&offset, found) in offsets.iter().zip(found) {
            assert_eq!(found, LineColumn::of(text.as_bytes(), offset), "{offset}");
        }
    }
}
