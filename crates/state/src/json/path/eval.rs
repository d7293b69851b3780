//! Segments and selectors (RFC 9535 sections 2.3 and 2.5): each segment maps the nodes so far to
//! the nodes its selectors pick from each of them, in order. A descendant segment walks in pre-order
//! with a stack of its own, so a 10,000-deep document costs heap, never Rust stack.

use crate::json::Span;
use crate::json::path::ast::{Query, Segment, Selector};
use crate::json::path::budget::Exceeded;
use crate::json::path::document::{Child, Kind, Walker, normalize_index};
use crate::json::path::key_hits::KeyHits;

/// Bytes a descendant segment's name searches (`key_hits`) may go through for one visit of the
/// budget: searching them costs about what one visit does.
const SEARCHED_PER_VISIT: usize = 64;

impl Walker<'_, '_> {
    /// The nodes `query` selects, starting from the root (`$`) or from `current` (`@`).
    pub(crate) fn run(&mut self, query: &Query, current: Span) -> Result<Vec<Span>, Exceeded> {
        let start = if query.absolute {
            self.doc.root()
        } else {
            current
        };
        self.segments(vec![start], &query.segments)
    }

    /// The nodes `segments` select from `nodes`: each node taken through every segment before the
    /// next node is started (a stack, not recursion, so ten thousand segments cost heap only).
    ///
    /// Why not one segment over all the nodes, then the next: the order is the same (each segment
    /// maps every node on its own and concatenates, so the rest of a query over `a ++ b` is the
    /// rest over `a` followed by the rest over `b`), but a node's next segment then reads text the
    /// walk has just read, still in the cache. Segment by segment, each of a large state's
    /// instances was read once for `.attributes` and again, long after, for `.id`, both times from
    /// memory.
    pub(super) fn segments(
        &mut self,
        nodes: Vec<Span>,
        segments: &[Segment],
    ) -> Result<Vec<Span>, Exceeded> {
        let Some(last) = segments.len().checked_sub(1) else {
            return Ok(nodes);
        };
        let mut out = Vec::new();
        // Each node with the index of the segment it goes through next; the top is the earliest.
        let mut pending: Vec<(Span, usize)> =
            nodes.into_iter().rev().map(|node| (node, 0)).collect();
        let mut selected = Vec::new();
        while let Some((node, at)) = pending.pop() {
            selected.clear();
            self.segment_from(node, &segments[at], &mut selected)?;
            if at == last {
                out.extend_from_slice(&selected);
                self.budget.keep(out.len())?;
            } else {
                pending.extend(selected.iter().rev().map(|&node| (node, at + 1)));
                self.budget.keep(pending.len())?;
            }
        }
        Ok(out)
    }

    /// The nodes one segment selects from `nodes`, in order.
    pub(super) fn segment(
        &mut self,
        nodes: &[Span],
        segment: &Segment,
    ) -> Result<Vec<Span>, Exceeded> {
        let mut next = Vec::new();
        for &node in nodes {
            self.segment_from(node, segment, &mut next)?;
        }
        Ok(next)
    }

    /// The nodes one segment selects from `node`, added to `out`.
    pub(super) fn segment_from(
        &mut self,
        node: Span,
        segment: &Segment,
        out: &mut Vec<Span>,
    ) -> Result<(), Exceeded> {
        if segment.descendant {
            self.descend(node, &segment.selectors, out)
        } else {
            self.select(node, &segment.selectors, out)
        }
    }

    /// The node a singular query selects, if any.
    pub(crate) fn singular(
        &mut self,
        query: &Query,
        current: Span,
    ) -> Result<Option<Span>, Exceeded> {
        let mut node = if query.absolute {
            self.doc.root()
        } else {
            current
        };
        for segment in &query.segments {
            let found = match segment.selectors.first() {
                Some(Selector::Name(name)) => self.member(node, name)?,
                Some(Selector::Index(index)) => self.element(node, *index)?,
                _ => None,
            };
            match found {
                Some(found) => node = found,
                None => return Ok(None),
            }
        }
        Ok(Some(node))
    }

    /// A child segment applied to one node.
    fn select(
        &mut self,
        node: Span,
        selectors: &[Selector],
        out: &mut Vec<Span>,
    ) -> Result<(), Exceeded> {
        // Names, and indices from the front, are found without listing every child.
        let direct = selectors.iter().all(|selector| match selector {
            Selector::Name(_) => true,
            Selector::Index(index) => *index >= 0,
            _ => false,
        });
        if direct {
            for selector in selectors {
                let found = match selector {
                    Selector::Name(name) => self.member(node, name)?,
                    Selector::Index(index) => self.element(node, *index)?,
                    _ => None,
                };
                if let Some(found) = found {
                    out.push(found);
                    self.budget.keep(out.len())?;
                }
            }
            return Ok(());
        }
        let mut children = self.take_list();
        self.children(node, &mut children)?;
        let kind = self.kind(node);
        for selector in selectors {
            self.apply(kind, &children, selector, out)?;
        }
        self.give_back(children);
        Ok(())
    }

