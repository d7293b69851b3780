//! A query over a large document run on several threads: once a segment's nodes are many and span
//! enough bytes, they are cut into consecutive parts, each thread runs the rest of the query over
//! its part, and the parts' results are joined in order.
//!
//! Why the result is the one-thread run's: every segment maps each of its nodes to the nodes it
//! selects from that one node alone, and concatenates them in order. So the rest of a query over
//! nodes `a ++ b` is the rest over `a` followed by the rest over `b`, whoever computes each.
//!
//! A segment over one large node is cut inside it. A descendant segment (`$..x` at the root): a
//! node's descendants are its children's selection followed by each child's descendants in order,
//! so the large nodes are opened (on this thread, as the walk would) until no part of the work is
//! larger than a fraction of a thread's share. A child segment of one wildcard or filter
//! (`$.resources[?@.type=='aws_instance']`): it selects from the node's children one by one, in
//! order, so the children are listed here and each part tests its own.
//!
//! Every part counts its visits into one shared count, so the parts together stay within the
//! run's limits, as the one-thread run does.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::json::Span;
use crate::json::path::ast::{Segment, Selector};
use crate::json::path::budget::Exceeded;
use crate::json::path::document::{Document, Walker};
use crate::parts::{each_on_a_thread, parts, runs};

/// Below this many bytes of nodes per thread, a thread costs more than it saves.
const PART_BYTES: usize = 4 << 20;

/// At most this many nodes are opened to cut a descendant segment (each is a visit the walk makes
/// anyway; the bound keeps the list of starts small).
const MAX_OPENED: usize = 4096;

/// Where a part of the work starts.
#[derive(Debug)]
enum Start {
    /// A node the segment, then the rest of the query, applies to.
    Node(Span),
    /// What the segment selected from a node opened while cutting: the rest of the query applies.
    Selected(Vec<Span>),
    /// A child of a node opened for a child segment of one wildcard or filter: the selector decides
    /// whether it is selected, then the rest of the query applies.
    Child(Span),
}

impl Walker<'_, '_> {
    /// The nodes `segments` select from the root, on several threads once the work is large enough.
    pub(super) fn run_on_threads(&mut self, segments: &[Segment]) -> Result<Vec<Span>, Exceeded> {
        let mut nodes = vec![self.doc.root()];
        for (at, segment) in segments.iter().enumerate() {
            if nodes.is_empty() {
                break;
            }
            let bytes = nodes
                .iter()
                .map(|node| node.end - node.start)
                .sum::<usize>();
            let threads = parts(bytes, PART_BYTES);
            // Other child segments are cut between nodes: worth it only when no one node is most
            // of them.
            let largest = nodes.iter().map(|node| node.end - node.start).max();
            let cuttable = segment.descendant
                || one_by_one(segment)
                || largest.is_some_and(|largest| largest <= bytes / 2);
            if threads >= 2 && cuttable {
                let starts = self.starts(&nodes, segment, bytes / (threads * 4))?;
                return self.finish_in_parts(starts, &segments[at..], threads);
            }
            if threads < 2 {
                // Too little for a second thread: the rest on this one, node by node.
                return self.segments(nodes, &segments[at..]);
            }
            nodes = self.segment(&nodes, segment)?;
        }
        Ok(nodes)
    }

