//! Where a placeholder's value lands decides how it is encoded, so that no value from a state file or
//! a response can change a request's structure:
//!
//! - in a URL path, a value is one path segment: everything but `A-Z a-z 0-9 - . _ ~` is
//!   percent-encoded, so `/`, `?`, `#`, `%` and `\` cannot add a segment, start a query or a fragment,
//!   and a value of `.` or `..` (which URL parsers fold away) is refused;
//! - in a host name, a value must be one DNS label (`us-phoenix-1`), so it cannot swap the host;
//! - `{endpoint}` is the trusted base URL and is inserted as is, but only at the very start of a URL and
//!   only followed by `/`, so the template's own text cannot extend its host;
//! - query names and values are percent-encoded the same way (spaces as `%20`, as OSB's `operation`
//!   echo wants);
//! - a header value must hold no control character, so it cannot split the request;
//! - in a JSON body, a value inside a string literal is escaped as string content, and elsewhere it is
//!   inserted as a JSON value, so it cannot close a string or add a member.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::Url;
use serde_json::Value;

use crate::reconcile::profile::template::{
    Lookup, LookupError, Part, Ref, Slot, Template, TemplateError, text_of,
};

/// Everything but RFC 3986's unreserved characters.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Where a URL template's placeholder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    Endpoint,
    HostLabel,
    PathSegment,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    AfterEndpoint,
    Authority,
    Path,
}

/// Checks a URL template's shape and places each placeholder. `endpoint` says whether `{endpoint}`
/// may open it (a request URL) or not (the endpoint's own default URL).
fn layout(template: &Template, endpoint: bool) -> Result<Vec<Position>, TemplateError> {
    let mut state = State::Start;
    let mut positions = Vec::new();
    for (index, part) in template.parts.iter().enumerate() {
        match part {
            Part::Slot(slot) if slot.alternatives == [Ref::Endpoint] => {
                if !endpoint {
                    return Err(TemplateError::EndpointInDefaultUrl);
                }
                if index != 0 {
                    return Err(TemplateError::EndpointNotFirst);
                }
                if slot.optional {
                    return Err(TemplateError::EndpointOptional);
                }
                positions.push(Position::Endpoint);
                state = State::AfterEndpoint;
            }
            Part::Slot(slot) => {
                let position = match state {
                    State::Start => {
                        return Err(TemplateError::SlotBeforeScheme {
                            slot: slot.text.clone(),
                        });
                    }
                    State::AfterEndpoint => {
                        return Err(TemplateError::AfterEndpoint(slot.text.clone()));
                    }
                    State::Authority => Position::HostLabel,
                    State::Path => Position::PathSegment,
                };
                if slot.optional {
                    return Err(TemplateError::OptionalInUrl {
                        slot: slot.text.clone(),
                    });
                }
                if slot.alternatives.contains(&Ref::Endpoint) {
                    return Err(TemplateError::EndpointNotFirst);
                }
                positions.push(position);
            }
            Part::Literal(text) => state = literal(text, state)?,
        }
    }
    if state == State::Start {
        return Err(TemplateError::NoScheme);
    }
    Ok(positions)
}

/// Walks literal URL text from `state`, refusing what would make the URL ambiguous.
fn literal(text: &str, mut state: State) -> Result<State, TemplateError> {
    let mut rest = text;
    if state == State::Start {
        let lower = text.to_ascii_lowercase();
        let scheme = ["https://", "http://"]
            .into_iter()
            .find(|scheme| lower.starts_with(scheme))
            .ok_or(TemplateError::NoScheme)?;
        rest = &text[scheme.len()..];
        state = State::Authority;
    }
    for character in rest.chars() {
        if matches!(character, '?' | '#') {
            return Err(TemplateError::QueryOrFragment(character));
        }
        state = match state {
            State::AfterEndpoint | State::Authority if character == '/' => State::Path,
            State::AfterEndpoint => {
                return Err(TemplateError::AfterEndpoint(character.to_string()));
            }
            State::Authority
                if character.is_ascii_alphanumeric()
                    || matches!(character, '.' | '-' | ':' | '[' | ']') =>
            {
                State::Authority
            }
            State::Authority => {
                return Err(TemplateError::HostCharacter(character));
            }
            State::Path if is_path_character(character) => State::Path,
            State::Path => {
                return Err(TemplateError::PathCharacter(character));
            }
            State::Start => unreachable!("the scheme was read above"),
        };
    }
    Ok(state)
}

/// RFC 3986 `pchar`, `/` and `%`: characters a URL parser keeps as they are in a path.
fn is_path_character(character: char) -> bool {
    character.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@/%".contains(character)
}

