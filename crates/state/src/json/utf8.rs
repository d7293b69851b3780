//! The check that a state's bytes are UTF-8 text, two ways. A state of a few megabytes is checked
//! in one pass before it is parsed, on every CPU ([`text`]). A larger one is checked as it is
//! parsed ([`Checking`]): each block of 16 KB once the parse has read past it, and the few hundred
//! bytes ahead of each text the parse makes (a key, a name), so every byte is checked while it is
//! in cache. A pass of its own read hundreds of megabytes from memory once more, at memory's speed
//! (about 10 GB/s a thread here, where a block in cache checks at 100 GB/s): 20-28 ms of `list`'s
//! 0.14 s at 252 MB.
//!
//! Why this is one of the three places statectl uses `unsafe` (beside `state/mapped.rs` and
//! `json/wide.rs`): every byte is checked (by `simdutf8`, and again by `std::str::from_utf8` only
//! where that fails, for the offset), but a `&str` of more than one part or block joins checked
//! pieces, and the only safe way to it checks every byte again on one thread; and a text the parse
//! makes inside a range checked ahead is a slice of checked bytes, which checking again on its own
//! (with `std::str::from_utf8`, a byte at a time for a short key) cost more than the pass saved. A
//! join is valid because the concatenation of valid UTF-8 texts is valid UTF-8; a slice of a valid
//! text is valid when both of its ends are characters' starts (or the text's end).
//!
//! Why [`text`]'s answer is the one-thread check's: the parts are cut just before an ASCII byte,
//! which can only start a character, so a valid text's parts are each valid; and the first failing
//! part, in order, fails where the whole would (the parts before it are valid and end on a whole
//! character), so the offset in the error is the same. [`Checking`] cuts its blocks at fixed
//! places moved on past at most three continuation bytes, so a valid text's blocks are each valid
//! and one invalid block makes the whole invalid; its reader, on any error, asks [`text`] for the
//! exact answer.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::json::LineIndex;
use crate::json::line_index::Counted;
use crate::parts::{each_on_a_thread, parts, runs};

/// Below this many bytes per part, a thread costs more than it saves.
const PART_BYTES: usize = 4 << 20;

/// `bytes` as text, or the offset of its first byte that is not part of a valid UTF-8 character
/// (`Utf8Error::valid_up_to` of the whole).
#[allow(
    unsafe_code,
    reason = "joining parts checked on several threads into one `&str`; see the module's documentation"
)]
pub(crate) fn text(bytes: &[u8]) -> Result<&str, usize> {
    let cuts = cuts(bytes, parts(bytes.len(), PART_BYTES));
    let parts: Vec<(usize, usize)> = cuts
        .windows(2)
        .map(|bounds| (bounds[0], bounds[1]))
        .collect();
    let check = |&(start, end): &(usize, usize)| {
        checked(&bytes[start..end]).map_err(|error| start + error.valid_up_to())
    };
    for part in each_on_a_thread(&parts, check) {
        part?;
    }
    // SAFETY: every part between consecutive cuts (which run from 0 to `bytes.len()`, so each byte
    // is in exactly one part) was just checked and found valid (each part gets its answer, from its
    // own thread or this one, or the call panics; the loop above returns at the first that is not
    // valid); valid UTF-8 texts one after another are valid UTF-8.
    Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// `bytes` as text, checked by `simdutf8` (SIMD, several times std's speed); only a text that fails
/// is checked again by `std::str::from_utf8`, for the offset of its first invalid byte.
fn checked(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => std::str::from_utf8(bytes),
    }
}

/// The parts' bounds, ascending from 0 to `bytes.len()`: `parts` nearly equal parts, each cut moved
/// on to the next ASCII byte (a cut that finds none, or lands on the last, is left out).
fn cuts(bytes: &[u8], parts: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    for part in 1..parts {
        let from = bytes.len() / parts * part;
        if let Some(ascii) = bytes[from..].iter().position(u8::is_ascii)
            && from + ascii > *cuts.last().expect("starts with 0")
        {
            cuts.push(from + ascii);
        }
    }
    cuts.push(bytes.len());
    cuts.dedup();
    cuts
}

