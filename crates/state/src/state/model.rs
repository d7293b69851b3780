//! The borrowed view of a version-4 state: typed fields where statectl needs them, byte spans into the
//! original text for everything else (attributes stay raw JSON until something asks for them).
//!
//! Nothing the file holds is dropped: every object keeps its byte span, and [`members`] reads its
//! members back (unknown keys included, in input order) when a changed instance must be rendered.
//! Keeping them out of the model is what keeps a 100,000-instance state's model small.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::num::NonZeroU32;
use std::sync::Arc;

use crate::json::{Cursor, JsonError, Span};
use crate::state::address::{InstanceAddr, InstanceKey, Mode, ResourceAddr};
use crate::state::deposed_key::DeposedKey;
use crate::state::layout::{OrderLean, Style};
use crate::state::mapped::GiveBack;
use crate::state::notes::{Notes, NotesAt};
use crate::state::order::ObjectRef;
use crate::state::provider::ProviderConfig;

/// One `"key": value` member of an object, as written.
#[derive(Debug, Clone)]
pub struct Member<'a> {
    /// The decoded key, as written (not case-folded).
    pub key: Cow<'a, str>,
    /// The key's string literal, quotes included.
    pub key_span: Span,
    pub value: Span,
}

/// A parsed state file.
#[derive(Debug)]
pub struct State<'a> {
    pub source: &'a str,
    pub version: u64,
    pub terraform_version: Option<Cow<'a, str>>,
    pub serial: u64,
    pub serial_span: Option<Span>,
    pub lineage: Cow<'a, str>,
    pub outputs: Vec<Output<'a>>,
    pub resources: Vec<Resource<'a>>,
    /// Every instance object in Terraform's order (see `order`).
    pub order: Vec<ObjectRef>,
    /// The raw `check_results` value (an array or `null`), when present.
    pub check_results: Option<Span>,
    /// The notes the parse took of chosen attributes, when it was asked to (`parse_noting`).
    pub notes: Notes,
    /// The top-level object's members in input order.
    pub members: Vec<Member<'a>>,
    /// The `resources` array the resources were read from (none when it is `null` or missing).
    pub(crate) resources_array: Option<Span>,
    /// Values Terraform does not read: those of members a later member of the same name (in any
    /// case) replaced, of the top-level `outputs` and `resources`, a resource's `instances` and an
    /// instance's `attributes` and `attributes_flat`. Nothing reads them as the state's, so no
    /// sensitive path masks anything in them: `query` shows each masked whole.
    pub(crate) shadowed: Vec<Span>,
    pub span: Span,
    pub style: Style,
    /// Gives back pages of the mapped text, when the parse gave back those it passed
    /// (`StateBytes::parse_reading_once`): see [`State::give_back_around`].
    pub(crate) give_back: Option<GiveBack<'a>>,
}

/// A root-module output value.
#[derive(Debug)]
pub struct Output<'a> {
    pub name: Cow<'a, str>,
    pub value: Option<Span>,
    pub value_type: Option<Span>,
    pub sensitive: bool,
    pub span: Span,
}

/// One entry of `resources`: a resource and its instance objects.
#[derive(Debug)]
pub struct Resource<'a> {
    pub address: ResourceAddr,
    /// `provider`, absent in OpenTofu files whose instances carry their own. Shared between the
    /// resources that name the same provider.
    pub provider: Option<Arc<ProviderConfig>>,
    pub instances: Vec<Instance<'a>>,
    /// The `instances` array (the last, if the name repeats; none when it is `null` or missing).
    pub(crate) instances_array: Option<Inside>,
    pub span: Span,
    /// The parse found `instances` in Terraform's order without two of one identity (see
    /// `order::in_order`), looking while they were in cache: the order of a large state's objects
    /// then need not read every instance record again (most of that order's time).
    pub(crate) instances_in_order: bool,
    /// Which writer's key order its instance objects follow (evidence of who wrote the file, see
    /// `layout::detect_flavour`).
    pub(crate) key_order: OrderLean,
    /// The `instances` array was the value of a member named exactly so (Terraform's reader
    /// takes a name in any case; a JSONPath name matches only itself), and so was each of its
    /// instances' `attributes` objects. (Kept here, not on each instance: the instance record has
    /// no byte to spare.)
    pub(crate) instances_named_exactly: bool,
    pub(crate) attributes_named_exactly: bool,
    /// Some instance has a member Terraform reads as `status`, in any spelling and with any
    /// value (`tainted` says only what one holds). Without one, no instance object has a member
    /// a JSONPath `status` selects, which `query` hands the walker instead of reading each
    /// instance again; a resource with one (a tainted instance, rare) is walked.
    pub(crate) status_members: bool,
}

