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
impl Query {
    /// The names this query, and every query in its filters, selects by name right after a
    /// segment that selects `parent` by name (`id` in `$..attributes.id`): the members a caller
    /// may hand the walker ([`crate::json::path::Document`]'s known members) so it does not walk
    /// the `parent` objects for them. Each name once, in the order first met.
    pub(crate) fn names_after(&self, parent: &str) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        self.each_query(|query| {
            let named = |segment: &Segment, name: &str| {
                segment
                    .selectors
                    .iter()
                    .any(|selector| matches!(selector, Selector::Name(own) if own == name))
            };
            for pair in query.segments.windows(2) {
                if named(&pair[0], parent) && !pair[1].descendant {
                    for selector in &pair[1].selectors {
                        if let Selector::Name(name) = selector
                            && !names.contains(name)
                        {
                            names.push(name.clone());
                        }
                    }
                }
            }
        });
        names
    }

    /// Whether this query, or a query in one of its filters, selects a member by `name` anywhere
    /// (`status` in `$..instances[?@.status=='tainted']`).
    pub(crate) fn selects_name(&self, name: &str) -> bool {
        let mut selects = false;
        self.each_query(|query| {
            selects |= query
                .segments
                .iter()
                .flat_map(|segment| &segment.selectors)
                .any(|selector| matches!(selector, Selector::Name(own) if own == name));
        });
        selects
    }

    /// Visits this query and every query in its filters, however deep.
    fn each_query<'q>(&'q self, mut visit: impl FnMut(&'q Query)) {
        // Filters nest as deep as the expression is long: followed on a stack, not by recursion.
        let mut queries = vec![self];
        let mut logicals: Vec<&Logical> = Vec::new();
        let mut values: Vec<&ValueExpr> = Vec::new();
        while !(queries.is_empty() && logicals.is_empty() && values.is_empty()) {
            if let Some(query) = queries.pop() {
                visit(query);
                for selector in query.segments.iter().flat_map(|segment| &segment.selectors) {
                    if let Selector::Filter(logical) = selector {
                        logicals.push(logical);
                    }
                }
            }
            if let Some(logical) = logicals.pop() {
                match logical {
                    Logical::Or(all) | Logical::And(all) => logicals.extend(all),
                    Logical::Not(inner) => logicals.push(inner),
                    Logical::Exists(query) => queries.push(query),
                    Logical::Compare(comparison) => {
                        values.extend([&comparison.left, &comparison.right]);
                    }
                    Logical::Regex {
                        subject, pattern, ..
                    } => values.extend([&**subject, &**pattern]),
                }
            }
            if let Some(value) = values.pop() {
                match value {
                    ValueExpr::Literal(_) => {}
                    ValueExpr::Query(query) | ValueExpr::Count(query) | ValueExpr::Value(query) => {
                        queries.push(query);
                    }
                    ValueExpr::Length(inner) => values.push(inner),
                }
            }
        }
    }
}

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
