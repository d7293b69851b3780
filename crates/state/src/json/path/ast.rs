//! The compiled form of a JSONPath expression: RFC 9535's segments, selectors and filter
//! expressions, already checked for well-typedness (section 2.4.3), so evaluation never meets a
//! function used where its result type does not fit.

use crate::json::Decimal;

/// A query: `$` (or `@` inside a filter) followed by segments.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    /// `$` rather than `@`.
    pub(crate) absolute: bool,
    pub(crate) segments: Vec<Segment>,
}

impl Query {
    /// Whether the query can select at most one node (RFC 9535 section 2.3.5.1): every segment a
    /// child segment with one name or index selector.
    pub(crate) fn is_singular(&self) -> bool {
        self.segments.iter().all(|segment| {
            !segment.descendant
                && matches!(
                    segment.selectors.as_slice(),
                    [Selector::Name(_) | Selector::Index(_)]
                )
        })
    }
}

/// `.name`, `[sel, sel]` (child) or `..name`, `..[sel]` (descendant).
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    pub(crate) descendant: bool,
    pub(crate) selectors: Vec<Selector>,
}

#[derive(Debug, Clone)]
pub(crate) enum Selector {
    Name(String),
    Wildcard,
    Index(i64),
    Slice {
        start: Option<i64>,
        end: Option<i64>,
        step: Option<i64>,
    },
    Filter(Logical),
}

/// A logical expression: what a filter selector keeps.
#[derive(Debug, Clone)]
pub(crate) enum Logical {
    Or(Vec<Logical>),
    And(Vec<Logical>),
    Not(Box<Logical>),
    /// A filter query used as a test: true when it selects at least one node.
    Exists(Query),
    Compare(Box<Comparison>),
    /// `match(...)` (the whole string) or `search(...)` (a substring).
    Regex {
        whole: bool,
        subject: Box<ValueExpr>,
        pattern: Box<ValueExpr>,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct Comparison {
    pub(crate) left: ValueExpr,
    pub(crate) op: CompareOp,
    pub(crate) right: ValueExpr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Something of RFC 9535's ValueType: a literal, a singular query, or a function returning a value.
#[derive(Debug, Clone)]
pub(crate) enum ValueExpr {
    Literal(Literal),
    /// A singular query (checked at compile time).
    Query(Query),
    /// `length(value)`.
    Length(Box<ValueExpr>),
    /// `count(nodes)`.
    Count(Query),
    /// `value(nodes)`.
    Value(Query),
}

#[derive(Debug, Clone)]
pub(crate) enum Literal {
    Number(Decimal),
    String(String),
    Bool(bool),
    Null,
}