/// Checks a URL template at load time.
pub(super) fn check_url(template: &Template, endpoint: bool) -> Result<(), TemplateError> {
    layout(template, endpoint).map(|_| ())
}

/// Renders a URL template: the endpoint as is, host placeholders as single DNS labels, path
/// placeholders as single percent-encoded segments. The result is parsed and its path compared with
/// what was built, so that nothing a URL parser would normalize (a `..` segment) slips through.
pub(crate) fn render_url(template: &Template, lookup: &dyn Lookup) -> Result<Url, TemplateError> {
    let positions = layout(template, true)?;
    let mut out = String::new();
    let mut slots = positions.iter();
    for part in &template.parts {
        match part {
            Part::Literal(text) => out.push_str(text),
            Part::Slot(slot) => {
                let position = *slots.next().expect("one position per placeholder");
                match position {
                    Position::Endpoint => out.push_str(
                        lookup
                            .endpoint()
                            .map_err(|problem| TemplateError::Endpoint(Box::new(problem)))?
                            .trim_end_matches('/'),
                    ),
                    Position::HostLabel => out.push_str(&host_label(slot, lookup)?),
                    Position::PathSegment => {
                        let text = required_text(slot, lookup)?;
                        out.extend(utf8_percent_encode(&text, COMPONENT));
                    }
                }
            }
        }
    }
    let url = Url::parse(&out).map_err(|error| TemplateError::InvalidUrl {
        template: template.text.clone(),
        reason: error.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(TemplateError::NotHttp {
            template: template.text.clone(),
        });
    }
    let built = out
        .split_once("://")
        .and_then(|(_, after)| after.find('/').map(|slash| &after[slash..]))
        .unwrap_or("/");
    if url.path() != built {
        return Err(TemplateError::DotSegment {
            template: template.text.clone(),
        });
    }
    Ok(url)
}

/// Sets the query of `url` from `(name, template)` pairs; a parameter whose value renders empty is
/// left out (so an optional `operation` is simply not sent).
pub(crate) fn set_query(
    url: &mut Url,
    query: &[(String, Template)],
    lookup: &dyn Lookup,
) -> Result<(), TemplateError> {
    let mut pairs = Vec::new();
    for (name, template) in query {
        let value = template
            .text_with(lookup)
            .map_err(|source| TemplateError::Query {
                name: name.clone(),
                source: Box::new(source),
            })?;
        if value.is_empty() {
            continue;
        }
        pairs.push(format!(
            "{}={}",
            utf8_percent_encode(name, COMPONENT),
            utf8_percent_encode(&value, COMPONENT)
        ));
    }
    url.set_query((!pairs.is_empty()).then(|| pairs.join("&")).as_deref());
    Ok(())
}

/// A header value; `None` when it renders empty (the header is not sent).
pub(crate) fn header_value(
    name: &str,
    template: &Template,
    lookup: &dyn Lookup,
) -> Result<Option<String>, TemplateError> {
    let value = template
        .text_with(lookup)
        .map_err(|source| TemplateError::Header {
            name: name.to_owned(),
            source: Box::new(source),
        })?;
    if value
        .chars()
        .any(|character| character.is_control() && character != '\t')
    {
        // The value itself is not echoed: headers carry tokens.
        return Err(TemplateError::HeaderControl {
            name: name.to_owned(),
        });
    }
    Ok((!value.is_empty()).then_some(value))
}

/// Renders a JSON body template: values inside string literals as escaped string content, values
/// elsewhere as JSON values (an optional one with no value as `null`). The result must parse.
pub(crate) fn render_json(
    template: &Template,
    lookup: &dyn Lookup,
) -> Result<String, TemplateError> {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for part in &template.parts {
        match part {
            Part::Literal(text) => {
                for character in text.chars() {
                    out.push(character);
                    if in_string {
                        if escaped {
                            escaped = false;
                        } else if character == '\\' {
                            escaped = true;
                        } else if character == '"' {
                            in_string = false;
                        }
                    } else if character == '"' {
                        in_string = true;
                    }
                }
            }
            Part::Slot(slot) => {
                let value = slot.resolve(lookup)?;
                if in_string {
                    let text = value
                        .map(|value| text_of(&value, slot))
                        .transpose()?
                        .unwrap_or_default();
                    let quoted = Value::String(text).to_string();
                    out.push_str(&quoted[1..quoted.len() - 1]);
                } else {
                    out.push_str(&value.unwrap_or(Value::Null).to_string());
                }
            }
        }
    }
    serde_json::from_str::<Value>(&out).map_err(TemplateError::BodyJson)?;
    Ok(out)
}

/// A value that fills one host name label: letters, digits and `-` only.
fn host_label(slot: &Slot, lookup: &dyn Lookup) -> Result<String, TemplateError> {
    let text = required_text(slot, lookup)?;
    let label = !text.starts_with('-')
        && !text.ends_with('-')
        && text.len() <= 63
        && text
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || character == '-');
    if !label {
        return Err(TemplateError::HostLabel {
            slot: slot.text.clone(),
        });
    }
    Ok(text)
}

