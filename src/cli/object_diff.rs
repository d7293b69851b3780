//! The diff a mutating command shows: for each object it changes, a unified diff of the object as
//! pretty JSON before and after, sensitive values masked on both sides (with the union of both sides'
//! sensitive paths, so a value that stopped being sensitive does not show its old secret).

use serde_json::Value;
use similar::TextDiff;

use crate::diff::mask_paths;
use crate::state::sensitive;

/// A unified diff of one object. `before`/`after` are the object's JSON text; `None` is "no object"
/// (a removal, or a creation).
pub fn object_diff(label: &str, before: Option<&str>, after: Option<&str>, reveal: bool) -> String {
    object_diff_values(
        label,
        before.and_then(|text| serde_json::from_str::<Value>(text).ok()),
        after.and_then(|text| serde_json::from_str::<Value>(text).ok()),
        reveal,
    )
}

/// [`object_diff`] of decoded objects (which `diff` first aligns, so that member order and number
/// spelling do not show as changes).
pub fn object_diff_values(
    label: &str,
    mut before: Option<Value>,
    mut after: Option<Value>,
    reveal: bool,
) -> String {
    if !reveal {
        // Masked, a changed blob of the same length would look unchanged; say that it changed.
        let private_changed = match (&before, &after) {
            (Some(before), Some(after)) => before.get("private") != after.get("private"),
            _ => false,
        };
        let mut paths = Vec::new();
        for object in [&before, &after].into_iter().flatten() {
            if let Some(listed) = object.get("sensitive_attributes") {
                let raw = listed.to_string();
                paths.extend(sensitive::parse_paths(&raw).unwrap_or_default());
            }
        }
        for object in [&mut before, &mut after].into_iter().flatten() {
            if let Some(attributes) = object.get_mut("attributes") {
                // Also through dynamic-typed values (`{"value": V, "type": T}`), whose paths skip the
                // wrapper.
                mask_paths(attributes, &paths);
            }
            // The provider's private blob is opaque and may hold anything; its change is what matters.
            if let Some(private) = object.get_mut("private").filter(|value| value.is_string()) {
                *private = Value::String(format!(
                    "({} bytes of provider data)",
                    private.as_str().map_or(0, str::len)
                ));
            }
        }
        if private_changed
            && let Some((Some(old), Some(new))) = before
                .as_ref()
                .zip(after.as_mut())
                .map(|(before, after)| (before.get("private"), after.get_mut("private")))
            && old == new
            && let Some(text) = new.as_str()
        {
            *new = Value::String(format!("{}, changed)", text.trim_end_matches(')')));
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

/// Colors a unified diff for a terminal: removals red, additions green, hunk headers cyan.
pub fn colorize(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    for line in diff.split_inclusive('\n') {
        let color = if line.starts_with("+++") || line.starts_with("---") {
            "\x1b[1m"
        } else if line.starts_with('+') {
            "\x1b[32m"
        } else if line.starts_with('-') {
            "\x1b[31m"
        } else if line.starts_with("@@") {
            "\x1b[36m"
        } else {
            ""
        };
        if color.is_empty() {
            out.push_str(line);
        } else {
            let (text, newline) = line
                .strip_suffix('\n')
                .map_or((line, ""), |text| (text, "\n"));
            out.push_str(color);
            out.push_str(text);
            out.push_str("\x1b[0m");
            out.push_str(newline);
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
        let diff = object_diff("aws_db_instance.a", Some(before), Some(after), false);
        assert!(!diff.contains("hunter"), "{diff}");
        assert!(diff.contains(MASK));
        assert!(diff.contains("+  \"status\": \"tainted\","), "{diff}");
        assert!(
            diff.starts_with("--- aws_db_instance.a\n+++ aws_db_instance.a\n"),
            "{diff}"
        );
        let revealed = object_diff("aws_db_instance.a", Some(before), Some(after), true);
        assert!(revealed.contains("hunter2") && revealed.contains("hunter3"));
    }

    #[test]
    fn a_removal_diffs_against_nothing() {
        let diff = object_diff("x.y", Some(r#"{"attributes":{"id":"a"}}"#), None, false);
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
        let diff = object_diff("x.y", Some(before), Some(after), false);
        assert!(!diff.contains("AAAA") && !diff.contains("BBBB"), "{diff}");
        assert!(
            diff.contains("+  \"private\": \"(4 bytes of provider data, changed)\""),
            "{diff}"
        );
        let same = object_diff("x.y", Some(before), Some(before), false);
        assert!(!same.contains("changed"), "{same}");
    }

    #[test]
    fn colors_only_changed_lines() {
        let colored = colorize("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z\n");
        assert!(colored.contains("\x1b[31m-x\x1b[0m\n"));
        assert!(colored.contains("\x1b[32m+y\x1b[0m\n"));
        assert!(colored.ends_with(" z\n"));
    }
}
