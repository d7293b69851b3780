//! The document a path runs over, read in place: a node is the byte span of a value in valid JSON
//! text, and nothing is decoded until a selector or a comparison needs it. No tree is built, so a
//! query over a 250 MB state costs what it reads, not a second copy of the state in memory.
//!
//! Walking needs where each value ends. Finding that means scanning the value, so the walker keeps
//! the ends of large containers it has scanned (and those a caller already knows, such as the
//! spans a state's parser found): a container is scanned about once however many segments pass
//! through it, and a 10,000-deep nesting costs linear time, not quadratic.
//!
//! Objects follow Go's reader (and serde_json's map): a repeated name keeps its first place with its
//! last value.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::json::bytes::skip_layout;
use crate::json::path::budget::{Budget, Exceeded, Limits};
use crate::json::path::forward::Hint;
use crate::json::path::iregexp::RegexCache;
use crate::json::path::key_hits::KeyHits;
use crate::json::trusted::{end_of_scalar, end_of_string, string_end};
use crate::json::wide::next_structural;
use crate::json::{Cursor, JsonError, Span};

/// Containers at least this long have their end remembered once scanned.
const REMEMBER_FROM: usize = 1024;

/// Valid JSON text to run paths over, with the values to show masked and the container ends already
/// known.
#[derive(Debug)]
pub struct Document<'t> {
    text: &'t str,
    root: Span,
    /// Where each masked value starts, sorted.
    masks: Vec<usize>,
    /// What a masked value reads and prints as.
    mask_text: &'static str,
    /// `(start, end)` of containers whose end a caller knows.
    known_ends: Vec<KnownEnd>,
    /// Members of objects a caller read: for each name, sorted by the object's start.
    known_members: Vec<(Box<str>, Vec<KnownMember>)>,
    /// Arrays whose elements a caller read, sorted by the array's start: where each starts, and
    /// where its elements are in `known_elements` (its elements one after another, in order).
    known_arrays: Vec<KnownArray>,
    known_elements: Vec<KnownEnd>,
}

/// An array whose elements a caller read (a state's `instances` array, say): where it starts and
/// how many elements it has, which follow those of the arrays handed over before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KnownArray {
    start: u32,
    first: u32,
    count: u32,
}

impl KnownArray {
    /// The array at `start` with `count` elements; `None` past 4 GiB of text or elements (a state
    /// is never that large; then the walker walks).
    pub(crate) fn new(start: usize, count: usize) -> Option<KnownArray> {
        Some(KnownArray {
            start: u32::try_from(start).ok()?,
            first: 0,
            count: u32::try_from(count).ok()?,
        })
    }
}

/// A container whose span a caller knows, in eight bytes (offsets as `u32`: a state is at most
/// 4 GiB), as a large state hands over several for each of its instances. Ordered by its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct KnownEnd {
    start: u32,
    end: u32,
}

impl KnownEnd {
    /// `None` past 4 GiB of text (a state is never that large; then the walker scans).
    pub(crate) fn new(span: Span) -> Option<KnownEnd> {
        Some(KnownEnd {
            start: u32::try_from(span.start).ok()?,
            end: u32::try_from(span.end).ok()?,
        })
    }

    fn start(self) -> usize {
        self.start as usize
    }

    fn end(self) -> usize {
        self.end as usize
    }
}

/// A member of an object a caller read, its name given with the list it is in: where the object
/// starts and the span of the member's value, the last of that name (names compared decoded, as the
/// walker compares them), or that the object has no member of that name (an empty span: a value
/// is at least one byte). Twelve bytes, as a large state hands over one for each of its instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KnownMember {
    object: u32,
    start: u32,
    end: u32,
}

impl KnownMember {
    /// `None` past 4 GiB of text (a state is never that large; then the walker walks).
    pub(crate) fn new(object: usize, value: Span) -> Option<KnownMember> {
        Some(KnownMember {
            object: u32::try_from(object).ok()?,
            start: u32::try_from(value.start).ok()?,
            end: u32::try_from(value.end).ok()?,
        })
    }

