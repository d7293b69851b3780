//! Byte-level helpers shared by the JSON readers: skipping layout whitespace, and marking bytes
//! eight at a time in a 64-bit word (SWAR), which `wide` uses where SSE2 is not there.

use crate::json::wide::next_non_space;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The offset of the first byte from `at` that is not JSON whitespace. Indentation is about 40% of a
/// pretty-printed state, so after a newline runs of spaces are skipped sixteen at a time (`wide`),
/// and the rest of the run in one step (the first byte of a block that is not a space).
#[inline]
pub fn skip_layout(bytes: &[u8], at: usize) -> usize {
    // Most calls stand on a token already, or on the one space after a `:`: answered here, inlined,
    // before the loop (a jump table over the whitespace bytes was a tenth of a parse).
    match bytes.get(at) {
        Some(&byte) if byte > b' ' => at,
        Some(b' ') if bytes.get(at + 1).is_some_and(|&next| next > b' ') => at + 1,
        _ => skip_layout_run(bytes, at),
    }
}

/// [`skip_layout`] past a run of whitespace.
fn skip_layout_run(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\n' => {
                at = next_non_space(bytes, at + 1);
            }
            b' ' | b'\t' | b'\r' => at += 1,
            _ => break,
        }
    }
    at
}

/// The eight bytes at `at` as a little-endian word (byte `at` lowest), when there are eight.
pub fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    bytes
        .get(at..at + 8)
        .map(|chunk| u64::from_le_bytes(chunk.try_into().expect("eight bytes")))
}

/// Marks (with its high bit) each byte of `word` equal to `byte`. Bytes above the first marked one
/// may be marked falsely (a borrow ripples up), but the lowest mark is always exact, which is all the
/// callers use (`first_marked`). Bytes of 0x80 and above (UTF-8) are never marked for ASCII `byte`.
pub fn equal_to(word: u64, byte: u8) -> u64 {
    let difference = word ^ (ONES * u64::from(byte));
    difference.wrapping_sub(ONES) & !difference & HIGH_BITS
}

/// Marks each byte of `word` below `limit` (at most 0x80), with the same exact-lowest-mark rule.
pub fn below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGH_BITS
}

/// Marks the bytes of `word` that are `"`, `\\` or below 0x20: where a plain run of string content
/// ends (exact lowest mark, as [`equal_to`]).
#[inline]
pub fn string_specials(word: u64) -> u64 {
    equal_to(word, b'"') | equal_to(word, b'\\') | below(word, 0x20)
}

/// Sets bit 0x20 in every byte: folds `[` and `]` onto `{` and `}` (they differ only in that bit).
pub fn fold_case_bit(word: u64) -> u64 {
    word | (ONES * 0x20)
}

/// The index (0 to 7) of the lowest marked byte of a non-zero mark word.
pub fn first_marked(marks: u64) -> usize {
    (marks.trailing_zeros() / 8) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_layout_and_marks_bytes() {
        assert_eq!(skip_layout(b"\n                  x", 0), 19);
        assert_eq!(skip_layout(b" \t\r\n x", 0), 5);
        for spaces in 0..20 {
            let text = format!("\n{}x{}", " ".repeat(spaces), " ".repeat(8));
            assert_eq!(skip_layout(text.as_bytes(), 0), spaces + 1, "{spaces}");
            let tabbed = format!("\n{}\t x", " ".repeat(spaces));
            assert_eq!(skip_layout(tabbed.as_bytes(), 0), spaces + 3, "{spaces}");
        }
        let word = word_at(b"ab\"cd\x01ef", 0).unwrap();
        assert_eq!(first_marked(equal_to(word, b'"')), 2);
        assert_eq!(first_marked(below(word, 0x20)), 5);
        assert_eq!(
            first_marked(equal_to(
                fold_case_bit(word_at(b"xxxx[xxx", 0).unwrap()),
                b'{'
            )),
            4
        );
        assert_eq!(equal_to(word_at("éééé".as_bytes(), 0).unwrap(), b'"'), 0);
    }
}
