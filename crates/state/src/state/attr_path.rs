//! Attribute paths: `state`, `last_operation.state`, `last_operation[0].state`, or JSONPath with the
//! same steps (`$.last_operation[0].state`, `$['state']`). Simple paths are followed through the raw
//! attributes without decoding them; anything richer (wildcards, filters) runs on `json::path`, within
//! a budget sized from the attributes, since a rules file may come from someone else.

use crate::json::bytes::skip_layout;
use crate::json::keys::{MemberNames, same_name};
use crate::json::path::{Document, Exceeded, JsonPath, Limits};
use crate::json::wide::ask_ahead;
use crate::json::{Span, trusted};
use crate::state::model::{Instance, State};
use crate::state::notes::{Noted, value_after};

pub use crate::json::Step;

/// A parsed attribute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrPath {
    Steps(Vec<Step>),
    /// A JSONPath expression with more than names and indices.
    Query(JsonPath),
}

/// An attribute path that does not parse; the caller names where it was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttrPathError {
    #[error("an empty attribute path")]
    Empty,
    /// The JSONPath parser's reason, on one line.
    #[error("invalid JSONPath `{path}`: {reason}")]
    JsonPath { path: String, reason: String },
    #[error(
        "invalid attribute path `{path}`: write `name`, `name.child`, `name[0].child` or a JSONPath starting with `$`"
    )]
    Syntax { path: String },
}

/// A JSONPath that needs more work over one instance's attributes than their size allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("JSONPath `{path}` needs more work than {bytes} bytes of attributes allow ({exceeded})")]
pub struct TooCostly {
    pub path: String,
    pub bytes: usize,
    pub exceeded: Exceeded,
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
                JsonPath::parse(trimmed)
                    .map(AttrPath::Query)
                    .map_err(|error| AttrPathError::JsonPath {
                        path: trimmed.to_owned(),
                        reason: error.to_string(),
                    })
            }
            _ => Err(AttrPathError::Syntax {
                path: trimmed.to_owned(),
            }),
        }
    }

    /// Values at this path in the attributes object `raw`, as raw JSON text; none when `raw` is not
    /// JSON.
    pub fn values<'r>(&self, raw: &'r str) -> Result<Vec<&'r str>, TooCostly> {
        match self {
            AttrPath::Steps(steps) => Ok(follow(raw, steps)
                .map(|span| span.of(raw))
                .into_iter()
                .collect()),
            AttrPath::Query(path) => {
                let Ok(document) = Document::parse(raw) else {
                    return Ok(Vec::new());
                };
                let selection = path
                    .select(&document, Limits::for_attributes(raw.len()))
                    .map_err(|exceeded| TooCostly {
                        path: path.as_str().to_owned(),
                        bytes: raw.len(),
                        exceeded,
                    })?;
                Ok(selection.raw().collect())
            }
        }
    }
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

/// A member of [`Attributes`] read: its key, and where its value is.
#[derive(Debug, Clone, Copy)]
pub struct MemberRead<'a> {
    key: &'a str,
    value: Place<'a>,
}

/// Where the value of a member read is.
#[derive(Debug, Clone, Copy)]
enum Place<'a> {
    /// In the object's `source`, walked.
    In(Span),
    /// Taken from the parse's notes: a copy of the value, made as the parse passed it (the text's
    /// pages may have been given back since).
    Copy(&'a str),
    /// Taken from the parse's notes: in `source`, after the `:` at this offset, found when asked
    /// for (a value too long to copy).
    After(usize),
}

/// An attributes object with its top-level members read once: the detectors ask for several of them
/// (`id`, `async`, status paths, required attributes) and each lookup would otherwise walk it again.
#[derive(Debug)]
pub struct Attributes<'a> {
    /// The text the object is in, and where.
    source: &'a str,
    span: Span,
    /// The members read: each key, and where its value is.
    members: Vec<MemberRead<'a>>,
    /// Only the members this filter names were read (from the parse's notes); any other is looked
    /// up by walking the object when asked for.
    chosen: Option<&'a MemberNames>,
}

