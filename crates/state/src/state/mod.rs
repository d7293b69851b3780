//! The state engine: reading Terraform and OpenTofu state files exactly, and writing them back so that
//! only what changed differs.

pub mod address;
pub mod attr_path;
pub mod bytes;
pub mod deposed_key;
pub mod error;
pub mod go_text;
mod last_wins;
pub mod layout;
pub mod legacy;
mod mapped;
mod mask_paths;
pub mod model;
pub mod mutate;
pub mod notes;
pub mod operation;
pub mod order;
pub mod parse;
mod parse_split;
pub mod provider;
pub mod query;
pub mod read_stamps;
pub mod sensitive;
pub mod sniff;
pub mod source;
pub mod store;
pub mod write;

pub use error::StateError;
pub use model::{Instance, Member, Output, Resource, State};
pub use parse::parse;
