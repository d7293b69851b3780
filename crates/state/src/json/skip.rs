//! The fast way past a valid value: one tight loop over the bytes, positions in registers, nesting
//! kept in the bits of one word. It accepts only what the cursor's own `skip_value` accepts, and
//! gives up (`None`) on anything else, or on nesting deeper than [`FAST_DEPTH`]; the cursor then reads
//! the value again its careful way, which finds the same end or the exact error and position.
//!
//! Why: attribute values are most of a state's bytes, and skipping them token by token through the
//! cursor's methods (each reloading its position from memory) was over half of reading a state.

use crate::json::bytes::skip_layout;
use crate::json::wide::next_string_special;

/// The deepest nesting (counted from the value) this loop follows; one bit of a `u64` each.
pub(crate) const FAST_DEPTH: u32 = 64;

/// The offset after the valid value starting (whitespace skipped) at `at` of `bytes`, or `None`
/// when this loop cannot tell (an invalid value, or one nested too deep for it).
pub(crate) fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    value_end_noting(bytes, at, &mut ())
}

/// What [`value_end_noting`] tells of the members of the object it skips (the value itself, not
/// the objects inside it), as it passes them.
pub(crate) trait TopMembers {
    /// A member whose key is `key`, its value after `colon` (whitespace may come first).
    fn member(&mut self, bytes: &[u8], key: Key, colon: usize);

    /// The value of the member told last ends at `end` (told once for each member, after it).
    #[inline(always)]
    fn value_ends(&mut self, _bytes: &[u8], _end: usize) {}
}

/// Where a member's key is: its opening quote at `start`, its closing quote just before `end`;
/// `escaped` when it has an escape (its text is not its name as written).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key {
    pub start: usize,
    pub end: usize,
    pub escaped: bool,
}

/// Told nothing: plain [`value_end`], the calls compiled away.
impl TopMembers for () {
    #[inline(always)]
    fn member(&mut self, _: &[u8], _: Key, _: usize) {}
}

/// [`value_end`], telling `top` of each member of the value when it is an object. The members are
/// those of a value this loop accepted; when it gives up (`None`) some may have been told already.
#[inline]
pub(crate) fn value_end_noting<T: TopMembers>(
    bytes: &[u8],
    mut at: usize,
    top: &mut T,
) -> Option<usize> {
    // Bit `n` set: the container open at depth `n + 1` is an object.
    let mut objects: u64 = 0;
    let mut depth: u32 = 0;
    'value: loop {
        at = skip_layout(bytes, at);
        match *bytes.get(at)? {
            b'"' => at = string_end(bytes, at + 1, &mut false)?,
            open @ (b'{' | b'[') => {
                // Before looking inside: the cursor counts an empty container's depth too.
                if depth == FAST_DEPTH {
                    return None;
                }
                at = skip_layout(bytes, at + 1);
                let object = open == b'{';
                if bytes.get(at) == Some(if object { &b'}' } else { &b']' }) {
                    at += 1;
                } else {
                    objects = (objects & !(1 << depth)) | (u64::from(object) << depth);
                    depth += 1;
                    if object {
                        let (key, colon) = after_key(bytes, at)?;
                        if depth == 1 {
                            top.member(bytes, key, colon);
                        }
                        at = colon;
                    }
                    continue 'value;
                }
            }
            b't' => at = literal_end(bytes, at, b"true")?,
            b'f' => at = literal_end(bytes, at, b"false")?,
            b'n' => at = literal_end(bytes, at, b"null")?,
            b'-' | b'0'..=b'9' => at = number_end(bytes, at).ok()?,
            _ => return None,
        }
        // After a complete value: close containers until one continues with a comma.
        loop {
            if depth == 0 {
                return Some(at);
            }
            if depth == 1 {
                // A member of the value itself is complete (its own containers closed).
                top.value_ends(bytes, at);
            }
            let in_object = objects & (1 << (depth - 1)) != 0;
            at = skip_layout(bytes, at);
            match *bytes.get(at)? {
                b',' => {
                    at += 1;
                    if in_object {
                        let (key, colon) = after_key(bytes, skip_layout(bytes, at))?;
                        if depth == 1 {
                            top.member(bytes, key, colon);
                        }
                        at = colon;
                    }
                    continue 'value;
                }
                b'}' if in_object => {
                    at += 1;
                    depth -= 1;
                }
                b']' if !in_object => {
                    at += 1;
                    depth -= 1;
                }
                _ => return None,
            }
        }
    }
}

/// The key whose opening quote is at `at`, and the offset past its `:`.
#[inline]
fn after_key(bytes: &[u8], at: usize) -> Option<(Key, usize)> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut escaped = false;
    let end = string_end(bytes, at + 1, &mut escaped)?;
    let colon = skip_layout(bytes, end);
    (bytes.get(colon) == Some(&b':')).then_some((
        Key {
            start: at,
            end,
            escaped,
        },
        colon + 1,
    ))
}

/// The offset after the closing quote of the string whose content starts at `at`, checking its
/// escapes and that no raw control character is in it, as the cursor's `skip_string` does; sets
/// `escaped` when there is an escape.
#[inline]
fn string_end(bytes: &[u8], mut at: usize, escaped: &mut bool) -> Option<usize> {
    loop {
        at = next_string_special(bytes, at);
        match *bytes.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => {
                *escaped = true;
                match *bytes.get(at + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                    b'u' => {
                        if !bytes.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        at += 6;
                    }
                    _ => return None,
                }
            }
            byte if byte < 0x20 => return None,
            _ => at += 1,
        }
    }
}

/// The offset after `word` (`true`, `false` or `null`) at `at`, when it is there.
#[inline]
fn literal_end(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    let end = at + word.len();
    (bytes.get(at..end)? == word).then_some(end)
}

/// The offset after the number at `at`, by JSON's grammar; `Err` with the offset where it stops
/// being one (the careful cursor reads numbers with it too, and reports that offset).
#[inline]
pub(crate) fn number_end(bytes: &[u8], mut at: usize) -> Result<usize, usize> {
    let digits = |from: usize| {
        let mut to = from;
        while bytes.get(to).is_some_and(u8::is_ascii_digit) {
            to += 1;
        }
        to
    };
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    match bytes.get(at) {
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => at = digits(at + 1),
        _ => return Err(at),
    }
    if bytes.get(at) == Some(&b'.') {
        let end = digits(at + 1);
        if end == at + 1 {
            return Err(end);
        }
        at = end;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let end = digits(at);
        if end == at {
            return Err(end);
        }
        at = end;
    }
    Ok(at)
}