impl<'a> Attributes<'a> {
    pub fn new(raw: &'a str) -> Attributes<'a> {
        Attributes::new_in(raw, Vec::new())
    }

    /// The attributes of an instance of `state` (none when it has no object), their members taken
    /// from the notes the parse took (`parse_noting`), or else read by walking them, into `memory`
    /// as for [`Attributes::new_in`].
    pub fn of_instance_in(
        state: &'a State<'a>,
        instance: &Instance<'_>,
        mut memory: Vec<MemberRead<'a>>,
    ) -> Option<Attributes<'a>> {
        let span = instance.attributes()?;
        // Notes are only taken of an object, so the value is not looked at (it is far away in
        // memory by now): neither to check it is not `null` nor to cut a `&str` of it.
        let Some((filter, noted)) = state.notes.of(instance.notes, instance.span.start) else {
            return Some(Attributes::new_in(
                instance.attributes_json(state.source)?,
                memory,
            ));
        };
        memory.clear();
        memory.extend(noted.map(|(key, noted)| MemberRead {
            key,
            value: match noted {
                Noted::Copy(text) => Place::Copy(text),
                Noted::After(colon) => Place::After(colon),
            },
        }));
        Some(Attributes {
            source: state.source,
            span,
            members: memory,
            chosen: Some(filter),
        })
    }

    /// Asks for the memory that [`Attributes::of_instance_in`] and reading its noted values will
    /// wait on, for an instance a reader comes to soon: the places in the text of the values the
    /// parse noted and did not copy. A scan looked at each instance's few noted values long after
    /// the parse had passed them, and waited on memory for each (nearly all of the detectors' time
    /// on a large state); asked for a few instances ahead, they arrive while the instances before
    /// are read. Nothing without notes.
    pub fn ask_ahead(state: &State<'_>, instance: &Instance<'_>) {
        if let Some((_, noted)) = state.notes.of(instance.notes, instance.span.start) {
            for (_, noted) in noted {
                if let Noted::After(colon) = noted {
                    ask_ahead(state.source.as_bytes(), colon);
                }
            }
        }
    }

