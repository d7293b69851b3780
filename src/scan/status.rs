//! What an instance's attributes say about its remote object's last operation: values the catalog
//! lists as transitional (still in progress) or failed, at the catalog's paths for the type, or under
//! the generic status names for types the catalog does not know. Shared by the detectors and the
//! lifecycle rules (which refuse to taint an object that is still being created); and which operation
//! (create, update, delete) a status says was in flight, the one mapping that refresh (what "not
//! found" means), the audit and the scan's wording all read.

use crate::json::Cursor;
use crate::scan::catalog::{Catalog, listed};
use crate::scan::finding::Evidence;
use crate::scan::path::{Attributes, Step, follow};

/// The operation a stale instance was in when the state was saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
    /// Nothing known in flight: a plain read.
    Read,
}

impl Operation {
    /// How a sentence names it: "still being created"; `None` for a plain read.
    pub fn participle(self) -> Option<&'static str> {
        match self {
            Operation::Create => Some("created"),
            Operation::Update => Some("updated"),
            Operation::Delete => Some("deleted"),
            Operation::Read => None,
        }
    }
}

/// The operation a status value names, from the providers' spellings: `CREATING`, `PROVISIONING`,
/// `initializing`, `pending-install` are creates; `UPDATING`, `modifying`, `pending-upgrade`,
/// `rebuilding`, `STOPPING` are changes to an object that exists; `DELETING`, `TERMINATING`,
/// `uninstalling` are deletes. `None` for a value that names none (`in progress`, `RUNNING`).
pub fn operation_named(value: &str) -> Option<Operation> {
    let upper = value.trim().to_ascii_uppercase().replace(['-', ' '], "_");
    // Helm's pending-* name the operation after the dash; plain "pending" (EC2, VPC endpoints) is
    // the state of an object being launched.
    match upper.as_str() {
        "PENDING_UPGRADE" | "PENDING_ROLLBACK" => return Some(Operation::Update),
        "PENDING_INSTALL" | "PENDING" | "NEW" => return Some(Operation::Create),
        _ => {}
    }
    let starts = |words: &[&str]| words.iter().any(|word| upper.starts_with(word));
    if starts(&[
        "DELET",
        "TERMINAT",
        "DEPROVISION",
        "DESTROY",
        "UNINSTALL",
        "SHUTTING_DOWN",
    ]) {
        Some(Operation::Delete)
    } else if starts(&[
        "CREAT",
        "PROVISION",
        "LAUNCH",
        "STARTING",
        "INITIALIZ",
        "BOOTSTRAP",
        "STAGING",
        "IMPORTING",
    ]) {
        Some(Operation::Create)
    } else if starts(&[
        "UPDAT",
        "MODIFY",
        "SCALING",
        "SCALE_",
        "UPGRAD",
        "STOPPING",
        "REBUILD",
        "MIGRAT",
        "MOVING",
        "RESTOR",
        "REBOOT",
        "RESTART",
        "RESIZ",
        "MAINTENANCE",
        "BACKING_UP",
        "BACKUP_IN_PROGRESS",
        "CONFIGURING",
        "RENAMING",
        "RECONCIL",
        "SUSPENDING",
        "RESUMING",
        "ROLLING_BACK",
        "ATTACHING",
        "DETACHING",
        "ENABLING",
        "CONVERTING",
        "RECREATING",
        "REPAIRING",
        "EXPORTING",
    ]) {
        Some(Operation::Update)
    } else {
        None
    }
}

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

    /// The operation in flight: what Cloud Foundry's `last_operation.type` says, else what the first
    /// transitional value names, else what a generic status attribute's value names (for an instance
    /// picked by `--target` whose type the catalog does not know); `Read` when nothing names one.
    pub fn operation(&self, attributes: &Attributes<'_>) -> Operation {
        if let Some(kind) = attributes
            .get("last_operation")
            .and_then(|raw| {
                follow(raw, &[Step::Attribute("type".into())]).map(|span| span.of(raw).to_owned())
            })
            .and_then(|raw| decoded_string(&raw))
        {
            return match kind.as_str() {
                "create" => Operation::Create,
                "update" => Operation::Update,
                "delete" => Operation::Delete,
                _ => Operation::Read,
            };
        }
        let named = |raw: &str| decoded_string(raw).and_then(|text| operation_named(&text));
        self.transitional
            .iter()
            .find_map(|evidence| named(&evidence.value))
            .or_else(|| {
                STATUS_NAMES
                    .iter()
                    .find_map(|name| attributes.get(name).and_then(named))
            })
            .unwrap_or(Operation::Read)
    }

    /// Words for a message: "still being updated (`state` = `UPDATING`)", or "still mid-operation
    /// (...)" when the value names no operation.
    pub fn describe(&self, attributes: &Attributes<'_>) -> String {
        let values = self
            .transitional
            .iter()
            .map(|evidence| {
                let value =
                    decoded_string(&evidence.value).unwrap_or_else(|| evidence.value.clone());
                format!("`{}` = `{value}`", evidence.path)
            })
            .collect::<Vec<_>>()
            .join(", ");
        match self.operation(attributes).participle() {
            Some(done) => format!("still being {done} ({values})"),
            None => format!("still mid-operation ({values})"),
        }
    }
}

/// Attribute names whose value may name an operation on a type the catalog does not know (the
/// generic names and EC2's `instance_state`).
const STATUS_NAMES: [&str; 5] = [
    "state",
    "status",
    "lifecycle_state",
    "provisioning_state",
    "instance_state",
];

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
