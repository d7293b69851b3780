//! Profile templates: text with `{...}` placeholders that name an instance attribute
//! (`{attr.compartment_id}`), an environment variable (`{env.OCI_REGION}`), a profile variable
//! (`{var.region}`), the endpoint's base URL (`{endpoint}`), or a value of an earlier response
//! (`{attachments:$[0].vnicId}`, JSONPath). Alternatives are tried in order (`{attr.region|env.OCI_REGION}`)
//! and a trailing `?` makes a placeholder optional (`{attr.operation?}`): without it, a placeholder
//! with no value is an error, never an empty string that would quietly change a request.
//!
//! A `{` that is not followed by a letter or `_` is plain text, so JSON bodies need no escaping; `{{`
//! writes a literal `{` anywhere. This file parses templates and finds placeholder values; where a value
//! lands (a URL path, a query, a header, a JSON body) decides its encoding, which is `encode`'s job.

use jsonpath_rust::parser::errors::JsonPathError;
use jsonpath_rust::parser::parse_json_path;
use serde_json::Value;

use crate::reconcile::profile::endpoint::EndpointError;
use crate::reconcile::profile::path::{self, PathError};
use crate::state::attr_path::Step;

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// As written, for messages.
    pub text: String,
    pub(crate) parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    Literal(String),
    Slot(Slot),
}

/// One `{...}` placeholder.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// As written, braces included, for messages.
    pub text: String,
    pub alternatives: Vec<Ref>,
    /// Written with a trailing `?`: no value renders as nothing instead of failing.
    pub optional: bool,
}

/// What a placeholder refers to.
#[derive(Debug, Clone, PartialEq)]
pub enum Ref {
    Endpoint,
    Attr {
        path: String,
        steps: Vec<Step>,
    },
    Env(String),
    Var(String),
    /// A value of an earlier request's response, by JSONPath.
    Response {
        request: String,
        path: String,
    },
}

impl Ref {
    fn describe(&self) -> String {
        match self {
            Ref::Endpoint => "endpoint".to_owned(),
            Ref::Attr { path, .. } => format!("attr.{path}"),
            Ref::Env(name) => format!("env.{name}"),
            Ref::Var(name) => format!("var.{name}"),
            Ref::Response { request, path } => format!("{request}:{path}"),
        }
    }
}

