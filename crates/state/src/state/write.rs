//! Writing a state back: a changed instance is rendered as the program that wrote the file would
//! render it, and spliced into the original bytes, so every untouched byte stays identical and a
//! reviewer's diff shows only the change.
//!
//! Rendering follows Go's `encoding/json`: struct fields in declaration order (Terraform's or
//! OpenTofu's), raw values compacted with HTML escaping then indented to the document depth, numbers
//! and other escapes as written, and the input's own indentation unit (or compact form).

use std::borrow::Cow;

use crate::json::{Span, reformat, write_go_string};
use crate::state::last_wins::last_of_each;
use crate::state::layout::{
    Flavour, OPENTOFU_INSTANCE_ORDER, TERRAFORM_INSTANCE_ORDER, line_indent,
};
use crate::state::model::{Instance, State, members};
use crate::state::parse::canonical;

/// One change to an instance object's fields. `json` is the new value as JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Set { field: &'static str, json: String },
    Remove { field: &'static str },
}

impl Change {
    /// Sets a field to a string value, escaped as Go escapes it.
    pub fn set_string(field: &'static str, text: &str) -> Change {
        let mut json = String::new();
        write_go_string(text, &mut json);
        Change::Set { field, json }
    }
}

/// What one rendered member holds: its key's JSON text, its rank in the writer's order, its value.
struct Entry<'s> {
    key: String,
    rank: usize,
    value: Value<'s>,
}

enum Value<'s> {
    Raw(&'s str),
    New(String),
}

/// Renders an instance object after `changes`, as the file's writer would, for the place it stands in
/// the file (its indentation there).
pub fn render_instance(state: &State<'_>, instance: &Instance<'_>, changes: &[Change]) -> String {
    let mut out = String::with_capacity(instance.span.end - instance.span.start + 64);
    render_instance_into(state, instance, changes, &mut out);
    out
}

/// [`render_instance`], appended to `out`.
pub fn render_instance_into(
    state: &State<'_>,
    instance: &Instance<'_>,
    changes: &[Change],
    out: &mut String,
) {
    let source = state.source;
    let order = match state.style.flavour {
        Flavour::Terraform => TERRAFORM_INSTANCE_ORDER,
        Flavour::OpenTofu => OPENTOFU_INSTANCE_ORDER,
    };
    let members = members(source, instance.span);
    let mut entries: Vec<Entry<'_>> = Vec::with_capacity(members.len() + changes.len());
    for member in &members {
        let (key, rank) = match canonical(&member.key, order) {
            Some(field) => (quoted(field), rank_of(order, field)),
            // Unknown keys keep their spelling and their place after the known ones.
            None => (member.key_span.of(source).to_owned(), usize::MAX),
        };
        entries.push(Entry {
            key,
            rank,
            value: Value::Raw(member.value.of(source)),
        });
    }
    // Go's reader keeps the last of duplicate keys, so the rendering does too.
    let mut entries = last_of_each(entries, |entry| entry.key.as_str());
    for change in changes {
        let (Change::Set { field, .. } | Change::Remove { field }) = change;
        let key = quoted(field);
        entries.retain(|entry| entry.key != key);
        if let Change::Set { json, .. } = change {
            entries.push(Entry {
                key,
                rank: rank_of(order, field),
                value: Value::New(json.clone()),
            });
        }
    }
    entries.sort_by_key(|entry| entry.rank);
    render_object(state, instance.span, &entries, out);
}

fn rank_of(order: &[&str], field: &str) -> usize {
    order
        .iter()
        .position(|known| *known == field)
        .unwrap_or(usize::MAX)
}

fn quoted(field: &str) -> String {
    let mut key = String::with_capacity(field.len() + 2);
    write_go_string(field, &mut key);
    key
}

fn render_object(state: &State<'_>, at: Span, entries: &[Entry<'_>], out: &mut String) {
    let layout = &state.style.layout;
    if entries.is_empty() {
        out.push_str("{}");
        return;
    }
    // Indentation comes from where the object stands; an object that shares its line with other text
    // (only in hand-edited files) is indented as Terraform would indent an instance, four levels deep.
    let fallback = layout.indent.as_deref().unwrap_or_default().repeat(4);
    let base = line_indent(state.source, at.start).unwrap_or(&fallback);
    out.push('{');
    for (position, entry) in entries.iter().enumerate() {
        if position > 0 {
            out.push(',');
        }
        layout.newline(base, 1, out);
        reformat(&entry.key, layout, base, 1, out);
        out.push_str(layout.colon());
        match &entry.value {
            Value::Raw(raw) => reformat(raw, layout, base, 1, out),
            Value::New(json) => reformat(json, layout, base, 1, out),
        }
    }
    layout.newline(base, 0, out);
    out.push('}');
}

/// A set of replacements of byte ranges of a state, applied in one pass over the original text.
#[derive(Debug)]
pub struct Splice<'s> {
    source: &'s str,
    edits: Vec<(Span, Edit<'s>)>,
}

/// What replaces a span: text, or an instance rendered only when the splice is applied, so that a
/// changed instance holding a 100 MB attribute is never held twice.
#[derive(Debug)]
enum Edit<'s> {
    Text(String),
    Instance {
        state: &'s State<'s>,
        instance: &'s Instance<'s>,
        changes: &'s [Change],
    },
}