/// Bytes whose UTF-8 is checked a block at a time, as a reader passes the end of each block (so
/// the block is in cache: the reader has just read it), and the rest at the end
/// ([`Checking::finish`]). The reader makes its own text of what it reads meanwhile (a key, a short
/// value) with `std::str::from_utf8`. Readers on several threads share one: a block is checked
/// once, by whichever passes it first.
///
/// Block `k` runs from `boundary(k)` to `boundary(k + 1)`: `k * block` moved on past at most three
/// continuation bytes (block 0 from 0, the last to the end). In a valid text that lands on a
/// character's start, so each block is valid; in any text the blocks tile the bytes, so all valid
/// makes the whole valid.
pub(crate) struct Checking<'a> {
    bytes: &'a [u8],
    /// This checking's own number in the process, which each [`Checked`] it makes carries: bytes at
    /// the same address could be other bytes once these are gone, a number is never given twice.
    id: u64,
    block: usize,
    /// Whether each block's lines are counted as it is checked, for the text's [`LineIndex`].
    lines: bool,
    /// What checking each block found, a word a block: 0 until it is checked, then [`CHECKED`]
    /// with [`INVALID`] for a block that is not UTF-8, or for a valid one whose lines are counted
    /// its newlines in the low [`FIELD`] bits, its last newline's place in the block, plus one
    /// (0 for none), in the [`FIELD`] bits above, and how far its start was moved past
    /// continuation bytes above those ([`MOVED`]: the line index is then made without reading the
    /// bytes at each block's start again, which a reader may have given back). (A lock and a
    /// record a block took six times the memory: 3 MB for a gigabyte.) Two threads that check one
    /// block at once store one answer.
    blocks: Box<[AtomicU64]>,
}

/// The number the last [`Checking`] was given.
static LAST_ID: AtomicU64 = AtomicU64::new(0);

/// A block's word once the block is checked.
const CHECKED: u64 = 1 << 63;
/// A checked block's word when the block is not UTF-8.
const INVALID: u64 = 1 << 62;
/// The bits of each of a word's two counts.
const FIELD: u32 = 30;
const FIELD_MASK: u64 = (1 << FIELD) - 1;
/// Where, in a word, a block's start moved past continuation bytes (0 to 3) is.
const MOVED: u32 = 2 * FIELD;
/// The largest block, so that its counts fit their fields even moved past continuation bytes.
const MAX_BLOCK: usize = 1 << 29;

/// A reader's place in a [`Checking`]: the next block it checks, once it has read up to its end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Behind {
    block: usize,
    /// The block's end before it is moved past continuation bytes: reading the byte there would
    /// wait for memory the reader has not reached (a quarter of a first version's checks).
    end: usize,
}

impl Behind {
    /// About where the next block to check ends (at most three bytes early): a reader that has not
    /// read up to it has nothing to check.
    #[inline]
    pub(crate) fn end(&self) -> usize {
        self.end
    }
}

/// A range of a [`Checking`]'s bytes found valid UTF-8, from a character's start to the end of one:
/// made only by [`Checking::check_ahead`], and good only for the bytes it was made from.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Checked {
    /// The [`Checking`]'s `id` (0, never an id, for the empty default).
    of: u64,
    start: usize,
    end: usize,
}

/// A block of the bytes is not UTF-8 (the exact offset is [`text`]'s to find).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotUtf8;

impl std::fmt::Debug for Checking<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Checking")
            .field("bytes", &self.bytes.len())
            .field("block", &self.block)
            .field("lines", &self.lines)
            .finish_non_exhaustive()
    }
}

