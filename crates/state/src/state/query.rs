//! A parsed state as a JSONPath document (`statectl query`): its whole text, with every sensitive
//! attribute and output masked as every output of statectl masks them (unless the user asks with
//! `--show-sensitive`), and the spans the parser already found handed to the walker, so a query does
//! not scan for where a resource, an instance or its attributes end.
//!
//! Masking marks where the values the state calls sensitive start; the walker reads each as the mask
//! string, prints it as that, and finds nothing beneath it. No copy of the state is made.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::json::Span;
use crate::json::keys::MemberNames;
use crate::json::path::document::{Kind, KnownArray, KnownEnd, KnownMember, Walker};
use crate::json::path::{Document, Exceeded, JsonPath, Limits};
use crate::json::wide::ask_ahead;
use crate::parts::{each_on_a_thread, parts, runs};
use crate::state::model::{Instance, Resource, State};
use crate::state::notes::{Member, Noting};
use crate::state::sensitive::{self, CtyStep, MASK};

/// Why the sensitive values of a state cannot be marked.
#[derive(Debug, thiserror::Error)]
pub enum MaskError {
    /// Following the paths took more work than the state's size allows (a hostile state).
    #[error("{address}: following its `sensitive_attributes` takes {source}")]
    Costly { address: String, source: Exceeded },
}

/// The document `query` runs over `path` with. The attributes members the parse noted (see
/// [`noting`]) are handed over as known members, so the walker finds them without walking each
/// attributes object; so is each instance's lack of a `status` when `path` selects one.
pub fn document<'s>(
    state: &State<'s>,
    path: &JsonPath,
    show_sensitive: bool,
) -> Result<Document<'s>, MaskError> {
    let mut found = found(state, !show_sensitive, path.selects_name("status"));
    // The `resources` array's elements are the resources, after the `instances` arrays'
    // elements. The parser keeps both in the text's order; a model in any other (its vectors are
    // public) hands over none, and the walker reads the arrays.
    if found.elements.is_sorted() && found.resources.is_sorted() {
        if let Some(array) = state.resources_array {
            found
                .arrays
                .extend(KnownArray::new(array.start, found.resources.len()));
            found.elements.append(&mut found.resources);
        }
    } else {
        found.arrays.clear();
        found.elements.clear();
    }
    let mut document = Document::trusted_at(state.source, state.span)
        .with_known_ends(merged(found.ends, &top_level_ends(state)))
        .with_known_members("instances", found.instances)
        .with_known_members("attributes", found.attributes)
        .with_known_members("status", found.statuses)
        .with_known_elements(found.arrays, found.elements);
    let names = state.notes.filter.as_deref().map(MemberNames::names);
    for ((_, name), members) in names.into_iter().flatten().zip(found.noted) {
        document = document.with_known_members(name, members);
    }
    if show_sensitive {
        return Ok(document);
    }
    let masks = masked(state, found.marked, &document)?;
    Ok(document.with_masks(masks, MASK))
}

/// An instance whose `sensitive_attributes` paths are to be followed in its `attributes`.
type Marked<'r, 'a> = (&'r Resource<'a>, &'r Instance<'a>, Span, Span);

/// What the document is handed from the model, found in one pass over its resources: the
/// containers whose ends the parser knows ([`KnownEnd`]; the top-level ones apart), each
/// resource's `instances` and each instance's `attributes`, the attributes members the parse
/// noted (one list for each noted name, in the filter's order), and the instances to mark.
#[derive(Default)]
struct Found<'r, 'a> {
    ends: Vec<KnownEnd>,
    instances: Vec<KnownMember>,
    attributes: Vec<KnownMember>,
    /// Instances without a `status` (when the expression selects one; see
    /// `Resource::status_members`).
    statuses: Vec<KnownMember>,
    noted: Vec<Vec<KnownMember>>,
    marked: Vec<Marked<'r, 'a>>,
    /// Each `instances` array with how many instances it holds, and their spans, one array's
    /// after another's.
    arrays: Vec<KnownArray>,
    elements: Vec<KnownEnd>,
    /// Each resource's span.
    resources: Vec<KnownEnd>,
}

impl Found<'_, '_> {
    /// What consecutive runs of resources found, as one: the first run's lists grown once to
    /// hold the others', each of which is freed as it is moved in (joined into empty lists, the
    /// first was copied too, and the lists grew by doubling). The elements also get room for the
    /// resources, which `document` appends.
    fn joined(runs: Vec<Self>) -> Self {
        let mut runs = runs.into_iter();
        let mut all = runs.next().unwrap_or_default();
        let rest: Vec<Self> = runs.collect();
        let more = |list: fn(&Self) -> usize| rest.iter().map(list).sum::<usize>();
        all.ends.reserve_exact(more(|found| found.ends.len()));
        all.instances
            .reserve_exact(more(|found| found.instances.len()));
        all.attributes
            .reserve_exact(more(|found| found.attributes.len()));
        all.statuses
            .reserve_exact(more(|found| found.statuses.len()));
        for (index, noted) in all.noted.iter_mut().enumerate() {
            noted.reserve_exact(
                rest.iter()
                    .map(|found| found.noted.get(index).map_or(0, Vec::len))
                    .sum(),
            );
        }
        all.marked.reserve_exact(more(|found| found.marked.len()));
        all.arrays.reserve_exact(more(|found| found.arrays.len()));
        all.elements.reserve_exact(
            more(|found| found.elements.len() + found.resources.len()) + all.resources.len(),
        );
        all.resources
            .reserve_exact(more(|found| found.resources.len()));
        for next in rest {
            all.append(next);
        }
        all
    }