impl Resource<'_> {
    pub fn mode(&self) -> Mode {
        self.address.mode
    }

    /// The span of the `instances` array, as the parser read it.
    pub fn instances_array(&self) -> Option<Span> {
        self.instances_array
            .map(|inside| inside.within(self.span.start))
    }
}

/// An instance object: the current object of a resource instance, or a deposed one.
///
/// A large state holds hundreds of thousands of these records (128 bytes each), so values statectl
/// reads rarely are kept as places inside `span` and read from the text by the methods of the same
/// names.
#[derive(Debug)]
pub struct Instance<'a> {
    pub index_key: Option<InstanceKey>,
    pub tainted: bool,
    pub deposed: Option<DeposedKey>,
    /// OpenTofu's instance-level provider (provider `for_each`).
    pub provider: Option<Arc<ProviderConfig>>,
    pub schema_version: u64,
    pub(crate) attributes: Option<Inside>,
    pub(crate) attributes_flat: Option<Inside>,
    pub(crate) sensitive_attributes: Option<Inside>,
    pub(crate) identity: Option<Inside>,
    /// The `private` string literal, quotes included (checked to be a string by the parse).
    pub(crate) private: Option<Inside>,
    /// The `dependencies` array (checked to hold only strings by the parse).
    pub(crate) dependencies: Option<Inside>,
    /// The `identity_schema_version` number or `null` (checked by the parse).
    pub(crate) identity_schema_version: Option<Inside>,
    pub create_before_destroy: bool,
    /// OpenTofu's persisted `lifecycle { destroy = false }`.
    pub skip_destroy: bool,
    /// The whole object; the parser's, not to be changed (the values above are kept inside it).
    pub span: Span,
    /// Where the parse's notes of chosen attributes are, when it took them (see `notes`).
    pub(crate) notes: NotesAt,
    /// The places above are places in one text: the record belongs to the state read from it.
    pub(crate) text: PhantomData<&'a str>,
}

impl Instance<'_> {
    pub fn address(&self, resource: &Resource<'_>) -> InstanceAddr {
        InstanceAddr {
            resource: resource.address.clone(),
            key: self.index_key.clone(),
        }
    }

    /// The raw `attributes` object (or `null`).
    pub fn attributes(&self) -> Option<Span> {
        self.place(self.attributes)
    }

    /// The legacy flatmap form, a JSON object of strings (or `null`).
    pub fn attributes_flat(&self) -> Option<Span> {
        self.place(self.attributes_flat)
    }

    /// The raw `sensitive_attributes` value (an array of paths).
    pub fn sensitive_attributes(&self) -> Option<Span> {
        self.place(self.sensitive_attributes)
    }

    /// The raw `identity` object (or `null`).
    pub fn identity(&self) -> Option<Span> {
        self.place(self.identity)
    }

    /// `private`, decoded: the provider's opaque data, base64 as Terraform writes it (`null` is none).
    pub fn private<'s>(&self, source: &'s str) -> Option<Cow<'s, str>> {
        let span = self.place(self.private)?;
        Cursor::new(span.of(source))
            .string()
            .ok()
            .map(|(text, _)| text)
    }

    /// `dependencies`, decoded, in the file's order (empty when absent or `null`).
    pub fn dependencies<'s>(&self, source: &'s str) -> Vec<Cow<'s, str>> {
        let mut dependencies = Vec::new();
        if let Some(span) = self.place(self.dependencies) {
            let mut cursor = Cursor::new(span.of(source));
            // The parse checked the array; on text it did not check this reads what it can.
            let _ = cursor.array(|cursor| {
                dependencies.push(cursor.string()?.0);
                Ok::<_, JsonError>(())
            });
        }
        dependencies
    }

    /// `identity_schema_version` when present (`null` reads as 0, as Terraform reads it).
    pub fn identity_schema_version(&self, source: &str) -> Option<u64> {
        let text = self.place(self.identity_schema_version)?.of(source);
        Some(text.parse().unwrap_or_default())
    }

    /// Whether the object has an `identity_schema_version` member.
    pub fn has_identity_schema_version(&self) -> bool {
        self.identity_schema_version.is_some()
    }

    fn place(&self, inside: Option<Inside>) -> Option<Span> {
        inside.map(|inside| inside.within(self.span.start))
    }

    /// The raw attributes text, when the instance has an attributes object.
    pub fn attributes_json<'s>(&self, source: &'s str) -> Option<&'s str> {
        self.attributes()
            .map(|span| span.of(source))
            .filter(|raw| *raw != "null")
    }
}

