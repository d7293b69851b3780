//! Reading an expression: jsonpath-rust's RFC 9535 grammar parses it (and keeps its errors' columns),
//! then its tree is compiled into ours with the checks its parser leaves out: the types of function
//! arguments and results (RFC 9535 section 2.4.3), and no functions beyond the standard five (its
//! extensions `in`, `nin`, `none_of`, `any_of` and `subset_of` are not JSONPath).

use jsonpath_rust::parser::errors::JsonPathError;
use jsonpath_rust::parser::model as parsed;
use pest::error::LineColLocation;

use crate::json::Decimal;
use crate::json::path::ast::{
    CompareOp, Comparison, Literal, Logical, Query, Segment, Selector, ValueExpr,
};

/// Expressions longer than this are refused before parsing: no real path comes near, and the
/// grammar's work grows with the text.
pub const MAX_EXPRESSION_BYTES: usize = 64 * 1024;

/// Why an expression does not parse, on one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{reason}", column.map(|column| format!("at column {column}: ")).unwrap_or_default())]
pub struct SyntaxError {
    /// The column (in characters, from 1) where the grammar stopped, when it says.
    pub column: Option<usize>,
    pub reason: String,
}

impl SyntaxError {
    fn new(reason: impl Into<String>) -> SyntaxError {
        SyntaxError {
            column: None,
            reason: reason.into(),
        }
    }
}

/// Parses and checks `text`.
pub(crate) fn compile(text: &str) -> Result<Query, SyntaxError> {
    if text.len() > MAX_EXPRESSION_BYTES {
        return Err(SyntaxError::new(format!(
            "the expression is {} bytes long; at most {MAX_EXPRESSION_BYTES} are read",
            text.len()
        )));
    }
    let parsed = jsonpath_rust::parser::parse_json_path(text).map_err(grammar_error)?;
    query(true, &parsed.segments)
}

