//! The checks a state's `check_results` records as failed or errored, read in place with the
//! project's cursor: each entry's `config_addr` and `object_kind`, and of its `objects` those whose
//! `status` is `fail` or `error`, with their `object_addr` and `failure_messages`.
//!
//! Why not a `serde_json` tree: every state Terraform 1.5+ writes has `check_results`, and building
//! the whole tree (a map per entry and per object, a string per value) was a sixth of the
//! allocations of a scan of 2,070 states, to read a few strings of the failing objects.
//!
//! Read as the tree was: members by their exact names, the last of a repeated name, a value of
//! another kind than the one asked for as none, entries and objects that are not objects as
//! having no members.

use std::borrow::Cow;

use statectl_state::json::{Cursor, JsonError, Span};

/// An object of `check_results` whose condition failed or errored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FailedCheck<'a> {
    /// Its entry's `object_kind` (`resource`, `output_value`, `check`...), when a string.
    pub kind: Option<Cow<'a, str>>,
    /// Its entry's `config_addr`, when a string.
    pub config: Option<Cow<'a, str>>,
    /// Its own `object_addr`, when a string.
    pub address: Option<Cow<'a, str>>,
    /// `fail` or `error`.
    pub status: &'static str,
    /// The strings of its `failure_messages`, in order.
    pub messages: Vec<Cow<'a, str>>,
}

/// The failed and errored checks of `text`, the value of a state's `check_results`, in order; none
/// when it is not an array (`null`), or not JSON (the parse checked it: never).
pub(crate) fn failed_checks(text: &str) -> Vec<FailedCheck<'_>> {
    let mut failed = Vec::new();
    let mut cursor = Cursor::new(text);
    if cursor.peek() != Some(b'[') {
        return failed;
    }
    let read = cursor.array(|cursor| entry(cursor, text, &mut failed));
    if read.is_err() {
        failed.clear();
    }
    failed
}

/// One entry: its own members first (its `objects` may come before its `config_addr`), then the
/// failing objects of its last `objects` array.
fn entry<'a>(
    cursor: &mut Cursor<'a>,
    text: &'a str,
    failed: &mut Vec<FailedCheck<'a>>,
) -> Result<(), JsonError> {
    let (mut config, mut kind, mut objects) = (None, None, None);
    if cursor.peek() != Some(b'{') {
        cursor.skip_value()?;
        return Ok(());
    }
    cursor.object(|cursor, key, _| {
        match key.as_ref() {
            "config_addr" => config = string(cursor)?,
            "object_kind" => kind = string(cursor)?,
            "objects" => objects = array(cursor)?,
            _ => {
                cursor.skip_value()?;
            }
        }
        Ok::<_, JsonError>(())
    })?;
    let Some(objects) = objects else {
        return Ok(());
    };
    let mut cursor = Cursor::new(objects.of(text));
    cursor.array(|cursor| {
        if cursor.peek() != Some(b'{') {
            cursor.skip_value()?;
            return Ok(());
        }
        let (mut status, mut address, mut messages) = (None, None, None);
        cursor.object(|cursor, key, _| {
            match key.as_ref() {
                "status" => status = string(cursor)?,
                "object_addr" => address = string(cursor)?,
                "failure_messages" => messages = array(cursor)?,
                _ => {
                    cursor.skip_value()?;
                }
            }
            Ok::<_, JsonError>(())
        })?;
        let status = match status.as_deref() {
            Some("fail") => "fail",
            Some("error") => "error",
            _ => return Ok(()),
        };
        failed.push(FailedCheck {
            kind: kind.clone(),
            config: config.clone(),
            address,
            status,
            messages: match messages {
                Some(span) => strings_of(span.of(objects.of(text)))?,
                None => Vec::new(),
            },
        });
        Ok(())
    })?;
    Ok(())
}

/// The string at the cursor, decoded; `None` (the value skipped) for any other value.
fn string<'a>(cursor: &mut Cursor<'a>) -> Result<Option<Cow<'a, str>>, JsonError> {
    if cursor.peek() == Some(b'"') {
        return Ok(Some(cursor.string()?.0));
    }
    cursor.skip_value()?;
    Ok(None)
}

/// The place of the array at the cursor; `None` (the value skipped) for any other value.
fn array(cursor: &mut Cursor<'_>) -> Result<Option<Span>, JsonError> {
    let is_array = cursor.peek() == Some(b'[');
    let span = cursor.skip_value()?;
    Ok(is_array.then_some(span))
}

