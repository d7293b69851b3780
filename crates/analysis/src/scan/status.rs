//! What an instance's attributes say about its remote object's last operation: values the catalog
//! lists as transitional (still in progress) or failed, at the catalog's paths for the type, or under
//! the generic status names for types the catalog does not know. Shared by the detectors and the
//! lifecycle rules (which refuse to taint an object that is still being created); and which operation
//! (create, update, delete) a status says was in flight, the one mapping that refresh (what "not
//! found" means), the audit and the scan's wording all read.

use std::borrow::Cow;

use statectl_state::json::Cursor;
use statectl_state::state::attr_path::{Attributes, Step, TooCostly, follow};

use crate::scan::catalog::{Catalog, Entry, listed};
use crate::scan::finding::Evidence;
use crate::scan::secrets::Secrets;

pub use statectl_state::state::operation::Operation;

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
                follow(raw, &[Step::Member("type".into())]).map(|span| span.of(raw).to_owned())
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
        self.words(self.operation(attributes))
    }

    /// [`RemoteStatus::describe`]'s words with the values of the attributes `secrets` covers
    /// masked; the operation is still named from the real values.
    pub(crate) fn describe_hiding(&self, attributes: &Attributes<'_>, secrets: &Secrets) -> String {
        self.hiding(secrets).words(self.operation(attributes))
    }

    /// This status as it may be shown: the values of the attributes `secrets` covers masked.
    pub(crate) fn hiding(&self, secrets: &Secrets) -> RemoteStatus {
        let hide = |evidence: &Vec<Evidence>| -> Vec<Evidence> {
            evidence.iter().map(|item| secrets.evidence(item)).collect()
        };
        RemoteStatus {
            transitional: hide(&self.transitional),
            failed: hide(&self.failed),
            generic: self.generic,
        }
    }

    fn words(&self, operation: Operation) -> String {
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
        match operation.participle() {
            Some(done) => format!("still being {done} ({values})"),
            None => format!("still mid-operation ({values})"),
        }
    }
}

/// Attribute names whose value may name an operation on a type the catalog does not know (the
/// generic names and EC2's `instance_state`).
pub(crate) const STATUS_NAMES: [&str; 5] = [
    "state",
    "status",
    "lifecycle_state",
    "provisioning_state",
    "instance_state",
];

/// A rules file's `path` that needs more work over an instance's attributes than their size allows,
/// with the instance it ran over.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the `path` of the rule for `{type_name}`, at `{address}`: {source}")]
pub struct RulePathError {
    pub type_name: String,
    pub address: String,
    pub source: TooCostly,
}

impl RulePathError {
    pub fn new(type_name: &str, address: &impl ToString, source: TooCostly) -> RulePathError {
        RulePathError {
            type_name: type_name.to_owned(),
            address: address.to_string(),
            source,
        }
    }
}

/// Reads the status of an instance of `type_name` from its attributes. A rules file's JSONPath that
/// needs more work than the attributes' size allows is an error, never hours of work.
pub fn remote_status(
    catalog: &Catalog,
    type_name: &str,
    attributes: &Attributes<'_>,
) -> Result<RemoteStatus, TooCostly> {
    remote_status_by(catalog, catalog.entries(type_name), attributes)
}

/// [`remote_status`] by the catalog's `entries` for the instance's type, which a caller reading
/// many instances of one resource looks up once.
pub(crate) fn remote_status_by(
    catalog: &Catalog,
    entries: &[Entry],
    attributes: &Attributes<'_>,
) -> Result<RemoteStatus, TooCostly> {
    let mut status = RemoteStatus::default();
    if entries.is_empty() {
        status.generic = true;
        generic_status(catalog, attributes, &mut status);
    }
    for entry in entries {
        let Some(path) = &entry.path else { continue };
        for value in attributes.values(path)? {
            let Some(text) = decoded(value) else {
                continue;
            };
            let evidence = || Evidence {
                path: entry.path_text.clone(),
                value: value.to_owned(),
            };
            if listed(&entry.pending, &text) {
                status.transitional.push(evidence());
            } else if listed(&entry.failed, &text) {
                status.failed.push(evidence());
            }
        }
    }
    Ok(status)
}

