//! `sensitive_attributes` in the shape Terraform and OpenTofu write it, read in place: a list of
//! paths, each a list of steps `{"type": "get_attr", "value": NAME}` or `{"type": "index", "value":
//! {"type": "string" | "number", "value": KEY}}`. Anything else (a repeated or unknown member,
//! another kind of value, an escape in a string, text that is not JSON) is `Uncommon`, and the
//! caller decodes it whole as before (`sensitive::paths_to_mask`), so both readings agree on every
//! text by construction: this one answers only where the answer is plain.
//!
//! Why: `query` and `scan` read the paths of every instance that has any; decoding each list into a
//! `serde_json::Value` (a map per step) was 38 ms of a query over a 252 MB state whose 29,000
//! instances have one or two paths.

use std::borrow::Cow;

use crate::json::{Cursor, JsonError};
use crate::state::sensitive::CtyStep;

/// The text is not in the plain shape: decode it whole.
#[derive(Debug)]
pub(crate) struct Uncommon;

impl From<JsonError> for Uncommon {
    fn from(_: JsonError) -> Uncommon {
        Uncommon
    }
}

/// The paths of plain `sensitive_attributes` text, each cut at its first step statectl cannot
/// follow (as `paths_to_mask` cuts them).
pub(crate) fn plain_paths(raw: &str) -> Result<Vec<Vec<CtyStep>>, Uncommon> {
    let mut cursor = Cursor::new(raw);
    let mut paths = Vec::new();
    if !cursor.null() {
        if cursor.peek() != Some(b'[') {
            return Err(Uncommon);
        }
        cursor.array(|cursor| {
            if cursor.peek() != Some(b'[') {
                return Err(Uncommon);
            }
            let mut steps = Vec::new();
            let mut following = true;
            cursor.array(|cursor| {
                // Read to the end either way: the whole text must be plain.
                match plain_step(cursor)? {
                    Some(step) if following => steps.push(step),
                    _ => following = false,
                }
                Ok::<_, Uncommon>(())
            })?;
            paths.push(steps);
            Ok(())
        })?;
    }
    cursor.finish()?;
    Ok(paths)
}

/// A step's `value`: a string, or an index object's own `type` and `value`.
enum StepValue<'a> {
    Text(Cow<'a, str>),
    Index {
        kind: Option<Cow<'a, str>>,
        key: Option<IndexKey<'a>>,
    },
}

/// An index object's `value`: a string, or a number as written.
enum IndexKey<'a> {
    Text(Cow<'a, str>),
    Number(&'a str),
}

/// One step: `Some` when statectl follows it, `None` when the path stops there.
fn plain_step(cursor: &mut Cursor<'_>) -> Result<Option<CtyStep>, Uncommon> {
    if cursor.peek() != Some(b'{') {
        return Err(Uncommon);
    }
    let (kind, value) = type_and_value(cursor, step_value)?;
    Ok(match (kind.as_deref(), value) {
        (Some("get_attr"), Some(StepValue::Text(name))) => {
            Some(CtyStep::Attribute(name.into_owned()))
        }
        (Some("index"), Some(StepValue::Index { kind, key })) => match (kind.as_deref(), key) {
            (Some("string"), Some(IndexKey::Text(key))) => Some(CtyStep::Key(key.into_owned())),
            // A whole number as `serde_json` reads one, so both readings agree on `1.0` or `-0`.
            (Some("number"), Some(IndexKey::Number(number))) => {
                serde_json::from_str::<serde_json::Number>(number)
                    .ok()
                    .and_then(|number| number.as_u64())
                    .map(CtyStep::Index)
            }
            (Some("number"), Some(IndexKey::Text(text))) => text.parse().ok().map(CtyStep::Index),
            _ => None,
        },
        _ => None,
    })
}

/// A step's `value`.
fn step_value<'a>(cursor: &mut Cursor<'a>) -> Result<StepValue<'a>, Uncommon> {
    match cursor.peek() {
        Some(b'"') => Ok(StepValue::Text(plain_string(cursor)?)),
        Some(b'{') => {
            let (kind, key) = type_and_value(cursor, index_key)?;
            Ok(StepValue::Index { kind, key })
        }
        _ => Err(Uncommon),
    }
}

/// The members of an object that has only `type` (a string) and `value` (read by `value`), each
/// at most once; either may be missing.
fn type_and_value<'a, V>(
    cursor: &mut Cursor<'a>,
    value: impl Fn(&mut Cursor<'a>) -> Result<V, Uncommon>,
) -> Result<(Option<Cow<'a, str>>, Option<V>), Uncommon> {
    let (mut kind, mut read) = (None, None);
    cursor.object(|cursor, name, _| {
        let repeated = match name.as_ref() {
            "type" => kind.replace(plain_string(cursor)?).is_some(),
            "value" => read.replace(value(cursor)?).is_some(),
            _ => return Err(Uncommon),
        };
        if repeated { Err(Uncommon) } else { Ok(()) }
    })?;
    Ok((kind, read))
}

/// An index object's `value`.
fn index_key<'a>(cursor: &mut Cursor<'a>) -> Result<IndexKey<'a>, Uncommon> {
    match cursor.peek() {
        Some(b'"') => Ok(IndexKey::Text(plain_string(cursor)?)),
        Some(b'-' | b'0'..=b'9') => {
            let span = cursor.number()?;
            Ok(IndexKey::Number(cursor.text(span)?))
        }
        _ => Err(Uncommon),
    }
}