impl<'a> Checking<'a> {
    /// `bytes`, none of it checked yet, in blocks of `block` bytes (at least four, so that a
    /// block's moved start stays inside it; `line_index::BLOCK_BYTES` suits a line index), with
    /// each block's lines counted as it is checked when `lines` asks.
    pub(crate) fn in_blocks(bytes: &'a [u8], lines: bool, block: usize) -> Checking<'a> {
        let block = block.clamp(4, MAX_BLOCK);
        let count = bytes.len().div_ceil(block);
        Checking {
            bytes,
            id: LAST_ID.fetch_add(1, Ordering::Relaxed) + 1,
            block,
            lines,
            blocks: (0..count).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The bytes, checked or not.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The place of a reader that starts reading at `at`: the block `at` lies in is its first.
    pub(crate) fn behind(&self, at: usize) -> Behind {
        let block = self.block_of(at.min(self.bytes.len().saturating_sub(1)));
        Behind {
            block,
            end: self.unmoved_end(block),
        }
    }

    /// Checks (once) each block from `behind` on that ends at or before `at` (or up to three bytes
    /// after), where the reader has read up to; [`NotUtf8`] for the first that is not valid.
    /// How far the blocks a reader at `behind` has passed reach: every byte from its first block up
    /// to here is in a block checked (by it, or by a reader before it).
    pub(crate) fn checked_before(&self, behind: &Behind) -> usize {
        behind
            .block
            .saturating_mul(self.block)
            .min(self.bytes.len())
    }

    pub(crate) fn check_behind(&self, behind: &mut Behind, at: usize) -> Result<(), NotUtf8> {
        while behind.end <= at && behind.block < self.blocks.len() {
            if self.checked_block(behind.block) & INVALID != 0 {
                return Err(NotUtf8);
            }
            behind.block += 1;
            behind.end = self.unmoved_end(behind.block);
        }
        Ok(())
    }

    /// Where block `index` ends before its end is moved past continuation bytes.
    fn unmoved_end(&self, index: usize) -> usize {
        index
            .saturating_add(1)
            .saturating_mul(self.block)
            .min(self.bytes.len())
    }

    /// The range from `at` on, about `length` bytes (to the end of a character), checked on its
    /// own; `None` when `at` does not start a character or the range is not valid. A reader asks
    /// for the few hundred bytes ahead of it, which it has asked the CPU for already, and makes
    /// the texts it reads there with [`Checking::str`].
    pub(crate) fn check_ahead(&self, at: usize, length: usize) -> Option<Checked> {
        if at > self.bytes.len() || !self.starts_a_character(at) {
            return None;
        }
        let end = self.past_continuations(at.saturating_add(length).min(self.bytes.len()));
        simdutf8::basic::from_utf8(&self.bytes[at..end]).ok()?;
        Some(Checked {
            of: self.identity(),
            start: at,
            end,
        })
    }

    /// The text `start..end`, when it lies inside `within` and starts and ends on characters'
    /// starts (or the end of the bytes).
    #[allow(
        unsafe_code,
        reason = "a `&str` inside a checked range; see the module's documentation"
    )]
    #[inline]
    pub(crate) fn str(&self, within: Checked, start: usize, end: usize) -> Option<&'a str> {
        let inside = within.of == self.identity()
            && within.start <= start
            && start <= end
            && end <= within.end;
        if !inside || !self.starts_a_character(start) || !self.starts_a_character(end) {
            return None;
        }
        // SAFETY: `within` was made by `check_ahead` of this very checking (its `id`, given to no
        // other), over these very bytes, which found `within.start..within.end` valid UTF-8.
        // `start..end` lies inside it, and each of its ends is the end of the bytes or a byte that
        // does not continue a character, which in a valid text is a character's start (or its
        // end): so the slice is valid UTF-8 too.
        Some(unsafe { std::str::from_utf8_unchecked(&self.bytes[start..end]) })
    }

    /// What a [`Checked`] of this checking carries to tell it from others'.
    fn identity(&self) -> u64 {
        self.id
    }

    /// Whether `at` is the end of the bytes or a byte that does not continue a character.
    #[inline]
    fn starts_a_character(&self, at: usize) -> bool {
        self.bytes
            .get(at)
            .is_none_or(|&byte| !is_continuation(byte))
    }

