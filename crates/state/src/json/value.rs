//! A JSON text as a `serde_json::Value`, read the way Go's `encoding/json` reads it into an
//! `interface{}`: nested up to [`MAX_DEPTH`] (serde_json's own reader stops at 128, so `show` and `diff`
//! refused values `list` and Terraform accept), a lone surrogate escape as U+FFFD, the last of two
//! equal keys winning. Iterative: the depth costs heap, not stack.
//!
//! Whatever walks the value afterwards recurses once per level; the CLI runs commands on a thread
//! whose stack is sized for [`MAX_DEPTH`] levels of that (`cli::run`).

use serde_json::{Map, Number, Value};

use crate::json::{Cursor, JsonError, JsonErrorKind, MAX_DEPTH};

/// A container being filled: an array's elements so far, or an object's members and the key whose
/// value is being read.
enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

/// Reads `text` (one JSON value, whitespace around it allowed) into a `Value`.
pub fn parse_value(text: &str) -> Result<Value, JsonError> {
    let mut cursor = Cursor::new(text);
    let value = read(&mut cursor)?;
    cursor.finish()?;
    Ok(value)
}

fn read(cursor: &mut Cursor<'_>) -> Result<Value, JsonError> {
    let mut open: Vec<Open> = Vec::new();
    'value: loop {
        let mut value = match cursor.peek() {
            Some(bracket @ (b'{' | b'[')) => {
                let object = bracket == b'{';
                deeper(cursor, &open)?;
                cursor.seek(cursor.position() + 1);
                if cursor.peek() == Some(if object { b'}' } else { b']' }) {
                    cursor.seek(cursor.position() + 1);
                    if object {
                        Value::Object(Map::new())
                    } else {
                        Value::Array(Vec::new())
                    }
                } else {
                    open.push(if object {
                        Open::Object(Map::new(), key(cursor)?)
                    } else {
                        Open::Array(Vec::new())
                    });
                    continue 'value;
                }
            }
            Some(b'"') => Value::String(cursor.string()?.0.into_owned()),
            Some(b'-' | b'0'..=b'9') => {
                let span = cursor.number()?;
                // The cursor validated the number; serde_json keeps its text (`arbitrary_precision`).
                let number: Number = cursor
                    .text(span)?
                    .parse()
                    .map_err(|_| cursor.error(JsonErrorKind::InvalidNumber))?;
                Value::Number(number)
            }
            _ => {
                if cursor.null() {
                    Value::Null
                } else {
                    let span = cursor.skip_value()?;
                    Value::Bool(cursor.text(span)? == "true")
                }
            }
        };
        // A complete value: put it in its container, and close containers that end here.
        loop {
            let Some(container) = open.last_mut() else {
                return Ok(value);
            };
            match container {
                Open::Array(elements) => {
                    elements.push(value);
                    if next(cursor, b']', "',' or ']' in an array")? {
                        continue 'value;
                    }
                }
                Open::Object(members, key) => {
                    members.insert(std::mem::take(key), value);
                    if next(cursor, b'}', "',' or '}' in an object")? {
                        *key = self::key(cursor)?;
                        continue 'value;
                    }
                }
            }
            value = match open.pop() {
                Some(Open::Array(elements)) => Value::Array(elements),
                Some(Open::Object(members, _)) => Value::Object(members),
                None => unreachable!("a container was open"),
            };
        }
    }
}

/// Refuses a container (empty or not) inside [`MAX_DEPTH`] open ones.
fn deeper(cursor: &Cursor<'_>, open: &[Open]) -> Result<(), JsonError> {
    if open.len() >= MAX_DEPTH {
        return Err(cursor.error(JsonErrorKind::TooDeep));
    }
    Ok(())
}

/// After an element: `true` at a comma (another follows), `false` at the closing `close`.
fn next(cursor: &mut Cursor<'_>, close: u8, expected: &'static str) -> Result<bool, JsonError> {
    match cursor.peek() {
        Some(b',') => {
            cursor.seek(cursor.position() + 1);
            Ok(true)
        }
        Some(byte) if byte == close => {
            cursor.seek(cursor.position() + 1);
            Ok(false)
        }
        _ => Err(unexpected(cursor, expected)),
    }
}

/// An object's key and the `:` after it.
fn key(cursor: &mut Cursor<'_>) -> Result<String, JsonError> {
    if cursor.peek() != Some(b'"') {
        return Err(unexpected(cursor, "a string key"));
    }
    let key = cursor.string()?.0.into_owned();
    if cursor.peek() != Some(b':') {
        return Err(unexpected(cursor, "':' after an object key"));
    }
    cursor.seek(cursor.position() + 1);
    Ok(key)
}

fn unexpected(cursor: &Cursor<'_>, expected: &'static str) -> JsonError {
    match cursor.character_at(cursor.position()) {
        Some(found) => cursor.error(JsonErrorKind::Unexpected { found, expected }),
        None => cursor.error(JsonErrorKind::UnexpectedEnd { expected }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, 2.50, -3e2, true, false, null, "x\n\u00e9"], "b": {}, "c": [], "d": {"e": [[]]}}"#,
            "0",
            " \"s\" ",
            "[{\"k\": 1}, {\"k\": [2, {\"m\": null}]}]",
        ] {
            let expected: Value = serde_json::from_str(text).unwrap();
            assert_eq!(parse_value(text).unwrap(), expected, "{text}");
        }
        // Numbers keep their spelling.
        assert_eq!(parse_value("1.50").unwrap().to_string(), "1.50");
    }

    #[test]
    fn reads_as_go_does_where_serde_json_differs() {
        // A lone surrogate is U+FFFD; the last of two equal keys wins.
        assert_eq!(parse_value(r#""\ud800x""#).unwrap(), "\u{FFFD}x");
        assert_eq!(
            parse_value(r#"{"a": 1, "a": 2}"#).unwrap(),
            serde_json::json!({"a": 2})
        );
    }

    #[test]
    fn nests_to_the_limit_and_no_further() {
        let deep = |levels: usize| "[".repeat(levels) + &"]".repeat(levels);
        let mut value = parse_value(&deep(MAX_DEPTH)).unwrap();
        let mut levels = 0;
        while let Value::Array(mut elements) = value {
            levels += 1;
            value = elements.pop().unwrap_or(Value::Null);
        }
        assert_eq!(levels, MAX_DEPTH);
        let error = parse_value(&deep(MAX_DEPTH + 1)).unwrap_err();
        assert_eq!(error.kind, JsonErrorKind::TooDeep);
        let objects = "{\"a\":".repeat(MAX_DEPTH) + "{}" + &"}".repeat(MAX_DEPTH);
        assert_eq!(
            parse_value(&objects).unwrap_err().kind,
            JsonErrorKind::TooDeep
        );
    }

    #[test]
    fn refuses_what_is_not_json() {
        for text in ["", "[1,]", "{\"a\" 1}", "{1: 2}", "[1] 2", "tru", "[1 2]"] {
            assert!(parse_value(text).is_err(), "{text}");
        }
    }
}
