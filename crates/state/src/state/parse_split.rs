//! Reading a large state's `resources` array on several threads: the array is cut where an element
//! seems to start, the parts are handed out to the threads one at a time and each is read with the
//! one-thread parser's own functions, and the parts are joined only where a thread that read up to a
//! cut found an element starting there.
//!
//! Why the result is exactly the one-thread parser's: a cut is only a guess (found by the layout
//! Terraform writes, `,` then a newline, the first element's indentation and `{`); a part is kept
//! only when the part before it, read from a place known to be an element's start, ended one element
//! exactly at the cut. From there the one-thread parser would read the same bytes with the same
//! functions at the same depth, so the part's resources are the ones it would find. A guess that was
//! not an element's start is never reached that way, and its thread's work is dropped. Anything a
//! part's thread could not read (an error, however early) is read again on this thread from the
//! cut, so a malformed state gets the very error, at the very place, of reading it in one go.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use crate::json::{Cursor, Span};
use crate::parts::parts;
use crate::state::error::StateError;
use crate::state::layout::Tally;
use crate::state::model::Resource;
use crate::state::notes::Notes;
use crate::state::order::{Follows, Summary};
use crate::state::parse::{Shared, resource};

/// Below this many bytes per thread, a thread costs more than it saves.
const PART_BYTES: usize = 2 << 20;

/// Parts a thread reads (at least half a megabyte each): one part a thread left one thread
/// reading alone while the other waited, when its half read slower. Sixteen were no faster than
/// four, and each part's own vector of resources added a megabyte at 50 MB.
const PARTS_PER_THREAD: usize = 4;

/// Where a part's reading stopped.
enum Stop<'a> {
    /// After the element that ends just before this cut (an index of the cuts).
    AtCut(usize),
    /// After the array's `]`: a cursor there, to read on from.
    End(Cursor<'a>),
}

/// What reading resources gathers: the records, and what the order and the flavour need of each,
/// taken as each is read (`order::Summary`, `layout::Tally`), while its record is in cache.
#[derive(Debug, Default)]
pub(super) struct Gathered<'a> {
    pub(super) resources: Vec<Resource<'a>>,
    /// One for each resource.
    pub(super) summaries: Vec<Summary>,
    pub(super) tally: Tally,
    /// Values of the resources' members that Terraform does not read (see `State::shadowed`).
    pub(super) shadowed: Vec<Span>,
}

impl<'a> Gathered<'a> {
    fn push(&mut self, resource: Resource<'a>, shared: &mut Shared<'a>) {
        if !shared.shadowed.is_empty() {
            self.shadowed.append(&mut shared.shadowed);
        }
        self.summaries
            .push(Summary::of(self.resources.last(), &resource));
        self.tally.add_resource(&resource);
        self.resources.push(resource);
    }

    /// Joins what the next part gathered, its notes now `notes_moved_by` further on.
    fn append(&mut self, part: Gathered<'a>, notes_moved_by: usize) {
        let Gathered {
            resources,
            mut summaries,
            tally,
            mut shadowed,
        } = part;
        self.shadowed.append(&mut shadowed);
        // Its first resource's neighbour was read by another part.
        if let (Some(previous), Some(first), Some(summary)) = (
            self.resources.last(),
            resources.first(),
            summaries.first_mut(),
        ) {
            summary.follows = Follows::of(previous, first);
        }
        self.summaries.append(&mut summaries);
        self.tally.add(tally);
        if notes_moved_by == 0 {
            self.resources.extend(resources);
        } else {
            // Its instances' notes now stand after those joined before.
            self.resources
                .extend(resources.into_iter().map(|mut resource| {
                    for instance in &mut resource.instances {
                        instance.notes = instance.notes.moved(notes_moved_by);
                    }
                    resource
                }));
        }
    }
}

/// The resources one part holds, and where it stopped.
struct Part<'a> {
    gathered: Gathered<'a>,
    /// The notes its instances' places point into (see `notes`).
    notes: Notes,
    stop: Stop<'a>,
}