    /// The whole text, checking every block no reader passed (on every CPU when they are many),
    /// and its line index when the lines were asked for; or [`NotUtf8`].
    #[allow(
        unsafe_code,
        reason = "a `&str` of checked blocks joined; see the module's documentation"
    )]
    pub(crate) fn finish(&self) -> Result<(&'a str, Option<LineIndex>), NotUtf8> {
        let unchecked: Vec<usize> = (0..self.blocks.len())
            .filter(|&index| self.blocks[index].load(Ordering::Acquire) == 0)
            .collect();
        let count = parts(unchecked.len().saturating_mul(self.block), PART_BYTES).max(1);
        let runs = runs(unchecked, count, |_| 1);
        each_on_a_thread(&runs, |run| {
            for &index in run {
                self.checked_block(index);
            }
        });
        let mut counted = Vec::with_capacity(if self.lines { self.blocks.len() } else { 0 });
        for (index, block) in self.blocks.iter().enumerate() {
            let word = block.load(Ordering::Acquire);
            if word & CHECKED == 0 || word & INVALID != 0 {
                return Err(NotUtf8);
            }
            if self.lines {
                let moved = usize::try_from((word >> MOVED) & 0b11).unwrap_or(0);
                let start = index.saturating_mul(self.block) + moved;
                let last = usize::try_from((word >> FIELD) & FIELD_MASK).unwrap_or(0);
                let newlines = usize::try_from(word & FIELD_MASK).unwrap_or(0);
                let last_newline = last.checked_sub(1).map(|place| start + place);
                counted.push(Counted::from_parts(start, newlines, last_newline));
            }
        }
        // SAFETY: every block was found valid (the loop above returns otherwise); the blocks run
        // from 0 to the end of the bytes one after another (`boundary`), so the bytes are valid
        // UTF-8 texts one after another, which is valid UTF-8.
        let text = unsafe { std::str::from_utf8_unchecked(self.bytes) };
        Ok((text, self.lines.then(|| LineIndex::from_counted(counted))))
    }

    /// Where block `index` starts (the end of the bytes for the index past the last).
    fn boundary(&self, index: usize) -> usize {
        if index == 0 {
            return 0;
        }
        let from = index.saturating_mul(self.block);
        if from >= self.bytes.len() {
            return self.bytes.len();
        }
        self.past_continuations(from)
    }

    /// `from` moved on past at most three continuation bytes (to a character's start in a valid
    /// text, where a character has at most three), or to the end of the bytes: where a block or a
    /// range checked ahead may end.
    fn past_continuations(&self, from: usize) -> usize {
        let mut at = from;
        while at < from + 3 && self.bytes.get(at).copied().is_some_and(is_continuation) {
            at += 1;
        }
        at
    }

    /// The block `at` (an offset inside the bytes) lies in.
    fn block_of(&self, at: usize) -> usize {
        let index = (at / self.block).min(self.blocks.len().saturating_sub(1));
        if index > 0 && at < self.boundary(index) {
            index - 1
        } else {
            index
        }
    }

    /// The word of block `index`, checked by this call or an earlier one.
    fn checked_block(&self, index: usize) -> u64 {
        let word = self.blocks[index].load(Ordering::Acquire);
        if word != 0 {
            return word;
        }
        let (start, end) = (self.boundary(index), self.boundary(index + 1));
        let word = match simdutf8::basic::from_utf8(&self.bytes[start..end]) {
            Err(_) => CHECKED | INVALID,
            Ok(_) if !self.lines => CHECKED,
            Ok(_) => {
                let counted = Counted::of(self.bytes, start, end);
                let last = counted.last_newline().map_or(0, |at| at - start + 1);
                let moved = start - index.saturating_mul(self.block);
                // Both below 2^30: a block holds at most `MAX_BLOCK` + 3 bytes; `moved` at most 3.
                CHECKED
                    | (counted.newlines() as u64)
                    | ((last as u64) << FIELD)
                    | ((moved as u64) << MOVED)
            }
        };
        self.blocks[index].store(word, Ordering::Release);
        word
    }
}

