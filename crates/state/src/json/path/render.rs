//! Printing a selection: a JSON array of the selected values, pretty (two spaces a level) or compact,
//! spelled as `statectl query` has always printed them (serde_json's layout and escaping, numbers as
//! written but for the exponent, `1E5` as `1e+5`), with masked values as the mask string. Values are
//! walked with a stack of their own, so any depth the parser accepts prints.
//!
//! The output is measured before a byte is written: results that would print past the limit are an
//! error, not half an array. Small results are measured by printing them into memory; large ones
//! by a counting pass before the printing one.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::json::Span;
use crate::json::path::budget::{Budget, Exceeded, Limits};
use crate::json::path::document::{Child, Kind, Walker, decode_string};
use crate::json::wide::ask_ahead;
use crate::parts::{each_on_a_thread, parts};

/// Why printing stopped.
#[derive(Debug)]
pub enum PrintError<E> {
    /// The results would print longer than the limit.
    TooLong(Exceeded),
    /// The writer failed.
    Write(E),
}

impl<E: fmt::Display> fmt::Display for PrintError<E> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrintError::TooLong(exceeded) => exceeded.fmt(formatter),
            PrintError::Write(error) => error.fmt(formatter),
        }
    }
}

/// Where printed text goes.
trait Sink {
    /// `false` stops the printing.
    fn put(&mut self, text: &str) -> bool;
}

/// Counts what would be printed, up to a limit.
struct Measure {
    bytes: u64,
    limit: u64,
}

impl Sink for Measure {
    fn put(&mut self, text: &str) -> bool {
        self.bytes = self
            .bytes
            .saturating_add(u64::try_from(text.len()).unwrap_or(u64::MAX));
        self.bytes <= self.limit
    }
}

/// How many results ahead of the one printing the text of the next is asked for.
const PRINT_AHEAD: usize = 8;

/// Results printing at most this long are printed once, into memory; longer ones are measured
/// first and then printed in pieces (twice the work, a fixed amount of memory).
const HELD_BYTES: u64 = 8 << 20;

/// Below this many results for each, printing them into memory in parts on threads of their own
/// costs more than it saves.
const HELD_PART_NODES: usize = 4096;

/// Holds all the text, up to a limit on what it and the others sharing `all` hold together. Each
/// tells `all` what it holds every [`HELD_TOLD_EVERY`] bytes (a shared count changed at every
/// piece would move between the CPUs' caches at every piece).
struct Held<'a> {
    text: String,
    limit: u64,
    all: &'a AtomicU64,
    told: usize,
}

/// How many bytes a [`Held`] takes before it tells the others.
const HELD_TOLD_EVERY: usize = 64 << 10;

impl<'a> Held<'a> {
    fn new(limit: u64, all: &'a AtomicU64) -> Held<'a> {
        Held {
            text: String::new(),
            limit,
            all,
            told: 0,
        }
    }
}

impl Sink for Held<'_> {
    fn put(&mut self, text: &str) -> bool {
        self.text.push_str(text);
        let held = u64::try_from(self.text.len()).unwrap_or(u64::MAX);
        if held > self.limit {
            return false;
        }
        if self.text.len() - self.told < HELD_TOLD_EVERY {
            return true;
        }
        let added = u64::try_from(self.text.len() - self.told).unwrap_or(u64::MAX);
        self.told = self.text.len();
        self.all
            .fetch_add(added, Ordering::Relaxed)
            .saturating_add(added)
            <= self.limit
    }
}

/// Buffers the text and hands it to the writer in large pieces.
struct Buffered<'w, E> {
    buffer: String,
    write: &'w mut dyn FnMut(&str) -> Result<(), E>,
    error: Option<E>,
}

impl<E> Buffered<'_, E> {
    fn flush(&mut self) -> bool {
        if self.error.is_none()
            && !self.buffer.is_empty()
            && let Err(error) = (self.write)(&self.buffer)
        {
            self.error = Some(error);
        }
        self.buffer.clear();
        self.error.is_none()
    }
}

impl<E> Sink for Buffered<'_, E> {
    fn put(&mut self, text: &str) -> bool {
        self.buffer.push_str(text);
        self.buffer.len() < (1 << 16) || self.flush()
    }
}

/// An open container being printed.
struct Open {
    children: Vec<Child>,
    next: usize,
    object: bool,
}