/// A template that does not parse, or does not render for one instance: one sentence naming the
/// placeholder; the caller adds the file and place (at load) or the request and instance (at render).
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The start of the placeholder, as written.
    #[error("a placeholder opened at `{0}` is never closed with `}}`")]
    Unclosed(String),
    #[error("`{slot}`: `endpoint` stands alone; it always has a value")]
    EndpointAlone { slot: String },
    /// A required placeholder's one alternative has no value; `problem` says why.
    #[error("`{slot}`: {problem}")]
    NoValue { slot: String, problem: LookupError },
    /// `names` lists the alternatives, quoted.
    #[error("`{slot}`: none of {names} has a value")]
    NoneHasValue { slot: String, names: String },
    /// `kind` is `a list` or `an object`.
    #[error("`{slot}` is {kind}; only strings, numbers and booleans fit here")]
    NotScalar { slot: String, kind: &'static str },
    #[error("`{slot}`: {problem}")]
    AttrPath { slot: String, problem: PathError },
    #[error("`{slot}`: `{name}` is not an environment variable name (letters, digits and `_`)")]
    EnvName { slot: String, name: String },
    #[error("`{slot}`: `{name}` is not a variable name (letters, digits, `_` and `-`)")]
    VarName { slot: String, name: String },
    #[error(
        "`{slot}`: a response value is read with a JSONPath starting at `$`, e.g. `{{{request}:$.id}}`"
    )]
    ResponsePath { slot: String, request: String },
    /// jsonpath-rust's reason, on one line.
    #[error("`{slot}`: invalid JSONPath `{path}`: {reason}")]
    JsonPath {
        slot: String,
        path: String,
        reason: String,
    },
    #[error(
        "unknown template namespace `{namespace}` in `{slot}`: use `attr.NAME`, `env.NAME`, `var.NAME`, `endpoint`, or `REQUEST:$.json.path`"
    )]
    Namespace { namespace: String, slot: String },
    #[error("a default URL cannot use `{{endpoint}}`")]
    EndpointInDefaultUrl,
    #[error("`{{endpoint}}` must open the URL")]
    EndpointNotFirst,
    #[error("`{{endpoint}}` cannot be optional")]
    EndpointOptional,
    #[error("a URL starts with `{{endpoint}}`, `https://` or `http://`")]
    NoScheme,
    #[error("a URL starts with `{{endpoint}}`, `https://` or `http://`, not with `{slot}`")]
    SlotBeforeScheme { slot: String },
    /// What follows `{endpoint}`: a placeholder or a character.
    #[error("`{{endpoint}}` must be followed by `/`, not by `{0}`")]
    AfterEndpoint(String),
    #[error(
        "`{slot}` cannot be optional: an empty host label or path segment would change the URL"
    )]
    OptionalInUrl { slot: String },
    #[error(
        "`{0}` cannot stand in a URL template: query parameters belong in `query`, and a fragment is never sent"
    )]
    QueryOrFragment(char),
    #[error("`{0}` cannot stand in a host name (credentials belong in `auth`, never in a URL)")]
    HostCharacter(char),
    #[error("`{0}` cannot stand in a URL path: write it percent-encoded")]
    PathCharacter(char),
    /// The endpoint's base URL cannot be had (the profile names none, or its default URL does not
    /// render).
    #[error(transparent)]
    Endpoint(Box<LookupError>),
    /// The URL parser's reason.
    #[error("`{template}` is not a valid URL: {reason}")]
    InvalidUrl { template: String, reason: String },
    #[error("`{template}` is not an http(s) URL with a host")]
    NotHttp { template: String },
    #[error("`{template}`: a value is `.` or `..`, which would move the request to another path")]
    DotSegment { template: String },
    #[error("query `{name}`: {source}")]
    Query {
        name: String,
        source: Box<TemplateError>,
    },
    #[error("header `{name}`: {source}")]
    Header {
        name: String,
        source: Box<TemplateError>,
    },
    /// The value itself is not echoed: headers carry tokens.
    #[error(
        "header `{name}`: the value holds a control character (a line break would split the request)"
    )]
    HeaderControl { name: String },
    #[error("the body is not valid JSON once rendered: {0}")]
    BodyJson(#[source] serde_json::Error),
    #[error("`{slot}` fills a host name label: its value must be letters, digits and `-`")]
    HostLabel { slot: String },
    #[error("`{slot}` has no value")]
    Missing { slot: String },
}

