//! One step into a JSON value: an object member or an array element. Attribute paths in scan rules,
//! refresh profiles and the diff are lists of these; `state::sensitive::CtyStep` is another thing
//! (cty's `get_attr` and `index` steps, as `sensitive_attributes` spells them).

/// One step into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// An object member, by name.
    Member(String),
    /// An array element, by position.
    Index(usize),
}