    /// The object at `object` has no member of the list's name.
    pub(crate) fn absent(object: usize) -> Option<KnownMember> {
        Some(KnownMember {
            object: u32::try_from(object).ok()?,
            start: 0,
            end: 0,
        })
    }

    /// The member's value, unless the object has none.
    fn value(self) -> Option<Span> {
        (self.start < self.end).then(|| Span::new(self.start as usize, self.end as usize))
    }
}

impl<'t> Document<'t> {
    /// Checks that `text` is one JSON value (nested at most [`crate::json::MAX_DEPTH`] deep).
    pub fn parse(text: &'t str) -> Result<Document<'t>, JsonError> {
        let mut cursor = Cursor::new(text);
        let root = cursor.skip_value()?;
        cursor.finish()?;
        Ok(Document::trusted_at(text, root))
    }

    /// A document over text the caller has validated, whose value is at `root`.
    pub(crate) fn trusted_at(text: &'t str, root: Span) -> Document<'t> {
        Document {
            text,
            root,
            masks: Vec::new(),
            mask_text: "",
            known_ends: Vec::new(),
            known_members: Vec::new(),
            known_arrays: Vec::new(),
            known_elements: Vec::new(),
        }
    }

    /// Shows the values starting at `starts` as the string `text` (a secret's mask): they read as
    /// that string in filters, print as it, and have nothing beneath them.
    #[must_use]
    pub(crate) fn with_masks(mut self, mut starts: Vec<usize>, text: &'static str) -> Document<'t> {
        starts.sort_unstable();
        starts.dedup();
        self.masks = starts;
        self.mask_text = text;
        self
    }

    /// Container spans the caller already found, so the walker never scans for their ends.
    #[must_use]
    pub(crate) fn with_known_ends(mut self, mut spans: Vec<KnownEnd>) -> Document<'t> {
        // Callers usually hand them sorted: checking is one pass, sorting several.
        if !spans.is_sorted() {
            spans.sort_unstable();
        }
        self.known_ends = spans;
        self
    }

    /// Members named `name` the caller already read (each instance's `attributes`, say), so the
    /// walker does not walk those objects for them. Members of objects only: the walker takes a
    /// node found here for an object without reading its first byte.
    #[must_use]
    pub(crate) fn with_known_members(
        mut self,
        name: &str,
        mut members: Vec<KnownMember>,
    ) -> Document<'t> {
        if !members.is_sorted_by_key(|member| member.object) {
            members.sort_unstable_by_key(|member| member.object);
        }
        self.known_members.push((name.into(), members));
        self
    }

    /// The elements of arrays the caller read: `arrays` in any order, each with the number of its
    /// elements, and `elements`, the spans of the first array's elements, then the second's, and
    /// so on, each in the array's order (the walker lists them as they are, without reading the
    /// text). Handed over elements that do not add up to the arrays' counts are not taken.
    #[must_use]
    pub(crate) fn with_known_elements(
        mut self,
        mut arrays: Vec<KnownArray>,
        elements: Vec<KnownEnd>,
    ) -> Document<'t> {
        let mut first: u32 = 0;
        for array in &mut arrays {
            array.first = first;
            let Some(next) = first.checked_add(array.count) else {
                return self;
            };
            first = next;
        }
        if first as usize != elements.len() {
            return self;
        }
        if !arrays.is_sorted_by_key(|array| array.start) {
            arrays.sort_unstable_by_key(|array| array.start);
        }
        self.known_arrays = arrays;
        self.known_elements = elements;
        self
    }

    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The size the limits of a run over this document are sized from.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub(crate) fn root(&self) -> Span {
        self.root
    }

    /// The index of the list of known members named `name`.
    fn known_members_named(&self, name: &str) -> Option<usize> {
        self.known_members
            .iter()
            .position(|(known, _)| **known == *name)
    }

    pub(crate) fn mask_text(&self) -> &'static str {
        self.mask_text
    }
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool(bool),
    Null,
    /// A masked value: reads as the mask string.
    Masked,
}