/// Where a value lies inside the object that holds it, as offsets from the object's start: 8 bytes
/// where an `Option<Span>` takes 24 (the end is never the object's first byte, so `None` costs
/// nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Inside {
    start: u32,
    end: NonZeroU32,
}

impl Inside {
    /// `span`, inside an object that starts at `object_start`; `None` when it does not start after
    /// that or lies more than 4 GiB past it (no state may be that large).
    pub(crate) fn of(span: Span, object_start: usize) -> Option<Inside> {
        let offset = |at: usize| u32::try_from(at.checked_sub(object_start)?).ok();
        Some(Inside {
            start: offset(span.start)?,
            end: NonZeroU32::new(offset(span.end)?)?,
        })
        .filter(|inside| inside.start > 0 && inside.start <= inside.end.get())
    }

    /// The absolute span, in an object that starts at `object_start`.
    pub(crate) fn within(self, object_start: usize) -> Span {
        Span::new(
            object_start + self.start as usize,
            object_start + self.end.get() as usize,
        )
    }
}

impl<'a> State<'a> {
    /// Gives back the pages of `from..to` of the text (rounded out to whole granules) when the
    /// parse gave back the pages it passed: for a reader that goes back to a few places after the
    /// parse (a scan, to its findings' objects), once it is done with them. Each page read again
    /// is mapped again, with the same bytes. Nothing for a text the parse kept.
    pub fn give_back_around(&self, from: usize, to: usize) {
        if let Some(give_back) = self.give_back {
            give_back.pages_around(from, to);
        }
    }

    /// Every instance object, with the resource it belongs to.
    pub fn instances(&self) -> impl Iterator<Item = (&Resource<'a>, &Instance<'a>)> {
        self.resources.iter().flat_map(|resource| {
            resource
                .instances
                .iter()
                .map(move |instance| (resource, instance))
        })
    }

    /// The provider that manages an instance: its own (OpenTofu) or its resource's.
    pub fn provider_of<'s>(
        resource: &'s Resource<'_>,
        instance: &'s Instance<'_>,
    ) -> Option<&'s ProviderConfig> {
        instance
            .provider
            .as_deref()
            .or(resource.provider.as_deref())
    }
}