    /// Joins what the next run of resources found (each list stays in the text's order).
    fn append(&mut self, mut next: Self) {
        self.ends.append(&mut next.ends);
        self.instances.append(&mut next.instances);
        self.attributes.append(&mut next.attributes);
        self.statuses.append(&mut next.statuses);
        if self.noted.is_empty() {
            self.noted = next.noted;
        } else {
            for (mine, theirs) in self.noted.iter_mut().zip(&mut next.noted) {
                mine.append(theirs);
            }
        }
        self.marked.append(&mut next.marked);
        self.arrays.append(&mut next.arrays);
        self.elements.append(&mut next.elements);
        self.resources.append(&mut next.resources);
    }
}

/// Below this many resources per thread, a pass on threads of their own costs more than it saves.
const FOUND_PART_RESOURCES: usize = 4096;

/// [`Found`] of `state`'s resources, `marking` or not, with the instances that have no `status`
/// when `statuses` asks; a large state's resources in consecutive runs on every CPU. Each record
/// is read once (in a large state, most are long out of the cache: three passes, one for each
/// list, were 10 ms on one thread at 252 MB).
fn found<'r, 'a>(state: &'r State<'a>, marking: bool, statuses: bool) -> Found<'r, 'a> {
    let resources = &state.resources;
    let threads = parts(resources.len(), FOUND_PART_RESOURCES).max(1);
    let mut runs: Vec<&[Resource<'a>]> = resources
        .chunks(resources.len().div_ceil(threads).max(1))
        .collect();
    // No resources: one empty run, which still has a list (empty) for each noted name.
    if runs.is_empty() {
        runs.push(&[]);
    }
    // Where the parse noted each name, in the filter's order (`document` hands them over in it).
    let places: Vec<u32> = state
        .notes
        .filter
        .as_deref()
        .map(|filter| filter.names().map(|(place, _)| place).collect())
        .unwrap_or_default();
    let mut all = Found::joined(each_on_a_thread(&runs, |run| {
        found_in(state, run, &places, marking, statuses)
    }));
    // The parser's order is the text's; sorted here should it ever differ.
    if !all.ends.is_sorted() {
        all.ends.sort_unstable();
    }
    all
}

/// [`Found`] of `resources`, a run of `state`'s, the noted members at `places`.
fn found_in<'r, 'a>(
    state: &'r State<'a>,
    resources: &'r [Resource<'a>],
    places: &[u32],
    marking: bool,
    statuses: bool,
) -> Found<'r, 'a> {
    // Each list the size it will be, or a little more (a list grown by doubling holds up to twice
    // what it needs).
    let instances: usize = resources
        .iter()
        .map(|resource| resource.instances.len())
        .sum();
    let mut found = Found {
        ends: Vec::with_capacity(2 * (resources.len() + instances)),
        instances: Vec::with_capacity(resources.len()),
        attributes: Vec::with_capacity(instances),
        statuses: Vec::with_capacity(if statuses { instances } else { 0 }),
        noted: (0..places.len())
            .map(|_| Vec::with_capacity(instances))
            .collect(),
        marked: Vec::new(),
        arrays: Vec::with_capacity(resources.len()),
        elements: Vec::with_capacity(instances),
        resources: Vec::with_capacity(resources.len()),
    };
    // Resources, their `instances` arrays, instances and attributes, which the parser read as
    // containers (attributes may be `null`, four bytes): their size says it all, without reading
    // a byte of them, which in a large state is far out of the cache for most of them (reading
    // those bytes was most of this pass's time).
    let add = |ends: &mut Vec<KnownEnd>, span: Span| {
        if span.end - span.start >= 64 {
            ends.extend(KnownEnd::new(span));
        }
    };
    for resource in resources {
        add(&mut found.ends, resource.span);
        found.resources.extend(KnownEnd::new(resource.span));
        if let Some(array) = resource.instances_array() {
            add(&mut found.ends, array);
            // Only a member named exactly so is what `.instances` selects (the walker looks for
            // one otherwise).
            if resource.instances_named_exactly {
                found
                    .instances
                    .extend(KnownMember::new(resource.span.start, array));
            }
            // The array's elements are the instances, each of them, in order.
            found
                .arrays
                .extend(KnownArray::new(array.start, resource.instances.len()));
        }
        let listed = resource.instances_array.is_some();
        // No instance of the resource has a member Terraform reads as `status`, in any spelling:
        // none has one a JSONPath `status` selects (the few with one are walked). A filter on
        // `status` over every instance read the members of each again, far out of the cache.
        let statusless = statuses && !resource.status_members;
        for instance in &resource.instances {
            add(&mut found.ends, instance.span);
            if statusless {
                found
                    .statuses
                    .extend(KnownMember::absent(instance.span.start));
            }
            if listed {
                found.elements.extend(KnownEnd::new(instance.span));
            }
            let Some(object) = instance.attributes() else {
                continue;
            };
            add(&mut found.ends, object);
            if resource.attributes_named_exactly {
                found
                    .attributes
                    .extend(KnownMember::new(instance.span.start, object));
            }
            for (&place, noted) in places.iter().zip(&mut found.noted) {
                let member = match state
                    .notes
                    .value_of(instance.notes, instance.span.start, place)
                {
                    Some(Member::At(value)) => KnownMember::new(object.start, value),
                    Some(Member::Absent) => KnownMember::absent(object.start),
                    None => None,
                };
                noted.extend(member);
            }
            // Two bytes the parse let through (`check_paths` takes an array of paths or
            // `null`) are `[]`: no paths, known without reading the text, which for most
            // instances of a large state is no longer in the cache.
            if marking
                && let Some(paths) = instance.sensitive_attributes()
                && paths.end - paths.start != 2
            {
                found.marked.push((resource, instance, paths, object));
            }
        }
    }
    found
}

