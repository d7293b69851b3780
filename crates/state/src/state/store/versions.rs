//! The seam for the versions a backend keeps of one state (S3 object versions, local backups beside
//! a state file): listed newest first within a page limit, and one version's bytes read by its id.
//! `history`, `--version` and `restore` read through it; the backends implement it (the store keeps
//! the trait, as it keeps [`RemoteState`](super::RemoteState), so that a state reached through that
//! seam can say what versions it has without the CLI knowing which backend it is).

use std::time::SystemTime;

use crate::state::store::StoreError;

/// One version of a state, as the backend lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The backend's id for it: an S3 version id, a backup's file name.
    pub id: String,
    /// When it was written, when the backend says.
    pub time: Option<SystemTime>,
    /// Its size in bytes, when the backend says (a delete marker has none).
    pub size: Option<u64>,
    /// The version readers get today (S3's `IsLatest`; the state file itself).
    pub latest: bool,
    /// A deletion recorded as a version (S3's delete marker): it holds no state.
    pub deleted: bool,
    /// What else the backend tells about it, by name (S3: `etag`, `storage_class`).
    pub extras: Vec<(&'static str, String)>,
}

/// The versions a backend keeps of a state, or why it keeps none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Newest first, with what was odd about the listing (lines for people).
    Versions {
        versions: Vec<Version>,
        warnings: Vec<String>,
    },
    /// The backend keeps no versions here: one line saying why, and how to make it keep them.
    Nothing { why: String, hint: Option<String> },
}

/// A state whose backend keeps its earlier versions.
pub trait StateVersions: Send + Sync {
    /// The versions, newest first; at most `max_pages` pages of the backend's listing are read
    /// (a listing longer than that is an error, as a prefix listing's is).
    fn versions(&self, max_pages: u32) -> Result<Kept, StoreError>;

    /// The bytes of the version `id` (one [`StateVersions::versions`] listed, not a delete marker).
    fn version(&self, id: &str) -> Result<Vec<u8>, StoreError>;
}