impl Walker<'_, '_> {
    /// Prints `nodes` as a JSON array through `write`.
    pub(crate) fn print<E>(
        &mut self,
        nodes: &[Span],
        pretty: bool,
        write: &mut dyn FnMut(&str) -> Result<(), E>,
    ) -> Result<(), PrintError<E>> {
        // Printing walks only what the results hold, which the output limit bounds; the visits
        // the evaluation spent are no reason to stop.
        let limit = self.budget.limits().output;
        self.budget = Budget::new(Limits {
            visits: u64::MAX,
            kept: usize::MAX,
            output: limit,
        });
        // Most results are small: printed once into memory, then written whole.
        if let Some(pieces) = self.held(nodes, pretty, limit.min(HELD_BYTES)) {
            return pieces
                .iter()
                .try_for_each(|piece| (write)(piece))
                .map_err(PrintError::Write);
        }
        let mut measure = Measure { bytes: 0, limit };
        if !self.emit(nodes, pretty, &mut measure) {
            return Err(PrintError::TooLong(Exceeded::Output(limit)));
        }
        let mut sink = Buffered {
            buffer: String::new(),
            write,
            error: None,
        };
        let finished = self.emit(nodes, pretty, &mut sink) && sink.flush();
        match sink.error {
            Some(error) => Err(PrintError::Write(error)),
            None if finished => Ok(()),
            None => Err(PrintError::TooLong(Exceeded::Output(limit))),
        }
    }

    /// `nodes` printed into memory, in pieces to write one after another, when they print within
    /// `at_most` bytes. A long list is printed in consecutive runs on every CPU, each by a walker
    /// of its own (the results of a large state are scattered through text long out of the
    /// cache, and printing them was a twentieth of a query of 250,000 instances, on one thread).
    fn held(&mut self, nodes: &[Span], pretty: bool, at_most: u64) -> Option<Vec<String>> {
        let threads = parts(nodes.len(), HELD_PART_NODES);
        // What the runs hold together: the memory stays within `at_most` however many there are.
        let all = AtomicU64::new(0);
        if threads < 2 || nodes.is_empty() {
            let mut held = Held::new(at_most, &all);
            return self.emit(nodes, pretty, &mut held).then(|| vec![held.text]);
        }
        let runs: Vec<(usize, &[Span])> = (0..)
            .step_by(nodes.len().div_ceil(threads))
            .zip(nodes.chunks(nodes.len().div_ceil(threads)))
            .collect();
        let (doc, limits) = (self.doc, self.budget.limits());
        let mut pieces = vec!["[".to_owned()];
        for run in each_on_a_thread(&runs, |&(first, run)| {
            let mut walker = Walker::new(doc, limits);
            let mut held = Held::new(at_most, &all);
            walker
                .emit_items(run, first, pretty, &mut held)
                .then_some(held.text)
        }) {
            pieces.push(run?);
        }
        pieces.push(if pretty { "\n]" } else { "]" }.to_owned());
        let bytes = pieces
            .iter()
            .map(String::len)
            .fold(0, usize::saturating_add);
        (u64::try_from(bytes).unwrap_or(u64::MAX) <= at_most).then_some(pieces)
    }

    fn emit(&mut self, nodes: &[Span], pretty: bool, sink: &mut dyn Sink) -> bool {
        sink.put("[")
            && self.emit_items(nodes, 0, pretty, sink)
            && (!pretty || nodes.is_empty() || sink.put("\n"))
            && sink.put("]")
    }

    /// Prints `nodes`, each after the separator it takes as the result at `first` and after.
    fn emit_items(
        &mut self,
        nodes: &[Span],
        first: usize,
        pretty: bool,
        sink: &mut dyn Sink,
    ) -> bool {
        let text = self.text().as_bytes();
        for (index, node) in (first..).zip(nodes) {
            // A large state's results are scattered through text long out of the cache: ask for a
            // later one's while this one prints.
            if let Some(ahead) = nodes.get(index - first + PRINT_AHEAD) {
                ask_ahead(text, ahead.start);
            }
            let separated = match (pretty, index) {
                (true, 0) => sink.put("\n") && indent(1, sink),
                (true, _) => sink.put(",\n") && indent(1, sink),
                (false, 0) => true,
                (false, _) => sink.put(","),
            };
            if !separated || !self.emit_value(*node, 1, pretty, sink) {
                return false;
            }
        }
        true
    }