fn required_text(slot: &Slot, lookup: &dyn Lookup) -> Result<String, TemplateError> {
    let value = slot
        .resolve(lookup)?
        .ok_or_else(|| TemplateError::Missing {
            slot: slot.text.clone(),
        })?;
    text_of(&value, slot)
}

/// Checks a body template at load time by rendering it with `null` for every placeholder.
pub(super) fn check_json(template: &Template) -> Result<(), TemplateError> {
    struct Nothing;
    impl Lookup for Nothing {
        fn attribute(&self, _: &[crate::state::attr_path::Step]) -> Option<Value> {
            Some(Value::Null)
        }
        fn env(&self, _: &str) -> Option<String> {
            None
        }
        fn variable(&self, _: &str) -> Result<Value, LookupError> {
            Ok(Value::Null)
        }
        fn endpoint(&self) -> Result<String, LookupError> {
            Ok(String::new())
        }
        fn response(&self, _: &str, _: &str) -> Result<Option<Value>, LookupError> {
            Ok(None)
        }
    }
    let mut optional = template.clone();
    for part in &mut optional.parts {
        if let Part::Slot(slot) = part {
            slot.optional = true;
        }
    }
    render_json(&optional, &Nothing).map(|_| ())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::json;

    use super::*;
    use crate::reconcile::profile::template::tests::Fixed;

    fn with_id(id: &str) -> Fixed {
        Fixed {
            attributes: json!({ "id": id, "compartment_id": "ocid1.compartment.oc1..aaaa", "region": "eu-frankfurt-1" }),
            endpoint: Some("https://iaas.eu-frankfurt-1.oraclecloud.com".to_owned()),
            ..Fixed::default()
        }
    }

    fn url(template: &str, lookup: &Fixed) -> Result<Url, TemplateError> {
        render_url(&Template::parse(template).unwrap(), lookup)
    }

    /// Values an attacker controls through a state file, a response or a variable.
    const HOSTILE: [&str; 14] = [
        "../admin",
        "../../x",
        "a?b=c",
        "x#frag",
        "%2e%2e",
        "%2E%2E/%2e%2e",
        "with space",
        "ünïcödé/é",
        "//evil.com",
        "@evil.com",
        "a\\..\\b",
        "x/../../y",
        "a&b=c;d",
        "\r\nHost: evil.com",
    ];

    #[test]
    fn hostile_values_never_change_scheme_host_segments_query_or_fragment() {
        for hostile in HOSTILE {
            let url = url("{endpoint}/20160918/instances/{attr.id}", &with_id(hostile))
                .unwrap_or_else(|error| panic!("{hostile:?}: {error}"));
            assert_eq!(url.scheme(), "https", "{hostile:?}");
            assert_eq!(
                url.host_str(),
                Some("iaas.eu-frankfurt-1.oraclecloud.com"),
                "{hostile:?}"
            );
            assert_eq!(
                url.path_segments().unwrap().count(),
                3,
                "{hostile:?}: {url}"
            );
            assert!(
                url.path().starts_with("/20160918/instances/"),
                "{hostile:?}: {url}"
            );
            assert_eq!(url.query(), None, "{hostile:?}: {url}");
            assert_eq!(url.fragment(), None, "{hostile:?}: {url}");
            assert!(url.username().is_empty() && url.password().is_none());
            // The segment decodes back to exactly the value: nothing lost, nothing added.
            let last = url.path_segments().unwrap().next_back().unwrap();
            assert_eq!(
                percent_encoding::percent_decode_str(last)
                    .decode_utf8()
                    .unwrap(),
                hostile
            );
        }
    }

    #[test]
    fn hostile_query_values_stay_one_value_of_one_key() {
        for hostile in HOSTILE {
            let lookup = with_id(hostile);
            let mut url = url("{endpoint}/20160918/vnicAttachments", &lookup).unwrap();
            let query = [
                (
                    "compartmentId".to_owned(),
                    Template::parse("{attr.compartment_id}").unwrap(),
                ),
                (
                    "instanceId".to_owned(),
                    Template::parse("{attr.id}").unwrap(),
                ),
            ];
            set_query(&mut url, &query, &lookup).unwrap();
            let pairs: Vec<(String, String)> = url
                .query_pairs()
                .map(|(key, value)| (key.into_owned(), value.into_owned()))
                .collect();
            let keys: Vec<&str> = pairs.iter().map(|(key, _)| key.as_str()).collect();
            assert_eq!(keys, ["compartmentId", "instanceId"], "{hostile:?}: {url}");
            assert_eq!(pairs[1].1, hostile);
            assert_eq!(url.fragment(), None);
            assert_eq!(url.path_segments().unwrap().count(), 2);
        }
    }

    #[test]
    fn dot_segments_are_refused_not_folded() {
        for dots in [".", ".."] {
            let error = url("{endpoint}/v3/service_instances/{attr.id}", &with_id(dots))
                .unwrap_err()
                .to_string();
            assert!(error.contains("`.` or `..`"), "{error}");
        }
        // Encoded dots are data, not a dot segment: the `%` itself is encoded.
        let url = url(
            "{endpoint}/v3/service_instances/{attr.id}",
            &with_id("%2e%2e"),
        )
        .unwrap();
        assert_eq!(url.path(), "/v3/service_instances/%252e%252e");
    }

    #[test]
    fn host_placeholders_take_one_dns_label_only() {
        let template = Template::parse("https://iaas.{attr.region}.oraclecloud.com").unwrap();
        let mut lookup = with_id("x");
        assert_eq!(
            render_url(&template, &lookup).unwrap().host_str(),
            Some("iaas.eu-frankfurt-1.oraclecloud.com")
        );
        for hostile in ["evil.com/", "evil.com#", "a.b", "x@evil.com", "", "-x"] {
            lookup.attributes = json!({ "region": hostile });
            assert!(render_url(&template, &lookup).is_err(), "{hostile:?}");
        }
    }

    #[test]
    fn refuses_url_templates_that_would_be_ambiguous() {
        let check = |text: &str| check_url(&Template::parse(text).unwrap(), true);
        assert!(check("{endpoint}/v2/service_instances/{attr.id}/last_operation").is_ok());
        assert!(check("https://api.example.com/v1/things/{attr.id}").is_ok());
        assert!(check("{endpoint}").is_ok());
        for bad in [
            "{endpoint}.evil.com/x",
            "{endpoint}{attr.id}",
            "/v1/x",
            "{attr.base}/v1",
            "https://api.example.com/v1?x={attr.id}",
            "https://api.example.com/v1#top",
            "https://user:pw@api.example.com/",
            "https://api.example.com/v1/{attr.id?}",
            "https://api.example.com/a b",
            "https://api.example.com/{endpoint}",
            "ftp://example.com/",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
        assert!(check_url(&Template::parse("{endpoint}/x").unwrap(), false).is_err());
    }

    #[test]
    fn query_leaves_out_empty_optional_values_and_encodes_spaces_as_percent_20() {
        let lookup = Fixed {
            attributes: json!({ "operation": "task 10&x=1", "plan_id": null }),
            endpoint: Some("https://broker.example.com/".to_owned()),
            ..Fixed::default()
        };
        let mut url = url(
            "{endpoint}/v2/service_instances/abc/last_operation",
            &lookup,
        )
        .unwrap();
        let query = [
            (
                "operation".to_owned(),
                Template::parse("{attr.operation?}").unwrap(),
            ),
            (
                "plan_id".to_owned(),
                Template::parse("{attr.plan_id?}").unwrap(),
            ),
        ];
        set_query(&mut url, &query, &lookup).unwrap();
        assert_eq!(
            url.as_str(),
            "https://broker.example.com/v2/service_instances/abc/last_operation?operation=task%2010%26x%3D1"
        );
    }

    #[test]
    fn header_values_cannot_split_the_request() {
        let lookup = Fixed {
            env: HashMap::from([("TOKEN".to_owned(), "abc\r\nX-Evil: 1".to_owned())]),
            ..Fixed::default()
        };
        let error = header_value("X-Token", &Template::parse("{env.TOKEN}").unwrap(), &lookup)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("control character") && !error.contains("abc"),
            "{error}"
        );
    }

    #[test]
    fn json_bodies_escape_inside_strings_and_insert_values_outside() {
        let lookup = Fixed {
            attributes: json!({ "name": "a\",\"admin\":true,\"x\":\"", "size": 3, "tags": {"k": "v"} }),
            ..Fixed::default()
        };
        let template =
            Template::parse(r#"{"name": "{attr.name}", "size": {attr.size}, "tags": {attr.tags}, "none": {attr.missing?}}"#)
                .unwrap();
        let body: Value = serde_json::from_str(&render_json(&template, &lookup).unwrap()).unwrap();
        assert_eq!(
            body,
            json!({ "name": "a\",\"admin\":true,\"x\":\"", "size": 3, "tags": {"k": "v"}, "none": null })
        );
        assert!(check_json(&template).is_ok());
        assert!(check_json(&Template::parse(r#"{"a": }"#).unwrap()).is_err());
    }
}
