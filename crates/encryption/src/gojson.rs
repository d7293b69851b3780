//! JSON written byte for byte as Go's `encoding/json` writes it, which is what OpenTofu stores:
//! HTML-safe string escapes, map keys sorted, `[]byte` as padded standard base64.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use std::fmt::Write as _;

use serde_json::Value;

/// Go's `base64.StdEncoding` as `encoding/json` uses it for `[]byte`: padding required; Go
/// accepts non-zero trailing bits, so a file Go reads is never refused here.
const GO_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
        .with_decode_allow_trailing_bits(true),
);

pub fn encode_base64(bytes: &[u8], out: &mut String) {
    base64_simd::STANDARD.encode_append(bytes, out);
}

/// Decodes as Go does: the SIMD decoder for the common (canonical) case, Go's lenient rules
/// (and their error) when it refuses.
pub fn decode_base64(text: &[u8]) -> Result<Vec<u8>, base64::DecodeError> {
    match base64_simd::STANDARD.decode_to_vec(text) {
        Ok(bytes) => Ok(bytes),
        Err(_) => GO_BASE64.decode(text),
    }
}

/// Appends `s` as a JSON string the way Go's `json.Marshal` does (`SetEscapeHTML(true)`).
pub fn push_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Go 1.22 and later write these two short forms.
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{0}'..='\u{1f}' => {
                let b = c as u8;
                out.push_str("\\u00");
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 0xf)] as char);
            }
            // Go escapes the JavaScript line separators too.
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes `value` as Go marshals the same data decoded into `any`: object keys sorted by bytes,
/// numbers as `float64` would print them.
pub(crate) fn push_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => push_float(out, n),
        Value::String(s) => push_string(out, s),
        Value::Array(items) => push_separated(out, ('[', ']'), items, push_value),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let members = keys
                .into_iter()
                .map(|key| (key.as_str(), &map[key.as_str()]));
            push_object(out, members, push_value);
        }
    }
}

/// Appends `members` as a JSON object, in the order given (Go sorts a map's keys; a struct's
/// fields keep their order), each key escaped as Go escapes it and each value written by
/// `push_member`.
pub fn push_object<'k, T>(
    out: &mut String,
    members: impl IntoIterator<Item = (&'k str, T)>,
    mut push_member: impl FnMut(&mut String, T),
) {
    push_separated(out, ('{', '}'), members, |out, (key, member)| {
        push_string(out, key);
        out.push(':');
        push_member(out, member);
    });
}

/// `items` between `open` and `close`, each written by `push_item`, separated by commas: the body of
/// both a JSON array and object.
fn push_separated<T>(
    out: &mut String,
    (open, close): (char, char),
    items: impl IntoIterator<Item = T>,
    mut push_item: impl FnMut(&mut String, T),
) {
    out.push(open);
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_item(out, item);
    }
    out.push(close);
}

/// Go decodes a JSON number into `any` as `float64` and prints it with `strconv`'s shortest
/// form, switching to an exponent below 1e-6 and from 1e21 on.
fn push_float(out: &mut String, n: &serde_json::Number) {
    let Ok(f) = n.to_string().parse::<f64>() else {
        out.push_str(&n.to_string());
        return;
    };
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{f:e}");
        // Rust writes `1e21` and `1.5e-7`; Go writes `1e+21` and `1.5e-07`, then trims the
        // exponent's leading zero back to `1.5e-7`.
        match s.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => {
                out.push_str(mantissa);
                out.push_str("e+");
                out.push_str(exp);
            }
            _ => out.push_str(&s),
        }
    } else {
        let _ = write!(out, "{f}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_as_go_even_with_trailing_bits() {
        assert_eq!(decode_base64(b"AAEC").unwrap(), [0, 1, 2]);
        // "AB==" has non-zero trailing bits: Go reads it, the SIMD decoder does not.
        assert_eq!(decode_base64(b"AB==").unwrap(), [0]);
        assert!(decode_base64(b"AB=").is_err());
        let mut out = String::new();
        encode_base64(&[0, 1, 2, 3], &mut out);
        assert_eq!(out, GO_BASE64.encode([0, 1, 2, 3]));
    }

    fn string(s: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, s);
        out
    }

    #[test]
    fn strings_escape_as_go_does() {
        assert_eq!(string("a<b>&c"), r#""a\u003cb\u003e\u0026c""#);
        assert_eq!(string("q\"\\\n\t\u{1}"), r#""q\"\\\n\t\u0001""#);
        assert_eq!(string("\u{2028}é"), "\"\\u2028é\"");
    }

    #[test]
    fn values_sort_keys_and_print_numbers_as_float64() {
        let value: Value =
            serde_json::from_str(r#"{"z":1.0,"a":[1e21,0.0000001,12.5],"m":{"y":true,"b":null}}"#)
                .unwrap();
        let mut out = String::new();
        push_value(&mut out, &value);
        assert_eq!(
            out,
            r#"{"a":[1e+21,1e-7,12.5],"m":{"b":null,"y":true},"z":1}"#
        );
    }
}
