//! Where a valid container ends: its matching bracket, found 64 bytes at a time from the masks of
//! the bytes that matter (quotes, backslashes, brackets) instead of token by token. Only for text
//! already read and found valid (the trusted walkers): nothing is checked, only counted.
//!
//! Why: after the parse, `scan` walks every instance's attributes to find their members, skipping
//! each member's value; the values are most of a state's bytes, and skipping a nested one string by
//! string was the largest part of that walk.
//!
//! How a step reads its 64 bytes: a backslash run of odd length escapes the byte after it (pairs
//! escape each other), so the quotes that open or close strings are the unescaped ones; the bytes
//! from an opening quote up to its closing one are inside a string (each bit the parity of the
//! quotes up to it, flipped when a string was open as the step began); the brackets outside strings
//! change the depth, and the container ends at the close that brings it to nothing.

use crate::json::wide::container_marks;

/// Bytes a step looks at: one bit each of a `u64`.
const STEP: usize = 64;

/// The offset after the container whose opening bracket is at `open`, in valid JSON; the length of
/// `bytes` when it does not close there (valid JSON always does).
pub(crate) fn end_of_container(bytes: &[u8], open: usize) -> usize {
    let mut depth: usize = 1;
    let mut in_string = false;
    // The step's first byte is escaped by a backslash run that ended the step before.
    let mut first_escaped = false;
    let mut at = open.saturating_add(1);
    while at < bytes.len() {
        let marks = container_marks(bytes, at);
        let escaped = escaped_bytes(marks.backslashes, &mut first_escaped);
        let quotes = marks.quotes & !escaped;
        let inside = prefix_parity(quotes) ^ if in_string { u64::MAX } else { 0 };
        let opens = marks.opens & !inside;
        let closes = marks.closes & !inside;
        if closes.count_ones() as usize >= depth {
            // It may end in this step: follow the brackets in order.
            let mut brackets = opens | closes;
            while brackets != 0 {
                let bit = brackets.trailing_zeros();
                if opens & (1 << bit) != 0 {
                    depth += 1;
                } else {
                    depth -= 1;
                    if depth == 0 {
                        return at + bit as usize + 1;
                    }
                }
                brackets &= brackets - 1;
            }
        } else {
            depth = depth + opens.count_ones() as usize - closes.count_ones() as usize;
        }
        in_string ^= quotes.count_ones() % 2 == 1;
        at = at.saturating_add(STEP);
    }
    bytes.len()
}

/// The bytes of a step that a backslash escapes: the byte after each run of backslashes of odd
/// length. `first_escaped` says on entry that the step's first byte is escaped (by a run that ended
/// the step before; an escaped backslash starts no escape of its own), and on return whether the
/// next step's first byte is.
fn escaped_bytes(backslashes: u64, first_escaped: &mut bool) -> u64 {
    let mut escaped = 0;
    let mut rest = backslashes;
    if std::mem::take(first_escaped) {
        escaped |= 1;
        rest &= !1;
    }
    while rest != 0 {
        let start = rest.trailing_zeros();
        let run = (!(rest >> start)).trailing_zeros();
        let after = start + run;
        if run % 2 == 1 {
            if after < 64 {
                escaped |= 1 << after;
            } else {
                *first_escaped = true;
            }
        }
        // The run was the lowest set bits: drop everything below its end.
        rest = if after >= 64 {
            0
        } else {
            rest & (u64::MAX << after)
        };
    }
    escaped
}