/// The strings of the array `text`, decoded, its other values left out.
fn strings_of(text: &str) -> Result<Vec<Cow<'_, str>>, JsonError> {
    let mut strings = Vec::new();
    Cursor::new(text).array(|cursor| {
        strings.extend(string(cursor)?);
        Ok::<_, JsonError>(())
    })?;
    Ok(strings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the `serde_json` tree the detector read before answers, for the differential test.
    fn as_the_tree_reads(text: &str) -> Vec<FailedCheck<'static>> {
        let Ok(serde_json::Value::Array(entries)) = serde_json::from_str::<serde_json::Value>(text)
        else {
            return Vec::new();
        };
        let owned = |value: &serde_json::Value| value.as_str().map(|text| Cow::Owned(text.into()));
        let mut failed = Vec::new();
        for entry in &entries {
            for object in entry["objects"].as_array().into_iter().flatten() {
                let status = match object["status"].as_str() {
                    Some("fail") => "fail",
                    Some("error") => "error",
                    _ => continue,
                };
                failed.push(FailedCheck {
                    kind: owned(&entry["object_kind"]),
                    config: owned(&entry["config_addr"]),
                    address: owned(&object["object_addr"]),
                    status,
                    messages: object["failure_messages"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(&owned)
                        .collect(),
                });
            }
        }
        failed
    }

    #[test]
    fn failed_checks_are_what_the_tree_read() {
        let cases = [
            "null",
            "[]",
            "{}",
            r#""text""#,
            r#"[{"object_kind": "resource", "config_addr": "aws_instance.web", "status": "fail", "objects": [
                {"object_addr": "aws_instance.web[0]", "status": "fail", "failure_messages": ["too small", 3, null, "and \"quoted\"\n"]},
                {"object_addr": "aws_instance.web[1]", "status": "pass"},
                {"object_addr": "aws_instance.web[2]", "status": "error"},
                {"status": "unknown"}
            ]}]"#,
            // `objects` before the entry's names; names repeated (the last read); kinds wrong.
            r#"[{"objects": [{"status": "fail", "object_addr": "a.first", "object_addr": "a.last"}],
                 "config_addr": "c.first", "config_addr": "c.last", "object_kind": 7},
                {"config_addr": null, "objects": [{"status": "error", "object_addr": ["x"], "failure_messages": "one"}]},
                {"objects": null}, {"objects": {"status": "fail"}}, 5, "entry", null, [],
                {"objects": [1, "two", null, [], {"Status": "fail"}, {"status": "FAIL"}, {"status": "fail", "status": "pass"},
                             {"status": "pass", "status": "error", "failure_messages": [], "failure_messages": ["second"]}]},
                {"objects": [{"status": "fail"}], "objects": [{"status": "error", "object_addr": "b.kept"}]}]"#,
            // Escapes in every string read.
            r#"[{"config_addr": "module.m[\"k\"].check.c", "object_kind": "\u0063heck", "objects": [
                {"status": "f\u0061il", "object_addr": "module.m[\"k\"].check.c", "failure_messages": ["\ud83d\ude00 \t \\"]}]}]"#,
        ];
        for text in cases {
            assert_eq!(failed_checks(text), as_the_tree_reads(text), "{text}");
        }
        // Not one case without a failure: the readers agree on more than nothing.
        assert_eq!(failed_checks(cases[4]).len(), 2);
        assert_eq!(failed_checks(cases[5]).len(), 4);
        assert_eq!(failed_checks(cases[6])[0].messages, ["\u{1F600} \t \\"]);
    }

    #[test]
    fn values_the_tree_refused_hide_no_failed_check() {
        // Go's reader (Terraform's) takes each of these; `serde_json` refused the whole value for
        // any one of them, and the scan then reported none of its failed checks.
        let failing = r#"{"config_addr": "aws_instance.web", "objects": [{"status": "fail", "failure_messages": ["too small"]}]}"#;
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for odd in [
            r#"{"config_addr": "check.odd", "objects": [{"status": "pass", "failure_messages": ["\ud800 lone"]}]}"#.to_owned(),
            format!(r#"{{"config_addr": "check.deep", "value": {deep}}}"#),
        ] {
            for text in [format!("[{failing}, {odd}]"), format!("[{odd}, {failing}]")] {
                assert!(as_the_tree_reads(&text).is_empty(), "the tree read {text}");
                let failed = failed_checks(&text);
                assert_eq!(failed.len(), 1, "{text}");
                assert_eq!(failed[0].config.as_deref(), Some("aws_instance.web"));
                assert_eq!(failed[0].messages, ["too small"]);
            }
        }
    }
}