/// One member of an object (with its key's raw text, quotes excluded) or element of an array.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Child {
    pub(crate) key: Option<Span>,
    /// Whether the key is written with an escape (and must be decoded to compare).
    pub(crate) escaped: bool,
    pub(crate) value: Span,
}

/// The state of one evaluation over a document: the budget, the remembered ends and scratch space.
#[derive(Debug)]
pub(crate) struct Walker<'d, 't> {
    pub(crate) doc: &'d Document<'t>,
    pub(crate) budget: Budget,
    /// The ends of the large containers scanned so far (the document's known ones are a sorted
    /// list, looked up in order as a walk moves forward).
    ends: HashMap<usize, usize, BuildHasherDefault<OffsetHasher>>,
    /// One bit per 64 bytes of the text: whether a remembered container starts there. Most values a
    /// walk meets were never remembered, and one bit says so without hashing.
    remembered: Vec<u64>,
    /// How many ends may be remembered: bounded so that a pathological document (thousands of
    /// large nestings) cannot make the memory grow past a fraction of its size.
    remember_at_most: usize,
    open: Vec<usize>,
    /// Where the last look-ups of the known ends (see [`Walker::first_known_inside`]), of the
    /// masks, of each list of known members and of the known arrays landed (see `forward`).
    known_hint: Hint,
    mask_hint: Hint,
    member_hints: Vec<Hint>,
    array_hint: Hint,
    pool: Vec<Vec<Child>>,
    slots: Vec<u32>,
    pub(crate) regexes: RegexCache,
    /// The searches of the last descendant segment of names (see `key_hits`), kept for the next.
    pub(crate) key_hits: Option<KeyHits<'t>>,
}

impl<'d, 't> Walker<'d, 't> {
    pub(crate) fn new(doc: &'d Document<'t>, limits: Limits) -> Walker<'d, 't> {
        Walker {
            doc,
            budget: Budget::new(limits),
            ends: HashMap::default(),
            remembered: vec![0; doc.text.len() / 4096 + 1],
            remember_at_most: 65_536 + doc.text.len() / 16,
            open: Vec::new(),
            known_hint: Hint::default(),
            mask_hint: Hint::default(),
            member_hints: vec![Hint::default(); doc.known_members.len()],
            array_hint: Hint::default(),
            pool: Vec::new(),
            slots: Vec::new(),
            regexes: RegexCache::default(),
            key_hits: None,
        }
    }

    /// One of several walkers through `doc` side by side: its visits count from `spent` (the work
    /// before it started) and into `all` too, which every one of them shares, so that together they
    /// stay within `limits`.
    pub(crate) fn sharing(
        doc: &'d Document<'t>,
        limits: Limits,
        spent: u64,
        all: Arc<AtomicU64>,
    ) -> Walker<'d, 't> {
        let mut walker = Walker::new(doc, limits);
        walker.budget = Budget::part(limits, spent, all);
        walker
    }

    /// At the end of one of several walkers side by side: its last visits counted into the
    /// shared count, and the whole checked against the limit.
    pub(crate) fn settle(&mut self) -> Result<(), Exceeded> {
        self.budget.settle()
    }