/// [`remote_status`] of an object's `attributes` (nothing without them), a rules file's path too
/// costly for them named with the object's `address`.
pub fn object_status(
    catalog: &Catalog,
    type_name: &str,
    address: &impl ToString,
    attributes: Option<&Attributes<'_>>,
) -> Result<RemoteStatus, RulePathError> {
    attributes.map_or_else(
        || Ok(RemoteStatus::default()),
        |attributes| {
            remote_status(catalog, type_name, attributes)
                .map_err(|error| RulePathError::new(type_name, address, error))
        },
    )
}

/// Top-level attributes with a generic status name holding a well-known transitional or failed value.
fn generic_status(catalog: &Catalog, attributes: &Attributes<'_>, status: &mut RemoteStatus) {
    let generic = &catalog.generic;
    for (key, value) in attributes.members_named(&generic.attributes) {
        let Some(text) = decoded(value) else {
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
    decoded(raw).map(Cow::into_owned)
}

/// [`decoded_string`], borrowed when the string has no escape (a status value read for every
/// instance of a type the catalog knows, to be compared).
fn decoded(raw: &str) -> Option<Cow<'_, str>> {
    if !raw.starts_with('"') {
        return None;
    }
    Cursor::new(raw).string().ok().map(|(text, _)| text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_of(type_name: &str, raw: &str) -> (RemoteStatus, String, Operation) {
        let catalog = Catalog::builtin();
        let attributes = Attributes::new(raw);
        let status = remote_status(&catalog, type_name, &attributes).unwrap();
        let words = status.describe(&attributes);
        let operation = status.operation(&attributes);
        (status, words, operation)
    }

    #[test]
    fn the_words_name_the_operation_the_status_shows() {
        let (_, words, operation) = status_of("oci_core_instance", r#"{"state": "PROVISIONING"}"#);
        assert_eq!(operation, Operation::Create);
        assert_eq!(words, "still being created (`state` = `PROVISIONING`)");
        let (_, words, operation) = status_of("oci_core_subnet", r#"{"state": "UPDATING"}"#);
        assert_eq!(operation, Operation::Update);
        assert_eq!(words, "still being updated (`state` = `UPDATING`)");
        let (_, words, operation) = status_of(
            "oci_apigateway_gateway",
            r#"{"lifecycle_state": "UPDATING"}"#,
        );
        assert_eq!(operation, Operation::Update);
        assert_eq!(
            words,
            "still being updated (`lifecycle_state` = `UPDATING`)"
        );
        let (_, words, operation) = status_of("hcloud_server", r#"{"status": "deleting"}"#);
        assert_eq!(operation, Operation::Delete);
        assert_eq!(words, "still being deleted (`status` = `deleting`)");
        let (_, words, _) = status_of("helm_release", r#"{"status": "pending-upgrade"}"#);
        assert_eq!(words, "still being updated (`status` = `pending-upgrade`)");
        let (_, words, _) = status_of("helm_release", r#"{"status": "pending-install"}"#);
        assert_eq!(words, "still being created (`status` = `pending-install`)");
        let (_, words, _) = status_of("helm_release", r#"{"status": "uninstalling"}"#);
        assert_eq!(words, "still being deleted (`status` = `uninstalling`)");
        let (_, words, _) = status_of("hcloud_server", r#"{"status": "initializing"}"#);
        assert_eq!(words, "still being created (`status` = `initializing`)");
        // Cloud Foundry's `in progress` names no operation; `last_operation.type` does.
        let (_, words, operation) = status_of(
            "cloudfoundry_service_instance",
            r#"{"last_operation": {"type": "update", "state": "in progress"}}"#,
        );
        assert_eq!(operation, Operation::Update);
        assert_eq!(
            words,
            "still being updated (`last_operation.state` = `in progress`)"
        );
        let (_, words, operation) = status_of("some_async_thing", r#"{"status": "in progress"}"#);
        assert_eq!(operation, Operation::Read);
        assert_eq!(words, "still mid-operation (`status` = `in progress`)");
    }

    #[test]
    fn operations_from_each_providers_spelling() {
        for (value, expected) in [
            ("CREATING", Some(Operation::Create)),
            ("creating", Some(Operation::Create)),
            ("PROVISIONING", Some(Operation::Create)),
            ("pending", Some(Operation::Create)),
            ("pending-install", Some(Operation::Create)),
            ("initializing", Some(Operation::Create)),
            ("new", Some(Operation::Create)),
            ("CREATE_IN_PROGRESS", Some(Operation::Create)),
            ("UPDATING", Some(Operation::Update)),
            ("modifying", Some(Operation::Update)),
            ("pending-upgrade", Some(Operation::Update)),
            ("pending-rollback", Some(Operation::Update)),
            ("rebuilding", Some(Operation::Update)),
            ("migrating", Some(Operation::Update)),
            ("RECREATING", Some(Operation::Update)),
            ("DELETING", Some(Operation::Delete)),
            ("TERMINATING", Some(Operation::Delete)),
            ("shutting-down", Some(Operation::Delete)),
            ("uninstalling", Some(Operation::Delete)),
            ("DELETE_IN_PROGRESS", Some(Operation::Delete)),
            ("in progress", None),
            ("RUNNING", None),
            ("deployed", None),
            ("off", None),
            ("PENDING_VALIDATION", None),
        ] {
            assert_eq!(operation_named(value), expected, "{value}");
        }
    }

    /// Steady states of real providers are never pending or failed, in the catalog or the fallback.
    #[test]
    fn steady_states_are_never_findings() {
        let steady = [
            ("helm_release", "deployed"),
            ("helm_release", "superseded"),
            ("helm_release", "uninstalled"),
            ("hcloud_server", "running"),
            ("hcloud_server", "off"),
            ("hcloud_server", "unknown"),
            ("digitalocean_droplet", "active"),
            ("digitalocean_droplet", "off"),
            ("digitalocean_droplet", "archive"),
        ];
        for (type_name, value) in steady {
            let raw = format!(r#"{{"status": "{value}"}}"#);
            let (status, _, _) = status_of(type_name, &raw);
            assert_eq!(status, RemoteStatus::default(), "{type_name} {value}");
        }
        // Types the catalog does not know: the fallback reads every generic attribute name.
        for value in [
            "running",
            "RUNNING",
            "active",
            "ACTIVE",
            "deployed",
            "AVAILABLE",
            "available",
            "off",
            "stopped",
            "STOPPED",
            "INACTIVE",
            "new",
            "archive",
            "pending",
            "Succeeded",
            "READY",
            "ISSUED",
            "ATTACHED",
            "superseded",
            "uninstalled",
            "unknown",
            "NEEDS_ATTENTION",
            "TERMINATED",
            "DELETED",
        ] {
            for name in ["state", "status", "lifecycle_state", "provisioning_state"] {
                let raw = format!(r#"{{"{name}": "{value}"}}"#);
                let (status, _, _) = status_of("proxmox_vm_qemu", &raw);
                assert_eq!(
                    status,
                    RemoteStatus {
                        generic: true,
                        ..RemoteStatus::default()
                    },
                    "{name} = {value}"
                );
            }
        }
    }

    /// Every transitional value of the fallback names an operation, so refresh and the audit can
    /// say which (the two "in progress" spellings excepted: they name none).
    #[test]
    fn every_generic_pending_value_names_an_operation() {
        let catalog = Catalog::builtin();
        for value in &catalog.generic.pending {
            if value.eq_ignore_ascii_case("in progress") || value == "IN_PROGRESS" {
                continue;
            }
            assert!(operation_named(value).is_some(), "{value}");
        }
    }
}