/// A byte that continues a UTF-8 character (`10xxxxxx`).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::LineColumn;

    fn checked_in(parts: usize, bytes: &[u8]) -> Result<&str, usize> {
        crate::parts::forced(parts, || text(bytes))
    }

    /// The whole of `bytes` as [`Checking`] in blocks of `block` gives it, after a reader went
    /// through them `step` bytes at a time (`Err(())` for bytes that are not UTF-8); the line index
    /// checked against [`LineColumn::of`] at every offset.
    fn checked_in_blocks(
        parts: usize,
        block: usize,
        step: usize,
        bytes: &[u8],
    ) -> Result<&str, ()> {
        let checking = Checking::in_blocks(bytes, true, block);
        let whole = std::str::from_utf8(bytes);
        let mut behind = checking.behind(0);
        for at in (0..=bytes.len()).step_by(step.max(1)) {
            let checked = checking.check_behind(&mut behind, at);
            // Every block up to `at` checked, none after it: an error is a block before `at`'s.
            let valid_up_to = whole.map_or_else(|error| error.valid_up_to(), str::len);
            match checked {
                Ok(()) => assert!(behind.end() > at || at == bytes.len(), "{at}: {behind:?}"),
                Err(NotUtf8) => assert!(valid_up_to < at, "{at}, valid up to {valid_up_to}"),
            }
        }
        let (text, lines) = crate::parts::forced(parts, || checking.finish()).map_err(|_| ())?;
        let lines = lines.expect("asked for");
        let offsets: Vec<usize> = (0..=bytes.len()).collect();
        let expected: Vec<LineColumn> = offsets
            .iter()
            .map(|&offset| LineColumn::of(bytes, offset))
            .collect();
        assert_eq!(lines.line_columns(bytes, &offsets), expected);
        Ok(text)
    }

    #[test]
    fn text_checked_in_parts_or_blocks_gets_the_answer_of_one_check() {
        // Characters of every width, so that most even cuts land inside one.
        let valid = "{\"é\": \"日本\", \"😀\": \"x\\u00e9\"}\n".repeat(40);
        let mut texts: Vec<Vec<u8>> = vec![valid.as_bytes().to_vec(), Vec::new(), b"{}".to_vec()];
        // Without an ASCII byte after the cuts: the parts merge into fewer.
        texts.push("日本語".repeat(50).into_bytes());
        // Runs of continuation bytes longer than any character's, where a block would start.
        texts.push([&b"ab"[..], &[0x80; 9], b"cd"].concat());
        texts.push([&[0x80; 9][..], b"cd"].concat());
        let bytes = valid.as_bytes();
        for at in (0..bytes.len()).step_by(7) {
            for bad in [
                &b"\xff"[..],
                b"\xc3",
                b"\xe6\x97",
                b"\xed\xa0\x80",
                b"\xf0\x9f\x98",
            ] {
                let mut broken = bytes[..at].to_vec();
                broken.extend_from_slice(bad);
                broken.extend_from_slice(&bytes[at..]);
                texts.push(broken.clone());
                broken.truncate(at + bad.len());
                texts.push(broken);
            }
        }
        for text in &texts {
            let whole = std::str::from_utf8(text).map_err(|error| error.valid_up_to());
            for parts in [1, 2, 3, 5, 16] {
                assert_eq!(checked_in(parts, text), whole, "{parts} parts of {text:?}");
            }
            for (parts, block, step) in [
                (1, 4, 1),
                (1, 7, 3),
                (2, 5, 50),
                (3, 64, 7),
                (5, 100_000, 13),
            ] {
                assert_eq!(
                    checked_in_blocks(parts, block, step, text),
                    whole.map_err(|_| ()),
                    "{parts} parts in blocks of {block}, asked every {step}, of {text:?}"
                );
            }
            let alone = crate::parts::without_threads(|| checked_in(3, text));
            assert_eq!(alone, whole, "3 parts, no thread, of {text:?}");
        }
    }

    #[test]
    fn a_range_checked_ahead_is_good_only_for_its_own_bytes_and_inside_itself() {
        let (one, other) = ("{\"a\": \"é\"}".to_string(), "{\"a\": \"é\"}".to_string());
        let (one, other) = (
            Checking::in_blocks(one.as_bytes(), false, 4),
            Checking::in_blocks(other.as_bytes(), false, 4),
        );
        let head = one.check_ahead(0, 4).unwrap();
        assert_eq!(one.str(head, 0, 4), Some("{\"a\""));
        assert_eq!(other.str(head, 0, 4), None, "another text's range");
        assert_eq!(one.str(head, 0, 11), None, "past the range");
        assert_eq!(one.str(Checked::default(), 0, 1), None, "nothing checked");
        // A range whose end would cut a character reaches to the character's end.
        let cut = one.check_ahead(0, 8).unwrap();
        assert_eq!(one.str(cut, 7, 9), Some("é"));
        let all = one.check_ahead(0, 100).unwrap();
        assert_eq!(one.str(all, 7, 9), Some("é"));
        assert_eq!(one.str(all, 8, 9), None, "starts inside a character");
        assert_eq!(one.str(all, 7, 8), None, "ends inside a character");
        assert!(one.check_ahead(8, 4).is_none(), "starts inside a character");
        let broken = Checking::in_blocks(b"{\"a\": \"\xff\"}", false, 4);
        assert!(broken.check_ahead(0, 100).is_none(), "not UTF-8");
        assert!(broken.check_ahead(0, 6).is_some(), "the bytes before are");
    }

    #[test]
    fn cuts_stand_before_ascii_bytes_and_cover_the_text() {
        let text = "aé日😀b".repeat(100);
        let bytes = text.as_bytes();
        for parts in 1..40 {
            let cuts = cuts(bytes, parts);
            assert_eq!((cuts[0], *cuts.last().unwrap()), (0, bytes.len()));
            assert!(cuts.windows(2).all(|pair| pair[0] < pair[1]), "{cuts:?}");
            for &cut in &cuts[1..cuts.len() - 1] {
                assert!(bytes[cut].is_ascii(), "cut {cut} of {parts}");
            }
        }
    }

    #[test]
    fn blocks_tile_the_bytes_and_each_offset_finds_its_own() {
        let text = "aé日😀b".repeat(100);
        for block in [4, 5, 7, 16, 1000] {
            let checking = Checking::in_blocks(text.as_bytes(), false, block);
            let count = checking.blocks.len();
            assert_eq!(checking.boundary(0), 0);
            assert_eq!(checking.boundary(count), text.len());
            for index in 0..count {
                assert!(checking.boundary(index) <= checking.boundary(index + 1));
                assert!(
                    text.is_char_boundary(checking.boundary(index)),
                    "{block} {index}"
                );
            }
            for at in 0..text.len() {
                let index = checking.block_of(at);
                assert!(
                    checking.boundary(index) <= at && at < checking.boundary(index + 1),
                    "{at} in block {index} of {block}"
                );
            }
        }
    }
}