/// A string without escapes (an escape is decoded by the whole reading, whose handling of a lone
/// surrogate this one need not match).
fn plain_string<'a>(cursor: &mut Cursor<'a>) -> Result<Cow<'a, str>, Uncommon> {
    if cursor.peek() != Some(b'"') {
        return Err(Uncommon);
    }
    let (text, span) = cursor.string()?;
    if cursor.text(span)?.contains('\\') {
        return Err(Uncommon);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::sensitive::{paths_to_mask, paths_to_mask_decoded};

    /// Steps and step values, plain and not: each text built from them reads the same both ways.
    const STEPS: [&str; 22] = [
        r#"{"type":"get_attr","value":"password"}"#,
        r#"{"value":"password","type":"get_attr"}"#,
        r#"{ "type" : "get_attr" , "value" : "pass word" }"#,
        r#"{"type":"get_attr","value":"pa\"ss"}"#,
        r#"{"type":"get_attr","value":"\ud800"}"#,
        r#"{"type":"get\u005fattr","value":"x"}"#,
        r#"{"type":"get_attr","value":"a","value":"b"}"#,
        r#"{"type":"get_attr","value":"a","extra":1}"#,
        r#"{"type":"get_attr"}"#,
        r#"{"type":"get_attr","value":1}"#,
        r#"{"type":"get_attr","value":{"type":"string","value":"k"}}"#,
        r#"{"type":"teleport","value":"x"}"#,
        r#"{"type":7,"value":"x"}"#,
        r#"{"type":"index","value":{"type":"string","value":"k"}}"#,
        r#"{"type":"index","value":{"value":"k","type":"string"}}"#,
        r#"{"type":"index","value":"k"}"#,
        r#"{"type":"index","value":{"type":"bool","value":true}}"#,
        r#"{"type":"index","value":{"type":"string","value":3}}"#,
        r#"{"type":"index","value":{"type":"number"}}"#,
        r#"{"type":"index","value":{"type":"number","value":"3","type":"number"}}"#,
        "[]",
        r#""step""#,
    ];

    /// Index keys of type `number`, every spelling a whole number can or cannot have.
    const NUMBERS: [&str; 14] = [
        "0",
        "1",
        "-0",
        "-1",
        "1.0",
        "1.5",
        "1e2",
        "18446744073709551615",
        "18446744073709551616",
        r#""3""#,
        r#""+3""#,
        r#""-3""#,
        r#"" 3""#,
        r#""x""#,
    ];

    fn texts() -> Vec<String> {
        let mut steps: Vec<String> = STEPS.iter().map(|step| (*step).to_owned()).collect();
        steps.extend(NUMBERS.iter().map(|number| {
            format!(r#"{{"type":"index","value":{{"type":"number","value":{number}}}}}"#)
        }));
        let mut texts: Vec<String> = [
            "null", "[]", "[[]]", "[[],[]]", " null ", "nul", "null x", "[] x", "{}", "\"x\"",
            "[1]", "[[1]]", "[", "[[", "", "true", "[null]",
        ]
        .iter()
        .map(|text| (*text).to_owned())
        .collect();
        for (index, first) in steps.iter().enumerate() {
            texts.push(format!("[[{first}]]"));
            for second in &steps[index % 5..index % 5 + 6] {
                texts.push(format!("[[{first},{second}]]"));
                texts.push(format!("[[{second}],[{first},{second}]]"));
                texts.push(format!("[\n  [\n    {first},\n    {second}\n  ]\n]\n"));
            }
        }
        texts
    }

    #[test]
    fn plain_text_reads_as_decoding_it_whole_reads_it() {
        let mut plain = 0;
        for text in texts() {
            let decoded = paths_to_mask_decoded(&text);
            if let Ok(paths) = plain_paths(&text) {
                plain += 1;
                assert_eq!(paths, decoded, "{text}");
            }
            assert_eq!(paths_to_mask(&text), decoded, "{text}");
        }
        // Most of the texts are plain: the shortcut is what answers them, not the fallback.
        assert!(plain >= 150, "{plain} of the texts were plain");
    }

    #[test]
    fn what_is_not_plain_is_left_to_the_whole_reading() {
        for text in [
            r#"[[{"type":"get_attr","value":"pa\"ss"}]]"#,
            r#"[[{"type":"get_attr","value":"a","value":"b"}]]"#,
            r#"[[{"type":"get_attr","value":"a","extra":1}]]"#,
            r#"[[{"type":"get_attr","value":1}]]"#,
            r#"[{"type":"get_attr","value":"a"}]"#,
            "[[]] x",
            "{}",
        ] {
            assert!(plain_paths(text).is_err(), "{text}");
        }
        assert_eq!(
            plain_paths(
                r#"[[{"type":"get_attr","value":"tags"},{"type":"index","value":{"type":"number","value":2}},{"type":"get_attr","value":"after"}],[{"type":"index","value":{"type":"number","value":1.5}},{"type":"get_attr","value":"x"}]]"#
            )
            .unwrap(),
            [
                vec![
                    CtyStep::Attribute("tags".to_owned()),
                    CtyStep::Index(2),
                    CtyStep::Attribute("after".to_owned())
                ],
                vec![]
            ]
        );
    }
}
