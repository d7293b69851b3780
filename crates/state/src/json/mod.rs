//! A small, fast JSON layer that keeps byte spans: the cursor that reads a document without building a
//! tree, Go's string escaping, and Go's `MarshalIndent`/`Compact` reformatting of raw values.
//!
//! statectl needs things a general JSON library does not give: the byte range of every value (so a
//! rewrite can splice changed instances into the original bytes), Go's reader rules (case-insensitive
//! keys, last duplicate wins), deep nesting without recursion, and Go's exact output bytes.

pub mod bytes;
mod cursor;
mod decimal;
mod escape;
mod format;
pub mod keys;
pub(crate) mod line_index;
mod matching;
pub mod path;
mod position;
pub(crate) mod skip;
mod step;
pub mod trusted;
pub(crate) mod utf8;
mod value;
pub(crate) mod wide;

pub use cursor::{Cursor, JsonError, JsonErrorKind, MAX_DEPTH, Span};
pub use decimal::Decimal;
pub use escape::write_go_string;
pub use format::{Layout, reformat};
pub use line_index::LineIndex;
pub use position::LineColumn;
pub use step::Step;
pub use value::parse_value;