/// Why one alternative of a placeholder has no value for this instance.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error("attribute `{0}` is null, empty or missing")]
    NoAttribute(String),
    #[error("environment variable `{0}` is not set")]
    NoEnv(String),
    #[error("variable `{0}` is empty")]
    EmptyVariable(String),
    #[error("`{path}` selects no value in the response of `{request}`")]
    NoResponseValue { request: String, path: String },
    #[error("the endpoint has no URL")]
    NoEndpointUrl,
    #[error("no variable `{0}`")]
    UnknownVariable(String),
    /// One of the variable's own placeholders has no value.
    #[error("variable `{name}`: {source}")]
    Variable {
        name: String,
        source: Box<TemplateError>,
    },
    /// The endpoint's default URL does not render for this instance.
    #[error("default_url: {0}")]
    DefaultUrl(#[source] Box<TemplateError>),
    #[error(transparent)]
    Base(#[from] EndpointError),
    #[error("the profile names no endpoint")]
    NoEndpoint,
    #[error("request `{0}` has not answered yet")]
    NotAnswered(String),
    #[error("`{path}`: {source}")]
    Query { path: String, source: JsonPathError },
}

/// Where placeholder values come from, for one instance at one moment of a poll.
pub(crate) trait Lookup {
    fn attribute(&self, steps: &[Step]) -> Option<Value>;
    fn env(&self, name: &str) -> Option<String>;
    /// A profile variable's value; an error when one of its own placeholders has none.
    fn variable(&self, name: &str) -> Result<Value, LookupError>;
    /// The endpoint's base URL, without a trailing `/`.
    fn endpoint(&self) -> Result<String, LookupError>;
    /// The first value `path` selects in `request`'s response.
    fn response(&self, request: &str, path: &str) -> Result<Option<Value>, LookupError>;
}

impl Template {
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(character) = rest.chars().next() {
            if let Some(after) = rest.strip_prefix("{{") {
                literal.push('{');
                rest = after;
                continue;
            }
            let opens = character == '{'
                && rest[1..]
                    .chars()
                    .next()
                    .is_some_and(|next| next.is_ascii_alphabetic() || next == '_');
            if !opens {
                literal.push(character);
                rest = &rest[character.len_utf8()..];
                continue;
            }
            let close =
                closing_brace(rest).ok_or_else(|| TemplateError::Unclosed(excerpt(rest)))?;
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            parts.push(Part::Slot(Slot::parse(&rest[..=close])?));
            rest = &rest[close + 1..];
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Template {
            text: text.to_owned(),
            parts,
        })
    }

    /// Every placeholder.
    pub fn slots(&self) -> impl Iterator<Item = &Slot> {
        self.parts.iter().filter_map(|part| match part {
            Part::Slot(slot) => Some(slot),
            Part::Literal(_) => None,
        })
    }

    /// Every reference of every placeholder.
    pub fn refs(&self) -> impl Iterator<Item = (&Slot, &Ref)> {
        self.slots().flat_map(|slot| {
            slot.alternatives
                .iter()
                .map(move |reference| (slot, reference))
        })
    }

    /// Does any placeholder read an environment variable? Such a header is sent as a secret.
    pub fn uses_env(&self) -> bool {
        self.refs()
            .any(|(_, reference)| matches!(reference, Ref::Env(_)))
    }

    /// The template as one value: a lone placeholder keeps its JSON type (so a variable that is a
    /// number stays one in a JSON body); anything else is text.
    pub(crate) fn value(&self, lookup: &dyn Lookup) -> Result<Value, TemplateError> {
        if let [Part::Slot(slot)] = self.parts.as_slice() {
            return Ok(slot
                .resolve(lookup)?
                .unwrap_or_else(|| Value::String(String::new())));
        }
        self.text_with(lookup).map(Value::String)
    }

    /// The template as text (a query value, a header value).
    pub(crate) fn text_with(&self, lookup: &dyn Lookup) -> Result<String, TemplateError> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Slot(slot) => {
                    if let Some(value) = slot.resolve(lookup)? {
                        out.push_str(&text_of(&value, slot)?);
                    }
                }
            }
        }
        Ok(out)
    }
}

impl Slot {
    fn parse(text: &str) -> Result<Slot, TemplateError> {
        let inner = &text[1..text.len() - 1];
        let (inner, optional) = match inner.trim_end().strip_suffix('?') {
            Some(before) => (before, true),
            None => (inner, false),
        };
        let alternatives = split_top_level(inner)
            .into_iter()
            .map(|alternative| parse_ref(alternative.trim(), text))
            .collect::<Result<Vec<_>, _>>()?;
        if alternatives.len() > 1 && alternatives.contains(&Ref::Endpoint) {
            return Err(TemplateError::EndpointAlone {
                slot: text.to_owned(),
            });
        }
        Ok(Slot {
            text: text.to_owned(),
            alternatives,
            optional,
        })
    }

