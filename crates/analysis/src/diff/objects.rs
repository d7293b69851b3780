//! Objects matched by address (instance address plus deposed key) and compared member by member.
//!
//! Both files' objects are already in Terraform's order (the parser sorts them), so matching is one
//! merge, with no map and no address formatted for the objects that agree. A pair whose text holds
//! the same tokens is equal without parsing; the others are compared as Go's reader reads them
//! (an absent member is its zero value) and their attributes walked.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::{Map, Value};
use statectl_state::json::Span;
use statectl_state::state::address::{InstanceKey, ObjectAddr, ResourceAddr};
use statectl_state::state::layout::{OPENTOFU_INSTANCE_ORDER, TERRAFORM_INSTANCE_ORDER};
use statectl_state::state::model::{Instance, State, members};
use statectl_state::state::mutate::object_of;
use statectl_state::state::order::ObjectRef;
use statectl_state::state::parse::canonical;
use statectl_state::state::sensitive;

use crate::diff::compare::{attribute_changes, parse, same_json, same_tokens};
use crate::diff::path::Path;
use crate::diff::{Action, AttributeChange, Changes, ObjectChange, ObjectKind};

/// Every object that differs, in Terraform's order.
pub(super) fn objects(old: &State<'_>, new: &State<'_>) -> Vec<ObjectChange> {
    let mut changes = Vec::new();
    let (mut at_old, mut at_new) = (0, 0);
    loop {
        let ordering = match (old.order.get(at_old), new.order.get(at_new)) {
            (Some(&left), Some(&right)) => identity(old, left).cmp(&identity(new, right)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        match ordering {
            Ordering::Less => {
                let object = old.order[at_old];
                changes.push(ObjectChange {
                    address: address(old, object),
                    old: Some(object),
                    new: None,
                    kind: ObjectKind::Removed,
                });
                at_old += 1;
            }
            Ordering::Greater => {
                let object = new.order[at_new];
                changes.push(ObjectChange {
                    address: address(new, object),
                    old: None,
                    new: Some(object),
                    kind: ObjectKind::Added,
                });
                at_new += 1;
            }
            Ordering::Equal => {
                let (before, after) = (old.order[at_old], new.order[at_new]);
                if let Some(found) = compare(old, before, new, after) {
                    changes.push(ObjectChange {
                        address: address(old, before),
                        old: Some(before),
                        new: Some(after),
                        kind: ObjectKind::Changed(found),
                    });
                }
                at_old += 1;
                at_new += 1;
            }
        }
    }
    changes
}

/// What the parser sorted `order` by: Terraform's object order.
fn identity<'s>(
    state: &'s State<'_>,
    object: ObjectRef,
) -> (&'s ResourceAddr, Option<&'s InstanceKey>, Option<&'s str>) {
    let (resource, instance) = object_of(state, object);
    (
        &resource.address,
        instance.index_key.as_ref(),
        instance.deposed.as_deref(),
    )
}

fn address(state: &State<'_>, object: ObjectRef) -> ObjectAddr {
    let (resource, instance) = object_of(state, object);
    ObjectAddr {
        instance: instance.address(resource),
        deposed: instance.deposed.as_deref().map(str::to_owned),
    }
}

/// The differences between two objects at one address, or `None` when they are the same.
fn compare(
    old: &State<'_>,
    before: ObjectRef,
    new: &State<'_>,
    after: ObjectRef,
) -> Option<Changes> {
    let (old_resource, old_instance) = object_of(old, before);
    let (new_resource, new_instance) = object_of(new, after);
    // The provider may be written on the resource or (OpenTofu) on the instance; what counts is
    // which one manages the object.
    let provider = |resource, instance| {
        State::provider_of(resource, instance).map(|provider| provider.text.as_str())
    };
    let same_provider =
        provider(old_resource, old_instance) == provider(new_resource, new_instance);
    if same_provider
        && same_tokens(
            old_instance.span.of(old.source),
            new_instance.span.of(new.source),
        )
    {
        return None;
    }
    let mut fields = fields(old.source, old_instance, new.source, new_instance);
    if !same_provider {
        fields.push(Cow::Borrowed("provider"));
    }
    let attributes = attributes(
        old_instance.attributes_json(old.source),
        new_instance.attributes_json(new.source),
    );
    if fields.is_empty() && attributes.is_empty() {
        return None;
    }
    let sensitive = if attributes.is_empty() {
        Vec::new()
    } else {
        [
            (old.source, old_resource, old_instance),
            (new.source, new_resource, new_instance),
        ]
        .into_iter()
        .filter_map(|(source, resource, instance)| {
            let raw = instance.sensitive_attributes()?.of(source);
            let paths = sensitive::paths_to_mask(raw);
            Some(sensitive::with_copies(&resource.address.type_name, paths))
        })
        .flatten()
        .collect()
    };
    Some(Changes {
        fields,
        attributes,
        sensitive,
    })
}

/// The attribute changes between two raw `attributes` objects; a missing or `null` side is empty.
fn attributes(old: Option<&str>, new: Option<&str>) -> Vec<AttributeChange> {
    if old.is_none() && new.is_none()
        || old.zip(new).is_some_and(|(old, new)| same_tokens(old, new))
    {
        return Vec::new();
    }
    let read = |raw: Option<&str>| match raw {
        None => Some(Value::Object(Map::new())),
        Some(raw) => parse(raw),
    };
    match (read(old), read(new)) {
        (Some(old), Some(new)) => attribute_changes(&old, &new),
        // Text the state parser did not validate: the whole object, unreadable, differs.
        _ => vec![AttributeChange {
            path: Path::default(),
            action: Action::Changed,
            old: None,
            new: None,
        }],
    }
}

/// The names of the members other than `attributes` that differ, in Terraform's writer order, then
/// members statectl does not know.
fn fields(
    old_source: &str,
    old: &Instance<'_>,
    new_source: &str,
    new: &Instance<'_>,
) -> Vec<Cow<'static, str>> {
    let raw = |source, span: Option<Span>| span.map(|span| span.of(source));
    // An empty list of sensitive paths is no list at all.
    let paths = |source, span| raw(source, span).filter(|text| !same_tokens(text, "[]"));
    let mut differing: Vec<&'static str> = Vec::new();
    for &name in TERRAFORM_INSTANCE_ORDER {
        let same = match name {
            "status" => old.tainted == new.tainted,
            "schema_version" => old.schema_version == new.schema_version,
            "attributes_flat" => same_json(
                raw(old_source, old.attributes_flat()),
                raw(new_source, new.attributes_flat()),
            ),
            "sensitive_attributes" => same_json(
                paths(old_source, old.sensitive_attributes()),
                paths(new_source, new.sensitive_attributes()),
            ),
            "identity_schema_version" => {
                old.identity_schema_version(old_source).unwrap_or(0)
                    == new.identity_schema_version(new_source).unwrap_or(0)
            }
            "identity" => same_json(
                raw(old_source, old.identity()),
                raw(new_source, new.identity()),
            ),
            "private" => old.private(old_source) == new.private(new_source),
            // Terraform keeps dependencies sorted; another order is the same set.
            "dependencies" => {
                sorted(&old.dependencies(old_source)) == sorted(&new.dependencies(new_source))
            }
            "create_before_destroy" => old.create_before_destroy == new.create_before_destroy,
            "skip_destroy" => old.skip_destroy == new.skip_destroy,
            // Part of the address (`index_key`, `deposed`) or compared elsewhere (`attributes`,
            // `provider`, and the 0.12-era `depends_on` with the members the model does not keep).
            _ => true,
        };
        if !same {
            differing.push(name);
        }
    }
    let mut fields: Vec<Cow<'static, str>> = differing.into_iter().map(Cow::Borrowed).collect();
    let old_other = other_members(old_source, old);
    let new_other = other_members(new_source, new);
    for (key, value) in &old_other {
        let after = new_other
            .iter()
            .find(|(other, _)| other == key)
            .map(|(_, value)| *value);
        if !same_json(Some(value), after) {
            fields.push(Cow::Owned(key.clone()));
        }
    }
    for (key, value) in &new_other {
        if !old_other.iter().any(|(other, _)| other == key) && !same_json(None, Some(value)) {
            fields.push(Cow::Owned(key.clone()));
        }
    }
    fields
}

fn sorted<'s>(list: &'s [Cow<'_, str>]) -> Vec<&'s str> {
    let mut list: Vec<&str> = list.iter().map(AsRef::as_ref).collect();
    list.sort_unstable();
    list.dedup();
    list
}

/// The members the model does not keep (`depends_on` and keys statectl does not know), as
/// `(key, raw value)`, the last of duplicates winning.
fn other_members<'s>(source: &'s str, instance: &Instance<'_>) -> Vec<(String, &'s str)> {
    let mut found: Vec<(String, &'s str)> = Vec::new();
    for member in members(source, instance.span) {
        let key = match canonical(&member.key, OPENTOFU_INSTANCE_ORDER) {
            Some("depends_on") => "depends_on".to_owned(),
            Some(_) => continue,
            None => member.key.into_owned(),
        };
        let value = member.value.of(source);
        match found.iter_mut().find(|(other, _)| *other == key) {
            Some(slot) => slot.1 = value,
            None => found.push((key, value)),
        }
    }
    found
}