impl<'s> Splice<'s> {
    pub fn new(source: &'s str) -> Splice<'s> {
        Splice {
            source,
            edits: Vec::new(),
        }
    }

    /// Replaces the bytes of `span` with `text`. Spans must not overlap.
    pub fn replace(&mut self, span: Span, text: String) {
        self.edits.push((span, Edit::Text(text)));
    }

    /// Replaces an instance object with its rendering after `changes`.
    pub fn change_instance(
        &mut self,
        state: &State<'_>,
        instance: &Instance<'_>,
        changes: &[Change],
    ) {
        self.replace(instance.span, render_instance(state, instance, changes));
    }

    /// [`Splice::change_instance`], but rendered when the splice is applied, as its own piece of the
    /// new text (a 100 MB instance held once, not twice), and tracked for the write's check.
    pub fn render_when_applied(
        &mut self,
        state: &'s State<'s>,
        instance: &'s Instance<'s>,
        changes: &'s [Change],
    ) {
        self.edits.push((
            instance.span,
            Edit::Instance {
                state,
                instance,
                changes,
            },
        ));
    }

    /// Sets the top-level `serial`. Does nothing when the state has no serial member to replace.
    pub fn set_serial(&mut self, state: &State<'_>, serial: u64) {
        if let Some(span) = state.serial_span {
            self.replace(span, serial.to_string());
        }
    }

    /// The new text: the original with every replacement made.
    pub fn apply(self) -> String {
        self.apply_tracked().to_text()
    }

    /// [`Splice::apply`] as the pieces of the new text, never built whole: the original's untouched
    /// runs borrowed, the replacements rendered. Also says which piece each instance rendered by
    /// [`Splice::render_when_applied`] is, so a write can check those objects alone.
    pub fn apply_tracked(mut self) -> Applied<'s> {
        self.edits.sort_by_key(|(span, _)| span.start);
        let mut pieces = Vec::with_capacity(self.edits.len() * 2 + 1);
        let mut rendered = Vec::new();
        let mut copied_up_to = 0;
        for (span, edit) in self.edits {
            assert!(
                span.start >= copied_up_to,
                "overlapping state edits at byte {}",
                span.start
            );
            pieces.push(Cow::Borrowed(&self.source[copied_up_to..span.start]));
            match edit {
                Edit::Text(text) => pieces.push(Cow::Owned(text)),
                Edit::Instance {
                    state,
                    instance,
                    changes,
                } => {
                    rendered.push((span, pieces.len()));
                    pieces.push(Cow::Owned(render_instance(state, instance, changes)));
                }
            }
            copied_up_to = span.end;
        }
        pieces.push(Cow::Borrowed(&self.source[copied_up_to..]));
        Applied { pieces, rendered }
    }
}

/// A splice applied: the new text as the pieces it is made of, in order. Every byte the splice did
/// not replace is a borrowed run of the original (so it is the original's by construction, and the
/// new state is never held whole beside the old); the rest are the replacements. A write streams
/// the pieces into the new file.
#[derive(Debug)]
pub struct Applied<'s> {
    pieces: Vec<Cow<'s, str>>,
    /// For each re-rendered instance, in the order they appear: its span in the original and the
    /// index of the piece that is its new text.
    rendered: Vec<(Span, usize)>,
}

impl<'s> Applied<'s> {
    /// The original text unchanged: one borrowed piece.
    pub fn unchanged(source: &'s str) -> Applied<'s> {
        Applied {
            pieces: vec![Cow::Borrowed(source)],
            rendered: Vec::new(),
        }
    }

    /// The pieces of the new text, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        self.pieces.iter().map(|piece| piece.as_bytes())
    }

    /// The new text's length in bytes.
    pub fn len(&self) -> usize {
        self.pieces.iter().map(|piece| piece.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The new text whole (for what needs it in one buffer: an encryption, a small state's check).
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity(self.len());
        for piece in &self.pieces {
            text.push_str(piece);
        }
        text
    }

    /// Each re-rendered instance: its span in the original, and its new text.
    pub fn rendered(&self) -> impl Iterator<Item = (Span, &str)> {
        self.rendered
            .iter()
            .map(|(old, piece)| (*old, &*self.pieces[*piece]))
    }

    /// The new text of the instance whose span in the original was `old`, if it was re-rendered.
    pub fn rendered_text(&self, old: Span) -> Option<&str> {
        let at = self
            .rendered
            .binary_search_by_key(&old.start, |(original, _)| original.start)
            .ok()?;
        Some(&self.pieces[self.rendered[at].1])
    }

    /// Puts `text` in place of the re-rendered instance whose span in the original was `old`: what
    /// a rendering bug would do, for the tests that prove a write's check catches it.
    #[must_use]
    pub fn with_rendered_text(mut self, old: Span, text: String) -> Applied<'s> {
        if let Ok(at) = self
            .rendered
            .binary_search_by_key(&old.start, |(original, _)| original.start)
        {
            self.pieces[self.rendered[at].1] = Cow::Owned(text);
        }
        self
    }
}

/// Re-renders every instance object of `state` without changing anything: for a file that its writer
/// produced, the result must equal the input byte for byte. Used by tests and `statectl` itself to
/// check that a file can be rewritten faithfully.
pub fn rerender_all(state: &State<'_>) -> String {
    let mut splice = Splice::new(state.source);
    for (_, instance) in state.instances() {
        splice.render_when_applied(state, instance, &[]);
    }
    splice.apply()
}