    /// The first alternative with a value: present, not `null`, not `""` (the state writes both for
    /// "unset", and an empty value would silently change a URL or a query).
    pub(crate) fn resolve(&self, lookup: &dyn Lookup) -> Result<Option<Value>, TemplateError> {
        let mut problems = Vec::new();
        for reference in &self.alternatives {
            let found = match reference {
                Ref::Endpoint => lookup.endpoint().map(|base| Some(Value::String(base))),
                Ref::Attr { steps, .. } => Ok(lookup.attribute(steps)),
                Ref::Env(name) => Ok(lookup.env(name).map(Value::String)),
                Ref::Var(name) => lookup.variable(name).map(Some),
                Ref::Response { request, path } => lookup.response(request, path),
            };
            match found {
                Ok(Some(value)) if has_value(&value) => return Ok(Some(value)),
                Ok(_) => problems.push(missing(reference)),
                Err(problem) => problems.push(problem),
            }
        }
        if self.optional {
            return Ok(None);
        }
        if problems.len() == 1
            && let Some(one) = problems.pop()
        {
            return Err(TemplateError::NoValue {
                slot: self.text.clone(),
                problem: one,
            });
        }
        let names: Vec<String> = self
            .alternatives
            .iter()
            .map(|reference| format!("`{}`", reference.describe()))
            .collect();
        Err(TemplateError::NoneHasValue {
            slot: self.text.clone(),
            names: names.join(", "),
        })
    }
}

fn has_value(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(text) => !text.is_empty(),
        _ => true,
    }
}

fn missing(reference: &Ref) -> LookupError {
    match reference {
        Ref::Attr { path, .. } => LookupError::NoAttribute(path.clone()),
        Ref::Env(name) => LookupError::NoEnv(name.clone()),
        Ref::Var(name) => LookupError::EmptyVariable(name.clone()),
        Ref::Response { request, path } => LookupError::NoResponseValue {
            request: request.clone(),
            path: path.clone(),
        },
        Ref::Endpoint => LookupError::NoEndpointUrl,
    }
}

/// A value as text: strings as themselves, numbers as written, booleans as `true`/`false`.
pub(crate) fn text_of(value: &Value, slot: &Slot) -> Result<String, TemplateError> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Number(number) => Ok(number.to_string()),
        Value::Bool(flag) => Ok(flag.to_string()),
        Value::Null => Ok(String::new()),
        Value::Array(_) => Err(TemplateError::NotScalar {
            slot: slot.text.clone(),
            kind: "a list",
        }),
        Value::Object(_) => Err(TemplateError::NotScalar {
            slot: slot.text.clone(),
            kind: "an object",
        }),
    }
}

/// The byte offset of the `}` that closes the placeholder opening `text`, skipping braces inside
/// quoted strings and brackets (a JSONPath filter may hold either).
fn closing_brace(text: &str) -> Option<usize> {
    top_level(text).find_map(|(offset, character)| (character == '}').then_some(offset))
}

/// Splits on `|` outside quotes and brackets (a JSONPath filter's `||` stays whole).
fn split_top_level(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (offset, _) in top_level(text).filter(|&(_, character)| character == '|') {
        pieces.push(&text[start..offset]);
        start = offset + 1;
    }
    pieces.push(&text[start..]);
    pieces
}

/// The characters of `text` outside quoted strings (with `\` escapes) and brackets, with their
/// byte offsets: the only places where a placeholder's `}` or a filter's `|` means something.
fn top_level(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut depth = 0_usize;
    text.char_indices().filter(move |&(_, character)| {
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if character == '\\' {
                escaped = true;
            } else if character == open {
                quote = None;
            }
            return false;
        }
        match character {
            '\'' | '"' => quote = Some(character),
            '[' | '(' => depth += 1,
            ']' | ')' => depth = depth.saturating_sub(1),
            _ => return depth == 0,
        }
        false
    })
}

