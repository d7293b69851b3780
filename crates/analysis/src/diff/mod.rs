//! The semantic diff of two states: what changed in the header (version, Terraform version, serial,
//! lineage), which outputs were added, removed or changed, and which objects (current and deposed,
//! matched by address) were added, removed or changed, member by member and attribute by attribute.
//!
//! Layout never counts: a compact and an indented file with the same content are equal, and so are
//! object members in another order and numbers spelled another way (`1.0` and `1`). Objects are
//! matched by a merge of the two files' Terraform order, compared as raw text first, and parsed only
//! when their text differs, so two large states that mostly agree cost little more than parsing them.
//! Nothing here prints; `cli::diff` renders.

mod align;
mod compare;
mod header;
mod mask;
mod number;
mod objects;
mod path;

use std::borrow::Cow;

use serde_json::Value;
use statectl_state::state::State;
use statectl_state::state::address::ObjectAddr;
use statectl_state::state::order::ObjectRef;
use statectl_state::state::sensitive;

pub use align::align;
pub(crate) use compare::attribute_changes;
pub(crate) use mask::mask as mask_change;
pub use mask::mask_paths;
pub use path::{Path, Step};

/// Everything that differs between two states.
#[derive(Debug, Default)]
pub struct StateDiff {
    pub header: Header,
    /// By output name.
    pub outputs: Vec<OutputChange>,
    /// In Terraform's order (instance address, then current before deposed).
    pub objects: Vec<ObjectChange>,
}

impl StateDiff {
    /// Whether the states hold the same content.
    pub fn is_equal(&self) -> bool {
        self.header.is_empty() && self.outputs.is_empty() && self.objects.is_empty()
    }

    /// How many objects were added, removed and changed.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for object in &self.objects {
            match object.action() {
                Action::Added => counts.added += 1,
                Action::Removed => counts.removed += 1,
                Action::Changed => counts.changed += 1,
            }
        }
        counts
    }
}

/// Object totals.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
}

/// The top-level fields that changed, each as `(old, new)`.
#[derive(Debug, Default)]
pub struct Header {
    pub version: Option<(u64, u64)>,
    pub terraform_version: Option<(Option<String>, Option<String>)>,
    pub serial: Option<(u64, u64)>,
    pub lineage: Option<(String, String)>,
}

impl Header {
    pub fn is_empty(&self) -> bool {
        self.version.is_none()
            && self.terraform_version.is_none()
            && self.serial.is_none()
            && self.lineage.is_none()
    }
}

/// What happened to an object, an output or an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Added,
    Removed,
    Changed,
}

impl Action {
    /// The word JSON and Markdown use.
    pub fn name(self) -> &'static str {
        match self {
            Action::Added => "added",
            Action::Removed => "removed",
            Action::Changed => "changed",
        }
    }

    /// The sign the text output uses.
    pub fn sign(self) -> char {
        match self {
            Action::Added => '+',
            Action::Removed => '-',
            Action::Changed => '~',
        }
    }
}

/// A root-module output that differs.
#[derive(Debug)]
pub struct OutputChange {
    pub name: String,
    pub action: Action,
    pub old: Option<OutputValue>,
    pub new: Option<OutputValue>,
    /// For a change: which of `value`, `type` and `sensitive` differ.
    pub what: Vec<&'static str>,
}

impl OutputChange {
    /// Sensitive on either side: its values must not show unless asked.
    pub fn sensitive(&self) -> bool {
        [&self.old, &self.new]
            .into_iter()
            .flatten()
            .any(|side| side.sensitive)
    }
}

/// One side of an output.
#[derive(Debug)]
pub struct OutputValue {
    pub value: Value,
    pub sensitive: bool,
}

/// An object (an instance's current object, or a deposed one) that differs.
#[derive(Debug)]
pub struct ObjectChange {
    pub address: ObjectAddr,
    /// Where the object is in the old state, unless it was added.
    pub old: Option<ObjectRef>,
    /// Where it is in the new state, unless it was removed.
    pub new: Option<ObjectRef>,
    pub kind: ObjectKind,
}

impl ObjectChange {
    pub fn action(&self) -> Action {
        match self.kind {
            ObjectKind::Added => Action::Added,
            ObjectKind::Removed => Action::Removed,
            ObjectKind::Changed(_) => Action::Changed,
        }
    }

    /// What changed inside the object, when it is in both states.
    pub fn changes(&self) -> Option<&Changes> {
        match &self.kind {
            ObjectKind::Changed(changes) => Some(changes),
            ObjectKind::Added | ObjectKind::Removed => None,
        }
    }
}

#[derive(Debug)]
pub enum ObjectKind {
    Added,
    Removed,
    Changed(Changes),
}

/// What differs inside an object that both states hold.
#[derive(Debug, Default)]
pub struct Changes {
    /// The instance members other than `attributes` that differ: `status` (the taint),
    /// `schema_version`, `private`, `dependencies`, `create_before_destroy`, `skip_destroy`,
    /// `identity`, `provider`, ... and any key statectl does not know, as written.
    pub fields: Vec<Cow<'static, str>>,
    /// The attribute values that differ, by path.
    pub attributes: Vec<AttributeChange>,
    /// Both sides' `sensitive_attributes` paths, for masking the values in `attributes`.
    pub sensitive: Vec<Vec<sensitive::CtyStep>>,
}

/// One attribute value that differs.
#[derive(Debug, Clone)]
pub struct AttributeChange {
    /// Printed as Terraform writes references: `tags.Name`, `disk[0].size`, `tags["has space"]`.
    pub path: Path,
    pub action: Action,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// Compares two states.
pub fn diff(old: &State<'_>, new: &State<'_>) -> StateDiff {
    StateDiff {
        header: header::header(old, new),
        outputs: header::outputs(old, new),
        objects: objects::objects(old, new),
    }
}