/// Reads the members of the object at `span` of `source` (already validated by the parser), in input
/// order, duplicates and unknown keys included.
pub fn members(source: &str, span: Span) -> Vec<Member<'_>> {
    let mut cursor = Cursor::new(source);
    cursor.seek(span.start);
    let mut members = Vec::new();
    let read = cursor.object(|cursor, key, key_span| {
        cursor.skip_whitespace();
        let start = cursor.position();
        cursor.skip_value()?;
        members.push(Member {
            key,
            key_span,
            value: Span::new(start, cursor.position()),
        });
        Ok::<_, JsonError>(())
    });
    debug_assert!(read.is_ok(), "the parser validated this object");
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_inside_an_object_gives_back_the_span_it_was_made_from() {
        for (object_start, span) in [
            (0, Span::new(1, 2)),
            (100, Span::new(130, 130)),
            (7, Span::new(8, 7 + u32::MAX as usize)),
            (usize::MAX - 10, Span::new(usize::MAX - 9, usize::MAX)),
        ] {
            let inside = Inside::of(span, object_start).expect("fits");
            assert_eq!(inside.within(object_start), span);
        }
    }

    #[test]
    fn a_place_outside_an_object_or_past_4_gib_is_refused() {
        for (object_start, span) in [
            (10, Span::new(10, 12)),
            (10, Span::new(9, 12)),
            (10, Span::new(12, 11)),
            (0, Span::new(1, 1 + u32::MAX as usize)),
            (0, Span::new(1 + u32::MAX as usize, 2 + u32::MAX as usize)),
        ] {
            assert_eq!(
                Inside::of(span, object_start),
                None,
                "{span:?} in {object_start}"
            );
        }
    }

    #[test]
    fn an_instance_record_stays_small() {
        // A 1 GB state holds 400,000 of these: each 8 bytes is 3 MB of memory and of writing.
        assert_eq!(size_of::<Option<Inside>>(), 8);
        assert!(
            size_of::<Instance<'_>>() <= 128,
            "{} bytes",
            size_of::<Instance<'_>>()
        );
        // A resource keeps where its `instances` array is (8 bytes, 1.4 MB of a 1 GB state's
        // 177,000 resources), so `query` finds it without reading the text around each one.
        assert!(
            size_of::<Resource<'_>>() <= 136,
            "{} bytes",
            size_of::<Resource<'_>>()
        );
    }

    /// The one instance of a resource in a state made of `instance`.
    fn reading(instance: &str, read: impl FnOnce(&str, &Instance<'_>)) {
        let text = format!(
            r#"{{"version": 4, "serial": 1, "lineage": "l", "resources": [{{"mode": "managed", "type": "t", "name": "n", "provider": "provider[\"registry.terraform.io/hashicorp/null\"]", "instances": [{instance}]}}]}}"#
        );
        let state = crate::state::parse(text.as_bytes()).unwrap();
        read(state.source, &state.resources[0].instances[0]);
    }

    #[test]
    fn values_kept_as_places_read_back_decoded() {
        reading(
            r#"{"schema_version": 0, "attributes": {}, "private": "YWJj\u002b\/", "dependencies": ["a.b", "module.m.c\u0064.e"], "identity_schema_version": 12}"#,
            |source, instance| {
                assert_eq!(instance.private(source).as_deref(), Some("YWJj+/"));
                assert_eq!(instance.dependencies(source), ["a.b", "module.m.cd.e"]);
                assert_eq!(instance.identity_schema_version(source), Some(12));
                assert!(instance.has_identity_schema_version());
            },
        );
    }

    #[test]
    fn absent_and_null_values_read_as_terraform_reads_them() {
        reading(r#"{"attributes": {}}"#, |source, instance| {
            assert_eq!(instance.private(source), None);
            assert!(instance.dependencies(source).is_empty());
            assert_eq!(instance.identity_schema_version(source), None);
            assert!(!instance.has_identity_schema_version());
        });
        reading(
            r#"{"private": null, "dependencies": null, "identity_schema_version": null}"#,
            |source, instance| {
                assert_eq!(instance.private(source), None);
                assert!(instance.dependencies(source).is_empty());
                assert_eq!(instance.identity_schema_version(source), Some(0));
            },
        );
        reading(
            r#"{"private": "", "dependencies": [], "identity_schema_version": 18446744073709551615}"#,
            |source, instance| {
                assert_eq!(instance.private(source).as_deref(), Some(""));
                assert!(instance.dependencies(source).is_empty());
                assert_eq!(instance.identity_schema_version(source), Some(u64::MAX));
            },
        );
    }

    #[test]
    fn the_last_of_duplicate_values_is_the_one_read() {
        reading(
            r#"{"private": "Zmlyc3Q=", "PRIVATE": "bGFzdA==", "dependencies": ["a.first"], "Dependencies": ["a.last"]}"#,
            |source, instance| {
                assert_eq!(instance.private(source).as_deref(), Some("bGFzdA=="));
                assert_eq!(instance.dependencies(source), ["a.last"]);
            },
        );
    }
}
