//! The check that a state's bytes are UTF-8 text, on every CPU: it is one pass over the whole file
//! that must end before the parse can start (the model borrows `&str` slices of the text), so a
//! large state is checked in parts side by side, and the parts' answers make the whole's.
//!
//! Why this is one of the three places statectl uses `unsafe` (beside `mapped.rs` and `wide.rs`):
//! each part is checked (by `simdutf8`, and again by `std::str::from_utf8` only where that fails),
//! but the parse needs one `&str` of the whole, and the only safe way to it checks every byte again
//! on one thread. The whole is valid because every byte lies in exactly one part and the
//! concatenation of valid UTF-8 texts is valid UTF-8.
//!
//! Why the answer is the one-thread check's: the parts are cut just before an ASCII byte, which can
//! only start a character, so a valid text's parts are each valid; and the first failing part, in
//! order, fails where the whole would (the parts before it are valid and end on a whole character),
//! so the offset in the error is the same. Each part is checked in blocks of a few kilobytes, cut
//! the same way for the same reasons, so that a caller who asks for the text's lines
//! ([`LineIndex`]) has each block counted while it is in cache.

use crate::json::LineIndex;
// About how many bytes of a part are checked (and counted) at a time: the line index's blocks,
// small enough to be in cache still when they are counted.
use crate::json::line_index::{BLOCK_BYTES, Counted};
use crate::parts::{each_on_a_thread, parts};

/// Below this many bytes per part, a thread costs more than it saves.
const PART_BYTES: usize = 4 << 20;

/// `bytes` as text, and its line index when `lines` asks for it; or the offset of its first byte
/// that is not part of a valid UTF-8 character (`Utf8Error::valid_up_to` of the whole).
pub(crate) fn text(bytes: &[u8], lines: bool) -> Result<(&str, Option<LineIndex>), usize> {
    text_in_blocks(bytes, lines, BLOCK_BYTES)
}

/// [`text`], checked in blocks of about `block` bytes.
#[allow(
    unsafe_code,
    reason = "joining parts checked on several threads into one `&str`; see the module's documentation"
)]
fn text_in_blocks(
    bytes: &[u8],
    lines: bool,
    block: usize,
) -> Result<(&str, Option<LineIndex>), usize> {
    let cuts = cuts(bytes, parts(bytes.len(), PART_BYTES));
    let parts: Vec<(usize, usize)> = cuts
        .windows(2)
        .map(|bounds| (bounds[0], bounds[1]))
        .collect();
    let mut counted = Vec::new();
    let check = |&(start, end): &(usize, usize)| check_part(bytes, start, end, lines, block);
    for part in each_on_a_thread(&parts, check) {
        counted.extend(part?);
    }
    // SAFETY: every part between consecutive cuts (which run from 0 to `bytes.len()`, so each byte
    // is in exactly one part) was just checked by `check_part` and found valid (each part gets its
    // answer, from its own thread or this one, or the call panics; the loop above returns at the
    // first that is not valid); valid UTF-8 texts one after another are valid UTF-8.
    let text = unsafe { std::str::from_utf8_unchecked(bytes) };
    Ok((text, lines.then(|| LineIndex::from_counted(counted))))
}

/// Checks `bytes[start..end]` in blocks of about `block` bytes (each, but the last, cut before an
/// ASCII byte), counting each block's lines when `lines` asks: the counts, or where the part stops
/// being UTF-8, as an offset into `bytes`.
fn check_part(
    bytes: &[u8],
    start: usize,
    end: usize,
    lines: bool,
    block: usize,
) -> Result<Vec<Counted>, usize> {
    let mut counted = Vec::new();
    let mut at = start;
    while at < end {
        let cut = at.saturating_add(block).min(end);
        let block_end = bytes[cut..end]
            .iter()
            .position(u8::is_ascii)
            .map_or(end, |ascii| cut + ascii);
        checked(&bytes[at..block_end]).map_err(|error| at + error.valid_up_to())?;
        if lines {
            counted.push(Counted::of(bytes, at, block_end));
        }
        at = block_end;
    }
    Ok(counted)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::LineColumn;

    fn checked_in(parts: usize, bytes: &[u8]) -> Result<&str, usize> {
        crate::parts::forced(parts, || text(bytes, false)).map(|(text, lines)| {
            assert_eq!(lines, None, "not asked for");
            text
        })
    }

    /// The text checked in `parts` of blocks of `block` bytes, its lines counted on the way.
    fn checked_in_blocks(parts: usize, block: usize, bytes: &[u8]) -> Result<&str, usize> {
        let (text, lines) = crate::parts::forced(parts, || text_in_blocks(bytes, true, block))?;
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
    fn text_checked_in_parts_gets_the_answer_of_one_check() {
        // Characters of every width, so that most even cuts land inside one.
        let valid = "{\"é\": \"日本\", \"😀\": \"x\\u00e9\"}\n".repeat(40);
        let mut texts: Vec<Vec<u8>> = vec![valid.as_bytes().to_vec(), Vec::new(), b"{}".to_vec()];
        // Without an ASCII byte after the cuts: the parts merge into fewer.
        texts.push("日本語".repeat(50).into_bytes());
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
            for (parts, block) in [(1, 1), (1, 7), (2, 3), (3, 64), (5, 100_000)] {
                assert_eq!(
                    checked_in_blocks(parts, block, text),
                    whole,
                    "{parts} parts in blocks of {block} of {text:?}"
                );
            }
            let alone = crate::parts::without_threads(|| checked_in(3, text));
            assert_eq!(alone, whole, "3 parts, no thread, of {text:?}");
        }
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
}
