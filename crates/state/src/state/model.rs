//! The borrowed view of a version-4 state: typed fields where statectl needs them, byte spans into the
//! original text for everything else (attributes stay raw JSON until something asks for them).
//!
//! Nothing the file holds is dropped: every object keeps its byte span, and [`members`] reads its
//! members back (unknown keys included, in input order) when a changed instance must be rendered.
//! Keeping them out of the model is what keeps a 100,000-instance state's model small.

use std::borrow::Cow;
use std::sync::Arc;

use crate::json::{Cursor, JsonError, Span};
use crate::state::address::{InstanceAddr, InstanceKey, Mode, ResourceAddr};
use crate::state::layout::{Flavour, Style};
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
    /// The top-level object's members in input order.
    pub members: Vec<Member<'a>>,
    pub span: Span,
    pub style: Style,
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
    pub span: Span,
}

impl Resource<'_> {
    pub fn mode(&self) -> Mode {
        self.address.mode
    }
}

/// An instance object: the current object of a resource instance, or a deposed one.
#[derive(Debug)]
pub struct Instance<'a> {
    pub index_key: Option<InstanceKey>,
    pub tainted: bool,
    pub deposed: Option<Cow<'a, str>>,
    /// OpenTofu's instance-level provider (provider `for_each`).
    pub provider: Option<Arc<ProviderConfig>>,
    pub schema_version: u64,
    /// The raw `attributes` object (or `null`).
    pub attributes: Option<Span>,
    /// The legacy flatmap form, a JSON object of strings.
    pub attributes_flat: Option<Span>,
    pub sensitive_attributes: Option<Span>,
    pub private: Option<Cow<'a, str>>,
    pub dependencies: Vec<Cow<'a, str>>,
    pub create_before_destroy: bool,
    /// OpenTofu's persisted `lifecycle { destroy = false }`.
    pub skip_destroy: bool,
    pub identity: Option<Span>,
    pub identity_schema_version: Option<u64>,
    /// The one writer whose key order this object's known fields follow, when they follow only one's
    /// (evidence of who wrote the file, see `layout::detect_flavour`).
    pub key_order: Option<Flavour>,
    pub span: Span,
}

impl Instance<'_> {
    pub fn address(&self, resource: &Resource<'_>) -> InstanceAddr {
        InstanceAddr {
            resource: resource.address.clone(),
            key: self.index_key.clone(),
        }
    }

    /// The raw attributes text, when the instance has an attributes object.
    pub fn attributes_json<'s>(&self, source: &'s str) -> Option<&'s str> {
        self.attributes
            .map(|span| span.of(source))
            .filter(|raw| *raw != "null")
    }
}

impl<'a> State<'a> {
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