    /// [`Attributes::new`], its members kept in `memory` (emptied first, then given back by
    /// [`Attributes::into_memory`]): a caller reading every instance of a state one after another
    /// allocates once instead of growing a vector for each (four allocations for 25 members).
    pub fn new_in(raw: &'a str, mut memory: Vec<MemberRead<'a>>) -> Attributes<'a> {
        memory.clear();
        let start = skip_layout(raw.as_bytes(), 0);
        if raw.as_bytes().get(start) == Some(&b'{') {
            memory.extend(trusted::members(raw, start).map(|(key, span)| MemberRead {
                key,
                value: Place::In(span),
            }));
        }
        Attributes {
            source: raw,
            span: Span::new(0, raw.len()),
            members: memory,
            chosen: None,
        }
    }

    /// The memory of the members, for the next [`Attributes::new_in`].
    pub fn into_memory(self) -> Vec<MemberRead<'a>> {
        self.members
    }

    /// The attributes' raw JSON.
    pub fn raw(&self) -> &'a str {
        self.span.of(self.source)
    }

    /// The raw JSON of a top-level attribute (the last, if the key is repeated, as Go reads it).
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.member(name).map(|(text, span)| span.of(text))
    }

    /// Where the top-level attribute `name` is (the last, if the key is repeated): the text it is
    /// in (`source`, or a copy of the value), and where in that text.
    fn member(&self, name: &str) -> Option<(&'a str, Span)> {
        if self.read(name) {
            self.members
                .iter()
                .rev()
                .find(|member| self.is_named(member.key, name))
                .map(|member| self.value(member.value))
        } else {
            self.walk()
                .filter(|(key, _)| same_name(key, name))
                .last()
                .map(|(_, span)| (self.source, span))
        }
    }

    /// The text a read member's value is in, and where in it.
    fn value(&self, place: Place<'a>) -> (&'a str, Span) {
        match place {
            Place::In(span) => (self.source, span),
            Place::Copy(text) => (text, Span::new(0, text.len())),
            Place::After(colon) => (self.source, value_after(self.source, colon)),
        }
    }

    /// Whether the key of a member read is `name`: a key from the notes is the name itself, a
    /// walked one is as written (decoded to compare; `"i\u0064"` is `id`, as Go reads it).
    fn is_named(&self, key: &str, name: &str) -> bool {
        match self.chosen {
            Some(_) => key == name,
            None => same_name(key, name),
        }
    }

    /// Were the members named `name` read (all are, unless only the chosen ones were)?
    fn read(&self, name: &str) -> bool {
        self.chosen
            .is_none_or(|filter| filter.wants(name.as_bytes()))
    }

    /// Every top-level member, walked: keys, and values' places in `source`.
    fn walk(&self) -> impl Iterator<Item = (&'a str, Span)> + use<'a> {
        let raw = self.raw();
        let offset = self.span.start;
        let start = skip_layout(raw.as_bytes(), 0);
        let object = raw.as_bytes().get(start) == Some(&b'{');
        object
            .then(|| trusted::members(raw, start))
            .into_iter()
            .flatten()
            .map(move |(key, span)| (key, Span::new(span.start + offset, span.end + offset)))
    }

    /// The top-level members named one of `names`, in the object's order: each as the name it
    /// has (decoded, one of `names`), and its raw value.
    pub fn members_named<'n>(&self, names: &'n [String]) -> Vec<(&'n str, &'a str)> {
        // A walked key is compared as written; one of `members` as `is_named` says.
        let name_of = |key: &str, walked: bool| {
            names
                .iter()
                .find(|name| {
                    if walked {
                        same_name(key, name)
                    } else {
                        self.is_named(key, name)
                    }
                })
                .map(String::as_str)
        };
        if names.iter().all(|name| self.read(name)) {
            self.members
                .iter()
                .filter_map(|member| {
                    let (text, span) = self.value(member.value);
                    Some((name_of(member.key, false)?, span.of(text)))
                })
                .collect()
        } else {
            self.walk()
                .filter_map(|(key, span)| Some((name_of(key, true)?, span.of(self.source))))
                .collect()
        }
    }

    /// Values at `path`.
    pub fn values(&self, path: &AttrPath) -> Result<Vec<&'a str>, TooCostly> {
        match path {
            AttrPath::Steps(steps) => match steps.split_first() {
                Some((Step::Member(first), rest)) => Ok(self
                    .member(first)
                    .and_then(|(text, span)| {
                        follow_from(text, span, rest).map(|span| span.of(text))
                    })
                    .into_iter()
                    .collect()),
                _ => path.values(self.raw()),
            },
            AttrPath::Query(_) => path.values(self.raw()),
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
                    .filter(|(key, _)| same_name(key, name))
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
        assert_eq!(path.values(framework).unwrap(), ["\"in progress\""]);
        assert_eq!(path.values(sdk).unwrap(), ["\"in progress\""]);
        assert_eq!(
            AttrPath::parse("missing")
                .unwrap()
                .values(framework)
                .unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            AttrPath::parse("$..state").unwrap().values(sdk).unwrap(),
            ["\"in progress\""]
        );
    }

    /// Regression (issue 24): a rules file's `$..*..*..*..*..*` over a 100-deep attribute ran 33 s
    /// into an allocation abort; now it stops within the attributes' budget.
    #[test]
    fn a_hostile_path_runs_out_of_budget() {
        let raw = format!(r#"{{"deep": {}1{}}}"#, "[".repeat(100), "]".repeat(100));
        let path = AttrPath::parse("$..*..*..*..*..*").unwrap();
        let error = path.values(&raw).unwrap_err();
        assert_eq!(error.path, "$..*..*..*..*..*");
        assert!(
            error.to_string().contains("needs more work than 211 bytes"),
            "{error}"
        );
        assert_eq!(
            AttrPath::parse("$..*").unwrap().values(&raw).unwrap().len(),
            101
        );
    }
}
