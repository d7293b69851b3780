//! What an instance's attributes say about its remote object's last operation: values the catalog
//! lists as transitional (still in progress) or failed, at the catalog's paths for the type, or under
//! the generic status names for types the catalog does not know. Shared by the detectors and the
//! lifecycle rules (which refuse to taint an object that is still being created).

use crate::json::Cursor;
use crate::scan::catalog::{Catalog, listed};
use crate::scan::finding::Evidence;
use crate::scan::path::Attributes;

/// The transitional and failed values an instance holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteStatus {
    pub transitional: Vec<Evidence>,
    pub failed: Vec<Evidence>,
    /// The type has no catalog entry; the generic status names were read.
    pub generic: bool,
}

impl RemoteStatus {
    /// Still mid-operation: a create, update or delete had not finished when the state was saved.
    pub fn in_progress(&self) -> bool {
        !self.transitional.is_empty()
    }
}

/// Reads the status of an instance of `type_name` from its attributes.
pub fn remote_status(
    catalog: &Catalog,
    type_name: &str,
    attributes: &Attributes<'_>,
) -> RemoteStatus {
    let mut status = RemoteStatus::default();
    let entries = catalog.entries(type_name);
    if entries.is_empty() {
        status.generic = true;
        generic_status(catalog, attributes, &mut status);
    }
    for entry in entries {
        let Some(path) = &entry.path else { continue };
        for value in attributes.values(path) {
            let Some(text) = decoded_string(&value) else {
                continue;
            };
            let evidence = || Evidence {
                path: entry.path_text.clone(),
                value: value.clone(),
            };
            if listed(&entry.pending, &text) {
                status.transitional.push(evidence());
            } else if listed(&entry.failed, &text) {
                status.failed.push(evidence());
            }
        }
    }
    status
}

/// Top-level attributes with a generic status name holding a well-known transitional or failed value.
fn generic_status(catalog: &Catalog, attributes: &Attributes<'_>, status: &mut RemoteStatus) {
    let generic = &catalog.generic;
    for (key, value) in attributes.members() {
        if !generic.attributes.iter().any(|name| name == key) {
            continue;
        }
        let Some(text) = decoded_string(value) else {
            continue;
        };
        let evidence = Evidence {
            path: key.to_owned(),
            value: value.to_owned(),
        };
        if listed(&generic.pending, &text) {
            status.transitional.push(evidence);
        } else if listed(&generic.failed, &text) {
            status.failed.push(evidence);
        }
    }
}

/// The text of a JSON string literal; `None` for any other value.
pub fn decoded_string(raw: &str) -> Option<String> {
    if !raw.starts_with('"') {
        return None;
    }
    Cursor::new(raw)
        .string()
        .ok()
        .map(|(text, _)| text.into_owned())
}
