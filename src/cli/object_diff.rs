//! The diff a mutating command shows: for each object it changes, a unified diff of the object as
//! pretty JSON before and after, sensitive values masked on both sides (with the union of both sides'
//! sensitive paths, so a value that stopped being sensitive does not show its old secret).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;
use similar::TextDiff;
use statectl_analysis::diff::mask_paths;

use crate::cli::style::{Style, paint_into};
use crate::json::Cursor;
use crate::json::keys::folds_to_field;
use crate::state::sensitive;

/// A unified diff of one object. `before`/`after` are the object's JSON text; `None` is "no object"
/// (a removal, or a creation).
pub(super) fn object_diff(
    label: &str,
    type_name: &str,
    before: Option<&str>,
    after: Option<&str>,
    reveal: bool,
) -> String {
    let decode = |text: &str| crate::json::parse_value(&shorten_long_strings(text)).ok();
    let (decoded_before, decoded_after) = (before.and_then(decode), after.and_then(decode));
    if decoded_before.is_none() != before.is_none() || decoded_after.is_none() != after.is_none() {
        // Only text the state parser never validated gets here. The raw text cannot stand in: it
        // would show values the masking has not seen.
        return format!(
            "--- {label}\n+++ {label}\n(changed; not shown: its JSON cannot be decoded for a diff)\n"
        );
    }
    object_diff_values(label, type_name, decoded_before, decoded_after, reveal)
}

/// Strings longer than this (in JSON text) show in a diff by their start, size and digest: a
/// 100 MB attribute would otherwise be decoded, pretty-printed and printed whole on both sides.
const LONG_STRING: usize = 64 << 10;

/// `text` (one object's JSON) with every string value longer than [`LONG_STRING`] inside its members
/// (`attributes`, `identity`: nesting depth two or more) replaced by a short stand-in holding its
/// first characters, its size and a digest, so a changed value still shows as changed. The object's
/// own members (`private` among them) stay whole. Borrows when nothing is that long.
fn shorten_long_strings(text: &str) -> Cow<'_, str> {
    if text.len() <= LONG_STRING {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut cursor = Cursor::new(text);
    let mut out = String::new();
    let (mut copied, mut at, mut depth) = (0, 0, 0_usize);
    while let Some(quote) = memchr::memchr(b'"', &bytes[at..]).map(|offset| at + offset) {
        for &byte in &bytes[at..quote] {
            match byte {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        cursor.seek(quote);
        let Ok(span) = cursor.skip_string() else {
            return Cow::Borrowed(text);
        };
        if depth >= 2 && span.end - span.start > LONG_STRING {
            let content = &text[span.start + 1..span.end - 1];
            // The first characters, stopping before any escape so the stand-in needs none.
            let mut end = content.len().min(40);
            while !content.is_char_boundary(end) {
                end -= 1;
            }
            let start = &content[..end];
            let start = &start[..start.find('\\').unwrap_or(start.len())];
            out.push_str(&text[copied..span.start]);
            let _ = write!(
                out,
                "\"{start}... ({} bytes of JSON text, digest {:016x})\"",
                content.len(),
                digest(content.as_bytes())
            );
            copied = span.end;
        }
        at = span.end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The members of `object` named `name` in any case (as Go folds it: [`folds_to_field`]), in order.
fn named<'v>(object: &'v Value, name: &str) -> impl Iterator<Item = &'v Value> {
    object
        .as_object()
        .into_iter()
        .flatten()
        .filter(move |(key, _)| folds_to_field(key, name))
        .map(|(_, value)| value)
}

/// [`named`], to change them.
fn named_mut<'v>(object: &'v mut Value, name: &str) -> impl Iterator<Item = &'v mut Value> {
    object
        .as_object_mut()
        .into_iter()
        .flatten()
        .filter(move |(key, _)| folds_to_field(key, name))
        .map(|(_, value)| value)
}

