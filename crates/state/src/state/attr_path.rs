//! Attribute paths: `state`, `last_operation.state`, `last_operation[0].state`, or JSONPath with the
//! same steps (`$.last_operation[0].state`, `$['state']`). Simple paths are followed through the raw
//! attributes without decoding them; anything richer (wildcards, filters) goes through jsonpath-rust.

use jsonpath_rust::JsonPath;
use serde_json::Value;

use crate::json::bytes::skip_layout;
use crate::json::{Span, trusted};

pub use crate::json::Step;

/// A parsed attribute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrPath {
    Steps(Vec<Step>),
    /// A JSONPath expression with more than names and indices, evaluated on decoded attributes.
    Query(String),
}

/// An attribute path that does not parse; the caller names where it was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttrPathError {
    #[error("an empty attribute path")]
    Empty,
    /// jsonpath-rust's reason, on one line.
    #[error("invalid JSONPath `{path}`: {reason}")]
    JsonPath { path: String, reason: String },
    #[error(
        "invalid attribute path `{path}`: write `name`, `name.child`, `name[0].child` or a JSONPath starting with `$`"
    )]
    Syntax { path: String },
}

impl AttrPath {
    pub fn parse(text: &str) -> Result<AttrPath, AttrPathError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(AttrPathError::Empty);
        }
        match simple_steps(trimmed) {
            Some(steps) if !steps.is_empty() => Ok(AttrPath::Steps(steps)),
            _ if trimmed.starts_with('$') => {
                let probe = Value::Object(serde_json::Map::new());
                probe
                    .query(trimmed)
                    .map_err(|error| AttrPathError::JsonPath {
                        path: trimmed.to_owned(),
                        reason: one_line(&error.to_string()),
                    })?;
                Ok(AttrPath::Query(trimmed.to_owned()))
            }
            _ => Err(AttrPathError::Syntax {
                path: trimmed.to_owned(),
            }),
        }
    }

    /// Values at this path in the attributes object `raw` (valid JSON), as raw JSON text.
    pub fn values(&self, raw: &str) -> Vec<String> {
        match self {
            AttrPath::Steps(steps) => follow(raw, steps)
                .map(|span| span.of(raw).to_owned())
                .into_iter()
                .collect(),
            AttrPath::Query(query) => {
                let Ok(document) = serde_json::from_str::<Value>(raw) else {
                    return Vec::new();
                };
                document
                    .query(query)
                    .map(|found| found.into_iter().map(ToString::to_string).collect())
                    .unwrap_or_default()
            }
        }
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `a.b[0].c`, `$.a.b[0]`, `$['a']["b"]`: names and indices only.
fn simple_steps(text: &str) -> Option<Vec<Step>> {
    let mut rest = text.strip_prefix('$').unwrap_or(text);
    let mut steps = Vec::new();
    let mut first = !text.starts_with('$');
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']')?;
            let inside = after[..close].trim();
            if let Some(quoted) = inside
                .strip_prefix('\'')
                .and_then(|inner| inner.strip_suffix('\''))
                .or_else(|| {
                    inside
                        .strip_prefix('"')
                        .and_then(|inner| inner.strip_suffix('"'))
                })
            {
                steps.push(Step::Member(quoted.to_owned()));
            } else {
                steps.push(Step::Index(inside.parse().ok()?));
            }
            rest = &after[close + 1..];
        } else {
            let after = if first { rest } else { rest.strip_prefix('.')? };
            let length = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..length];
            if name.is_empty()
                || !name
                    .chars()
                    .all(|character| character.is_alphanumeric() || matches!(character, '_' | '-'))
            {
                return None;
            }
            steps.push(Step::Member(name.to_owned()));
            rest = &after[length..];
        }
        first = false;
    }
    Some(steps)
}

/// An attributes object with its top-level members read once: the detectors ask for several of them
/// (`id`, `async`, status paths, required attributes) and each lookup would otherwise walk it again.
#[derive(Debug)]
pub struct Attributes<'a> {
    pub raw: &'a str,
    members: Vec<(&'a str, Span)>,
}