/// How many instances ahead of the one it marks a thread asks for the text of the next.
const ASK_AHEAD: usize = 8;

/// Below this many bytes of attributes per thread, marking them on a thread of its own costs more
/// than it saves (a thread costs tens of microseconds; a megabyte of attributes to mark, about a
/// millisecond: the 6 MB of the 50 MB state's were marked on one thread with 4 MB).
const PART_BYTES: usize = 1 << 20;

/// Where each sensitive value starts: the values of sensitive outputs, the values Terraform does
/// not read (`State::shadowed`), and what each instance's `sensitive_attributes` paths point at
/// in its attributes. A large state's instances are marked
/// in consecutive parts on every CPU, their visits counted together against one limit.
fn masked(
    state: &State<'_>,
    marked: Vec<Marked<'_, '_>>,
    document: &Document<'_>,
) -> Result<Vec<usize>, MaskError> {
    // Sensitive outputs' values, and the values Terraform does not read (no sensitive path is
    // followed through them), whole.
    let mut starts: Vec<usize> = state
        .outputs
        .iter()
        .filter(|output| output.sensitive)
        .filter_map(|output| output.value)
        .map(|value| value.start)
        .chain(state.shadowed.iter().map(|shadowed| shadowed.start))
        .collect();
    let bytes = marked
        .iter()
        .map(|(.., attributes)| attributes.end - attributes.start)
        .sum();
    let runs = runs(marked, parts(bytes, PART_BYTES), |(.., attributes)| {
        attributes.end - attributes.start
    });
    let limits = Limits::for_document(document.len());
    let all = Arc::new(AtomicU64::new(0));
    for part in each_on_a_thread(&runs, |run| {
        let mut walker = Walker::sharing(document, limits, 0, Arc::clone(&all));
        let mut starts = Vec::new();
        let source = state.source.as_bytes();
        for (at, &(resource, instance, paths, attributes)) in run.iter().enumerate() {
            // The instances to mark are scattered through the text, most of them long out of the
            // cache: ask for a later one's paths and first members while this one is marked.
            if let Some(&(.., paths, attributes)) = run.get(at + ASK_AHEAD) {
                ask_ahead(source, paths.start);
                ask_ahead(source, attributes.start);
            }
            let paths = sensitive::with_copies(
                &resource.address.type_name,
                sensitive::paths_to_mask(paths.of(state.source)),
            );
            for path in &paths {
                follow(&mut walker, attributes, path, &mut starts).map_err(|source| {
                    MaskError::Costly {
                        address: instance.address(resource).to_string(),
                        source,
                    }
                })?;
            }
        }
        // The run is never empty (`runs` keeps none so): its last instance names a part that ran
        // the marking over its limit.
        if let Some(&(resource, instance, ..)) = run.last() {
            walker.settle().map_err(|source| MaskError::Costly {
                address: instance.address(resource).to_string(),
                source,
            })?;
        }
        Ok(starts)
    }) {
        starts.extend(part?);
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

/// The top-level members and outputs the parser read as large containers, sorted.
fn top_level_ends(state: &State<'_>) -> Vec<KnownEnd> {
    let bytes = state.source.as_bytes();
    let large = |span: &Span| {
        matches!(bytes.get(span.start), Some(b'{' | b'[')) && span.end - span.start >= 64
    };
    let mut top: Vec<KnownEnd> = state
        .members
        .iter()
        .map(|member| member.value)
        .chain(state.outputs.iter().map(|output| output.span))
        .filter(large)
        .filter_map(KnownEnd::new)
        .collect();
    top.sort_unstable();
    top
}

/// The most attributes members a query has the parse note.
const NOTED_AT_MOST: usize = 16;

/// What the parse of a state to run `path` over notes: the members `path` selects right after
/// an `attributes` member (`id` in `$.resources[*].instances[*].attributes.id`), where each value
/// is and not a copy (the query reads the text of what it prints); `None` when it selects none.
pub fn noting(path: &JsonPath) -> Option<Noting> {
    let names = path.names_after("attributes");
    (!names.is_empty()).then(|| Noting {
        // The parse looks each key of every attributes object up among them: a few are what an
        // expression names; past that many, the rest are walked.
        members: Arc::new(MemberNames::new(
            names.iter().take(NOTED_AT_MOST).map(String::as_str),
        )),
        copies: false,
        lines: false,
    })
}

/// Two sorted lists as one, `few` merged into `many` where it lies: `many` grows by `few`'s
/// length only (a new list for both held the instances' ends twice while it was made).
fn merged<T: Ord + Copy>(mut many: Vec<T>, few: &[T]) -> Vec<T> {
    let mut unmoved = many.len();
    many.reserve_exact(few.len());
    // The room at the end, filled from the back with whichever of the two lists' last entries
    // is the larger (what it starts with is overwritten).
    many.extend_from_slice(few);
    let mut untaken = few.len();
    for at in (0..many.len()).rev() {
        if untaken == 0 {
            break;
        }
        if unmoved > 0 && many[unmoved - 1] > few[untaken - 1] {
            unmoved -= 1;
            many[at] = many[unmoved];
        } else {
            untaken -= 1;
            many[at] = few[untaken];
        }
    }
    many
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::parts::forced;

    /// A state whose instances hide a secret at several depths: an attribute, a map's key, a list's
    /// element and a dynamic value's wrapper.
    fn state_text() -> String {
        let mut text = String::from(
            r#"{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l", "outputs": {"pw": {"value": "out-secret", "type": "string", "sensitive": true}}, "resources": ["#,
        );
        for index in 0..24 {
            if index > 0 {
                text.push(',');
            }
            let (attributes, paths) = match index % 4 {
                0 => (
                    format!(r#"{{"id": "i{index}", "password": "secret-{index}"}}"#),
                    r#"[[{"type": "get_attr", "value": "password"}]]"#,
                ),
                1 => (
                    format!(
                        r#"{{"id": "i{index}", "tags": {{"k": "secret-{index}", "o": "open"}}}}"#
                    ),
                    r#"[[{"type": "get_attr", "value": "tags"}, {"type": "index", "value": {"value": "k", "type": "string"}}]]"#,
                ),
                2 => (
                    format!(r#"{{"id": "i{index}", "list": ["open", "secret-{index}"]}}"#),
                    r#"[[{"type": "get_attr", "value": "list"}, {"type": "index", "value": {"value": 1, "type": "number"}}]]"#,
                ),
                _ => (
                    format!(
                        r#"{{"id": "i{index}", "dyn": {{"value": {{"x": "secret-{index}"}}, "type": ["object", {{"x": "string"}}]}}}}"#
                    ),
                    r#"[[{"type": "get_attr", "value": "dyn"}, {"type": "get_attr", "value": "x"}]]"#,
                ),
            };
            write!(
                text,
                r#"{{"mode": "managed", "type": "t_thing", "name": "r{index}", "provider": "provider[\"registry.terraform.io/h/t\"]", "instances": [{{"schema_version": 0, "attributes": {attributes}, "sensitive_attributes": {paths}}}]}}"#
            )
            .unwrap();
        }
        text.push_str("]}");
        text
    }

    /// What `path` selects in `document`, on one line.
    fn selected(document: &Document<'_>, path: &JsonPath) -> String {
        path.select(document, Limits::for_document(document.len()))
            .and_then(|mut selection| selection.to_json(false))
            .unwrap()
    }

    /// Each of `paths` selects in the document `state` hands over for it (unmasked) what it
    /// selects in `walked`.
    fn assert_selects_as_walked(state: &State<'_>, walked: &Document<'_>, paths: &[&str]) {
        for path in paths {
            let path = JsonPath::parse(path).unwrap();
            let handed = document(state, &path, true).unwrap();
            assert_eq!(
                selected(&handed, &path),
                selected(walked, &path),
                "{}",
                path.as_str()
            );
        }
    }

    #[test]
    fn masks_marked_in_parts_are_the_masks_of_one_thread() {
        let text = state_text();
        let state = crate::state::parse(text.as_bytes()).unwrap();
        let everything = JsonPath::parse("$").unwrap();
        let printed = |parts| {
            forced(parts, || {
                let document = document(&state, &everything, false).unwrap();
                everything
                    .select(&document, Limits::for_document(document.len()))
                    .and_then(|mut selection| selection.to_json(false))
                    .unwrap()
            })
        };
        let whole = printed(1);
        assert!(!whole.contains("secret"), "{whole}");
        assert_eq!(whole.matches(MASK).count(), 25, "{whole}");
        for parts in [2, 3, 5] {
            assert_eq!(printed(parts), whole, "{parts} parts");
        }
    }

    /// The members handed over read as the walker reads them when it walks the objects: a
    /// repeated name (its last value), a name written with an escape, a repeated `instances`, a
    /// `null` or missing attributes object, an empty list of instances, a deposed object.
    #[test]
    fn known_members_select_what_walking_the_objects_selects() {
        let padding = "x".repeat(80);
        let text = format!(
            r#"{{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l", "outputs": {{}}, "resources": [
  {{"mode": "managed", "type": "t_a", "name": "a", "provider": "provider[\"registry.terraform.io/h/t\"]",
   "instances": [{{"schema_version": 0, "attributes": {{"id": "first"}}, "attributes": {{"id": "last", "pad": "{padding}"}}}}]}},
  {{"mode": "managed", "type": "t_a", "name": "b", "provider": "provider[\"registry.terraform.io/h/t\"]",
   "instances": [{{"schema_version": 0, "attributes": {{"id": "plain", "pad": "{padding}"}}, "attr\u0069butes": {{"id": "escaped", "pad": "{padding}"}}}},
                 {{"schema_version": 0, "deposed": "00000001", "attributes": {{"id": "deposed", "pad": "{padding}"}}}}]}},
  {{"mode": "managed", "type": "t_a", "name": "c", "provider": "provider[\"registry.terraform.io/h/t\"]",
   "instances": [{{"schema_version": 0, "attributes": {{"id": "dropped", "pad": "{padding}"}}}}], "x": 1,
   "instances": [{{"index_key": 0, "schema_version": 0, "attributes": null, "pad": "{padding}"}}, {{"index_key": 1, "schema_version": 0, "pad": "{padding}"}}]}},
  {{"mode": "managed", "type": "t_a", "name": "d", "provider": "provider[\"registry.terraform.io/h/t\"]", "instances": []}}
]}}"#
        );
        let state = crate::state::parse(text.as_bytes()).unwrap();
        let found = found(&state, false, false);
        // Four resources' `instances` (one empty), four instances with attributes (one `null`).
        assert_eq!((found.instances.len(), found.attributes.len()), (4, 4));
        // Four `instances` arrays whose elements are handed over: five instances (the second
        // array of `c` is the one read).
        assert_eq!((found.arrays.len(), found.elements.len()), (4, 5));
        // And the `resources` array's, the four resources.
        assert_eq!(found.resources.len(), 4);
        assert!(state.resources_array.is_some());
        let walked = Document::parse(&text).unwrap();
        assert_selects_as_walked(
            &state,
            &walked,
            &[
                "$.resources[*].instances",
                "$.resources[*].instances[*].attributes",
                "$.resources[*].instances[*].attributes.id",
                "$.resources[?@.instances[0].attributes.id == 'escaped'].name",
                "$..attributes",
                "$.resources[*].x",
                "$.resources[*].instances[*]",
                "$.resources[*].instances[-1].index_key",
                "$..instances[?@.deposed]",
                "$..instances[*].schema_version",
                "$.resources[-1].name",
                "$.resources[?@.name == 'b'].instances[*]",
            ],
        );
        let ids = JsonPath::parse("$.resources[*].instances[*].attributes.id").unwrap();
        let handed = document(&state, &ids, true).unwrap();
        let selected = ids
            .select(&handed, Limits::for_document(handed.len()))
            .and_then(|mut selection| selection.to_json(false))
            .unwrap();
        assert_eq!(selected, r#"["last","escaped","deposed"]"#);
    }

    /// Instances handed over as having no `status` select what walking them selects, and only
    /// those of resources none of whose instances has a member Terraform reads as one: written
    /// exactly, in another case, with `ſ`, with an escape, `null` or empty, and an `instances`
    /// member written twice (its first array, not read, has a tainted instance).
    #[test]
    fn instances_without_a_status_select_what_walking_them_selects() {
        let resource = |name: &str, instances: &str| {
            format!(
                r#"{{"mode": "managed", "type": "t_a", "name": "{name}", "provider": "provider[\"registry.terraform.io/h/t\"]", "instances": [{instances}]}}"#
            )
        };
        let instance = |key: &str, status: &str| {
            format!(
                r#"{{"index_key": "{key}", {status}"schema_version": 0, "attributes": {{"id": "{key}"}}}}"#
            )
        };
        let resources = [
            resource("none", &[instance("n0", ""), instance("n1", "")].join(", ")),
            resource(
                "tainted",
                &[
                    instance("t0", ""),
                    instance("t1", r#""status": "tainted", "#),
                ]
                .join(", "),
            ),
            resource("cased", &instance("c0", r#""Status": "tainted", "#)),
            resource("folded", &instance("f0", r#""ſtatus": "tainted", "#)),
            resource("escaped", &instance("e0", r#""st\u0061tus": "tainted", "#)),
            resource(
                "empty",
                &[
                    instance("z0", r#""status": null, "#),
                    instance("z1", r#""status": "", "#),
                ]
                .join(", "),
            ),
            format!(
                r#"{{"mode": "managed", "type": "t_a", "name": "twice", "instances": [{}], "instances": [{}]}}"#,
                instance("w0", r#""status": "tainted", "#),
                instance("w1", "")
            ),
        ];
        let text = format!(
            r#"{{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l", "resources": [{}]}}"#,
            resources.join(",\n")
        );
        let state = crate::state::parse(text.as_bytes()).unwrap();
        // `none`'s two instances and `twice`'s one read: the others are walked.
        assert_eq!(found(&state, false, true).statuses.len(), 3);
        assert!(found(&state, false, false).statuses.is_empty());
        let walked = Document::parse(&text).unwrap();
        assert_selects_as_walked(
            &state,
            &walked,
            &[
                "$..instances[?@.status=='tainted'].index_key",
                "$..instances[?@.status].index_key",
                "$..instances[?!@.status].index_key",
                "$..instances[?@.status==null].index_key",
                "$..instances[?@.status==''].index_key",
                "$..status",
                "$.resources[*].instances[*].status",
                "$..instances[?@.Status].index_key",
                "$..[?@.status=='tainted'].index_key",
            ],
        );
        let tainted = JsonPath::parse("$..instances[?@.status=='tainted'].index_key").unwrap();
        assert_eq!(
            selected(&document(&state, &tainted, true).unwrap(), &tainted),
            r#"["t1","e0"]"#
        );
    }

    /// The arrays whose elements the document is handed, and the members, are those the parser
    /// read: of a `resources`, an `instances` and an `attributes` member written twice, once in
    /// another case (Terraform's reader takes the last, whatever its case), a path naming either
    /// selects what walking the text selects.
    #[test]
    fn handed_elements_are_those_of_the_arrays_the_parser_read() {
        let resource = |name: &str, instances: &str| {
            format!(
                r#"{{"mode": "managed", "type": "t_a", "name": "{name}", "provider": "provider[\"registry.terraform.io/h/t\"]", {instances}}}"#
            )
        };
        let instance =
            |id: &str| format!(r#"{{"schema_version": 0, "attributes": {{"id": "{id}"}}}}"#);
        let first = resource("first", &format!(r#""instances": [{}]"#, instance("f")));
        let twice = resource(
            "twice",
            &format!(
                r#""instances": [{}, {}], "Instances": [{}]"#,
                instance("t1"),
                instance("t2"),
                r#"{"schema_version": 0, "attributes": {"id": "t3"}, "Attributes": {"id": "T3"}}"#
            ),
        );
        let text = format!(
            r#"{{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l", "resources": [{first}, {first}], "Resources": [{twice}]}}"#
        );
        let state = crate::state::parse(text.as_bytes()).unwrap();
        assert_eq!(state.resources.len(), 1);
        assert_eq!(state.resources[0].instances.len(), 1);
        let resource = &state.resources[0];
        assert!(!resource.instances_named_exactly && !resource.attributes_named_exactly);
        let walked = Document::parse(&text).unwrap();
        assert_selects_as_walked(
            &state,
            &walked,
            &[
                "$.resources[*].name",
                "$.Resources[*].name",
                "$.Resources[*].instances[*].attributes.id",
                "$.Resources[*].Instances[*].attributes.id",
                "$.Resources[*].Instances[*].Attributes.id",
                "$.Resources[*].Instances[*].attributes",
                "$..instances[*].attributes.id",
                "$..[*].name",
            ],
        );
    }

    /// The values Terraform does not read (of a member a later one of its name replaced, in any
    /// case: the top-level `outputs` and `resources`, a resource's `instances`, an instance's
    /// `attributes` and `attributes_flat`) show masked whole, whether the resources are read in
    /// one part or several, and as written with the sensitive values shown.
    #[test]
    fn values_terraform_does_not_read_are_masked_whole() {
        let resource = |name: usize, instances: &str| {
            format!(
                r#"{{"mode": "managed", "type": "t_a", "name": "r{name}", "provider": "provider[\"registry.terraform.io/h/t\"]", {instances}}}"#
            )
        };
        let read = r#"{"schema_version": 0, "attributes": {"id": "x", "password": "secret-attributes"}, "Attributes": {"id": "a", "password": "read"}, "attributes_flat": {"password": "secret-flat"}, "Attributes_Flat": {"id": "f"}, "sensitive_attributes": []}"#;
        let resources: Vec<String> = (0..12)
            .map(|index| {
                resource(
                    index,
                    &format!(
                        r#""Instances": [{{"schema_version": 0, "attributes": {{"password": "secret-instances"}}}}], "instances": [{read}]"#
                    ),
                )
            })
            .collect();
        let text = format!(
            "{{\"version\": 4, \"terraform_version\": \"1.15.5\", \"serial\": 1, \"lineage\": \"l\",
\"outputs\": {{\"o\": {{\"value\": \"secret-outputs\", \"type\": \"string\"}}}}, \"Outputs\": {{}},
\"Resources\": [{}],
\"resources\": [
{}
]}}",
            resource(99, r#""instances": [{"schema_version": 0, "attributes": {"password": "secret-resources"}}]"#),
            resources.join(",\n")
        );
        let all = JsonPath::parse("$..*").unwrap();
        for parts in [1, 3] {
            let joined = crate::state::parse_split::joined();
            let state = forced(parts, || crate::state::parse(text.as_bytes())).unwrap();
            assert_eq!(crate::state::parse_split::joined() > joined, parts > 1);
            assert_eq!(state.resources.len(), 12);
            // Per resource its `Instances`, `attributes` and `attributes_flat`; the top-level
            // `outputs` and `Resources`.
            assert_eq!(state.shadowed.len(), 12 * 3 + 2, "{parts} parts");
            let masked = selected(&document(&state, &all, false).unwrap(), &all);
            assert!(!masked.contains("secret-"), "{parts} parts: {masked}");
            assert!(masked.contains(r#""read""#), "{parts} parts");
            let shown = selected(&document(&state, &all, true).unwrap(), &all);
            for secret in ["attributes", "flat", "instances", "outputs", "resources"] {
                assert!(shown.contains(&format!("secret-{secret}")), "{secret}");
            }
        }
    }

    /// A model whose resources or instances are not in the text's order (its vectors are public)
    /// hands over no arrays' elements: a query selects what walking the text selects.
    #[test]
    fn a_model_out_of_the_text_s_order_hands_over_no_elements() {
        let text = state_text();
        let walked = Document::parse(&text).unwrap();
        for reorder in [0, 1] {
            let mut state = crate::state::parse(text.as_bytes()).unwrap();
            if reorder == 0 {
                state.resources.reverse();
            } else {
                let instance = state.resources[3].instances.pop().unwrap();
                state.resources[1].instances.push(instance);
            }
            assert_selects_as_walked(
                &state,
                &walked,
                &[
                    "$.resources[*].name",
                    "$.resources[*].instances[*].attributes.id",
                    "$.resources[2].instances[0].attributes.id",
                ],
            );
        }
    }

    /// Members noted in the parse select what walking each attributes object selects, masked or
    /// not: a repeated member (its last value), one written with an escape, one missing, `null`
    /// attributes, attributes too deeply nested for the fast skip (no notes: walked), attributes
    /// masked whole (no members), a masked member, a deposed object, members of the same names
    /// deeper down and outside the attributes.
    #[test]
    fn noted_members_select_what_walking_the_objects_selects() {
        let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        let instance = |index: usize, attributes: &str, paths: &str| {
            format!(
                r#"{{"index_key": {index}, "schema_version": 0, "attributes": {attributes}, "sensitive_attributes": {paths}}}"#
            )
        };
        let instances = [
            instance(0, r#"{"id": "a", "name": "n0", "id": "a-last"}"#, "[]"),
            instance(1, r#"{"i\u0064": "escaped", "name": "n1"}"#, "[]"),
            instance(2, r#"{"name": "no-id", "tags": {"id": "nested"}}"#, "[]"),
            instance(3, "null", "[]"),
            instance(4, &format!(r#"{{"id": "deep", "deep": {deep}}}"#), "[]"),
            instance(5, r#"{"id": "whole-secret", "name": "n5"}"#, "[[]]"),
            instance(
                6,
                r#"{"id": "id-secret", "name": "n6"}"#,
                r#"[[{"type": "get_attr", "value": "id"}]]"#,
            ),
            r#"{"schema_version": 0, "deposed": "00000001", "attributes": {"name": "d", "id": {"nested": ["x"]}}}"#.to_owned(),
        ];
        let text = format!(
            r#"{{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "l", "outputs": {{"id": {{"value": "out", "type": "string"}}}}, "resources": [
  {{"mode": "managed", "type": "t_a", "name": "a", "provider": "provider[\"registry.terraform.io/h/t\"]", "instances": [{}]}},
  {{"mode": "managed", "type": "t_b", "name": "b", "provider": "provider[\"registry.terraform.io/h/t\"]", "instances": []}}
]}}"#,
            instances.join(",\n    ")
        );
        let walked = Document::parse(&text).unwrap();
        let plain = crate::state::parse(text.as_bytes()).unwrap();
        // More names than are noted: the first are, the rest (`id`) walked.
        let many: Vec<String> = (0..NOTED_AT_MOST + 4)
            .map(|at| format!("'n{at}'"))
            .collect();
        let many = format!("$..attributes[{}, 'id']", many.join(", "));
        assert!(
            !noting(&JsonPath::parse(&many).unwrap())
                .unwrap()
                .members
                .wants(b"id")
        );
        for path in [
            many.as_str(),
            "$.resources[*].instances[*].attributes.id",
            "$.resources[*].instances[*].attributes['name', 'id', 'tags']",
            "$..attributes.id",
            "$..attributes.id.nested[0]",
            "$.resources[?@.instances[1].attributes.id == 'escaped'].name",
            "$.resources[*].instances[?@.attributes.id].index_key",
            "$.resources[*].instances[?!@.attributes.id].index_key",
            "$..id",
        ] {
            let path = JsonPath::parse(path).unwrap();
            // `$..id` names nothing after `attributes`: nothing noted, all walked.
            let noted = match noting(&path) {
                Some(noting) => crate::state::parse::parse_noting(text.as_bytes(), &noting),
                None => crate::state::parse(text.as_bytes()),
            }
            .unwrap();
            assert_eq!(
                selected(&document(&noted, &path, true).unwrap(), &path),
                selected(&walked, &path),
                "{}",
                path.as_str()
            );
            assert_eq!(
                selected(&document(&noted, &path, false).unwrap(), &path),
                selected(&document(&plain, &path, false).unwrap(), &path),
                "{} masked",
                path.as_str()
            );
        }
        let ids = JsonPath::parse("$.resources[*].instances[*].attributes.id").unwrap();
        let noted =
            crate::state::parse::parse_noting(text.as_bytes(), &noting(&ids).unwrap()).unwrap();
        // Five of the seven objects had notes (the `null` and the deep one had none), each
        // handed over, with or without an `id`.
        let handed = found(&noted, false, false).noted;
        assert_eq!(handed.len(), 1);
        assert_eq!(handed[0].len(), 6, "{handed:?}");
        let selected = ids
            .select(
                &document(&noted, &ids, false).unwrap(),
                Limits::for_document(text.len()),
            )
            .and_then(|mut selection| selection.to_json(false))
            .unwrap();
        assert_eq!(
            selected,
            format!(r#"["a-last","escaped","deep","{MASK}",{{"nested":["x"]}}]"#)
        );
    }

    /// A state read in parts on several threads: each part's notes point at its own instances.
    #[test]
    fn members_noted_in_parts_are_each_instance_s_own() {
        let mut text = String::from(
            "{\n  \"version\": 4,\n  \"serial\": 1,\n  \"lineage\": \"l\",\n  \"resources\": [\n",
        );
        for index in 0..3000 {
            let _ = writeln!(
                text,
                "    {{\"mode\": \"managed\", \"type\": \"t\", \"name\": \"r{index}\", \"provider\": \"provider[\\\"registry.terraform.io/h/t\\\"]\", \"instances\": [{{\"schema_version\": 0, \"attributes\": {{\"arn\": \"a{index}\", {}\"tags\": {{\"id\": 0}}}}}}]}}{}",
                if index % 7 == 0 {
                    String::new()
                } else {
                    format!("\"id\": \"i-{index}\", ")
                },
                if index == 2999 { "" } else { "," }
            );
        }
        text.push_str("  ]\n}\n");
        let path = JsonPath::parse("$.resources[*].instances[*].attributes['id', 'arn']").unwrap();
        let walked = Document::parse(&text).unwrap();
        let expected = path
            .select(&walked, Limits::for_document(text.len()))
            .and_then(|mut selection| selection.to_json(false))
            .unwrap();
        assert!(expected.contains("\"i-2998\",\"a2998\""), "{expected}");
        for parts in [1, 2, 5] {
            let noted = forced(parts, || {
                crate::state::parse::parse_noting(text.as_bytes(), &noting(&path).unwrap())
            })
            .unwrap();
            // The document's pass over the resources cut into as many runs as the parse's parts.
            let handed = forced(parts, || found(&noted, false, false).noted);
            assert!(handed.iter().all(|members| members.len() == 3000));
            let document = forced(parts, || document(&noted, &path, true).unwrap());
            let selected = path
                .select(&document, Limits::for_document(text.len()))
                .and_then(|mut selection| selection.to_json(false))
                .unwrap();
            // Not `assert_eq!`: the lists are 100 KB.
            assert!(selected == expected, "{parts} parts select otherwise");
        }
    }

    #[test]
    fn known_ends_come_sorted_and_merged_lists_keep_every_entry() {
        let text = state_text();
        let state = crate::state::parse(text.as_bytes()).unwrap();
        let ends = merged(found(&state, false, false).ends, &top_level_ends(&state));
        assert!(ends.is_sorted());
        // The top level's `outputs` and `resources`, an output, and each of 24 resources' own.
        assert!(ends.len() >= 3 + 24, "{}", ends.len());
        assert_eq!(
            merged(vec![(1, 2), (5, 9), (7, 8)], &[(0, 3), (5, 6), (10, 11)]),
            [(0, 3), (1, 2), (5, 6), (5, 9), (7, 8), (10, 11)]
        );
        assert_eq!(merged(vec![], &[(1, 2)]), [(1, 2)]);
        assert_eq!(merged(vec![(1, 2)], &[]), [(1, 2)]);
        // Every interleaving of two short sorted lists, against a sort of both.
        for mask in 0u32..1 << 10 {
            let (many, few): (Vec<u32>, Vec<u32>) = (0..10).partition(|bit| mask & (1 << bit) != 0);
            let few: Vec<u32> = few.iter().map(|&value| value / 3).collect();
            let mut both: Vec<u32> = many.iter().chain(&few).copied().collect();
            both.sort_unstable();
            assert_eq!(merged(many, &few), both, "{mask:b}");
        }
    }
}