/// Reads the `resources` value at the cursor (an array or `null`), as the one-thread loop of
/// `Cursor::array` over `parse::resource` reads it, on several threads when it is large.
pub(super) fn resources<'a>(
    cursor: &mut Cursor<'a>,
    shared: &mut Shared<'a>,
) -> Result<Gathered<'a>, StateError> {
    let mut gathered = Gathered::default();
    if cursor.null() || !cursor.open_array()? {
        return Ok(gathered);
    }
    cursor.skip_whitespace();
    let (threads, cuts) = cuts(cursor.bytes(), cursor.position());
    if cuts.is_empty() {
        read_part(cursor, shared, &mut gathered, &[])?;
        return Ok(gathered);
    }
    #[cfg(test)]
    tests::CUTS.set(tests::CUTS.get() + cuts.len());
    let depth = cursor.depth();
    // What each part's cursor is forked from: the same text (and, for a text checked as it is
    // read, the same blocks checked).
    let origin = cursor.fork(cursor.position(), depth);
    let taking = shared.notes.fresh();
    let shared_give_back = shared.give_back;
    // The part that starts at `cuts[index]`, read up to a later cut or the array's end; `None` when
    // it could not be read from there.
    let read_from = |index: usize| {
        let mut part_cursor = origin.fork(cuts[index], depth);
        let mut gathered = Gathered::default();
        let mut part_shared = Shared::taking(taking.fresh(), shared_give_back, cuts[index]);
        let stop = read_part(
            &mut part_cursor,
            &mut part_shared,
            &mut gathered,
            &cuts[index + 1..],
        )
        .ok()?;
        // Held until the parts are joined: without the room a growing vector keeps spare.
        gathered.resources.shrink_to_fit();
        // Its copies of noted values checked here, on its own thread.
        part_shared.notes.seal();
        let stop = match stop {
            Stop::AtCut(later) => Stop::AtCut(index + 1 + later),
            end @ Stop::End(_) => end,
        };
        Some(Part {
            gathered,
            notes: part_shared.notes,
            stop,
        })
    };
    // Parts are handed out one at a time, so a thread whose parts read slower takes fewer of them
    // and the threads finish together (equal halves left one thread reading alone for a tenth of
    // the parse).
    let next = AtomicUsize::new(0);
    let take_parts = || {
        let mut read = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= cuts.len() {
                return read;
            }
            read.push((index, read_from(index)));
        }
    };
    thread::scope(|scope| {
        // A thread the system will not start leaves its parts to the others; a part no thread
        // could read is read on this thread (below).
        let workers: Vec<_> = (1..threads)
            .filter_map(|_| thread::Builder::new().spawn_scoped(scope, take_parts).ok())
            .collect();
        let mut stop = read_part(cursor, shared, &mut gathered, &cuts)?;
        let mut parts: Vec<Option<Part<'a>>> = (0..cuts.len()).map(|_| None).collect();
        let read_here = take_parts();
        for (index, part) in workers
            .into_iter()
            .filter_map(|worker| worker.join().ok())
            .flatten()
            .chain(read_here)
        {
            parts[index] = part;
        }
        // Room for every part read, once: grown by doubling, the joined vector took 7.9 MB for the
        // 5.3 MB of the 252 MB state's resources. The first part's own vector is grown, not copied:
        // a copy held the resources twice at the peak (5 MB more of 252 MB), where each part
        // joined below is freed as soon as it is moved in.
        let read: usize = parts
            .iter()
            .flatten()
            .map(|part| part.gathered.resources.len())
            .sum();
        gathered.resources.reserve_exact(read);
        gathered.summaries.reserve_exact(read);
        loop {
            let at = match stop {
                Stop::End(end) => {
                    *cursor = end;
                    return Ok(gathered);
                }
                Stop::AtCut(at) => at,
            };
            if let Some(part) = parts[at].take() {
                #[cfg(test)]
                tests::JOINED.set(tests::JOINED.get() + 1);
                let by = shared.notes.join(part.notes);
                gathered.append(part.gathered, by);
                stop = part.stop;
            } else {
                // That part could not be read from its cut: read it here, for the error reading
                // in one go gives.
                cursor.seek(cuts[at]);
                stop = read_part(cursor, shared, &mut gathered, &[])?;
            }
        }
    })
}

