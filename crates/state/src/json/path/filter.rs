//! Filter expressions (RFC 9535 section 2.3.5): logical operators, existence tests, comparisons and
//! the five standard functions, evaluated for one current node (`@`). Recursion here follows the
//! expression's nesting, which the grammar caps; the document's depth never adds frames.

use std::borrow::Cow;

use crate::json::Decimal;
use crate::json::Span;
use crate::json::path::ast::{Literal, Logical, Query, ValueExpr};
use crate::json::path::budget::Exceeded;
use crate::json::path::document::{Kind, Walker};

/// A value a comparison or function works on: a node of the document, a literal of the expression,
/// or a number a function computed.
#[derive(Debug, Clone)]
pub(crate) enum Operand<'e> {
    Node(Span),
    Literal(&'e Literal),
    Number(Decimal),
}

impl<'t> Walker<'_, 't> {
    /// Whether `expression` holds for the current node.
    pub(crate) fn test(&mut self, expression: &Logical, current: Span) -> Result<bool, Exceeded> {
        self.budget.visit(1)?;
        Ok(match expression {
            Logical::Or(items) => {
                for item in items {
                    if self.test(item, current)? {
                        return Ok(true);
                    }
                }
                false
            }
            Logical::And(items) => {
                for item in items {
                    if !self.test(item, current)? {
                        return Ok(false);
                    }
                }
                true
            }
            Logical::Not(inner) => !self.test(inner, current)?,
            Logical::Exists(query) => self.exists(query, current)?,
            Logical::Compare(comparison) => {
                let left = self.evaluate(&comparison.left, current)?;
                let right = self.evaluate(&comparison.right, current)?;
                self.compare(left.as_ref(), comparison.op, right.as_ref())?
            }
            Logical::Regex {
                whole,
                subject,
                pattern,
            } => {
                let subject = self.evaluate(subject, current)?;
                let pattern = self.evaluate(pattern, current)?;
                let subject = subject.as_ref().and_then(|operand| self.text_of(operand));
                let pattern = pattern.as_ref().and_then(|operand| self.text_of(operand));
                match (subject, pattern) {
                    (Some(subject), Some(pattern)) => {
                        let mut regexes = std::mem::take(&mut self.regexes);
                        let found = regexes.is_match(&pattern, &subject, *whole, &mut self.budget);
                        self.regexes = regexes;
                        found?
                    }
                    _ => false,
                }
            }
        })
    }

    fn exists(&mut self, query: &Query, current: Span) -> Result<bool, Exceeded> {
        if query.is_singular() {
            return Ok(self.singular(query, current)?.is_some());
        }
        Ok(!self.run(query, current)?.is_empty())
    }

    /// The value of a ValueType expression; `None` is RFC 9535's Nothing.
    pub(crate) fn evaluate<'e>(
        &mut self,
        expression: &'e ValueExpr,
        current: Span,
    ) -> Result<Option<Operand<'e>>, Exceeded> {
        Ok(match expression {
            ValueExpr::Literal(literal) => Some(Operand::Literal(literal)),
            ValueExpr::Query(query) => self.singular(query, current)?.map(Operand::Node),
            ValueExpr::Length(argument) => match self.evaluate(argument, current)? {
                Some(operand) => self
                    .length(&operand)?
                    .map(|length| Operand::Number(Decimal::from_count(length))),
                None => None,
            },
            ValueExpr::Count(query) => Some(Operand::Number(Decimal::from_count(
                self.run(query, current)?.len(),
            ))),
            ValueExpr::Value(query) => match self.run(query, current)?.as_slice() {
                [one] => Some(Operand::Node(*one)),
                _ => None,
            },
        })
    }

    /// `length()`: characters of a string, elements of an array, members of an object.
    fn length(&mut self, operand: &Operand<'_>) -> Result<Option<usize>, Exceeded> {
        Ok(match operand {
            Operand::Literal(Literal::String(text)) => Some(text.chars().count()),
            Operand::Literal(_) | Operand::Number(_) => None,
            Operand::Node(node) => match self.kind(*node) {
                Kind::String | Kind::Masked => {
                    self.budget.scan(node.end - node.start)?;
                    self.string(*node).map(|text| text.chars().count())
                }
                Kind::Object | Kind::Array => {
                    let mut children = self.take_list();
                    self.children(*node, &mut children)?;
                    let count = children.len();
                    self.give_back(children);
                    Some(count)
                }
                _ => None,
            },
        })
    }

    /// The text of a string operand.
    pub(crate) fn text_of<'o>(&self, operand: &'o Operand<'_>) -> Option<Cow<'o, str>>
    where
        't: 'o,
    {
        match operand {
            Operand::Literal(Literal::String(text)) => Some(Cow::Borrowed(text.as_str())),
            Operand::Node(node) => self.string(*node),
            _ => None,
        }
    }
}