    pub(crate) fn text(&self) -> &'t str {
        self.doc.text
    }

    /// Whether the value at `start` is masked (one of the document's masks, looked up from where
    /// the walk's last look-up landed).
    pub(crate) fn is_masked(&self, start: usize) -> bool {
        let masks = &self.doc.masks;
        !masks.is_empty() && self.mask_hint.find(masks, start, |mask| *mask).is_some()
    }

    /// The member `name` of the object at `object`, when the caller read it.
    fn known_member(&self, object: usize, name: &str) -> Option<KnownMember> {
        let object = u32::try_from(object).ok()?;
        let index = self.doc.known_members_named(name)?;
        let members = &self.doc.known_members[index].1;
        self.member_hints[index]
            .find(members, object, |member| member.object)
            .copied()
    }

    /// The elements of the array at `start`, when the caller read them.
    fn known_elements(&self, start: usize) -> Option<&'d [KnownEnd]> {
        let start = u32::try_from(start).ok()?;
        let doc = self.doc;
        let array = self
            .array_hint
            .find(&doc.known_arrays, start, |array| array.start)?;
        let first = array.first as usize;
        doc.known_elements.get(first..first + array.count as usize)
    }

    pub(crate) fn kind(&self, node: Span) -> Kind {
        if self.is_masked(node.start) {
            return Kind::Masked;
        }
        match self.doc.text.as_bytes().get(node.start) {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't') => Kind::Bool(true),
            Some(b'f') => Kind::Bool(false),
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    /// The decoded text of a string node (or the mask of a masked one).
    pub(crate) fn string(&self, node: Span) -> Option<Cow<'t, str>> {
        match self.kind(node) {
            Kind::Masked => Some(Cow::Borrowed(self.doc.mask_text)),
            Kind::String => Some(decode_string(self.doc.text, node.start)),
            _ => None,
        }
    }

    /// The decoded text of a member's key.
    pub(crate) fn key(&self, child: &Child) -> Cow<'t, str> {
        match child.key {
            Some(key) if child.escaped => decode_string(self.doc.text, key.start - 1),
            Some(key) => Cow::Borrowed(key.of(self.doc.text)),
            None => Cow::Borrowed(""),
        }
    }

    /// Whether a member's key is `name`.
    pub(crate) fn key_is(&self, child: &Child, name: &str) -> bool {
        match child.key {
            Some(key) if child.escaped => decode_string(self.doc.text, key.start - 1) == name,
            Some(key) => key.of(self.doc.text) == name,
            None => false,
        }
    }

    /// A scratch list from the pool (give it back with [`Walker::give_back`]).
    pub(crate) fn take_list(&mut self) -> Vec<Child> {
        self.pool.pop().unwrap_or_default()
    }

    pub(crate) fn give_back(&mut self, mut list: Vec<Child>) {
        list.clear();
        self.pool.push(list);
    }

    /// The members (each name once) or elements of `node` into `out`; nothing for anything else.
    pub(crate) fn children(&mut self, node: Span, out: &mut Vec<Child>) -> Result<(), Exceeded> {
        out.clear();
        // An array the caller read is listed without reading its text, far out of the cache in a
        // large state (a masked one has none, as below).
        if let Some(elements) = self.known_elements(node.start)
            && !self.is_masked(node.start)
        {
            out.extend(elements.iter().map(|element| Child {
                key: None,
                escaped: false,
                value: Span::new(element.start(), element.end()),
            }));
            self.budget.visit(out.len())?;
            return Ok(());
        }
        let mut cursor = ChildCursor::new(self, node);
        while let Some(child) = cursor.next(self)? {
            out.push(child);
        }
        self.budget.visit(out.len())?;
        if cursor.object && out.len() > 1 {
            self.keep_last_of_repeated_names(out);
        }
        Ok(())
    }

    /// The first `at_most` members or elements of `node`, as written (repeated names included).
    pub(crate) fn first_children(
        &mut self,
        node: Span,
        at_most: usize,
    ) -> Result<Vec<Child>, Exceeded> {
        let mut cursor = ChildCursor::new(self, node);
        let mut children = Vec::with_capacity(at_most);
        while children.len() < at_most
            && let Some(child) = cursor.next(self)?
        {
            children.push(child);
        }
        self.budget.visit(children.len())?;
        Ok(children)
    }

    /// The value of the member `name` of an object node (the last, if the name repeats).
    pub(crate) fn member(&mut self, node: Span, name: &str) -> Result<Option<Span>, Exceeded> {
        // Only objects are handed over (and no other value starts where one does): asked first,
        // the object's first byte, far out of the cache in a large state, is not read. A masked
        // object has no members, known or not (asked only of a known one: `kind` asks the rest).
        if let Some(known) = self.known_member(node.start, name)
            && !self.is_masked(node.start)
        {
            self.budget.visit(1)?;
            return Ok(known.value());
        }
        if self.kind(node) != Kind::Object {
            return Ok(None);
        }
        let mut cursor = ChildCursor::new(self, node);
        let mut found = None;
        let mut seen = 0;
        while let Some(child) = cursor.next(self)? {
            seen += 1;
            if self.key_is(&child, name) {
                found = Some(child.value);
            }
        }
        self.budget.visit(seen)?;
        Ok(found)
    }

    /// The element at `index` of an array node; a negative index counts from the end.
    pub(crate) fn element(&mut self, node: Span, index: i64) -> Result<Option<Span>, Exceeded> {
        // An array the caller read: its element, without reading the text (a masked one has none,
        // as below), its visits counted as below.
        if let Some(elements) = self.known_elements(node.start)
            && !self.is_masked(node.start)
        {
            let at = match usize::try_from(index) {
                Ok(wanted) => (wanted < elements.len()).then_some(wanted),
                Err(_) => normalize_index(index, elements.len()),
            };
            let visits = match (at, index >= 0) {
                (Some(at), true) => at + 1,
                _ => elements.len(),
            };
            self.budget.visit(visits)?;
            return Ok(at.map(|at| Span::new(elements[at].start(), elements[at].end())));
        }
        if self.kind(node) != Kind::Array {
            return Ok(None);
        }
        if let Ok(wanted) = usize::try_from(index) {
            // From the front: stop at the element.
            let mut cursor = ChildCursor::new(self, node);
            let mut at = 0;
            while let Some(child) = cursor.next(self)? {
                self.budget.visit(1)?;
                if at == wanted {
                    return Ok(Some(child.value));
                }
                at += 1;
            }
            return Ok(None);
        }
        let mut elements = self.take_list();
        self.children(node, &mut elements)?;
        let found = normalize_index(index, elements.len()).map(|at| elements[at].value);
        self.give_back(elements);
        Ok(found)
    }

    /// The first of the document's known ends after the start of `node` (where a walk through
    /// `node` starts looking them up).
    ///
    /// A walk mostly moves forward through the text (a descendant segment visits every container
    /// in order), so the answer is most often where the last one was, or a few entries on: looked
    /// for there first. Searching the whole list for each of the millions of containers `$..x`
    /// visits in a large state was a tenth of its time.
    fn first_known_inside(&mut self, node: Span) -> usize {
        // The first that starts after the node starts.
        self.known_hint
            .first_not_below(&self.doc.known_ends, node.start + 1, |known| known.start())
    }

    /// The offset after the value starting at `start`. `next_known` is the first of the
    /// document's known ends not before the walk's position; it moves forward with the walk.
    fn end_of(&mut self, start: usize, next_known: &mut usize) -> Result<usize, Exceeded> {
        let bytes = self.doc.text.as_bytes();
        match bytes.get(start) {
            Some(b'"') => {
                let end = end_of_string(bytes, start + 1);
                self.budget.scan(end - start)?;
                Ok(end)
            }
            Some(b'{' | b'[') => {
                let known = self.doc.known_ends.as_slice();
                while known
                    .get(*next_known)
                    .is_some_and(|known| known.start() < start)
                {
                    *next_known += 1;
                }
                if let Some(known) = known.get(*next_known)
                    && known.start() == start
                {
                    return Ok(known.end());
                }
                if self.remembered[start / 4096] & (1 << ((start / 64) % 64)) != 0
                    && let Some(end) = self.ends.get(&start)
                {
                    return Ok(*end);
                }
                self.scan_container(start, *next_known)
            }
            _ => Ok(end_of_scalar(bytes, start)),
        }
    }

    /// Finds the end of the container at `start`, jumping over the ones the document's caller
    /// knows and remembering the large ones it passes. (The containers remembered along the way are
    /// looked up only where a walk starts: checking a sorted list costs one comparison a bracket,
    /// a table lookup would cost a hash.)
    fn scan_container(&mut self, start: usize, mut next_known: usize) -> Result<usize, Exceeded> {
        let bytes = self.doc.text.as_bytes();
        let known = self.doc.known_ends.as_slice();
        let mut open = std::mem::take(&mut self.open);
        open.clear();
        open.push(start);
        let mut at = start + 1;
        let end = loop {
            at = next_structural(bytes, at);
            match bytes.get(at) {
                None => break bytes.len(),
                Some(b'"') => at = end_of_string(bytes, at + 1),
                Some(b'{' | b'[') => {
                    while known
                        .get(next_known)
                        .is_some_and(|known| known.start() < at)
                    {
                        next_known += 1;
                    }
                    match known.get(next_known) {
                        Some(known) if known.start() == at => at = known.end(),
                        _ => {
                            open.push(at);
                            at += 1;
                        }
                    }
                }
                Some(_) => {
                    at += 1;
                    let opened = open.pop().unwrap_or(start);
                    if at - opened >= REMEMBER_FROM && self.ends.len() < self.remember_at_most {
                        self.ends.insert(opened, at);
                        self.remembered[opened / 4096] |= 1 << ((opened / 64) % 64);
                    }
                    if open.is_empty() {
                        break at;
                    }
                }
            }
        };
        self.open = open;
        self.budget.scan(end - start)?;
        Ok(end)
    }

    /// Where a name repeats, its first member takes the last value and the others go (Go's reader
    /// and serde_json's map agree on the value; the place is serde_json's, which `query` printed).
    fn keep_last_of_repeated_names(&mut self, members: &mut Vec<Child>) {
        let text = self.doc.text;
        let raw = |child: &Child| child.key.map_or("", |key| key.of(text));
        if members.iter().any(|child| child.escaped) {
            // Names written with escapes may be equal once decoded: compare them decoded.
            let names: Vec<Cow<'t, str>> = members.iter().map(|child| self.key(child)).collect();
            merge_repeated(
                members,
                |a, b| names[a] == names[b],
                |index| hash(names[index].as_bytes()),
            );
            return;
        }
        let repeated = if members.len() <= 8 {
            // Few names: compare each pair (most differ in length).
            members.iter().enumerate().any(|(index, child)| {
                members[index + 1..]
                    .iter()
                    .any(|other| raw(other) == raw(child))
            })
        } else {
            self.any_repeated(members)
        };
        if repeated {
            let names: Vec<&str> = members.iter().map(raw).collect();
            merge_repeated(
                members,
                |a, b| names[a] == names[b],
                |index| hash(names[index].as_bytes()),
            );
        }
    }

    /// Whether two of many plainly written names are equal: an open-addressing table of positions
    /// finds a repeat in one pass.
    fn any_repeated(&mut self, members: &[Child]) -> bool {
        let text = self.doc.text;
        let raw = |child: &Child| child.key.map_or("", |key| key.of(text));
        let size = (members.len() * 2).next_power_of_two();
        let mut slots = std::mem::take(&mut self.slots);
        slots.clear();
        slots.resize(size, 0);
        let mut repeated = false;
        'members: for (index, child) in members.iter().enumerate() {
            let name = raw(child);
            let mut slot = hash(name.as_bytes()) & (size - 1);
            loop {
                match slots[slot] {
                    0 => {
                        slots[slot] = u32::try_from(index + 1).unwrap_or(u32::MAX);
                        break;
                    }
                    taken => {
                        if raw(&members[taken as usize - 1]) == name {
                            repeated = true;
                            break 'members;
                        }
                        slot = (slot + 1) & (size - 1);
                    }
                }
            }
        }
        self.slots = slots;
        repeated
    }
}

