//! cty values, as provider plugins exchange them: the types a schema declares, msgpack
//! `DynamicValue`s encoded from and decoded to the state's JSON attributes (numbers exact, objects
//! and maps in Terraform's sorted order, dynamic values as `{"value","type"}`), and the
//! `sensitive_attributes` paths Terraform derives from a schema, and the attributes only a provider
//! sets (computed-only).

mod computed;
mod convert;
mod msgpack;
mod schema;
mod sensitive;
mod ty;

pub use computed::{PatternStep, computed_only_paths};
pub use convert::{ValueError, ValueProblem, decode, encode};
pub use schema::{Attribute, AttributeKind, Block, NestedAttributes, NestedBlock, Nesting};
pub use sensitive::{sensitive_paths, sensitive_paths_after_refresh};
pub use ty::{Type, TypeError};
