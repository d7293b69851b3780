//! The operation a remote object was in when the state was saved (a create, an update, a delete), or
//! none known: what scan reports, what audit words, and what refresh waits for the end of.

/// The operation in flight on a remote object.
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