/// Keeps the first member of each name with the last value of that name.
fn merge_repeated(
    members: &mut Vec<Child>,
    same: impl Fn(usize, usize) -> bool,
    hash_of: impl Fn(usize) -> usize,
) {
    let mut first_of: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut keep = vec![true; members.len()];
    for index in 0..members.len() {
        let bucket = first_of.entry(hash_of(index)).or_default();
        match bucket.iter().find(|first| same(**first, index)) {
            Some(&first) => {
                members[first].value = members[index].value;
                keep[index] = false;
            }
            None => bucket.push(index),
        }
    }
    let mut index = 0;
    members.retain(|_| {
        index += 1;
        keep[index - 1]
    });
}

/// Walks the members or elements of one container.
struct ChildCursor {
    at: usize,
    object: bool,
    done: bool,
    /// The first of the document's known ends after `at` (see [`Walker::end_of`]).
    next_known: usize,
}

impl ChildCursor {
    fn new(walker: &mut Walker<'_, '_>, node: Span) -> ChildCursor {
        let kind = walker.kind(node);
        let done = !matches!(kind, Kind::Object | Kind::Array);
        ChildCursor {
            at: node.start + 1,
            object: kind == Kind::Object,
            done,
            next_known: if done {
                0
            } else {
                walker.first_known_inside(node)
            },
        }
    }

