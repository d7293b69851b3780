//! Finding the next byte of a kind sixteen bytes at a time: the searches every JSON reader here
//! spends most of its time in (to the end of a string's plain run, past indentation, to the next
//! bracket), and the masks of 64 bytes that `matching.rs` skips a valid container with. On x86_64
//! they use SSE2, which every x86_64 CPU has, so there is no detection; elsewhere the searches use
//! the eight-byte words of `bytes.rs`, and the masks a byte at a time.
//!
//! Why: a string or an indentation run is short (a state's average string is about 20 bytes), so
//! half the loop turns of the eight-byte search, and a mask that names the first byte exactly
//! instead of a borrow-rippled one, are most of what the readers can save on their commonest step.
//!
//! Each search also asks the CPU for the cache line [`PREFETCH_AHEAD`] bytes on. Profiles of
//! `list` on a 252 MB state put half the time of the string search on the instruction after its
//! load: the readers were waiting on memory (the text is far larger than any cache, and on the
//! 2-vCPU machine the benchmarks run on the hardware's own prefetching did not keep up). Asking
//! ahead took `list` of 252 MB from 0.181 to 0.160 s and `scan` from 0.260 to 0.230 s (medians of
//! 9 alternated runs, non-LTO builds).

/// The offset of the first `"`, `\` or raw control byte (below 0x20) at or after `at`, or the
/// length of `bytes` when there is none: where a plain run of string content ends.
#[inline]
pub(crate) fn next_string_special(bytes: &[u8], at: usize) -> usize {
    find(bytes, at, sixteen::string_special)
}

/// Asks the CPU for the cache line of `bytes[at]` (nothing when there is no such byte), for a reader
/// that will look there soon and has other work until then.
#[inline]
pub(crate) fn ask_ahead(bytes: &[u8], at: usize) {
    sixteen::prefetch(bytes, at);
}

/// The offset of the first `"` or `\` at or after `at`, or the length of `bytes`: the end of a plain
/// run in a string already known valid.
#[inline]
pub(crate) fn next_quote_or_backslash(bytes: &[u8], at: usize) -> usize {
    find(bytes, at, sixteen::quote_or_backslash)
}

/// The offset of the first byte at or after `at` that is not a space (indentation), or the length.
#[inline]
pub(crate) fn next_non_space(bytes: &[u8], at: usize) -> usize {
    find(bytes, at, sixteen::non_space)
}

/// The offset of the first `"`, `{`, `}`, `[` or `]` at or after `at`, or the length: inside a valid
/// container nothing else changes the nesting.
#[inline]
pub(crate) fn next_structural(bytes: &[u8], at: usize) -> usize {
    find(bytes, at, sixteen::structural)
}

/// The bytes that matter inside a valid container, one bit per byte of the 64 from `at` (lowest
/// bit first; bytes past the end mark nothing): quotes, backslashes, opening and closing brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ContainerMarks {
    pub quotes: u64,
    pub backslashes: u64,
    pub opens: u64,
    pub closes: u64,
}

/// [`ContainerMarks`] of `bytes[at..at + 64]`, sixteen bytes at a time, asking ahead for memory as
/// the searches do.
#[inline]
pub(crate) fn container_marks(bytes: &[u8], at: usize) -> ContainerMarks {
    sixteen::prefetch(bytes, at.saturating_add(PREFETCH_AHEAD));
    let mut marks = ContainerMarks::default();
    for quarter in 0..4 {
        let from = at.saturating_add(quarter * 16);
        let [quotes, backslashes, opens, closes] =
            if let Some(block) = bytes.get(from..from.saturating_add(16)) {
                sixteen::container(block.try_into().expect("sixteen bytes"))
            } else {
                sixteen::container(&last_block(bytes.get(from..).unwrap_or_default()))
            };
        let shift = quarter * 16;
        marks.quotes |= u64::from(quotes) << shift;
        marks.backslashes |= u64::from(backslashes) << shift;
        marks.opens |= u64::from(opens) << shift;
        marks.closes |= u64::from(closes) << shift;
    }
    marks
}

/// How far ahead of a search its cache line is asked for: a few lines of a pretty-printed state,
/// far enough that it arrives before the reader does, near enough that it is still cached then
/// (256 bytes gained less; 1,024 and 4,096 the same).
const PREFETCH_AHEAD: usize = 1024;