    /// Prints one value whose first line is already indented `depth` levels.
    fn emit_value(&mut self, node: Span, depth: usize, pretty: bool, sink: &mut dyn Sink) -> bool {
        let mut open: Vec<Open> = Vec::new();
        let mut next = Some(node);
        loop {
            if let Some(value) = next.take() {
                match self.kind(value) {
                    Kind::Object | Kind::Array => {
                        let object = self.kind(value) == Kind::Object;
                        let mut children = self.take_list();
                        if self.children(value, &mut children).is_err() {
                            return false;
                        }
                        if children.is_empty() {
                            self.give_back(children);
                            if !sink.put(if object { "{}" } else { "[]" }) {
                                return false;
                            }
                        } else {
                            if !sink.put(if object { "{" } else { "[" }) {
                                return false;
                            }
                            open.push(Open {
                                children,
                                next: 0,
                                object,
                            });
                        }
                    }
                    Kind::Masked => {
                        if !string(self.doc.mask_text(), sink) {
                            return false;
                        }
                    }
                    Kind::String => {
                        let raw = &self.text()[value.start + 1..value.end - 1];
                        let written = if raw.as_bytes().contains(&b'\\') {
                            string(&decode_string(self.text(), value.start), sink)
                        } else {
                            sink.put("\"") && sink.put(raw) && sink.put("\"")
                        };
                        if !written {
                            return false;
                        }
                    }
                    Kind::Number => {
                        if !number(value.of(self.text()), sink) {
                            return false;
                        }
                    }
                    Kind::Bool(_) | Kind::Null => {
                        if !sink.put(value.of(self.text())) {
                            return false;
                        }
                    }
                }
            }
            let level = depth + open.len();
            let Some(container) = open.last_mut() else {
                return true;
            };
            if let Some(child) = container.children.get(container.next).copied() {
                let separated = match (pretty, container.next) {
                    (true, 0) => sink.put("\n") && indent(level, sink),
                    (true, _) => sink.put(",\n") && indent(level, sink),
                    (false, 0) => true,
                    (false, _) => sink.put(","),
                };
                if !separated {
                    return false;
                }
                if let Some(key) = child.key {
                    let written = if child.escaped {
                        string(&self.key(&child), sink)
                    } else {
                        sink.put("\"") && sink.put(key.of(self.text())) && sink.put("\"")
                    };
                    if !written || !sink.put(if pretty { ": " } else { ":" }) {
                        return false;
                    }
                }
                container.next += 1;
                next = Some(child.value);
            } else {
                let object = container.object;
                if let Some(done) = open.pop() {
                    self.give_back(done.children);
                }
                let closed = if pretty {
                    sink.put("\n") && indent(level - 1, sink)
                } else {
                    true
                };
                if !closed || !sink.put(if object { "}" } else { "]" }) {
                    return false;
                }
            }
        }
    }
}

fn indent(levels: usize, sink: &mut dyn Sink) -> bool {
    const SPACES: &str = "                                                                ";
    let mut left = levels * 2;
    while left > 0 {
        let now = left.min(SPACES.len());
        if !sink.put(&SPACES[..now]) {
            return false;
        }
        left -= now;
    }
    true
}

/// A string as serde_json escapes it: quotes, backslashes and control characters only.
fn string(text: &str, sink: &mut dyn Sink) -> bool {
    if !sink.put("\"") {
        return false;
    }
    let mut plain = 0;
    for (at, character) in text.char_indices() {
        let escaped = match character {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            control if u32::from(control) < 0x20 => "",
            _ => continue,
        };
        if !sink.put(&text[plain..at]) {
            return false;
        }
        let written = if escaped.is_empty() {
            sink.put(&format!("\\u{:04x}", u32::from(character)))
        } else {
            sink.put(escaped)
        };
        if !written {
            return false;
        }
        plain = at + character.len_utf8();
    }
    sink.put(&text[plain..]) && sink.put("\"")
}

/// A number as written, but for its exponent, which serde_json spells `e` with a sign.
fn number(text: &str, sink: &mut dyn Sink) -> bool {
    match text.find(['e', 'E']) {
        None => sink.put(text),
        Some(at) => {
            let exponent = &text[at + 1..];
            let sign = if exponent.starts_with(['+', '-']) {
                ""
            } else {
                "+"
            };
            sink.put(&text[..at]) && sink.put("e") && sink.put(sign) && sink.put(exponent)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs held side by side stop once together they hold more than the limit, though each
    /// alone holds less; a run alone stops at the limit however it tells the others.
    #[test]
    fn runs_held_side_by_side_stop_at_what_they_hold_together() {
        let all = AtomicU64::new(0);
        let piece = "x".repeat(HELD_TOLD_EVERY);
        let limit = 3 * HELD_TOLD_EVERY as u64;
        let (mut first, mut second) = (Held::new(limit, &all), Held::new(limit, &all));
        assert!(first.put(&piece) && second.put(&piece) && first.put(&piece));
        assert!(!second.put(&piece));
        let alone = AtomicU64::new(0);
        let mut held = Held::new(10, &alone);
        assert!(held.put("0123456789"));
        assert!(!held.put("x"));
    }
}