    fn next(&mut self, walker: &mut Walker<'_, '_>) -> Result<Option<Child>, Exceeded> {
        if self.done {
            return Ok(None);
        }
        let bytes = walker.doc.text.as_bytes();
        let start = skip_layout(bytes, self.at);
        let (key, escaped, value_start) = if self.object {
            if bytes.get(start) != Some(&b'"') {
                self.done = true;
                return Ok(None);
            }
            let (key_end, escaped) = string_end(bytes, start + 1);
            let value_start = skip_layout(bytes, skip_layout(bytes, key_end) + 1);
            (
                Some(Span::new(start + 1, key_end - 1)),
                escaped,
                value_start,
            )
        } else {
            if matches!(bytes.get(start), None | Some(b']')) {
                self.done = true;
                return Ok(None);
            }
            (None, false, start)
        };
        let end = walker.end_of(value_start, &mut self.next_known)?;
        self.at = skip_layout(bytes, end);
        if bytes.get(self.at) == Some(&b',') {
            self.at += 1;
        }
        Ok(Some(Child {
            key,
            escaped,
            value: Span::new(value_start, end),
        }))
    }
}

/// An index into a list of `length` (negative from the end), when it falls inside.
pub(crate) fn normalize_index(index: i64, length: usize) -> Option<usize> {
    let length = i64::try_from(length).ok()?;
    let at = if index < 0 { length + index } else { index };
    (0..length)
        .contains(&at)
        .then(|| usize::try_from(at).ok())
        .flatten()
}