/// jsonpath-rust's complaint on one line: its own message for a grammar error is a multi-line caret
/// diagram, and its rule names (`wildcard_selector`) read better as words.
fn grammar_error(error: JsonPathError) -> SyntaxError {
    match error {
        JsonPathError::PestError(error) => {
            let (LineColLocation::Pos((_, column)) | LineColLocation::Span((_, column), _)) =
                error.line_col;
            SyntaxError {
                column: Some(column),
                reason: one_line(&error.variant.message().replace('_', " ")),
            }
        }
        other => SyntaxError::new(one_line(&other.to_string())),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn query(absolute: bool, segments: &[parsed::Segment]) -> Result<Query, SyntaxError> {
    Ok(Query {
        absolute,
        segments: segments.iter().map(segment).collect::<Result<_, _>>()?,
    })
}

fn segment(segment: &parsed::Segment) -> Result<Segment, SyntaxError> {
    match segment {
        parsed::Segment::Descendant(inner) => {
            let inner = self::segment(inner)?;
            Ok(Segment {
                descendant: true,
                selectors: inner.selectors,
            })
        }
        parsed::Segment::Selector(one) => Ok(Segment {
            descendant: false,
            selectors: vec![selector(one)?],
        }),
        parsed::Segment::Selectors(many) => Ok(Segment {
            descendant: false,
            selectors: many.iter().map(selector).collect::<Result<_, _>>()?,
        }),
    }
}

fn selector(selector: &parsed::Selector) -> Result<Selector, SyntaxError> {
    Ok(match selector {
        parsed::Selector::Name(name) => Selector::Name(name.clone()),
        parsed::Selector::Wildcard => Selector::Wildcard,
        parsed::Selector::Index(index) => Selector::Index(*index),
        parsed::Selector::Slice(start, end, step) => Selector::Slice {
            start: *start,
            end: *end,
            step: *step,
        },
        parsed::Selector::Filter(filter) => Selector::Filter(logical(filter)?),
    })
}

fn logical(filter: &parsed::Filter) -> Result<Logical, SyntaxError> {
    match filter {
        parsed::Filter::Or(items) => Ok(Logical::Or(
            items.iter().map(logical).collect::<Result<_, _>>()?,
        )),
        parsed::Filter::And(items) => Ok(Logical::And(
            items.iter().map(logical).collect::<Result<_, _>>()?,
        )),
        parsed::Filter::Atom(atom) => match atom {
            parsed::FilterAtom::Filter { expr, not } => Ok(negated(logical(expr)?, *not)),
            parsed::FilterAtom::Test { expr, not } => Ok(negated(test(expr)?, *not)),
            parsed::FilterAtom::Comparison(comparison) => {
                let (left, right) = comparison.vals();
                let op = match **comparison {
                    parsed::Comparison::Eq(..) => CompareOp::Eq,
                    parsed::Comparison::Ne(..) => CompareOp::Ne,
                    parsed::Comparison::Gt(..) => CompareOp::Gt,
                    parsed::Comparison::Gte(..) => CompareOp::Ge,
                    parsed::Comparison::Lt(..) => CompareOp::Lt,
                    parsed::Comparison::Lte(..) => CompareOp::Le,
                };
                Ok(Logical::Compare(Box::new(Comparison {
                    left: comparable(left)?,
                    op,
                    right: comparable(right)?,
                })))
            }
        },
    }
}

fn negated(expression: Logical, not: bool) -> Logical {
    if not {
        Logical::Not(Box::new(expression))
    } else {
        expression
    }
}

/// A test expression: a query (does it select anything?) or a function that returns true or false.
fn test(test: &parsed::Test) -> Result<Logical, SyntaxError> {
    match test {
        parsed::Test::RelQuery(segments) => Ok(Logical::Exists(query(false, segments)?)),
        parsed::Test::AbsQuery(absolute) => Ok(Logical::Exists(query(true, &absolute.segments)?)),
        parsed::Test::Function(function) => match function.as_ref() {
            parsed::TestFunction::Match(subject, pattern) => regex(true, subject, pattern),
            parsed::TestFunction::Search(subject, pattern) => regex(false, subject, pattern),
            parsed::TestFunction::Custom(name, _) => Err(unknown_function(name)),
            other => Err(SyntaxError::new(format!(
                "`{}()` returns a value, not true or false: compare it, as in `{}(@.name) == 1`",
                function_name(other),
                function_name(other)
            ))),
        },
    }
}

fn regex(
    whole: bool,
    subject: &parsed::FnArg,
    pattern: &parsed::FnArg,
) -> Result<Logical, SyntaxError> {
    let name = if whole { "match" } else { "search" };
    Ok(Logical::Regex {
        whole,
        subject: Box::new(value_argument(name, subject)?),
        pattern: Box::new(value_argument(name, pattern)?),
    })
}

fn comparable(comparable: &parsed::Comparable) -> Result<ValueExpr, SyntaxError> {
    match comparable {
        parsed::Comparable::Literal(literal) => Ok(ValueExpr::Literal(self::literal(literal))),
        parsed::Comparable::SingularQuery(singular) => {
            Ok(ValueExpr::Query(singular_query(singular)))
        }
        parsed::Comparable::Function(function) => value_function(function),
    }
}

/// A function in a place that wants a value (a comparison, or `length()`'s argument).
fn value_function(function: &parsed::TestFunction) -> Result<ValueExpr, SyntaxError> {
    match function {
        parsed::TestFunction::Length(argument) => Ok(ValueExpr::Length(Box::new(value_argument(
            "length", argument,
        )?))),
        parsed::TestFunction::Count(argument) => {
            Ok(ValueExpr::Count(nodes_argument("count", argument)?))
        }
        parsed::TestFunction::Value(argument) => {
            Ok(ValueExpr::Value(nodes_argument("value", argument)?))
        }
        parsed::TestFunction::Custom(name, _) => Err(unknown_function(name)),
        parsed::TestFunction::Match(..) | parsed::TestFunction::Search(..) => {
            Err(SyntaxError::new(format!(
                "`{}()` is true or false, not a value: use it alone, as in `[?{}(@.name, 'a.*')]`",
                function_name(function),
                function_name(function)
            )))
        }
    }
}

/// An argument of ValueType: a literal, a singular query, or a function that returns a value.
fn value_argument(function: &str, argument: &parsed::FnArg) -> Result<ValueExpr, SyntaxError> {
    let wrong = || {
        SyntaxError::new(format!(
            "`{function}()` takes a value: a literal, a query that selects one node (`@.name`, `@[0]`) or a function returning a value"
        ))
    };
    match argument {
        parsed::FnArg::Literal(literal) => Ok(ValueExpr::Literal(self::literal(literal))),
        parsed::FnArg::Test(test) => match test.as_ref() {
            parsed::Test::RelQuery(segments) => singular(query(false, segments)?).ok_or_else(wrong),
            parsed::Test::AbsQuery(absolute) => {
                singular(query(true, &absolute.segments)?).ok_or_else(wrong)
            }
            parsed::Test::Function(function) => value_function(function),
        },
        parsed::FnArg::Filter(_) => Err(wrong()),
    }
}

fn singular(query: Query) -> Option<ValueExpr> {
    query.is_singular().then_some(ValueExpr::Query(query))
}

/// An argument of NodesType: a query.
fn nodes_argument(function: &str, argument: &parsed::FnArg) -> Result<Query, SyntaxError> {
    match argument {
        parsed::FnArg::Test(test) => match test.as_ref() {
            parsed::Test::RelQuery(segments) => query(false, segments),
            parsed::Test::AbsQuery(absolute) => query(true, &absolute.segments),
            parsed::Test::Function(_) => Err(SyntaxError::new(format!(
                "`{function}()` takes a query (`{function}(@.*)`), not a function"
            ))),
        },
        parsed::FnArg::Literal(_) | parsed::FnArg::Filter(_) => Err(SyntaxError::new(format!(
            "`{function}()` takes a query, as in `{function}(@.*)`"
        ))),
    }
}

fn singular_query(singular: &parsed::SingularQuery) -> Query {
    let (absolute, segments) = match singular {
        parsed::SingularQuery::Current(segments) => (false, segments),
        parsed::SingularQuery::Root(segments) => (true, segments),
    };
    Query {
        absolute,
        segments: segments
            .iter()
            .map(|segment| Segment {
                descendant: false,
                selectors: vec![match segment {
                    parsed::SingularQuerySegment::Name(name) => Selector::Name(name.clone()),
                    parsed::SingularQuerySegment::Index(index) => Selector::Index(*index),
                }],
            })
            .collect(),
    }
}

fn literal(literal: &parsed::Literal) -> Literal {
    match literal {
        parsed::Literal::Int(number) => Literal::Number(
            Decimal::parse_saturating(&number.to_string())
                .unwrap_or_else(|| Decimal::from_count(0)),
        ),
        parsed::Literal::Float(number) => Literal::Number(Decimal::from_f64(*number)),
        parsed::Literal::String(text) => Literal::String(text.clone()),
        parsed::Literal::Bool(value) => Literal::Bool(*value),
        parsed::Literal::Null => Literal::Null,
    }
}

fn function_name(function: &parsed::TestFunction) -> &str {
    match function {
        parsed::TestFunction::Custom(name, _) => name,
        parsed::TestFunction::Length(_) => "length",
        parsed::TestFunction::Value(_) => "value",
        parsed::TestFunction::Count(_) => "count",
        parsed::TestFunction::Search(..) => "search",
        parsed::TestFunction::Match(..) => "match",
    }
}

fn unknown_function(name: &str) -> SyntaxError {
    SyntaxError::new(format!(
        "unknown function `{name}()`: RFC 9535 has length(), count(), value(), match() and search()"
    ))
}