    /// The starts of `segment` over `nodes`: each node, except that for a descendant segment a node
    /// larger than `largest` bytes is opened: its children's selection, then each child container.
    fn starts(
        &mut self,
        nodes: &[Span],
        segment: &Segment,
        largest: usize,
    ) -> Result<Vec<Start>, Exceeded> {
        let bytes = self.text().as_bytes();
        let container = |node: &Span| matches!(bytes.get(node.start), Some(b'{' | b'['));
        if !segment.descendant {
            let mut starts = Vec::new();
            let mut children = self.take_list();
            for &node in nodes {
                if node.end - node.start <= largest
                    || !one_by_one(segment)
                    || !container(&node)
                    || self.is_masked(node.start)
                {
                    starts.push(Start::Node(node));
                    continue;
                }
                // What `select` lists before its selector picks.
                self.children(node, &mut children)?;
                starts.extend(children.iter().map(|child| Start::Child(child.value)));
            }
            self.give_back(children);
            return Ok(starts);
        }
        let mut starts = Vec::new();
        let mut pending: Vec<Span> = nodes.iter().rev().copied().collect();
        let mut children = self.take_list();
        let mut opened = 0;
        // A stack, so that a node's children come right after its selection, in order.
        while let Some(node) = pending.pop() {
            if node.end - node.start <= largest
                || opened == MAX_OPENED
                || !container(&node)
                || self.is_masked(node.start)
            {
                starts.push(Start::Node(node));
                continue;
            }
            opened += 1;
            // What `descend` does with a node it pops.
            self.budget.visit(1)?;
            self.children(node, &mut children)?;
            let kind = self.kind(node);
            let mut selected = Vec::new();
            for selector in &segment.selectors {
                self.apply(kind, &children, selector, &mut selected)?;
            }
            starts.push(Start::Selected(selected));
            pending.extend(
                children
                    .iter()
                    .rev()
                    .filter(|child| container(&child.value))
                    .map(|child| child.value),
            );
        }
        self.give_back(children);
        Ok(starts)
    }

    /// The rest of the query (`segments`, the first applying to each start) over `starts`, cut into
    /// at most `threads` consecutive parts of about equal bytes; the first part runs on this thread.
    fn finish_in_parts(
        &mut self,
        starts: Vec<Start>,
        segments: &[Segment],
        threads: usize,
    ) -> Result<Vec<Span>, Exceeded> {
        if starts.is_empty() {
            return Ok(Vec::new());
        }
        #[cfg(test)]
        tests::CUT.set(tests::CUT.get() + 1);
        let follows = segments.len() > 1;
        let parts = runs(starts, threads, |start| match start {
            Start::Node(node) => node.end - node.start,
            // Selected nodes are work only if more segments follow.
            Start::Selected(nodes) if follows => {
                nodes.iter().map(|node| node.end - node.start).sum()
            }
            Start::Selected(_) => 0,
            Start::Child(child) => child.end - child.start,
        });
        let doc: &Document<'_> = self.doc;
        let limits = self.budget.limits();
        let spent = self.budget.spent();
        let all = Arc::new(AtomicU64::new(spent));
        let outcomes = each_on_a_thread(&parts, |part| {
            let mut walker = Walker::sharing(doc, limits, spent, Arc::clone(&all));
            let nodes = walker.finish_part(part, segments);
            (nodes, walker.budget.spent() - spent)
        });
        let mut nodes = Vec::new();
        let mut visits = 0u64;
        let mut failed = None;
        for (outcome, spent) in outcomes {
            visits = visits.saturating_add(spent);
            match outcome {
                Ok(part) if failed.is_none() => nodes.extend(part),
                Ok(_) => {}
                Err(exceeded) => {
                    failed.get_or_insert(exceeded);
                }
            }
        }
        if let Some(exceeded) = failed {
            return Err(exceeded);
        }
        self.budget.add_parts(visits)?;
        self.budget.keep(nodes.len())?;
        Ok(nodes)
    }

    /// The rest of the query over one part's starts.
    fn finish_part(&mut self, part: &[Start], segments: &[Segment]) -> Result<Vec<Span>, Exceeded> {
        let Some((first, rest)) = segments.split_first() else {
            return Ok(Vec::new());
        };
        let mut nodes = Vec::new();
        for start in part {
            match start {
                Start::Node(node) => self.segment_from(*node, first, &mut nodes)?,
                Start::Selected(selected) => nodes.extend_from_slice(selected),
                Start::Child(child) => {
                    let picked = match first.selectors.as_slice() {
                        [Selector::Filter(expression)] => self.test(expression, *child)?,
                        _ => true,
                    };
                    if picked {
                        nodes.push(*child);
                    }
                }
            }
            self.budget.keep(nodes.len())?;
        }
        self.segments(nodes, rest)
    }
}

