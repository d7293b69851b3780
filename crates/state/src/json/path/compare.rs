//! Comparisons (RFC 9535 section 2.3.5.2.2): `==` is deep equality (numbers by value, strings by
//! their characters, arrays element by element, objects member by member whatever their order), `<`
//! orders two numbers or two strings and is false for anything else, and an empty side (Nothing)
//! equals only another empty side. Deep values are compared with a list of pending pairs, never by
//! recursion.

use std::borrow::Cow;

use crate::json::Decimal;
use crate::json::Span;
use crate::json::path::ast::{CompareOp, Literal};
use crate::json::path::budget::Exceeded;
use crate::json::path::document::{Kind, Walker};
use crate::json::path::filter::Operand;

/// What an operand is, for comparing.
enum Scalar<'a> {
    Number(Decimal),
    String(Cow<'a, str>),
    Bool(bool),
    Null,
    Array(Span),
    Object(Span),
}

impl<'t> Walker<'_, 't> {
    pub(crate) fn compare(
        &mut self,
        left: Option<&Operand<'_>>,
        op: CompareOp,
        right: Option<&Operand<'_>>,
    ) -> Result<bool, Exceeded> {
        Ok(match op {
            CompareOp::Eq => self.equal(left, right)?,
            CompareOp::Ne => !self.equal(left, right)?,
            CompareOp::Lt => self.less(left, right),
            CompareOp::Gt => self.less(right, left),
            CompareOp::Le => self.less(left, right) || self.equal(left, right)?,
            CompareOp::Ge => self.less(right, left) || self.equal(left, right)?,
        })
    }

    fn equal(
        &mut self,
        left: Option<&Operand<'_>>,
        right: Option<&Operand<'_>>,
    ) -> Result<bool, Exceeded> {
        match (left, right) {
            (None, None) => Ok(true),
            (Some(left), Some(right)) => self.same(left, right),
            _ => Ok(false),
        }
    }

    fn less(&self, left: Option<&Operand<'_>>, right: Option<&Operand<'_>>) -> bool {
        let (Some(left), Some(right)) = (left, right) else {
            return false;
        };
        match (self.scalar(left), self.scalar(right)) {
            (Scalar::Number(left), Scalar::Number(right)) => left < right,
            // Rust orders strings by their UTF-8 bytes, which is the order of their code points.
            (Scalar::String(left), Scalar::String(right)) => left < right,
            _ => false,
        }
    }

    fn scalar<'o>(&self, operand: &'o Operand<'_>) -> Scalar<'o>
    where
        't: 'o,
    {
        match operand {
            Operand::Number(number) => Scalar::Number(number.clone()),
            Operand::Literal(literal) => match literal {
                Literal::Number(number) => Scalar::Number(number.clone()),
                Literal::String(text) => Scalar::String(Cow::Borrowed(text.as_str())),
                Literal::Bool(value) => Scalar::Bool(*value),
                Literal::Null => Scalar::Null,
            },
            Operand::Node(node) => match self.kind(*node) {
                Kind::Object => Scalar::Object(*node),
                Kind::Array => Scalar::Array(*node),
                Kind::String | Kind::Masked => {
                    Scalar::String(self.string(*node).unwrap_or_default())
                }
                Kind::Number => Scalar::Number(
                    Decimal::parse_saturating(node.of(self.text()))
                        .unwrap_or_else(|| Decimal::from_count(0)),
                ),
                Kind::Bool(value) => Scalar::Bool(value),
                Kind::Null => Scalar::Null,
            },
        }
    }

    /// Deep equality of two values.
    fn same(&mut self, left: &Operand<'_>, right: &Operand<'_>) -> Result<bool, Exceeded> {
        let mut pending: Vec<(Operand<'_>, Operand<'_>)> = vec![(left.clone(), right.clone())];
        while let Some((left, right)) = pending.pop() {
            self.budget.visit(1)?;
            let (left, right) = (self.scalar(&left), self.scalar(&right));
            let equal = match (left, right) {
                (Scalar::Number(left), Scalar::Number(right)) => left == right,
                (Scalar::String(left), Scalar::String(right)) => {
                    self.budget.scan(left.len())?;
                    left == right
                }
                (Scalar::Bool(left), Scalar::Bool(right)) => left == right,
                (Scalar::Null, Scalar::Null) => true,
                (Scalar::Array(left), Scalar::Array(right)) => {
                    self.pair_children(left, right, false, &mut pending)?
                }
                (Scalar::Object(left), Scalar::Object(right)) => {
                    self.pair_children(left, right, true, &mut pending)?
                }
                _ => false,
            };
            if !equal {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Pairs the elements (or the members, by name) of two containers for comparing; false when
    /// they cannot be equal (different lengths, different names).
    fn pair_children(
        &mut self,
        left: Span,
        right: Span,
        by_name: bool,
        pending: &mut Vec<(Operand<'_>, Operand<'_>)>,
    ) -> Result<bool, Exceeded> {
        let mut left_children = self.take_list();
        let mut right_children = self.take_list();
        self.children(left, &mut left_children)?;
        self.children(right, &mut right_children)?;
        let mut equal = left_children.len() == right_children.len();
        if equal && by_name {
            // Names are unique in each list; sorted, equal objects pair up in place.
            let named = |children: &[crate::json::path::document::Child]| {
                let mut named: Vec<(Cow<'t, str>, Span)> = children
                    .iter()
                    .map(|child| (self.key(child), child.value))
                    .collect();
                named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                named
            };
            let left_named = named(&left_children);
            let right_named = named(&right_children);
            for (left, right) in left_named.iter().zip(&right_named) {
                if left.0 != right.0 {
                    equal = false;
                    break;
                }
                pending.push((Operand::Node(left.1), Operand::Node(right.1)));
            }
        } else if equal {
            for (left, right) in left_children.iter().zip(&right_children) {
                pending.push((Operand::Node(left.value), Operand::Node(right.value)));
            }
        }
        self.give_back(left_children);
        self.give_back(right_children);
        Ok(equal)
    }
}