/// [`object_diff`] of decoded objects (which `diff` first aligns, so that member order and number
/// spelling do not show as changes).
pub(super) fn object_diff_values(
    label: &str,
    type_name: &str,
    mut before: Option<Value>,
    mut after: Option<Value>,
    reveal: bool,
) -> String {
    if !reveal {
        // Members are matched in any case, as Terraform's reader matches them (it reads the last
        // of `"attributes"` and `"Attributes"`): every one of a name is masked, so neither the one
        // Terraform reads nor the one it ignores shows a secret.
        // Masked, a changed blob of the same length would look unchanged; say that it changed.
        let private_changed = match (&before, &after) {
            (Some(before), Some(after)) => !named(before, "private").eq(named(after, "private")),
            _ => false,
        };
        let mut paths = Vec::new();
        for object in [&before, &after].into_iter().flatten() {
            for listed in named(object, "sensitive_attributes") {
                let raw = listed.to_string();
                let listed = sensitive::paths_to_mask(&raw);
                paths.extend(sensitive::with_copies(type_name, listed));
            }
        }
        for object in [&mut before, &mut after].into_iter().flatten() {
            for attributes in named_mut(object, "attributes") {
                // Also through dynamic-typed values (`{"value": V, "type": T}`), whose paths skip the
                // wrapper.
                mask_paths(attributes, &paths);
            }
            // The provider's private blob is opaque and may hold anything; its change is what matters.
            for private in named_mut(object, "private").filter(|value| value.is_string()) {
                *private = Value::String(format!(
                    "({} bytes of provider data)",
                    private.as_str().map_or(0, str::len)
                ));
            }
        }
        if private_changed
            && let (Some(before), Some(after)) = (&before, &mut after)
            && named(before, "private").eq(named(after, "private"))
        {
            for new in named_mut(after, "private") {
                if let Some(text) = new.as_str() {
                    *new = Value::String(format!("{}, changed)", text.trim_end_matches(')')));
                }
            }
        }
    }
    let pretty = |object: &Option<Value>| {
        object.as_ref().map_or_else(String::new, |value| {
            let mut text = serde_json::to_string_pretty(value).expect("JSON values serialize");
            text.push('\n');
            text
        })
    };
    let (old, new) = (pretty(&before), pretty(&after));
    let diff = TextDiff::from_lines(&old, &new);
    let from = if before.is_some() {
        label.to_owned()
    } else {
        "/dev/null".to_owned()
    };
    let to = if after.is_some() {
        label.to_owned()
    } else {
        "/dev/null".to_owned()
    };
    diff.unified_diff()
        .context_radius(3)
        .header(&from, &to)
        .to_string()
}