    /// A descendant segment applied to one node: the selectors applied to the node and to each of
    /// its descendants, in pre-order (a node before its descendants, elements in order).
    fn descend(
        &mut self,
        node: Span,
        selectors: &[Selector],
        out: &mut Vec<Span>,
    ) -> Result<(), Exceeded> {
        // The searches of the last descent are set up again only for other names: a query cut
        // into parts descends from each of a large state's resources in turn.
        let mut keys = match self.key_hits.take() {
            Some(mut kept) if kept.searches_for(selectors) => {
                kept.restart(node);
                Some(kept)
            }
            _ => KeyHits::for_selectors(selectors, self.text(), node),
        };
        let mut pending = vec![node];
        let mut children = self.take_list();
        while let Some(next) = pending.pop() {
            self.budget.visit(1)?;
            // No member of the names anywhere in its text: nothing to select in it or below.
            if let Some(keys) = &mut keys {
                let may_hold = keys.may_hold(next);
                self.budget
                    .visit(keys.take_searched() / SEARCHED_PER_VISIT)?;
                if !may_hold {
                    continue;
                }
            }
            self.children(next, &mut children)?;
            let kind = self.kind(next);
            for selector in selectors {
                self.apply(kind, &children, selector, out)?;
            }
            // Only containers have descendants: a scalar adds nothing below it.
            let bytes = self.text().as_bytes();
            pending.extend(
                children
                    .iter()
                    .rev()
                    .filter(|child| matches!(bytes.get(child.value.start), Some(b'{' | b'[')))
                    .map(|child| child.value),
            );
        }
        if keys.is_some() {
            self.key_hits = keys;
        }
        self.give_back(children);
        Ok(())
    }

    /// One selector over the listed children of a node of `kind`.
    pub(super) fn apply(
        &mut self,
        kind: Kind,
        children: &[Child],
        selector: &Selector,
        out: &mut Vec<Span>,
    ) -> Result<(), Exceeded> {
        match selector {
            Selector::Name(name) if kind == Kind::Object => {
                // Each name is listed once (the last value of a repeated one).
                if let Some(child) = children.iter().find(|child| self.key_is(child, name)) {
                    out.push(child.value);
                }
            }
            Selector::Wildcard => out.extend(children.iter().map(|child| child.value)),
            Selector::Index(index) if kind == Kind::Array => {
                if let Some(at) = normalize_index(*index, children.len()) {
                    out.push(children[at].value);
                }
            }
            Selector::Slice { start, end, step } if kind == Kind::Array => {
                for at in Slice::new(*start, *end, *step, children.len()) {
                    out.push(children[at].value);
                    self.budget.keep(out.len())?;
                }
            }
            Selector::Filter(expression) => {
                for child in children {
                    if self.test(expression, child.value)? {
                        out.push(child.value);
                        self.budget.keep(out.len())?;
                    }
                }
            }
            _ => {}
        }
        self.budget.keep(out.len())
    }
}

/// The indices an array slice selects (RFC 9535 section 2.3.4.2.2), in order.
struct Slice {
    at: i64,
    bound: i64,
    step: i64,
}

impl Slice {
    fn new(start: Option<i64>, end: Option<i64>, step: Option<i64>, length: usize) -> Slice {
        let length = i64::try_from(length).unwrap_or(i64::MAX);
        let step = step.unwrap_or(1);
        let normalize = |index: i64| {
            if index >= 0 {
                index
            } else {
                length.saturating_add(index)
            }
        };
        if step > 0 {
            let lower = normalize(start.unwrap_or(0)).clamp(0, length);
            let upper = normalize(end.unwrap_or(length)).clamp(0, length);
            Slice {
                at: lower,
                bound: upper,
                step,
            }
        } else {
            // Backwards (a step of 0 selects nothing: `at` starts at the bound).
            let upper = normalize(start.unwrap_or(length - 1)).clamp(-1, length - 1);
            let lower = end.map_or(-1, |end| normalize(end).clamp(-1, length - 1));
            Slice {
                at: if step == 0 { lower } else { upper },
                bound: lower,
                step,
            }
        }
    }
}

impl Iterator for Slice {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let inside = if self.step > 0 {
            self.at < self.bound
        } else {
            self.bound < self.at
        };
        if !inside || self.step == 0 {
            return None;
        }
        let at = self.at;
        match self.at.checked_add(self.step) {
            Some(next) => self.at = next,
            None => self.step = 0,
        }
        usize::try_from(at).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(start: Option<i64>, end: Option<i64>, step: Option<i64>, length: usize) -> Vec<usize> {
        Slice::new(start, end, step, length).collect()
    }

    #[test]
    fn slices_as_rfc_9535_normalizes_them() {
        assert_eq!(slice(Some(1), Some(3), None, 5), [1, 2]);
        assert_eq!(slice(None, None, Some(2), 5), [0, 2, 4]);
        assert_eq!(slice(None, None, Some(-1), 4), [3, 2, 1, 0]);
        assert_eq!(slice(Some(-1), None, Some(-2), 5), [4, 2, 0]);
        assert_eq!(slice(Some(3), Some(0), Some(-1), 5), [3, 2, 1]);
        assert_eq!(slice(Some(-2), None, None, 5), [3, 4]);
        assert_eq!(slice(None, None, Some(0), 5), Vec::<usize>::new());
        assert_eq!(slice(Some(10), Some(20), None, 5), Vec::<usize>::new());
        assert_eq!(slice(None, None, Some(-1), 0), Vec::<usize>::new());
        assert_eq!(
            slice(
                Some(-9_007_199_254_740_991),
                Some(9_007_199_254_740_991),
                Some(9_007_199_254_740_991),
                3
            ),
            [0]
        );
    }
}
