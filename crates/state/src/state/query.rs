//! A parsed state as a JSONPath document (`statectl query`): its whole text, with every sensitive
//! attribute and output masked as every output of statectl masks them (unless the user asks with
//! `--show-sensitive`), and the spans the parser already found handed to the walker, so a query does
//! not scan for where a resource, an instance or its attributes end.
//!
//! Masking marks where the values the state calls sensitive start; the walker reads each as the mask
//! string, prints it as that, and finds nothing beneath it. No copy of the state is made.

use crate::json::Span;
use crate::json::bytes::skip_layout;
use crate::json::path::document::{Kind, Walker};
use crate::json::path::{Document, Exceeded, Limits};
use crate::state::model::State;
use crate::state::sensitive::{self, CtyStep, MASK};

/// Why the sensitive values of a state cannot be marked.
#[derive(Debug, thiserror::Error)]
pub enum MaskError {
    /// Following the paths took more work than the state's size allows (a hostile state).
    #[error("{address}: following its `sensitive_attributes` takes {source}")]
    Costly { address: String, source: Exceeded },
}

/// The document `query` runs over.
pub fn document<'s>(state: &State<'s>, show_sensitive: bool) -> Result<Document<'s>, MaskError> {
    let document =
        Document::trusted_at(state.source, state.span).with_known_ends(known_ends(state));
    if show_sensitive {
        return Ok(document);
    }
    let masks = masked(state, &document)?;
    Ok(document.with_masks(masks, MASK))
}

/// Where each sensitive value starts: the values of sensitive outputs, and what each instance's
/// `sensitive_attributes` paths point at in its attributes.
fn masked(state: &State<'_>, document: &Document<'_>) -> Result<Vec<usize>, MaskError> {
    let mut starts: Vec<usize> = state
        .outputs
        .iter()
        .filter(|output| output.sensitive)
        .filter_map(|output| output.value)
        .map(|value| value.start)
        .collect();
    let mut walker = Walker::new(document, Limits::for_document(document.len()));
    for (resource, instance) in state.instances() {
        let (Some(paths), Some(attributes)) = (instance.sensitive_attributes, instance.attributes)
        else {
            continue;
        };
        let address = || instance.address(resource).to_string();
        let paths = sensitive::with_copies(
            &resource.address.type_name,
            sensitive::paths_to_mask(paths.of(state.source)),
        );
        for path in &paths {
            follow(&mut walker, attributes, path, &mut starts).map_err(|source| {
                MaskError::Costly {
                    address: address(),
                    source,
                }
            })?;
        }
    }
    Ok(starts)
}

/// Marks what `path` points at from `attributes`. A dynamic value is written `{"value": V, "type":
/// T}` while its sensitive paths step straight into V, so a path is followed through such a wrapper
/// as well as into it: more is masked, never less (as `sensitive::mask` does).
fn follow(
    walker: &mut Walker<'_, '_>,
    attributes: Span,
    path: &[CtyStep],
    starts: &mut Vec<usize>,
) -> Result<(), Exceeded> {
    let mut pending = vec![(attributes, 0usize)];
    while let Some((value, taken)) = pending.pop() {
        let Some(step) = path.get(taken) else {
            starts.push(value.start);
            continue;
        };
        if let Some(inner) = wrapped(walker, value)? {
            pending.push((inner, taken));
        }
        let next = match step {
            CtyStep::Attribute(name) | CtyStep::Key(name) => walker.member(value, name)?,
            CtyStep::Index(index) => match i64::try_from(*index) {
                Ok(index) => walker.element(value, index)?,
                Err(_) => None,
            },
        };
        if let Some(next) = next {
            pending.push((next, taken + 1));
        }
    }
    Ok(())
}

/// The `value` of an object with exactly the members `value` and `type`.
fn wrapped(walker: &mut Walker<'_, '_>, value: Span) -> Result<Option<Span>, Exceeded> {
    if walker.kind(value) != Kind::Object {
        return Ok(None);
    }
    // Three members at most are read: attributes objects are large, wrappers have two.
    let members = walker.first_children(value, 3)?;
    let named = |name: &str| {
        members
            .iter()
            .rfind(|member| walker.key_is(member, name))
            .map(|member| member.value)
    };
    // A repeated `type` or `value` still makes a wrapper (more is masked, never less).
    let only_those = members
        .iter()
        .all(|member| walker.key_is(member, "type") || walker.key_is(member, "value"));
    Ok(match (only_those, named("type"), named("value")) {
        (true, Some(_), Some(inner)) => Some(inner),
        _ => None,
    })
}

/// The containers whose spans the parser found: the top level's values, each resource, its
/// `instances` array, each instance object and its attributes.
fn known_ends(state: &State<'_>) -> Vec<(usize, usize)> {
    let bytes = state.source.as_bytes();
    let mut ends = Vec::new();
    let mut add = |span: Span| {
        if matches!(bytes.get(span.start), Some(b'{' | b'[')) && span.end - span.start >= 64 {
            ends.push((span.start, span.end));
        }
    };
    for member in &state.members {
        add(member.value);
    }
    for output in &state.outputs {
        add(output.span);
    }
    for resource in &state.resources {
        add(resource.span);
        if let (Some(first), Some(last)) = (resource.instances.first(), resource.instances.last()) {
            // The `[` before the first instance and the `]` after the last one.
            let open = state.source[..first.span.start]
                .trim_end()
                .len()
                .checked_sub(1);
            let close = skip_layout(bytes, last.span.end);
            if let Some(open) = open
                && bytes.get(open) == Some(&b'[')
                && bytes.get(close) == Some(&b']')
            {
                add(Span::new(open, close + 1));
            }
        }
        for instance in &resource.instances {
            add(instance.span);
            if let Some(attributes) = instance.attributes {
                add(attributes);
            }
        }
    }
    ends
}