fn parse_ref(text: &str, slot: &str) -> Result<Ref, TemplateError> {
    if text == "endpoint" {
        return Ok(Ref::Endpoint);
    }
    if let Some(attribute) = text.strip_prefix("attr.") {
        let steps = path::parse(attribute).map_err(|problem| TemplateError::AttrPath {
            slot: slot.to_owned(),
            problem,
        })?;
        return Ok(Ref::Attr {
            path: attribute.to_owned(),
            steps,
        });
    }
    if let Some(name) = text.strip_prefix("env.") {
        let invalid = |name| TemplateError::EnvName {
            slot: slot.to_owned(),
            name,
        };
        return named(name, is_env_name, Ref::Env, invalid);
    }
    if let Some(name) = text.strip_prefix("var.") {
        let invalid = |name| TemplateError::VarName {
            slot: slot.to_owned(),
            name,
        };
        return named(name, is_name, Ref::Var, invalid);
    }
    if let Some((request, path)) = text.split_once(':')
        && is_name(request)
    {
        let path = path.trim();
        if !path.starts_with('$') {
            return Err(TemplateError::ResponsePath {
                slot: slot.to_owned(),
                request: request.to_owned(),
            });
        }
        parse_json_path(path).map_err(|error| TemplateError::JsonPath {
            slot: slot.to_owned(),
            path: path.to_owned(),
            reason: one_line(&error.to_string()),
        })?;
        return Ok(Ref::Response {
            request: request.to_owned(),
            path: path.to_owned(),
        });
    }
    let namespace = text
        .split(['.', ':'])
        .next()
        .filter(|first| !first.is_empty())
        .unwrap_or(text);
    Err(TemplateError::Namespace {
        namespace: namespace.to_owned(),
        slot: slot.to_owned(),
    })
}

/// A request, variable or endpoint name.
pub(crate) fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || matches!(character, '_' | '-'))
}

/// An `env.NAME` or `var.NAME` reference: `reference` to the name when `valid` takes it, else the
/// error `invalid` makes of it.
fn named(
    name: &str,
    valid: fn(&str) -> bool,
    reference: fn(String) -> Ref,
    invalid: impl FnOnce(String) -> TemplateError,
) -> Result<Ref, TemplateError> {
    if valid(name) {
        Ok(reference(name.to_owned()))
    } else {
        Err(invalid(name.to_owned()))
    }
}

pub(crate) fn is_env_name(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && text
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || character == '_')
}

pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn excerpt(text: &str) -> String {
    text.chars().take(24).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::HashMap;

    use serde_json::json;

    use super::*;

    /// A lookup over fixed values, for the tests of this module and `encode`.
    #[derive(Default)]
    pub(crate) struct Fixed {
        pub attributes: Value,
        pub env: HashMap<String, String>,
        pub variables: HashMap<String, Value>,
        pub endpoint: Option<String>,
        pub responses: HashMap<String, Value>,
    }

    impl Lookup for Fixed {
        fn attribute(&self, steps: &[Step]) -> Option<Value> {
            path::get(&self.attributes, steps).cloned()
        }
        fn env(&self, name: &str) -> Option<String> {
            self.env.get(name).cloned()
        }
        fn variable(&self, name: &str) -> Result<Value, LookupError> {
            self.variables
                .get(name)
                .cloned()
                .ok_or_else(|| LookupError::UnknownVariable(name.to_owned()))
        }
        fn endpoint(&self) -> Result<String, LookupError> {
            self.endpoint.clone().ok_or(LookupError::NoEndpoint)
        }
        fn response(&self, request: &str, path: &str) -> Result<Option<Value>, LookupError> {
            use jsonpath_rust::JsonPath;
            let Some(document) = self.responses.get(request) else {
                return Err(LookupError::NotAnswered(request.to_owned()));
            };
            Ok(document
                .query(path)
                .map_err(|source| LookupError::Query {
                    path: path.to_owned(),
                    source,
                })?
                .first()
                .map(|value| (*value).clone()))
        }
    }

    #[test]
    fn parses_placeholders_and_leaves_json_braces_alone() {
        let template =
            Template::parse(r#"{"id": "{attr.id}", "n": {var.count}, "x": {}}{{literal}"#).unwrap();
        let slots: Vec<&str> = template.slots().map(|slot| slot.text.as_str()).collect();
        assert_eq!(slots, ["{attr.id}", "{var.count}"]);
        assert!(matches!(
            template.parts.last(),
            Some(Part::Literal(text)) if text.ends_with("{literal}")
        ));
    }

    #[test]
    fn parses_alternatives_optional_marks_and_response_paths_with_filters() {
        let template =
            Template::parse("{attachments:$[?@.lifecycleState=='ATTACHED' || @.x=='}'].vnicId}")
                .unwrap();
        let slot = template.slots().next().unwrap();
        assert_eq!(
            slot.alternatives,
            [Ref::Response {
                request: "attachments".into(),
                path: "$[?@.lifecycleState=='ATTACHED' || @.x=='}'].vnicId".into()
            }]
        );
        let template = Template::parse("{attr.region|env.OCI_REGION?}").unwrap();
        let slot = template.slots().next().unwrap();
        assert!(slot.optional);
        assert_eq!(slot.alternatives.len(), 2);
    }

    #[test]
    fn names_the_unknown_namespace() {
        let error = Template::parse("/x/{attrs.id}").unwrap_err().to_string();
        assert!(
            error.contains("unknown template namespace `attrs`"),
            "{error}"
        );
        let error = Template::parse("{instance:lifecycleState}")
            .unwrap_err()
            .to_string();
        assert!(error.contains("JSONPath starting at `$`"), "{error}");
        let error = Template::parse("{instance:$.a[?@.x==]}")
            .unwrap_err()
            .to_string();
        assert!(error.contains("invalid JSONPath"), "{error}");
        let error = Template::parse("{attr.id").unwrap_err().to_string();
        assert!(error.contains("never closed"), "{error}");
        assert!(Template::parse("{endpoint|attr.x}").is_err());
    }

    #[test]
    fn environment_and_variable_names_are_checked_by_their_own_rules() {
        let cases = [
            ("{env.OCI_REGION}", Ok(Ref::Env("OCI_REGION".into()))),
            ("{var.plan-id}", Ok(Ref::Var("plan-id".into()))),
            (
                "{env.plan-id}",
                Err(
                    "`{env.plan-id}`: `plan-id` is not an environment variable name (letters, digits and `_`)",
                ),
            ),
            (
                "{var.a b}",
                Err("`{var.a b}`: `a b` is not a variable name (letters, digits, `_` and `-`)"),
            ),
        ];
        for (text, expected) in cases {
            let parsed = Template::parse(text)
                .map(|template| template.slots().next().unwrap().alternatives[0].clone())
                .map_err(|error| error.to_string());
            assert_eq!(parsed, expected.map_err(str::to_owned), "{text}");
        }
    }

    #[test]
    fn a_missing_value_is_an_error_naming_the_placeholder_and_attribute() {
        let lookup = Fixed {
            attributes: json!({"id": null, "name": ""}),
            ..Fixed::default()
        };
        let template = Template::parse("{attr.id}").unwrap();
        assert_eq!(
            template.text_with(&lookup).unwrap_err().to_string(),
            "`{attr.id}`: attribute `id` is null, empty or missing"
        );
        let template = Template::parse("{attr.name|env.NAME}").unwrap();
        assert_eq!(
            template.text_with(&lookup).unwrap_err().to_string(),
            "`{attr.name|env.NAME}`: none of `attr.name`, `env.NAME` has a value"
        );
        let template = Template::parse("a{attr.name?}b").unwrap();
        assert_eq!(template.text_with(&lookup).unwrap(), "ab");
    }

    #[test]
    fn takes_the_first_alternative_with_a_value_and_keeps_json_types() {
        let lookup = Fixed {
            attributes: json!({"region": "", "size": 12, "flag": true}),
            env: HashMap::from([("OCI_REGION".into(), "eu-frankfurt-1".into())]),
            ..Fixed::default()
        };
        let template = Template::parse("{attr.region|env.OCI_REGION}").unwrap();
        assert_eq!(template.text_with(&lookup).unwrap(), "eu-frankfurt-1");
        assert_eq!(
            Template::parse("{attr.size}")
                .unwrap()
                .value(&lookup)
                .unwrap(),
            json!(12)
        );
        assert_eq!(
            Template::parse("n={attr.size},{attr.flag}")
                .unwrap()
                .value(&lookup)
                .unwrap(),
            json!("n=12,true")
        );
    }
}