/// The first offset from `at` whose byte `marks` marks (one bit per byte of a block, lowest bit
/// first), or the length of `bytes`: sixteen bytes at a time, the last few copied into a block of
/// their own whose marks past the end are dropped, so each kind of byte is named in one place.
#[inline]
fn find(bytes: &[u8], mut at: usize, marks: impl Fn(&[u8; 16]) -> u32) -> usize {
    sixteen::prefetch(bytes, at.saturating_add(PREFETCH_AHEAD));
    while let Some(block) = bytes.get(at..at + 16) {
        let found = marks(block.try_into().expect("sixteen bytes"));
        if found != 0 {
            return at + found.trailing_zeros() as usize;
        }
        at += 16;
    }
    if let Some(rest) = bytes.get(at..).filter(|rest| !rest.is_empty()) {
        let found = marks(&last_block(rest)) & ((1 << rest.len()) - 1);
        if found != 0 {
            return at + found.trailing_zeros() as usize;
        }
    }
    bytes.len()
}

/// The last bytes of a text (fewer than sixteen) as a block, padded with spaces: a space marks
/// nothing for the container marks, and `find` drops the marks past the end whatever they are.
#[inline]
fn last_block(rest: &[u8]) -> [u8; 16] {
    let mut last = [b' '; 16];
    last[..rest.len()].copy_from_slice(rest);
    last
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use sse2 as sixteen;
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use words as sixteen;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(
    unsafe_code,
    reason = "calling SSE2 intrinsics, which every x86_64 CPU has; see `sse2`'s documentation"
)]
mod sse2 {
    //! The block classifiers, with SSE2: one bit per byte, from `_mm_movemask_epi8`.
    //!
    //! Why `unsafe` (the third place statectl uses it, beside `mapped.rs` and `utf8.rs`): Rust lets
    //! a function call the intrinsics safely only when it is marked `#[target_feature(enable =
    //! "sse2")]`, and calling such a function is `unsafe` from a function not so marked, even where
    //! the whole build has the feature. Here it does: this module is compiled only when
    //! `target_feature = "sse2"` is on for the build, which it is for every x86_64 target (SSE2 is
    //! part of the architecture's baseline), so the CPU running this code has SSE2. The loads stay
    //! safe (two words, no pointer), so nothing else here can read out of bounds.

    /// Asks for the cache line of `bytes[at]`, when there is such a byte.
    #[inline]
    pub(super) fn prefetch(bytes: &[u8], at: usize) {
        if let Some(byte) = bytes.get(at) {
            // SAFETY: SSE2 is on for this build (see the module's documentation); a prefetch reads
            // nothing the program sees, and the address is of a byte of `bytes` all the same.
            unsafe { with_feature::prefetch(byte) }
        }
    }

    /// Marks `"`, `\` and bytes below 0x20.
    #[inline]
    pub(super) fn string_special(block: &[u8; 16]) -> u32 {
        // SAFETY: SSE2 is on for this build (see the module's documentation).
        unsafe { with_feature::string_special(block) }
    }

    /// Marks `"` and `\`.
    #[inline]
    pub(super) fn quote_or_backslash(block: &[u8; 16]) -> u32 {
        // SAFETY: SSE2 is on for this build (see the module's documentation).
        unsafe { with_feature::quote_or_backslash(block) }
    }

    /// Marks every byte but a space.
    #[inline]
    pub(super) fn non_space(block: &[u8; 16]) -> u32 {
        // SAFETY: SSE2 is on for this build (see the module's documentation).
        unsafe { with_feature::non_space(block) }
    }

    /// Marks `"`, `{`, `}`, `[` and `]`.
    #[inline]
    pub(super) fn structural(block: &[u8; 16]) -> u32 {
        // SAFETY: SSE2 is on for this build (see the module's documentation).
        unsafe { with_feature::structural(block) }
    }

    /// Marks `"`; `\`; `{` and `[`; `}` and `]`: every one of each, not only the first.
    #[inline]
    pub(super) fn container(block: &[u8; 16]) -> [u32; 4] {
        // SAFETY: SSE2 is on for this build (see the module's documentation).
        unsafe { with_feature::container(block) }
    }

    mod with_feature {
        use std::arch::x86_64::{
            __m128i, _MM_HINT_T0, _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
            _mm_prefetch, _mm_set_epi64x, _mm_set1_epi8,
        };