/// Decodes the JSON string literal whose opening quote is at `start` of valid text.
pub(crate) fn decode_string(text: &str, start: usize) -> Cow<'_, str> {
    let mut cursor = Cursor::new(text);
    cursor.seek(start);
    cursor
        .string()
        .map(|(decoded, _)| decoded)
        .unwrap_or_default()
}

/// A name's hash from its length and its first and last eight bytes (each object with many members
/// hashes every name it lists, so the cost must not grow with the names; names equal in those
/// bytes and in length are told apart by comparing them).
fn hash(bytes: &[u8]) -> usize {
    let word = |chunk: &[u8]| {
        let mut padded = [0u8; 8];
        padded[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(padded)
    };
    let length = bytes.len();
    let first = word(&bytes[..length.min(8)]);
    let last = word(&bytes[length.saturating_sub(8)..]);
    let mixed =
        (first.rotate_left(29) ^ last ^ (length as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed ^ (mixed >> 32)) as usize
}

/// A hasher for byte offsets (spread by one multiplication): the ends table is consulted for every
/// container a scan passes.
#[derive(Debug, Default)]
pub(crate) struct OffsetHasher(u64);

impl Hasher for OffsetHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, value: usize) {
        let spread = (value as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = spread ^ (spread >> 29);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::path::JsonPath;

    /// Arrays whose elements are handed over select what walking their text selects, through
    /// every segment that lists children (wildcards, filters, descendants, negative indexes,
    /// printing); a masked one has none; elements that do not add up to the counts are not taken.
    #[test]
    fn known_elements_select_what_walking_the_arrays_selects() {
        let text =
            r#"{"a": [1, [2, 3], {"b": 4, "c": [5]}], "m": [6, 7], "e": [], "d": {"a": [8]}}"#;
        let at = |needle: &str| text.find(needle).unwrap();
        let span = |from: &str, length: usize| Span::new(at(from), at(from) + length);
        // One array's elements after another's, in the order the arrays are handed over.
        let elements = vec![
            span("6,", 1),
            span("7]", 1),
            span("1,", 1),
            span("[2, 3]", 6),
            span(r#"{"b""#, 20),
            span("5]", 1),
            span("8]", 1),
        ];
        let elements: Vec<KnownEnd> = elements.into_iter().filter_map(KnownEnd::new).collect();
        let arrays = |counts: [usize; 5]| {
            // In no particular order: `m`, `a`, `e`, `c`'s array, `d.a`.
            [at("[6"), at("[1"), at("[]"), at("[5"), at("[8")]
                .into_iter()
                .zip(counts)
                .filter_map(|(start, count)| KnownArray::new(start, count))
                .collect::<Vec<_>>()
        };
        let walked = Document::trusted_at(text, Span::new(0, text.len()));
        let handed = Document::trusted_at(text, Span::new(0, text.len()))
            .with_known_elements(arrays([2, 3, 0, 1, 1]), elements.clone());
        assert_eq!(handed.known_elements.len(), 7);
        let miscounted = Document::trusted_at(text, Span::new(0, text.len()))
            .with_known_elements(arrays([2, 3, 0, 1, 2]), elements.clone());
        assert!(miscounted.known_arrays.is_empty());
        let select = |document: &Document<'_>, path: &str| {
            let path = JsonPath::parse(path).unwrap();
            path.select(document, Limits::for_document(document.len()))
                .and_then(|mut selection| selection.to_json(false))
                .unwrap()
        };
        let paths = [
            "$.a[*]",
            "$.a[-1]",
            "$.a[-2][*]",
            "$.m[*]",
            "$.e[*]",
            "$..[*]",
            "$..*",
            "$.a[?@ == 1]",
            "$..c[*]",
            "$.d.a[*]",
            "$[*]",
            "$.a",
            "$.a[0]",
            "$.a[2]",
            "$.a[3]",
            "$.a[-3]",
            "$.a[-4]",
            "$.e[0]",
            "$.e[-1]",
            "$.a[1][1]",
            "$..[0]",
        ];
        for path in paths {
            assert_eq!(select(&handed, path), select(&walked, path), "{path}");
            assert_eq!(select(&miscounted, path), select(&walked, path), "{path}");
        }
        assert_eq!(select(&handed, "$.a[-1].c[*]"), "[5]");
        // A masked array has no elements, handed over or not.
        let masked = Document::trusted_at(text, Span::new(0, text.len()))
            .with_known_elements(arrays([2, 3, 0, 1, 1]), elements)
            .with_masks(vec![at("[6")], "(sensitive)");
        assert_eq!(select(&masked, "$.m[*]"), "[]");
        assert_eq!(select(&masked, "$.m[0]"), "[]");
        assert_eq!(select(&masked, "$.m[-1]"), "[]");
        assert_eq!(select(&masked, "$.m"), r#"["(sensitive)"]"#);
    }

    /// Forward, backward, repeated and far-off look-ups all land where a search of the whole list
    /// lands.
    #[test]
    fn the_first_known_end_inside_a_node_is_the_search_s_answer_wherever_the_walk_goes() {
        let text = " ".repeat(10_000);
        let ends: Vec<KnownEnd> = (0..500)
            .map(|at| KnownEnd::new(Span::new(at * 17 + at % 3, at * 17 + 90)).unwrap())
            .collect();
        let document = Document::trusted_at(&text, Span::new(0, 1)).with_known_ends(ends.clone());
        let mut walker = Walker::new(&document, Limits::for_document(text.len()));
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut start = 0usize;
        for step in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            start = match step % 5 {
                // Mostly forward, by a little or a lot; sometimes back, or the same again.
                0 | 1 => start + (seed % 40) as usize,
                2 => start + (seed % 2_000) as usize,
                3 => start.saturating_sub((seed % 3_000) as usize),
                _ => start,
            } % 9_000;
            let expected = ends.partition_point(|known| known.start() <= start);
            assert_eq!(
                walker.first_known_inside(Span::new(start, start + 1)),
                expected,
                "step {step}, from {start}"
            );
        }
    }
}