/// Each bit the parity of the set bits up to it (itself included).
fn prefix_parity(mut bits: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        bits ^= bits << shift;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end the byte-by-byte way: strings and escapes followed one byte at a time.
    fn end_byte_by_byte(bytes: &[u8], open: usize) -> usize {
        let (mut depth, mut in_string, mut at) = (0usize, false, open);
        while at < bytes.len() {
            match (in_string, bytes[at]) {
                (true, b'\\') => at += 1,
                (true, b'"') => in_string = false,
                (false, b'"') => in_string = true,
                (false, b'{' | b'[') => depth += 1,
                (false, b'}' | b']') => {
                    depth -= 1;
                    if depth == 0 {
                        return at + 1;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        bytes.len()
    }

    /// A valid JSON value of about `size` bytes built from `seed`: nested containers, strings with
    /// brackets, quotes and runs of backslashes in them, across every step boundary.
    fn value(seed: &mut u64, size: usize, depth: usize) -> String {
        fn next_of(seed: &mut u64, below: u64) -> u64 {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed % below
        }
        let strings = [
            r#""plain""#,
            r#""{[""#,
            r#""]}""#,
            r#""q\"q""#,
            r#""\\""#,
            r#""\\\"]""#,
            r#""\\\\""#,
            r#""\\\\\"{\\""#,
            r#""""#,
            r#""\u005b""#,
            r#""日本""#,
        ];
        if depth > 6 || size < 4 {
            return match next_of(seed, 4) {
                0 => strings[next_of(seed, strings.len() as u64) as usize].to_string(),
                1 => "12.5e3".to_string(),
                2 => "true".to_string(),
                _ => "null".to_string(),
            };
        }
        let count = 1 + next_of(seed, 5) as usize;
        let object = next_of(seed, 2) == 0;
        let mut text = String::from(if object { "{" } else { "[" });
        for index in 0..count {
            if index > 0 {
                text.push_str(if next_of(seed, 2) == 0 { "," } else { ",\n  " });
            }
            if object {
                text.push_str(strings[next_of(seed, strings.len() as u64) as usize]);
                text.push(':');
            }
            text.push_str(&value(seed, size / count, depth + 1));
        }
        text.push(if object { '}' } else { ']' });
        text
    }

    #[test]
    fn every_containers_end_is_the_byte_by_byte_end() {
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        for round in 0..300 {
            let text = format!("{}{}", " ".repeat(round % 70), value(&mut seed, 2_000, 0));
            let bytes = text.as_bytes();
            let mut in_string = false;
            let mut escaped = false;
            for (at, &byte) in bytes.iter().enumerate() {
                // Every container outside strings, wherever it starts.
                if !in_string && matches!(byte, b'{' | b'[') {
                    assert_eq!(
                        end_of_container(bytes, at),
                        end_byte_by_byte(bytes, at),
                        "round {round}, container at {at} of {text}"
                    );
                }
                match (in_string, escaped, byte) {
                    (true, true, _) => escaped = false,
                    (true, false, b'\\') => escaped = true,
                    (_, false, b'"') => in_string = !in_string,
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn backslash_runs_across_steps_escape_what_they_escape() {
        // A run of 1 to 9 backslashes ending at every place around the first step's end, then a
        // quote and a bracket: the quote is escaped when the run is odd.
        for run in 1..=9 {
            for end in 56..72 {
                let start = end - run;
                let mut text = String::from("[\"");
                text.push_str(&"a".repeat(start - 2));
                text.push_str(&"\\".repeat(run));
                text.push_str(if run % 2 == 1 { "\"]\"]" } else { "\"]" });
                let bytes = text.as_bytes();
                assert_eq!(
                    end_of_container(bytes, 0),
                    bytes.len(),
                    "run {run} ending at {end}: {text}"
                );
            }
        }
    }

    #[test]
    fn nesting_far_deeper_than_any_reader_accepts_costs_no_stack() {
        // Ten times the readers' limit (`MAX_DEPTH`): counted, never recursed into.
        let depth = 10 * crate::json::MAX_DEPTH;
        let text = format!("{}{}", "[{\"a\":".repeat(depth), "1}]".repeat(depth));
        assert_eq!(end_of_container(text.as_bytes(), 0), text.len());
        assert_eq!(end_of_container(text.as_bytes(), 1), text.len() - 1);
    }

    #[test]
    fn a_container_that_never_closes_ends_at_the_end() {
        assert_eq!(end_of_container(b"[1, [2, \"]\"", 0), 11);
        assert_eq!(end_of_container(b"{", 0), 1);
    }

    #[test]
    fn parity_and_escapes_by_their_definitions() {
        assert_eq!(prefix_parity(0b1001), 0b0111);
        let mut first = false;
        // Runs of 1 (escapes bit 1), 2 (escapes nothing) and 3 (escapes bit 9).
        assert_eq!(
            escaped_bytes(0b01_1100_1101, &mut first),
            (1 << 1) | (1 << 9)
        );
        assert!(!first);
        assert_eq!(escaped_bytes(1 << 63, &mut first), 0);
        assert!(first);
        assert_eq!(escaped_bytes(0b11, &mut first), 0b101);
        assert!(!first);
    }
}