        #[inline]
        #[target_feature(enable = "sse2")]
        pub(super) fn prefetch(byte: &u8) {
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast());
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        fn load(block: &[u8; 16]) -> __m128i {
            // Two words instead of `_mm_loadu_si128`, which takes a pointer; the compiler makes it
            // one unaligned load all the same.
            let (low, high) = block.split_at(8);
            let low = u64::from_le_bytes(low.try_into().expect("eight bytes"));
            let high = u64::from_le_bytes(high.try_into().expect("eight bytes"));
            _mm_set_epi64x(high.cast_signed(), low.cast_signed())
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        fn equal(block: __m128i, byte: u8) -> __m128i {
            _mm_cmpeq_epi8(block, _mm_set1_epi8(byte.cast_signed()))
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        fn bits(marked: __m128i) -> u32 {
            _mm_movemask_epi8(marked).cast_unsigned()
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        pub(super) fn string_special(block: &[u8; 16]) -> u32 {
            let block = load(block);
            // Unsigned `byte <= 0x1F`: the smaller of the byte and 0x1F is the byte itself.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(block, _mm_set1_epi8(0x1F)), block);
            bits(_mm_or_si128(
                _mm_or_si128(equal(block, b'"'), equal(block, b'\\')),
                control,
            ))
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        pub(super) fn quote_or_backslash(block: &[u8; 16]) -> u32 {
            let block = load(block);
            bits(_mm_or_si128(equal(block, b'"'), equal(block, b'\\')))
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        pub(super) fn non_space(block: &[u8; 16]) -> u32 {
            !bits(equal(load(block), b' ')) & 0xFFFF
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        pub(super) fn container(block: &[u8; 16]) -> [u32; 4] {
            let block = load(block);
            // As in `structural`: bit 0x20 set, `[` reads as `{` and `]` as `}`.
            let folded = _mm_or_si128(block, _mm_set1_epi8(0x20));
            [
                bits(equal(block, b'"')),
                bits(equal(block, b'\\')),
                bits(equal(folded, b'{')),
                bits(equal(folded, b'}')),
            ]
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        pub(super) fn structural(block: &[u8; 16]) -> u32 {
            let block = load(block);
            // `[` and `]` differ from `{` and `}` only in bit 0x20: set it, and two comparisons
            // find all four.
            let folded = _mm_or_si128(block, _mm_set1_epi8(0x20));
            bits(_mm_or_si128(
                equal(block, b'"'),
                _mm_or_si128(equal(folded, b'{'), equal(folded, b'}')),
            ))
        }
    }
}

#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
mod words {
    //! The block classifiers from two eight-byte words, for builds without SSE2: each word's marks
    //! are exact up to its first (all `find` uses), so a word with a mark answers for the block,
    //! with its lowest mark alone. Also built for the tests, which hold it to the SSE2 classifiers.

    use crate::json::bytes::{equal_to, first_marked, fold_case_bit, string_specials, word_at};

    const EIGHT_SPACES: u64 = u64::from_ne_bytes(*b"        ");

    /// No prefetch without SSE2 (the hardware's own prefetching has to do).
    #[cfg_attr(
        test,
        allow(dead_code, reason = "on x86_64 only the tests build this module")
    )]
    pub(super) fn prefetch(_bytes: &[u8], _at: usize) {}

    #[inline]
    fn by_words(block: &[u8; 16], marks: impl Fn(u64) -> u64) -> u32 {
        for half in [0, 8] {
            let found = marks(word_at(block, half).expect("eight bytes"));
            if found != 0 {
                return 1 << (half + first_marked(found));
            }
        }
        0
    }

    pub(super) fn string_special(block: &[u8; 16]) -> u32 {
        by_words(block, string_specials)
    }

    pub(super) fn quote_or_backslash(block: &[u8; 16]) -> u32 {
        by_words(block, |word| equal_to(word, b'"') | equal_to(word, b'\\'))
    }

    pub(super) fn non_space(block: &[u8; 16]) -> u32 {
        by_words(block, |word| word ^ EIGHT_SPACES)
    }

    /// Every mark, byte by byte (the words' marks are exact only up to their first).
    pub(super) fn container(block: &[u8; 16]) -> [u32; 4] {
        let mut marks = [0; 4];
        for (at, byte) in block.iter().enumerate() {
            let kind = match byte {
                b'"' => 0,
                b'\\' => 1,
                b'{' | b'[' => 2,
                b'}' | b']' => 3,
                _ => continue,
            };
            marks[kind] |= 1 << at;
        }
        marks
    }

    pub(super) fn structural(block: &[u8; 16]) -> u32 {
        by_words(block, |word| {
            let folded = fold_case_bit(word);
            equal_to(word, b'"') | equal_to(folded, b'{') | equal_to(folded, b'}')
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every search against the plain byte-by-byte answer, from every start, on texts that put each
    /// kind of byte at every place of a block, past the last whole block, and not at all.
    #[test]
    fn each_search_finds_what_a_byte_by_byte_search_finds() {
        type Search = fn(&[u8], usize) -> usize;
        type Wanted = fn(u8) -> bool;
        let searches: [(Search, Wanted); 4] = [
            (next_string_special, |byte| {
                byte == b'"' || byte == b'\\' || byte < 0x20
            }),
            (next_quote_or_backslash, |byte| {
                byte == b'"' || byte == b'\\'
            }),
            (next_non_space, |byte| byte != b' '),
            (next_structural, |byte| {
                matches!(byte, b'"' | b'{' | b'}' | b'[' | b']')
            }),
        ];
        let notable = [
            b'"',
            b'\\',
            0x00,
            0x1F,
            0x20,
            b'{',
            b'}',
            b'[',
            b']',
            b'x',
            0x7F,
            0x80,
            0xFF,
            b'\n',
            0x3B,
            0x5C ^ 0x20,
            0x7B ^ 0x20,
        ];
        for length in [0usize, 1, 15, 16, 17, 31, 33, 47, 64] {
            for filler in [b' ', b'a', 0xC3] {
                for &byte in &notable {
                    for place in 0..=length {
                        let mut text = vec![filler; length];
                        if place < length {
                            text[place] = byte;
                        }
                        for (search, is) in &searches {
                            for start in 0..=length {
                                let expected = (start..length)
                                    .find(|&offset| is(text[offset]))
                                    .unwrap_or(length);
                                assert_eq!(search(&text, start), expected, "{text:?} from {start}");
                            }
                            // A start past the end (after an escape's two bytes) finds nothing.
                            assert_eq!(search(&text, length + 1), length);
                        }
                    }
                }
            }
        }
    }

    /// The eight-byte classifiers (other CPUs') name the same first byte as the ones this build
    /// uses, on blocks of every byte value at every place, the notable ones dense.
    #[test]
    fn the_word_classifiers_find_the_first_byte_the_sse2_ones_find() {
        type Classifier = fn(&[u8; 16]) -> u32;
        let pairs: [(Classifier, Classifier); 4] = [
            (words::string_special, sixteen::string_special),
            (words::quote_or_backslash, sixteen::quote_or_backslash),
            (words::non_space, sixteen::non_space),
            (words::structural, sixteen::structural),
        ];
        let notable = *b" \"\\{}[]a\n\x1f\x00\x7f\x80\xff";
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..200_000 {
            let mut block = [b' '; 16];
            for byte in &mut block {
                let draw = next();
                *byte = if draw % 4 == 0 {
                    notable[(draw >> 8) as usize % notable.len()]
                } else if round % 2 == 0 {
                    b' '
                } else {
                    (draw >> 16) as u8
                };
            }
            for (word_marks, block_marks) in &pairs {
                assert_eq!(
                    word_marks(&block).trailing_zeros(),
                    block_marks(&block).trailing_zeros(),
                    "{block:?}"
                );
            }
            // The container marks are every mark, not only the first.
            assert_eq!(
                words::container(&block),
                sixteen::container(&block),
                "{block:?}"
            );
        }
    }

    #[test]
    fn container_marks_name_every_byte_that_matters_to_the_end() {
        let text = b"{\"a\\\": [1, {}], \"b\": \"]\"}  [x] \"\\ ";
        for length in 0..=text.len() {
            let bytes = &text[..length];
            for at in 0..=length + 1 {
                let marks = container_marks(bytes, at);
                let mut expected = ContainerMarks::default();
                for (bit, &byte) in bytes.iter().skip(at).take(64).enumerate() {
                    let mask = match byte {
                        b'"' => &mut expected.quotes,
                        b'\\' => &mut expected.backslashes,
                        b'{' | b'[' => &mut expected.opens,
                        b'}' | b']' => &mut expected.closes,
                        _ => continue,
                    };
                    *mask |= 1 << bit;
                }
                assert_eq!(marks, expected, "{length} bytes from {at}");
            }
        }
    }
}