impl<'a> Attributes<'a> {
    pub fn new(raw: &'a str) -> Attributes<'a> {
        let start = skip_layout(raw.as_bytes(), 0);
        let members = if raw.as_bytes().get(start) == Some(&b'{') {
            trusted::members(raw, start).collect()
        } else {
            Vec::new()
        };
        Attributes { raw, members }
    }

    /// The raw JSON of a top-level attribute (the last, if the key is repeated, as Go reads it).
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.members
            .iter()
            .rev()
            .find(|(key, _)| *key == name)
            .map(|(_, span)| span.of(self.raw))
    }

    /// The top-level members, raw keys and values.
    pub fn members(&self) -> impl Iterator<Item = (&'a str, &'a str)> + '_ {
        self.members
            .iter()
            .map(|(key, span)| (*key, span.of(self.raw)))
    }

    /// Values at `path`.
    pub fn values(&self, path: &AttrPath) -> Vec<String> {
        match path {
            AttrPath::Steps(steps) => match steps.split_first() {
                Some((Step::Member(first), rest)) => self
                    .members
                    .iter()
                    .rev()
                    .find(|(key, _)| key == first)
                    .and_then(|(_, span)| follow_from(self.raw, *span, rest))
                    .map(|span| span.of(self.raw).to_owned())
                    .into_iter()
                    .collect(),
                _ => path.values(self.raw),
            },
            AttrPath::Query(_) => path.values(self.raw),
        }
    }
}

/// Follows `steps` through the valid JSON `raw`. A name applied to a list looks into its first
/// element: SDKv2 providers store a nested block as a one-element list, framework providers as an
/// object, so `last_operation.state` reads either.
pub fn follow(raw: &str, steps: &[Step]) -> Option<Span> {
    follow_from(
        raw,
        Span::new(skip_layout(raw.as_bytes(), 0), raw.len()),
        steps,
    )
}

fn follow_from(raw: &str, mut at: Span, steps: &[Step]) -> Option<Span> {
    let bytes = raw.as_bytes();
    for step in steps {
        let mut start = at.start;
        if matches!(step, Step::Member(_)) && bytes.get(start) == Some(&b'[') {
            start = trusted::elements(raw, start).next()?.start;
        }
        at = match step {
            Step::Member(name) if bytes.get(start) == Some(&b'{') => {
                trusted::members(raw, start)
                    .filter(|(key, _)| key == name)
                    .last()?
                    .1
            }
            Step::Index(index) if bytes.get(start) == Some(&b'[') => {
                trusted::elements(raw, start).nth(*index)?
            }
            _ => return None,
        };
    }
    Some(at)
}

/// Does `value` (a decoded string) equal one of `listed`, ignoring ASCII case and surrounding space?
pub fn listed(listed: &[String], value: &str) -> bool {
    let value = value.trim();
    listed
        .iter()
        .any(|candidate| candidate.trim().eq_ignore_ascii_case(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_simple_paths_and_jsonpath() {
        let steps = |text| AttrPath::parse(text).unwrap();
        let expected = AttrPath::Steps(vec![
            Step::Member("last_operation".into()),
            Step::Index(0),
            Step::Member("state".into()),
        ]);
        assert_eq!(steps("last_operation[0].state"), expected);
        assert_eq!(steps("$.last_operation[0].state"), expected);
        assert_eq!(steps("$['last_operation'][0]['state']"), expected);
        assert!(matches!(steps("$..state"), AttrPath::Query(_)));
        assert!(AttrPath::parse("a..").is_err());
        assert!(AttrPath::parse("$[?").is_err());
    }

    #[test]
    fn follows_paths_through_objects_and_block_lists() {
        let framework = r#"{"last_operation": {"state": "in progress", "type": "create"}}"#;
        let sdk = r#"{"last_operation": [{"state": "in progress"}]}"#;
        let path = AttrPath::parse("last_operation.state").unwrap();
        assert_eq!(path.values(framework), ["\"in progress\""]);
        assert_eq!(path.values(sdk), ["\"in progress\""]);
        assert_eq!(
            AttrPath::parse("missing").unwrap().values(framework),
            Vec::<String>::new()
        );
        assert_eq!(
            AttrPath::parse("$..state").unwrap().values(sdk),
            ["\"in progress\""]
        );
    }
}