/// Reads elements of the array from the cursor (at an element's start, its containers open) until
/// one ends where one of `cuts` (ascending, all past the cursor) is, or the array ends.
fn read_part<'a>(
    cursor: &mut Cursor<'a>,
    shared: &mut Shared<'a>,
    gathered: &mut Gathered<'a>,
    cuts: &[usize],
) -> Result<Stop<'a>, StateError> {
    loop {
        cursor.skip_whitespace();
        let read = resource(cursor, shared)?;
        gathered.push(read, shared);
        if !cursor.next_element()? {
            shared.passed_all(cursor);
            return Ok(Stop::End(cursor.fork(cursor.position(), cursor.depth())));
        }
        cursor.skip_whitespace();
        if let Ok(at) = cuts.binary_search(&cursor.position()) {
            // The rest of its part: each of a large state's parts kept its last few megabytes.
            shared.passed_all(cursor);
            return Ok(Stop::AtCut(at));
        }
    }
}

/// How many threads read the array, and guessed starts of its elements (the first element starts
/// at `first`), spread evenly over the rest of `source`, [`PARTS_PER_THREAD`] parts a thread; no
/// cuts when the array is small, or not laid out one element per line.
fn cuts(bytes: &[u8], first: usize) -> (usize, Vec<usize>) {
    let rest = bytes.len() - first;
    let threads = parts(rest, PART_BYTES);
    if threads < 2 || bytes.get(first) != Some(&b'{') {
        return (threads, Vec::new());
    }
    let parts = threads * PARTS_PER_THREAD;
    let line = bytes[..first]
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |newline| newline + 1);
    let indent = &bytes[line..first];
    if line == 0 || !indent.iter().all(|&byte| byte == b' ' || byte == b'\t') {
        return (threads, Vec::new());
    }
    // `,`, a newline and the first element's indentation before a `{`: no string holds a raw
    // newline, so in valid JSON this is a member of an array as deep as `resources`.
    let mut separator = b",\n".to_vec();
    separator.extend_from_slice(indent);
    separator.push(b'{');
    let finder = memchr::memmem::Finder::new(&separator);
    let mut cuts: Vec<usize> = Vec::with_capacity(parts - 1);
    for part in 1..parts {
        let from = first + rest / parts * part;
        if let Some(found) = finder.find(&bytes[from..]) {
            let cut = from + found + separator.len() - 1;
            if cuts.last().is_none_or(|&last| last < cut) {
                cuts.push(cut);
            }
        }
    }
    (threads, cuts)
}

