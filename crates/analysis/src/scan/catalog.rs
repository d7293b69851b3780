//! The catalog of asynchronous resource types: where each keeps its lifecycle status, which values
//! mean "still in progress" or "failed", and which attributes a finished create fills. The built-in
//! catalog is data (`catalog.toml`, with a source per entry); a rules file adds to it. It also carries
//! which types `statectl refresh` covers, handed in by the CLI, for the hints.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use statectl_state::state::attr_path::AttrPath;

/// The built-in catalog, compiled in.
const BUILTIN: &str = include_str!("catalog.toml");

/// The catalog file's shape (also the `[[resource]]` and `[generic]` tables of a rules file).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogFile {
    #[serde(default)]
    pub generic: Option<Generic>,
    #[serde(default)]
    pub resource: Vec<EntryFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryFile {
    #[serde(rename = "type")]
    pub type_name: String,
    pub path: Option<String>,
    #[serde(default)]
    pub pending: Vec<String>,
    #[serde(default)]
    pub failed: Vec<String>,
    #[serde(default)]
    pub required: Vec<String>,
    /// What else to do when a value of this entry is found, for the finding's hint.
    pub hint: Option<String>,
}

/// One catalog entry for a resource type.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The path as written, for evidence.
    pub path_text: String,
    pub path: Option<AttrPath>,
    pub pending: Vec<String>,
    pub failed: Vec<String>,
    pub required: Vec<String>,
    /// What else to do when a value of this entry is found (a stuck Helm release needs a rollback).
    pub hint: Option<String>,
}

/// The fallback for types without an entry, as the catalog holds it and as a `[generic]` table
/// gives it (every list may be left out).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Generic {
    pub attributes: Vec<String>,
    pub pending: Vec<String>,
    pub failed: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Catalog {
    by_type: HashMap<String, Vec<Entry>>,
    pub generic: Generic,
    /// The resource types `statectl refresh` can ask about (those its built-in profiles cover), so
    /// that a hint names statectl's refresh only where it works. The CLI fills it from
    /// `statectl-reconcile`, which the analyses do not use; left empty, hints name Terraform's.
    pub refreshed_by_statectl: HashSet<String>,
}

/// A catalog entry that cannot be used; names the resource type.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("resource type `{type_name}`: {source}")]
    Path {
        type_name: String,
        source: statectl_state::state::attr_path::AttrPathError,
    },
    #[error(
        "resource type `{type_name}`: give a `path` (with `pending` or `failed` values) or `required` attributes"
    )]
    NothingToCheck { type_name: String },
}

impl Catalog {
    /// The built-in catalog. Its parse is checked by a test, so failing here is a build defect.
    pub fn builtin() -> Catalog {
        let file: CatalogFile =
            toml::from_str(BUILTIN).expect("the built-in catalog.toml parses (see its test)");
        let mut catalog = Catalog::default();
        catalog
            .extend(file)
            .expect("the built-in catalog's paths parse (see its test)");
        catalog
    }

    /// Adds entries and generic values (from the built-in file or a rules file).
    pub fn extend(&mut self, file: CatalogFile) -> Result<(), CatalogError> {
        if let Some(generic) = file.generic {
            self.generic.attributes.extend(generic.attributes);
            self.generic.pending.extend(generic.pending);
            self.generic.failed.extend(generic.failed);
        }
        for entry in file.resource {
            let path = entry
                .path
                .as_deref()
                .map(AttrPath::parse)
                .transpose()
                .map_err(|source| CatalogError::Path {
                    type_name: entry.type_name.clone(),
                    source,
                })?;
            if path.is_none() && entry.required.is_empty() {
                return Err(CatalogError::NothingToCheck {
                    type_name: entry.type_name,
                });
            }
            self.by_type
                .entry(entry.type_name)
                .or_default()
                .push(Entry {
                    path_text: entry.path.unwrap_or_default(),
                    path,
                    pending: entry.pending,
                    failed: entry.failed,
                    required: entry.required,
                    hint: entry.hint,
                });
        }
        Ok(())
    }

    pub fn entries(&self, type_name: &str) -> &[Entry] {
        self.by_type.get(type_name).map_or(&[], Vec::as_slice)
    }

    /// Every entry, of every type.
    pub fn all_entries(&self) -> impl Iterator<Item = &Entry> {
        self.by_type.values().flatten()
    }

    /// How many resource types have entries.
    pub fn types(&self) -> usize {
        self.by_type.len()
    }
}

pub(crate) use statectl_state::state::attr_path::listed;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_catalog_parses_and_covers_forty_types() {
        let file: CatalogFile = toml::from_str(BUILTIN).unwrap();
        let mut catalog = Catalog::default();
        catalog.extend(file).unwrap();
        assert!(catalog.types() >= 40, "{} types", catalog.types());
        assert!(!catalog.generic.attributes.is_empty() && !catalog.generic.pending.is_empty());
        let oci = catalog.entries("oci_core_instance");
        assert!(
            oci.iter()
                .any(|entry| listed(&entry.pending, "PROVISIONING"))
        );
        assert!(
            oci.iter()
                .any(|entry| entry.required.iter().any(|name| name == "private_ip"))
        );
    }
}