/// A quick 64-bit digest (eight bytes a step, multiply and rotate): only to tell whether a long value
/// changed, with no adversary to resist, at several GB/s where SipHash manages one or two.
fn digest(bytes: &[u8]) -> u64 {
    const SEED: u64 = 0x517c_c1b7_2722_0a95;
    let step = |hash: u64, word: u64| (hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    let mut chunks = bytes.chunks_exact(8);
    let mut hash = bytes.len() as u64;
    for chunk in &mut chunks {
        hash = step(
            hash,
            u64::from_le_bytes(chunk.try_into().expect("eight bytes")),
        );
    }
    let mut tail = [0; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    step(hash, u64::from_le_bytes(tail))
}

/// Colors a unified diff for a terminal: removals red, additions green, hunk headers cyan.
pub(super) fn colorize(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    for line in diff.split_inclusive('\n') {
        let style = if line.starts_with("+++") || line.starts_with("---") {
            Some(Style::Strong)
        } else if line.starts_with('+') {
            Some(Style::Added)
        } else if line.starts_with('-') {
            Some(Style::Removed)
        } else if line.starts_with("@@") {
            Some(Style::Info)
        } else {
            None
        };
        if let Some(style) = style {
            let (text, newline) = line
                .strip_suffix('\n')
                .map_or((line, ""), |text| (text, "\n"));
            paint_into(&mut out, style, text, true);
            out.push_str(newline);
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::sensitive::MASK;

    #[test]
    fn masks_secrets_on_both_sides_with_both_sides_paths() {
        let before = r#"{"attributes":{"id":"a","password":"hunter2"},"sensitive_attributes":[[{"type":"get_attr","value":"password"}]]}"#;
        // After a refresh the password is no longer marked; its old value must not show.
        let after = r#"{"status":"tainted","attributes":{"id":"a","password":"hunter3"},"sensitive_attributes":[]}"#;
        let diff = object_diff(
            "aws_db_instance.a",
            "aws_db_instance",
            Some(before),
            Some(after),
            false,
        );
        assert!(!diff.contains("hunter"), "{diff}");
        assert!(diff.contains(MASK));
        assert!(diff.contains("+  \"status\": \"tainted\","), "{diff}");
        assert!(
            diff.starts_with("--- aws_db_instance.a\n+++ aws_db_instance.a\n"),
            "{diff}"
        );
        let revealed = object_diff(
            "aws_db_instance.a",
            "aws_db_instance",
            Some(before),
            Some(after),
            true,
        );
        assert!(revealed.contains("hunter2") && revealed.contains("hunter3"));
    }

    /// A member written twice in two cases (Terraform reads the last): the secrets of both are
    /// masked, with the paths of every `sensitive_attributes` in any case, and a changed private
    /// blob in another case still says it changed.
    #[test]
    fn members_in_any_case_are_masked() {
        let object = |secret: &str, private: &str| {
            format!(
                r#"{{"attributes":{{"id":"a","password":"shadow-{secret}"}},"Attributes":{{"id":"b","password":"read-{secret}","token":"t-{secret}"}},"Sensitive_Attributes":[[{{"type":"get_attr","value":"password"}}]],"sensitive_attributes":[[{{"type":"get_attr","value":"token"}}]],"Private":"{private}"}}"#
            )
        };
        let (before, after) = (object("one", "AAAA"), object("two", "BBBB"));
        let diff = object_diff("t.a", "t", Some(&before), Some(&after), false);
        for secret in [
            "shadow-one",
            "read-one",
            "t-one",
            "shadow-two",
            "read-two",
            "t-two",
        ] {
            assert!(!diff.contains(secret), "{secret}: {diff}");
        }
        assert!(
            diff.contains("(4 bytes of provider data, changed)"),
            "{diff}"
        );
        assert!(!diff.contains("AAAA") && !diff.contains("BBBB"), "{diff}");
        let revealed = object_diff("t.a", "t", Some(&before), Some(&after), true);
        assert!(revealed.contains("read-two") && revealed.contains("shadow-one"));
    }

    #[test]
    fn a_removal_diffs_against_nothing() {
        let diff = object_diff(
            "x.y",
            "x",
            Some(r#"{"attributes":{"id":"a"}}"#),
            None,
            false,
        );
        assert!(diff.starts_with("--- x.y\n+++ /dev/null\n"), "{diff}");
        assert!(
            diff.lines().skip(3).all(|line| line.starts_with('-')),
            "{diff}"
        );
    }

    #[test]
    fn a_changed_private_blob_of_the_same_length_shows_as_changed() {
        let before = r#"{"attributes":{"id":"a"},"private":"AAAA"}"#;
        let after = r#"{"attributes":{"id":"a"},"private":"BBBB"}"#;
        let diff = object_diff("x.y", "x", Some(before), Some(after), false);
        assert!(!diff.contains("AAAA") && !diff.contains("BBBB"), "{diff}");
        assert!(
            diff.contains("+  \"private\": \"(4 bytes of provider data, changed)\""),
            "{diff}"
        );
        let same = object_diff("x.y", "x", Some(before), Some(before), false);
        assert!(!same.contains("changed"), "{same}");
    }

    #[test]
    fn long_strings_show_by_their_start_size_and_digest() {
        let long = "x".repeat(LONG_STRING + 1);
        let other = format!("{}y", "x".repeat(LONG_STRING));
        let object = |value: &str| {
            format!(
                r#"{{"status":"","attributes":{{"id":"a","data":"{value}","list":["{value}"]}},"private":"{value}"}}"#
            )
        };
        let (before, after) = (
            object(&long),
            object(&long).replacen("\"status\":\"\"", "\"status\":\"tainted\"", 1),
        );
        let diff = object_diff("x.y", "x", Some(&before), Some(&after), false);
        assert!(diff.len() < 3 * LONG_STRING, "{} bytes of diff", diff.len());
        assert!(
            diff.contains(&format!(
                " \"data\": \"{}... ({} bytes of JSON text, digest ",
                "x".repeat(40),
                LONG_STRING + 1
            )),
            "{}",
            &diff[..500]
        );
        assert!(diff.contains("+  \"status\": \"tainted\","));
        // A changed long value of the same size still shows as a change.
        let changed = object_diff(
            "x.y",
            "x",
            Some(&object(&long)),
            Some(&object(&other)),
            true,
        );
        assert!(
            changed.contains("-    \"data\": ") && changed.contains("+    \"data\": "),
            "{changed:.2000}"
        );
        // Escapes are cut off rather than broken.
        let escaped = format!("{}\\n{}", "é".repeat(19), "z".repeat(LONG_STRING));
        let shown = shorten_long_strings(&object(&escaped)).into_owned();
        assert!(
            shown.contains(&format!("\"{}... (", "é".repeat(19))),
            "{shown:.300}"
        );
        assert!(serde_json::from_str::<Value>(&shown).is_ok());
        assert_ne!(digest(b"abcdefgh1"), digest(b"abcdefgh2"));
        assert_ne!(digest(b"a"), digest(b"a\0"));
    }

    /// Issue 24 item 20: past serde_json's 128 levels the diff said only "changed; not shown".
    #[test]
    fn an_object_nested_past_128_levels_is_diffed() {
        let deep = format!(
            r#"{{"attributes":{{"a":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let tainted = deep.replacen('{', r#"{"status":"tainted","#, 1);
        let diff = object_diff("x.y", "x", Some(&deep), Some(&tainted), false);
        assert!(
            diff.contains("\n+  \"status\": \"tainted\",\n"),
            "{diff:.2000}"
        );
        assert!(!diff.contains("not shown"), "{diff:.2000}");
    }

    #[test]
    fn colors_only_changed_lines() {
        let colored = colorize("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z\n");
        assert!(colored.contains("\x1b[31m-x\x1b[0m\n"));
        assert!(colored.contains("\x1b[32m+y\x1b[0m\n"));
        assert!(colored.ends_with(" z\n"));
    }

    /// terraform_data copies `input` to `output`, and Terraform marks only `input`: the copy is
    /// masked too.
    #[test]
    fn a_terraform_data_output_copied_from_a_sensitive_input_is_masked() {
        let before = r#"{"attributes":{"input":{"value":"hunter2","type":"string"},"output":{"value":"hunter2","type":"string"}},"sensitive_attributes":[[{"type":"get_attr","value":"input"}]]}"#;
        let after = r#"{"attributes":{"input":{"value":"hunter3","type":"string"},"output":{"value":"hunter3","type":"string"}},"sensitive_attributes":[[{"type":"get_attr","value":"input"}]]}"#;
        let diff = object_diff(
            "terraform_data.p",
            "terraform_data",
            Some(before),
            Some(after),
            false,
        );
        assert!(!diff.contains("hunter"), "{diff}");
        let other = object_diff("x.p", "x_other", Some(before), Some(after), false);
        assert!(
            other.contains("hunter2"),
            "only terraform_data's output is a copy: {other}"
        );
    }
}