/// How many parts were joined at their cuts on this thread so far (tests only: that a test read
/// in parts did join parts).
#[cfg(test)]
pub(crate) fn joined() -> usize {
    tests::JOINED.get()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::fmt::Write;

    thread_local! {
        /// Cuts guessed, and parts joined at them, on this thread.
        pub(super) static CUTS: Cell<usize> = const { Cell::new(0) };
        pub(super) static JOINED: Cell<usize> = const { Cell::new(0) };
    }

    /// A state laid out as Terraform writes it, with decoys: arrays inside attributes and in
    /// `check_results` whose elements stand at the indentation of `resources`' own.
    fn state_text(resources: usize) -> String {
        let mut text = String::from(
            "{\n  \"version\": 4,\n  \"terraform_version\": \"1.15.5\",\n  \"serial\": 3,\n  \"lineage\": \"l\",\n  \"outputs\": {},\n  \"resources\": [\n",
        );
        for index in 0..resources {
            let module = if index % 3 == 0 {
                format!("      \"module\": \"module.m[{}]\",\n", index % 2)
            } else {
                String::new()
            };
            let provider = ["null", "aws", "random"][index % 3];
            let _ = write!(
                text,
                "    {{\n{module}      \"mode\": \"managed\",\n      \"type\": \"{provider}_thing\",\n      \"name\": \"r{index}\",\n      \"provider\": \"provider[\\\"registry.terraform.io/hashicorp/{provider}\\\"]\",\n      \"instances\": [\n        {{\n          \"index_key\": {index},\n          \"schema_version\": 0,\n          \"attributes\": {{\"id\": \"i-{index}\", \"decoys\": [\n    {{\"mode\": \"data\"}},\n    {{\"mode\": \"x\", \"n\": [1, 2.5, true, null]}}\n]}},\n          \"dependencies\": [\"a.b\"]\n        }}\n      ]\n    }}{}\n",
                if index + 1 == resources { "" } else { "," }
            );
        }
        text.push_str("  ],\n  \"check_results\": [\n    {\"object_kind\": \"resource\"},\n    {\"object_kind\": \"output\"}\n  ]\n}\n");
        text
    }

    /// The whole parsed state (or error) as text, read in `parts` parts.
    fn parsed_in(parts: usize, text: &str) -> String {
        let outcome = crate::parts::forced(parts, || crate::state::parse(text.as_bytes()));
        match outcome {
            Ok(state) => format!("{state:?}"),
            Err(error) => format!("error: {error:?}"),
        }
    }

    #[test]
    fn a_state_read_in_parts_is_the_state_read_in_one() {
        let text = state_text(40);
        let whole = parsed_in(1, &text);
        assert!(whole.starts_with("State"), "{whole}");
        for parts in 2..=16 {
            assert_eq!(parsed_in(parts, &text), whole, "{parts} parts");
        }
        // Parts were joined, and guesses inside the decoys were dropped.
        let (cuts, joined) = (CUTS.get(), JOINED.get());
        assert!(joined > 10 && cuts > joined, "{cuts} cuts, {joined} joined");
        // Nothing to cut: an empty array, `null`, one element, elements on one line.
        for resources in [
            "[]",
            "null",
            "[\n    {\"mode\": \"managed\", \"type\": \"t\", \"name\": \"n\"}\n  ]",
        ] {
            let text = text.replacen(
                &text[text.find("[\n").unwrap()..text.find("  ],").unwrap() + 3],
                resources,
                1,
            );
            assert_eq!(parsed_in(4, &text), parsed_in(1, &text), "{resources}");
        }
        let compact: String = text.split('\n').collect();
        assert_eq!(parsed_in(4, &compact), parsed_in(1, &compact));
    }

    /// What reading the resources of `text` in `parts` parts gathered.
    fn gathered_in(parts: usize, text: &str) -> super::Gathered<'_> {
        let at = text.find("\"resources\": [").unwrap() + "\"resources\": ".len();
        let mut cursor = crate::json::Cursor::new(text).fork(at, 1);
        let mut shared = crate::state::parse::Shared::default();
        crate::parts::forced(parts, || super::resources(&mut cursor, &mut shared)).unwrap()
    }

    #[test]
    fn what_each_part_gathers_of_its_resources_is_what_the_whole_array_tells() {
        use crate::state::layout::Tally;
        use crate::state::order::summaries_of;

        // Modules, types and names out of order and repeated, and instances OpenTofu alone
        // writes, so every part's first resource has a neighbour to be compared with and the
        // tallies have something to add.
        let text = state_text(60)
            .replace(
                "\"schema_version\": 0",
                "\"skip_destroy\": true, \"schema_version\": 0",
            )
            .replace("\"name\": \"r1", "\"name\": \"a1");
        let joined = JOINED.get();
        for parts in [1, 2, 3, 7] {
            let gathered = gathered_in(parts, &text);
            assert_eq!(gathered.resources.len(), 60);
            assert_eq!(
                gathered.summaries,
                summaries_of(&gathered.resources),
                "{parts} parts"
            );
            let mut whole = Tally::default();
            for resource in &gathered.resources {
                whole.add_resource(resource);
            }
            assert_eq!(gathered.tally, whole, "{parts} parts");
            assert_ne!(whole, Tally::default());
        }
        assert!(JOINED.get() > joined + 5, "parts were joined");
    }

    #[test]
    fn notes_taken_in_parts_point_at_their_own_instances() {
        use std::sync::Arc;

        use crate::json::keys::MemberNames;
        use crate::state::attr_path::Attributes;
        use crate::state::notes::NotesAt;

        let text = state_text(40);
        // `mode` is only inside the decoys: never a top-level member, never noted.
        let noting = crate::state::notes::Noting {
            members: Arc::new(MemberNames::new(["id", "mode"])),
            copies: true,
            lines: false,
        };
        let joined_before = JOINED.get();
        for parts in 1..=8 {
            let state = crate::parts::forced(parts, || {
                crate::state::parse::parse_noting(text.as_bytes(), &noting)
            })
            .unwrap();
            for (index, (_, instance)) in state.instances().enumerate() {
                assert_ne!(instance.notes, NotesAt::NONE);
                let attributes = Attributes::of_instance_in(&state, instance, Vec::new()).unwrap();
                let id = format!("\"i-{index}\"");
                assert_eq!(attributes.get("id"), Some(id.as_str()), "{parts} parts");
                assert_eq!(attributes.get("mode"), None);
                let names = ["id".to_owned(), "mode".to_owned()];
                assert_eq!(attributes.members_named(&names), [("id", id.as_str())]);
            }
        }
        assert!(JOINED.get() > joined_before + 10, "parts were joined");
    }

    /// [`parsed_in`] of `bytes` (UTF-8 or not), checking them as they are read in blocks of
    /// `block` bytes when there is a block.
    fn parsed_checking(parts: usize, block: Option<usize>, bytes: &[u8]) -> String {
        let before = crate::state::parse::CHECKED_IN_BLOCKS.replace(block);
        let outcome = crate::parts::forced(parts, || crate::state::parse(bytes));
        crate::state::parse::CHECKED_IN_BLOCKS.set(before);
        match outcome {
            Ok(state) => format!("{state:?}"),
            Err(error) => format!("error: {error:?}"),
        }
    }

    #[test]
    fn a_state_checked_as_it_is_read_is_the_state_checked_first() {
        let text = state_text(40).replace("i-1", "é-日本-😀");
        let whole = parsed_checking(1, None, text.as_bytes());
        assert!(whole.starts_with("State"), "{whole}");
        let joined_before = JOINED.get();
        for parts in [1, 2, 3, 8] {
            for block in [4, 7, 64, 1000, 1 << 14] {
                assert_eq!(
                    parsed_checking(parts, Some(block), text.as_bytes()),
                    whole,
                    "{parts} parts, blocks of {block}"
                );
            }
        }
        assert!(JOINED.get() > joined_before + 10, "parts were joined");
        // The lines counted as the blocks were checked place every offset where counting does.
        let noting = crate::state::notes::Noting {
            members: std::sync::Arc::new(crate::json::keys::MemberNames::new(["id"])),
            copies: true,
            lines: true,
        };
        let offsets: Vec<usize> = (0..=text.len()).collect();
        let expected =
            crate::json::LineIndex::of(text.as_bytes()).line_columns(text.as_bytes(), &offsets);
        for block in [4, 64, 1000] {
            let before = crate::state::parse::CHECKED_IN_BLOCKS.replace(Some(block));
            let state = crate::parts::forced(3, || {
                crate::state::parse::parse_noting(text.as_bytes(), &noting)
            });
            crate::state::parse::CHECKED_IN_BLOCKS.set(before);
            let lines = state.unwrap().notes.lines.expect("counted");
            assert_eq!(
                lines.line_columns(text.as_bytes(), &offsets),
                expected,
                "blocks of {block}"
            );
        }
    }

    #[test]
    fn a_state_checked_as_it_is_read_gets_the_error_of_checking_it_first() {
        let text = state_text(12).replace("i-1", "é-日本-😀");
        let bytes = text.as_bytes();
        for at in (0..bytes.len()).step_by(13) {
            let mut broken: Vec<Vec<u8>> = Vec::new();
            for bad in [&b"\xff"[..], b"\xe6\x97", b"\x80", b"#", b"\""] {
                broken.push([&bytes[..at], bad, &bytes[at..]].concat());
            }
            broken.push(bytes[..at].to_vec());
            for broken in &broken {
                let first = parsed_checking(1, None, broken);
                for (parts, block) in [(1, 4), (2, 64), (3, 1000), (7, 1 << 14)] {
                    assert_eq!(
                        parsed_checking(parts, Some(block), broken),
                        first,
                        "byte {at}, {parts} parts, blocks of {block}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_broken_state_read_in_parts_gets_the_error_of_reading_it_in_one() {
        let text = state_text(12);
        for at in (0..text.len()).step_by(11) {
            if !text.is_char_boundary(at) {
                continue;
            }
            let after = text[at..].chars().next().map_or(0, char::len_utf8);
            for broken in [
                format!("{}#{}", &text[..at], &text[at + after..]),
                format!("{}{}", &text[..at], &text[at + after..]),
                text[..at].to_string(),
            ] {
                let whole = parsed_in(1, &broken);
                for parts in [2, 3, 7] {
                    assert_eq!(parsed_in(parts, &broken), whole, "byte {at}, {parts} parts");
                }
            }
        }
    }
}
