//! The readable view of attribute values, in the HCL-like shape `terraform state show` uses: four-space
//! indentation, aligned `=`, strings quoted with HCL's escapes so control characters never reach the
//! terminal raw.

use std::fmt::Write;

use serde_json::Value;

use crate::state::sensitive::MASK;

/// Renders an attributes object's members as `key = value` lines at `depth` levels of indentation.
pub(super) fn attributes(object: &serde_json::Map<String, Value>, depth: usize, out: &mut String) {
    let width = object
        .keys()
        .map(|key| display_key(key).chars().count())
        .max()
        .unwrap_or(0);
    for (key, value) in object {
        let key = display_key(key);
        indent(depth, out);
        out.push_str(&key);
        for _ in key.chars().count()..width {
            out.push(' ');
        }
        out.push_str(" = ");
        value_text(value, depth, out);
        out.push('\n');
    }
}

fn display_key(key: &str) -> String {
    let is_identifier = key
        .chars()
        .next()
        .is_some_and(|first| first.is_alphabetic() || first == '_')
        && key
            .chars()
            .all(|character| character.is_alphanumeric() || matches!(character, '_' | '-'));
    if is_identifier {
        key.to_owned()
    } else {
        quote(key)
    }
}

fn value_text(value: &Value, depth: usize, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) if text == MASK => out.push_str(MASK),
        Value::String(text) => out.push_str(&quote(text)),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push_str("[\n");
            for item in items {
                indent(depth + 1, out);
                value_text(item, depth + 1, out);
                out.push_str(",\n");
            }
            indent(depth, out);
            out.push(']');
        }
        Value::Object(object) if object.is_empty() => out.push_str("{}"),
        Value::Object(object) => {
            out.push_str("{\n");
            attributes(object, depth + 1, out);
            indent(depth, out);
            out.push('}');
        }
    }
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

/// Quotes a string as an HCL literal: `\"` `\\` `\n` `\r` `\t`, `$${` and `%%{` for template
/// introducers, other control characters as `\uXXXX`.
pub(super) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' | '%' if characters.peek() == Some(&'{') => {
                out.push(character);
                out.push(character);
            }
            control if control.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(control));
            }
            other => out.push(other),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_nested_values_aligned() {
        let value: Value = serde_json::from_str(
            r#"{"id":"x","tags":{"Name":"web"},"list":[1,"a\u001b"],"empty":[]}"#,
        )
        .unwrap();
        let mut out = String::new();
        attributes(value.as_object().unwrap(), 1, &mut out);
        let expected = "    id    = \"x\"\n    tags  = {\n        Name = \"web\"\n    }\n    list  = [\n        1,\n        \"a\\u001b\",\n    ]\n    empty = []\n";
        assert_eq!(out, expected);
    }

    #[test]
    fn quotes_templates_and_controls() {
        assert_eq!(
            quote("${x} %{y} $z \"q\" \\"),
            r#""$${x} %%{y} $z \"q\" \\""#
        );
    }
}