/// Whether `segment` is a child segment of one wildcard or filter, which picks from a node's
/// children one at a time and in order (so a large node's children can be tested in parts).
fn one_by_one(segment: &Segment) -> bool {
    !segment.descendant
        && matches!(
            segment.selectors.as_slice(),
            [Selector::Wildcard | Selector::Filter(_)]
        )
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::fmt::Write;

    use crate::json::path::{Document, Exceeded, JsonPath, Limits};
    use crate::parts::forced;

    thread_local! {
        /// Runs cut into parts on this thread.
        pub(super) static CUT: Cell<usize> = const { Cell::new(0) };
    }

    /// A state-like document: resources of several types, instances with nested attributes,
    /// repeated names, escapes, numbers and a deep value.
    fn document_text() -> String {
        let mut text = String::from(
            "{\"version\": 4, \"outputs\": {\"a\": {\"value\": [1, 2]}}, \"resources\": [",
        );
        for index in 0..40 {
            let kind = ["aws_instance", "aws_s3_bucket", "null_resource"][index % 3];
            if index > 0 {
                text.push(',');
            }
            write!(
                text,
                "{{\"type\": \"{kind}\", \"name\": \"r{index}\", \"instances\": [{{\"status\": \"{}\", \"attributes\": {{\"id\": \"i-{index}\", \"size\": {}, \"tags\": {{\"Name\": \"n\\u00e9{index}\", \"Name\": \"last{index}\"}}, \"list\": [[{index}, {{\"id\": {index}.5e1}}], [], {{}}], \"nested\": {}}}}}, {{\"attributes\": {{\"id\": \"j-{index}\"}}}}]}}",
                if index % 4 == 0 { "tainted" } else { "ok" },
                index * 7,
                "[".repeat(index % 9) + "{\"id\": true}" + &"]".repeat(index % 9),
            )
            .unwrap();
        }
        text.push_str("], \"check_results\": null}");
        text
    }

    const PATHS: &[&str] = &[
        "$",
        "$.*",
        "$..*",
        "$..id",
        "$..[0]",
        "$..[-1]",
        "$..[1:]",
        "$..[::-1]",
        "$..Name",
        "$.resources[*].instances[*].attributes.id",
        "$.resources[?@.type=='aws_instance'].instances[*].attributes.id",
        "$..instances[?@.status=='tainted']",
        "$..[?@.id]",
        "$..[?@.size > 100]",
        "$..[?search(@.id, 'i-1')].tags",
        "$.resources[*]..id",
        "$.resources[3:30:4].instances[0].attributes.list..*",
        "$..[?@ == $.outputs.a.value]",
        "$.resources[*].instances[*]",
        "$..nothing",
        "$.resources[?@.type=='aws_instance']",
        "$.resources[?@.type=='aws_instance'].name",
        "$.resources[*]",
        "$[?@ == 4]",
        "$.resources[1:3]",
    ];

    fn printed(document: &Document<'_>, path: &str, limits: Limits) -> Result<String, Exceeded> {
        JsonPath::parse(path)
            .unwrap()
            .select(document, limits)?
            .to_json(true)
    }

    #[test]
    fn a_query_cut_into_parts_selects_what_one_thread_selects() {
        let text = document_text();
        let document = Document::parse(&text).unwrap();
        let limits = Limits::for_document(text.len());
        for path in PATHS {
            let whole = forced(1, || printed(&document, path, limits)).unwrap();
            for parts in [2, 3, 5, 8] {
                CUT.set(0);
                let cut = forced(parts, || printed(&document, path, limits)).unwrap();
                assert_eq!(cut, whole, "{path} in {parts} parts");
                // `$` has no segment; a slice of the one `resources` array is one node's work.
                let cuttable = !matches!(*path, "$" | "$.resources[1:3]");
                assert_eq!(CUT.get(), usize::from(cuttable), "{path} in {parts} parts");
            }
        }
        // Masked values stay masked, and are not opened, in every part.
        let secret = text.find("{\"id\": \"i-5\"").unwrap();
        let masked = Document::parse(&text)
            .unwrap()
            .with_masks(vec![secret], "(sensitive value)");
        for path in ["$..id", "$..*", "$.resources[*].instances[*].attributes"] {
            let whole = forced(1, || printed(&masked, path, limits)).unwrap();
            assert!(
                whole.contains("(sensitive value)") || path == "$..id",
                "{path}"
            );
            assert!(!whole.contains("\"i-5\""), "{path}");
            for parts in [2, 3, 8] {
                assert_eq!(
                    forced(parts, || printed(&masked, path, limits)).unwrap(),
                    whole,
                    "{path}"
                );
            }
        }
    }

    /// Printed in parts on several threads, results print as on one thread, pretty or compact;
    /// an output limit one byte short of them fails in parts as on one thread, and one of their
    /// exact length passes.
    #[test]
    fn results_printed_in_parts_print_as_on_one_thread() {
        let text = document_text();
        let document = Document::parse(&text).unwrap();
        let limits = Limits::for_document(text.len());
        for path in PATHS {
            let path = JsonPath::parse(path).unwrap();
            for pretty in [true, false] {
                let printed = |limits: Limits, parts: usize| {
                    forced(parts, || {
                        path.select(&document, limits)
                            .and_then(|mut selection| selection.to_json(pretty))
                    })
                };
                let whole = printed(limits, 1).unwrap();
                let length = u64::try_from(whole.len()).unwrap();
                for parts in [2, 3, 8] {
                    assert_eq!(
                        printed(limits, parts).unwrap(),
                        whole,
                        "{path:?} in {parts}"
                    );
                    let exact = Limits {
                        output: length,
                        ..limits
                    };
                    assert_eq!(printed(exact, parts).unwrap(), whole, "{path:?} in {parts}");
                    let short = Limits {
                        output: length - 1,
                        ..limits
                    };
                    assert!(
                        matches!(printed(short, parts), Err(Exceeded::Output(_))),
                        "{path:?} in {parts}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_deep_document_cut_into_parts_costs_no_stack() {
        // As deep as the JSON reader accepts, on the workers' stacks too.
        let text = format!(
            "{}{{\"leaf\": \"x\"}}{}",
            "[".repeat(9_999),
            "]".repeat(9_999)
        );
        let document = Document::parse(&text).unwrap();
        let limits = Limits::for_document(text.len());
        for path in ["$..leaf", "$..[?@.leaf]", "$..*", "$[*][*]"] {
            let whole = forced(1, || printed(&document, path, limits));
            for parts in [2, 4] {
                assert_eq!(
                    forced(parts, || printed(&document, path, limits)),
                    whole,
                    "{path}"
                );
            }
        }
    }

    #[test]
    fn the_parts_together_stay_within_the_limits() {
        // A hostile query (four descendant wildcards over a 100-deep array) runs out in parts too.
        let text = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        let document = Document::parse(&text).unwrap();
        for parts in [1, 2, 4] {
            let error = forced(parts, || {
                printed(&document, "$..*..*..*..*", Limits::for_document(text.len()))
            })
            .unwrap_err();
            assert!(
                matches!(error, Exceeded::Visits(_) | Exceeded::Kept(_)),
                "{error}"
            );
        }
        // The visits of all parts count: a limit the whole run needs more than half of fails when the
        // run is cut in two, as it fails on one thread.
        let text = document_text();
        let document = Document::parse(&text).unwrap();
        let path = "$..*";
        let generous = Limits::for_document(text.len());
        let fails = |visits: u64| {
            forced(1, || {
                printed(&document, path, Limits { visits, ..generous })
            })
            .is_err()
        };
        // The fewest visits the one-thread run needs, by bisection.
        let (mut low, mut high) = (0u64, generous.visits);
        while high - low > 1 {
            let middle = low + (high - low) / 2;
            if fails(middle) {
                low = middle;
            } else {
                high = middle;
            }
        }
        let needed = high;
        for parts in [1, 2, 3] {
            let tight = Limits {
                visits: needed - 1,
                ..generous
            };
            assert_eq!(
                forced(parts, || printed(&document, path, tight)),
                Err(Exceeded::Visits(needed - 1)),
                "{parts} parts"
            );
        }
        assert!(
            forced(1, || printed(
                &document,
                path,
                Limits {
                    visits: needed,
                    ..generous
                }
            ))
            .is_ok()
        );
        // Kept nodes are counted over the joined result.
        let few = Limits {
            kept: 10,
            ..generous
        };
        for parts in [1, 2, 3] {
            assert_eq!(
                forced(parts, || printed(&document, "$..id", few)),
                Err(Exceeded::Kept(10))
            );
        }
    }
}
