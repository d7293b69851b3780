//! Walking JSON that the parser has already validated: finding members and the end of values without
//! checking them again. `scan` reads a few attributes of every instance of a 50 MB state; doing it
//! with the validating cursor would cost a second full parse.

use crate::json::Span;
use crate::json::bytes::skip_layout;
use crate::json::matching::end_of_container;
use crate::json::wide::next_quote_or_backslash;

/// The members of the object whose `{` is at `start` of `text`: each key's raw text (between its
/// quotes, escapes not decoded) and its value's span. `text` must be valid JSON there.
pub fn members(text: &str, start: usize) -> Members<'_> {
    Members {
        text,
        at: start + 1,
    }
}

#[derive(Debug)]
pub struct Members<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, Span);

    fn next(&mut self) -> Option<(&'a str, Span)> {
        let bytes = self.text.as_bytes();
        let key_start = skip_layout(bytes, self.at);
        if bytes.get(key_start) != Some(&b'"') {
            return None; // `}`: the object is done
        }
        let key_end = end_of_string(bytes, key_start + 1);
        let value_start = skip_layout(bytes, skip_layout(bytes, key_end) + 1); // past the `:`
        let value_end = end_of_value(bytes, value_start);
        self.at = skip_layout(bytes, value_end);
        if bytes.get(self.at) == Some(&b',') {
            self.at += 1;
        }
        Some((
            &self.text[key_start + 1..key_end - 1],
            Span::new(value_start, value_end),
        ))
    }
}

/// The elements of the array whose `[` is at `start` of `text`, as spans.
pub fn elements(text: &str, start: usize) -> impl Iterator<Item = Span> + '_ {
    let bytes = text.as_bytes();
    let mut at = start + 1;
    std::iter::from_fn(move || {
        let value_start = skip_layout(bytes, at);
        if matches!(bytes.get(value_start), None | Some(b']')) {
            return None;
        }
        let value_end = end_of_value(bytes, value_start);
        at = skip_layout(bytes, value_end);
        if bytes.get(at) == Some(&b',') {
            at += 1;
        }
        Some(Span::new(value_start, value_end))
    })
}

/// The offset after the number or literal (`true`, `false`, `null`) at `at`: its first delimiter.
pub(crate) fn end_of_scalar(bytes: &[u8], mut at: usize) -> usize {
    while !matches!(
        bytes.get(at),
        None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
    ) {
        at += 1;
    }
    at
}

/// The offset after the closing quote of the string whose content starts at `at`.
pub(crate) fn end_of_string(bytes: &[u8], at: usize) -> usize {
    string_end(bytes, at).0
}

/// The offset after the closing quote of the string whose content starts at `at`, and whether the
/// string holds an escape (found on the way at no extra cost).
pub(crate) fn string_end(bytes: &[u8], mut at: usize) -> (usize, bool) {
    let mut escaped = false;
    loop {
        at = next_quote_or_backslash(bytes, at);
        match bytes.get(at) {
            Some(b'"') => return (at + 1, escaped),
            Some(b'\\') => {
                escaped = true;
                at += 2;
            }
            Some(_) => at += 1,
            None => return (bytes.len(), escaped),
        }
    }
}

/// The offset after the value starting at `at`.
pub fn end_of_value(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(b'"') => end_of_string(bytes, at + 1),
        Some(b'{' | b'[') => end_of_container(bytes, at),
        _ => end_of_scalar(bytes, at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_members_and_elements_of_valid_json() {
        let text = r#"{"a": 1, "b\"q": {"x": [1, "]}\"", {}]}, "c": null, "d": "s"}"#;
        let found: Vec<(&str, &str)> = members(text, 0)
            .map(|(key, span)| (key, span.of(text)))
            .collect();
        assert_eq!(
            found,
            [
                ("a", "1"),
                ("b\\\"q", r#"{"x": [1, "]}\"", {}]}"#),
                ("c", "null"),
                ("d", "\"s\"")
            ]
        );
        let array = r#"[ 1 , "a" , [2] , {"k": "}"} ]"#;
        let items: Vec<&str> = elements(array, 0).map(|span| span.of(array)).collect();
        assert_eq!(items, ["1", "\"a\"", "[2]", r#"{"k": "}"}"#]);
        assert_eq!(members("{}", 0).count(), 0);
        assert_eq!(elements("[]", 0).count(), 0);
    }

    #[test]
    fn ends_of_values_with_brackets_and_quotes_anywhere_in_a_word() {
        for padding in 0..9 {
            let pad = " ".repeat(padding);
            let text =
                format!(r#"{{"a":{pad}[1, {{"b": "x\"]}}[{{"}}, "\\"], "c": [[[]]]{pad}}}tail"#);
            assert_eq!(end_of_value(text.as_bytes(), 0), text.len() - 4, "{text}");
        }
        assert_eq!(end_of_value(b"12.5e3, x", 0), 6);
        assert_eq!(end_of_value(br#""\\"x"#, 0), 4);
    }
}
