//! Notes the parse takes, when asked, of chosen top-level members of every instance's `attributes`:
//! which of the chosen names each object has, where each one's value starts, and a copy of each
//! short value. `scan` asks for a few members of every instance (`id`, `async`, the status
//! attributes its catalog names); finding them meant walking every member of every attributes
//! object again after the parse (a quarter of a large scan's CPU time), while the parse's own skip
//! of that object passes each member's key anyway. The copies let the scan read those values
//! without the text: the parse can give back the pages it has passed (as `list` does), and the
//! detectors do not map them all again.
//!
//! Asked, the parse also notes where the text's lines are ([`LineIndex`]), counted as its UTF-8 is
//! checked: `scan` gives each finding's line, and counting up to each afterwards read the whole text
//! from memory again.
//!
//! The notes are only ever a shortcut: an instance without complete notes (the parse skipped its
//! attributes the careful way, or an offset did not fit) has none, and a name the filter was not
//! built with is looked up by walking, so a reader gets the walk's answer either way.

use std::sync::Arc;

use crate::json::bytes::skip_layout;
use crate::json::keys::MemberNames;
use crate::json::skip::{Key, TopMembers};
use crate::json::{LineIndex, Span};

/// One noted member: its key's place among the filter's names, where its value is as an offset
/// from the start of its instance object, and where the copy of its value is among the copies of
/// its part of the parse ([`Copies`]) or, not copied, the value's length. None of them needs the
/// file's bytes to be read again (a scan that looked at each noted key in the file waited on
/// memory for each; a query handed the values' spans reads only the values it prints). An
/// instance's notes start with a header whose `key` counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Note {
    key: u16,
    /// The length of the value's copy; 0: not copied.
    copy_length: u16,
    /// The byte after the member's `:` while its value is passed; its value's first byte once it
    /// ended (either reads the same value: see [`value_after`]).
    value_at: u32,
    /// Copied: where the copy is among the copies. Not: the value's length (0 until it ended).
    copy_at_or_length: u32,
}

/// Values up to this many bytes are copied into the notes: the ids, states and flags a scan reads
/// are a few dozen bytes; a large value (a policy document) is read from the text when asked for.
const COPIED_UP_TO: usize = 1 << 10;

/// Where a noted value is: copied into the notes, or in the text after the `:` at this offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Noted<'n> {
    Copy(&'n str),
    After(usize),
}

/// A member of an attributes object, as its notes tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Member {
    Absent,
    At(Span),
}

/// Where an instance's notes start in [`Notes`], or that it has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotesAt(u32);

impl NotesAt {
    /// No notes: the parse was not asked for them, or could not take all of them.
    pub(crate) const NONE: NotesAt = NotesAt(u32::MAX);

    /// These notes, moved `by` places (the notes of a part read on another thread, joined after
    /// `by` others); `NONE` when the place does not fit.
    pub(crate) fn moved(self, by: usize) -> NotesAt {
        if self == NotesAt::NONE {
            return self;
        }
        (self.0 as usize)
            .checked_add(by)
            .and_then(|at| u32::try_from(at).ok())
            .filter(|&at| at != u32::MAX)
            .map_or(NotesAt::NONE, NotesAt)
    }
}

/// What a parse is asked to note: the top-level attributes `members` names, a copy of each short
/// value when `copies` is set (for a reader that reads the values without the text: `scan`; a
/// `query` reads the text of what it prints anyway, and takes only where each value is), and the
/// text's lines when `lines` is set and the text is large (a few megabytes: see `parse`).
#[derive(Debug, Clone)]
pub struct Noting {
    pub members: Arc<MemberNames>,
    pub copies: bool,
    pub lines: bool,
}

/// The notes of a parse: the filter they were taken with, every instance's notes of its members one
/// after another, the copies of their short values, and the text's lines when they were asked for.
#[derive(Debug, Clone, Default)]
pub struct Notes {
    pub(crate) filter: Option<Arc<MemberNames>>,
    pub(crate) members: Vec<Note>,
    pub(crate) copies: Copies,
    pub(crate) copies_asked: bool,
    pub(crate) lines_asked: bool,
    pub lines: Option<LineIndex>,
}

impl Notes {
    /// Notes to take as `noting` asks.
    pub fn taking(noting: &Noting) -> Notes {
        Notes {
            filter: Some(Arc::clone(&noting.members)),
            copies_asked: noting.copies,
            lines_asked: noting.lines,
            ..Notes::default()
        }
    }

    /// The same filter, no notes yet: for a part of the parse read on another thread.
    pub(crate) fn fresh(&self) -> Notes {
        Notes {
            filter: self.filter.clone(),
            copies_asked: self.copies_asked,
            ..Notes::default()
        }
    }

    /// Takes the notes of a part read on another thread (sealed there: [`Notes::seal`]),
    /// returning how far its places move.
    pub(crate) fn join(&mut self, part: Notes) -> usize {
        self.seal();
        let by = self.members.len();
        self.members.extend(part.members);
        self.copies.join(part.copies, by, self.members.len());
        by
    }

    /// Ends the copies taken so far, once their text's UTF-8 is known good (or the parse fails):
    /// at the end of the parse, of each part, and before a part is joined.
    pub(crate) fn seal(&mut self) {
        self.copies.seal(self.members.len());
    }

    /// The noted members of the instance object at `object_start` whose notes are `at`, as (key,
    /// where its value is), and the filter they were chosen by; `None` without notes.
    pub(crate) fn of(
        &self,
        at: NotesAt,
        object_start: usize,
    ) -> Option<(&MemberNames, impl Iterator<Item = (&str, Noted<'_>)> + '_)> {
        let filter = self.filter.as_deref()?;
        if at == NotesAt::NONE {
            return None;
        }
        let header = *self.members.get(at.0 as usize)?;
        let first = at.0 as usize + 1;
        let noted = self.members.get(first..first + usize::from(header.key))?;
        Some((
            filter,
            noted.iter().zip(first..).map(move |(note, index)| {
                (
                    filter.name(u32::from(note.key)),
                    self.noted(index, note, object_start),
                )
            }),
        ))
    }

    /// Where the value of `note`, the note at `index`, is: its copy, when it has one (sealed:
    /// checked as UTF-8, as a copy of a parsed state's text always is), else after its `:` in
    /// the text.
    fn noted(&self, index: usize, note: &Note, object_start: usize) -> Noted<'_> {
        match self.copies.of(index, note) {
            Some(text) => Noted::Copy(text),
            None => Noted::After(object_start + note.value_at as usize),
        }
    }

    /// Where the value of the top-level member at `place` among the filter's names (the last, if
    /// the name repeats) of the attributes of the instance object at `object_start` whose notes
    /// are `at` is, or that there is none; `None` without notes.
    pub(crate) fn value_of(&self, at: NotesAt, object_start: usize, place: u32) -> Option<Member> {
        if at == NotesAt::NONE {
            return None;
        }
        let header = *self.members.get(at.0 as usize)?;
        let first = at.0 as usize + 1;
        let noted = self.members.get(first..first + usize::from(header.key))?;
        let Some(note) = noted.iter().rfind(|note| u32::from(note.key) == place) else {
            return Some(Member::Absent);
        };
        // Every note of complete notes was told where its value ends (`value_ends`).
        let length = match note.copy_length {
            0 => note.copy_at_or_length as usize,
            copied => usize::from(copied),
        };
        let start = object_start + note.value_at as usize;
        (length > 0).then(|| Member::At(Span::new(start, start + length)))
    }
}

/// The copies of noted values, in batches: the copies being taken by this reader of the parse,
/// as bytes (cut from text whose UTF-8 may be checked only later in the parse; a value starts and
/// ends on ASCII bytes, so a copy of valid text is valid), and the batches sealed, each checked
/// once as a whole and kept with the place of the first note it may serve. The parts of the parse
/// read on other threads are joined without copying their copies again.
#[derive(Debug, Clone, Default)]
pub(crate) struct Copies {
    taking: Vec<u8>,
    /// The place of the first note the copies being taken may serve.
    taking_from: usize,
    sealed: Vec<(usize, String)>,
}

impl Copies {
    /// Seals the copies taken, the next ones serving the notes from `next_note` on.
    fn seal(&mut self, next_note: usize) {
        let taken = std::mem::take(&mut self.taking);
        if !taken.is_empty() {
            // Bytes that are not UTF-8 (in a text that is not, whose parse then fails) are no
            // copy: an empty batch in their place, so their notes read the text instead of
            // another batch's copies.
            let text = String::from_utf8(taken).unwrap_or_default();
            self.sealed.push((self.taking_from, text));
        }
        self.taking_from = next_note;
    }

    /// Takes the sealed copies of a part whose notes now start at `by`, the copies taken next
    /// serving the notes from `next_note` on.
    fn join(&mut self, part: Copies, by: usize, next_note: usize) {
        self.sealed.extend(
            part.sealed
                .into_iter()
                .map(|(first, text)| (first + by, text)),
        );
        self.taking_from = next_note;
    }

    /// The copy of the value of `note`, the note at `index`, when it has a sealed one.
    fn of(&self, index: usize, note: &Note) -> Option<&str> {
        if note.copy_length == 0 {
            return None;
        }
        let batch = self.sealed.partition_point(|&(first, _)| first <= index);
        let (_, text) = self.sealed.get(batch.checked_sub(1)?)?;
        let start = note.copy_at_or_length as usize;
        text.get(start..start + usize::from(note.copy_length))
    }
}

/// Takes the notes of one attributes object, for [`crate::json::skip::value_end_noting`].
pub(crate) struct Taking<'n> {
    filter: &'n MemberNames,
    notes: &'n mut Vec<Note>,
    copies: &'n mut Vec<u8>,
    /// How many bytes `copies` held before this object's: dropped with its notes.
    copies_before: usize,
    object_start: usize,
    /// Whether short values are copied (`Noting::copies`).
    copies_asked: bool,
    /// The note whose value is being passed, to place (and copy) once it ends.
    copying: Option<usize>,
    /// An offset did not fit: these notes are not to be used.
    lost: bool,
}

impl<'n> Taking<'n> {
    /// Starts the notes of an instance object at `object_start` (a header, counted at the end).
    pub(crate) fn start(
        filter: &'n MemberNames,
        notes: &'n mut Vec<Note>,
        copies: &'n mut Copies,
        copies_asked: bool,
        object_start: usize,
    ) -> (Taking<'n>, usize) {
        let copies = &mut copies.taking;
        let header = notes.len();
        notes.push(Note::uncopied(0, 0));
        let copies_before = copies.len();
        (
            Taking {
                filter,
                notes,
                copies,
                copies_before,
                object_start,
                copies_asked,
                copying: None,
                lost: false,
            },
            header,
        )
    }

    /// Ends the notes started at `header`: where they are when all were taken (`complete`), else
    /// `NONE`, the notes dropped.
    pub(crate) fn finish(self, header: usize, complete: bool) -> NotesAt {
        let count = self.notes.len() - header - 1;
        let at = u32::try_from(header).ok().filter(|&at| at != u32::MAX);
        match (at, u16::try_from(count)) {
            (Some(at), Ok(count)) if complete && !self.lost => {
                self.notes[header].key = count;
                NotesAt(at)
            }
            _ => {
                self.notes.truncate(header);
                self.copies.truncate(self.copies_before);
                NotesAt::NONE
            }
        }
    }
}

impl Note {
    fn uncopied(key: u16, colon: u32) -> Note {
        Note {
            key,
            copy_length: 0,
            value_at: colon,
            copy_at_or_length: 0,
        }
    }
}

impl TopMembers for Taking<'_> {
    #[inline]
    fn member(&mut self, bytes: &[u8], key: Key, colon: usize) {
        let text = &bytes[key.start + 1..key.end - 1];
        let place = if key.escaped {
            self.filter.place_of_escaped(text)
        } else {
            self.filter.place_of(text)
        };
        self.copying = None;
        let Some(key) = place else {
            return;
        };
        let (Ok(key), Ok(colon)) = (u16::try_from(key), u32::try_from(colon - self.object_start))
        else {
            self.lost = true;
            return;
        };
        self.copying = Some(self.notes.len());
        self.notes.push(Note::uncopied(key, colon));
    }

    /// Places a noted value whose bytes were just passed (in cache), and copies it when short.
    #[inline]
    fn value_ends(&mut self, bytes: &[u8], end: usize) {
        let Some(index) = self.copying.take() else {
            return;
        };
        let note = &mut self.notes[index];
        let start = skip_layout(bytes, self.object_start + note.value_at as usize);
        // The value's place and length, as offsets inside the instance object (which the parse
        // keeps under 4 GiB: `Inside`), so its span is known without reading the text again.
        let (Ok(value_at), Ok(length)) = (
            u32::try_from(start - self.object_start),
            u32::try_from(end - start),
        ) else {
            self.lost = true;
            return;
        };
        note.value_at = value_at;
        note.copy_at_or_length = length;
        if !self.copies_asked {
            return;
        }
        let Some(value) = bytes
            .get(start..end)
            .filter(|value| value.len() <= COPIED_UP_TO)
        else {
            return;
        };
        let at = self.copies.len();
        if let (Ok(copy_at), Ok(copy_length), Ok(_)) = (
            u32::try_from(at),
            u16::try_from(value.len()),
            u32::try_from(at + value.len()),
        ) {
            self.copies.extend_from_slice(value);
            note.copy_at_or_length = copy_at;
            note.copy_length = copy_length;
        }
    }
}

/// The span of a noted value, from the byte after its `:`, in valid JSON `source`.
pub(crate) fn value_after(source: &str, colon: usize) -> Span {
    let bytes = source.as_bytes();
    let start = skip_layout(bytes, colon);
    Span::new(start, crate::json::trusted::end_of_value(bytes, start))
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;
    use std::sync::Arc;

    use super::*;
    use crate::state::attr_path::{AttrPath, Attributes};
    use crate::state::model::State;
    use crate::state::parse::{parse, parse_noting};

    /// The names asked for in these tests: the filter's, and others it does not hold.
    const FILTER: [&str; 4] = ["id", "state", "status", "last_operation"];
    const OTHERS: [&str; 4] = ["arn", "tags", "i\\u0064", "nothing"];

    fn filter() -> Noting {
        Noting {
            members: Arc::new(MemberNames::new(FILTER)),
            copies: true,
            lines: false,
        }
    }

    /// Every instance's attributes answer the same, read from the notes or walked; returns how many
    /// instances had notes.
    fn same_answers(text: &str) -> usize {
        let plain = parse(text.as_bytes()).unwrap();
        let noted = parse_noting(text.as_bytes(), &filter()).unwrap();
        let mut with_notes = 0;
        let instances = |state: &State<'_>| state.instances().count();
        assert_eq!(instances(&plain), instances(&noted));
        for ((_, walked), (_, read)) in plain.instances().zip(noted.instances()) {
            assert_eq!(walked.notes, NotesAt::NONE, "no notes unless asked");
            with_notes += usize::from(read.notes != NotesAt::NONE);
            let walked = Attributes::of_instance_in(&plain, walked, Vec::new());
            let read = Attributes::of_instance_in(&noted, read, Vec::new());
            let (walked, read) = match (walked, read) {
                (Some(walked), Some(read)) => (walked, read),
                (None, None) => continue,
                _ => panic!("attributes in one parse only"),
            };
            assert_eq!(walked.raw(), read.raw());
            for name in FILTER.iter().chain(&OTHERS) {
                assert_eq!(
                    walked.get(name),
                    read.get(name),
                    "{name} in {}",
                    walked.raw()
                );
            }
            for names in [&FILTER[..2], &OTHERS[..2], &[FILTER[1], OTHERS[1]]] {
                let names: Vec<String> = names.iter().map(|&name| name.to_owned()).collect();
                assert_eq!(walked.members_named(&names), read.members_named(&names));
            }
            for path in [
                "last_operation.state",
                "tags.Name",
                "$.last_operation[0].type",
            ] {
                let path = AttrPath::parse(path).unwrap();
                assert_eq!(walked.values(&path), read.values(&path));
            }
        }
        with_notes
    }

    fn state_with(instances: &[&str]) -> String {
        let instances = instances
            .iter()
            .enumerate()
            .map(|(index, instance)| {
                format!("{{\"index_key\": {index}, \"schema_version\": 0, {instance}}}")
            })
            .collect::<Vec<_>>()
            .join(",\n");
        format!(
            "{{\"version\": 4, \"serial\": 1, \"lineage\": \"l\", \"resources\": [{{\"mode\": \"managed\", \"type\": \"t\", \"name\": \"n\", \"provider\": \"provider[\\\"registry.terraform.io/hashicorp/t\\\"]\", \"instances\": [{instances}]}}]}}"
        )
    }

    #[test]
    fn notes_answer_as_the_walk_does_for_odd_attributes() {
        let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        let cases = [
            // Repeated keys: the last wins, as Go reads them.
            r#""attributes": {"id": "a", "state": "RUNNING", "id": "b", "state": "PROVISIONING"}"#,
            // Whitespace around the colon, an escaped key that is `id` decoded (as Go reads it),
            // nested members with the filter's names (not top-level: not noted).
            "\"attributes\": {\"i\\u0064\": \"x\" ,\n \"id\"\n :\n \"y\", \"tags\": {\"id\": 1, \"state\": 2}}",
            r#""attributes": {"last_operation": [{"state": "in progress", "type": "create"}]}"#,
            r#""attributes": {"last_operation": {"state": "failed", "type": "delete"}}"#,
            r#""attributes": {}"#,
            r#""attributes": null"#,
            r#""attributes_flat": {"id": "flat"}"#,
            // The attributes member twice: the last is the instance's.
            r#""attributes": {"id": "first", "only_first": 1}, "attributes": {"id": "second"}"#,
        ];
        for case in cases {
            same_answers(&state_with(&[case]));
        }
        // Too deep for the fast skip: read the careful way, without notes, and walked.
        let deep_case = format!(r#""attributes": {{"id": "d", "deep": {deep}, "state": "x"}}"#);
        assert_eq!(same_answers(&state_with(&[&deep_case])), 0);
        // Several instances, some without notes, each with its own.
        let mixed = state_with(&[cases[0], &deep_case, cases[1], cases[5], cases[2]]);
        assert_eq!(same_answers(&mixed), 3);
    }

    #[test]
    fn short_values_are_copied_and_longer_ones_read_from_the_text() {
        // Quotes included, 1,024 bytes is the longest copied.
        let longest = format!("\"{}\"", "y".repeat(COPIED_UP_TO - 2));
        let longer = format!("\"{}\"", "z".repeat(COPIED_UP_TO - 1));
        let text = state_with(&[&format!(
            r#""attributes": {{"id": "i-1", "state" :  {{"a": [1, "]"]}} , "tags": {{}}, "status": {longer}, "last_operation": {longest}}}"#
        )]);
        let noted = parse_noting(text.as_bytes(), &filter()).unwrap();
        let (_, instance) = noted.instances().next().unwrap();
        let (_, values) = noted.notes.of(instance.notes, instance.span.start).unwrap();
        let values: Vec<(&str, Noted<'_>)> = values.collect();
        assert_eq!(values[0], ("id", Noted::Copy("\"i-1\"")));
        assert_eq!(values[1], ("state", Noted::Copy("{\"a\": [1, \"]\"]}")));
        let ("status", Noted::After(colon)) = values[2] else {
            panic!("{values:?}");
        };
        assert_eq!(value_after(noted.source, colon).of(noted.source), longer);
        assert_eq!(values[3], ("last_operation", Noted::Copy(&longest)));
        assert_eq!(values.len(), 4);
        same_answers(&text);
    }

    #[test]
    fn copies_that_are_not_utf8_are_read_from_the_text_not_from_another_batch() {
        let mut copies = Copies::default();
        copies.taking.extend_from_slice(b"\"ok\"");
        copies.seal(1);
        copies.taking.extend_from_slice(b"\"\xff\"");
        copies.seal(2);
        let note = |copy_length| Note {
            key: 0,
            copy_length,
            value_at: 7,
            copy_at_or_length: 0,
        };
        assert_eq!(copies.of(0, &note(4)), Some("\"ok\""));
        assert_eq!(copies.of(1, &note(3)), None);
        assert_eq!(copies.of(0, &note(0)), None, "not copied");
    }

    /// A hostile object naming a noted member more often than the notes count: no notes, and the
    /// walk's answer (the last).
    #[test]
    fn a_member_repeated_past_what_the_notes_count_is_walked() {
        let repeated: Vec<String> = (0..=usize::from(u16::MAX))
            .map(|index| format!("\"id\": \"i-{index}\""))
            .collect();
        let text = state_with(&[&format!("\"attributes\": {{{}}}", repeated.join(", "))]);
        let noted = parse_noting(text.as_bytes(), &filter()).unwrap();
        let (_, instance) = noted.instances().next().unwrap();
        assert_eq!(instance.notes, NotesAt::NONE);
        let attributes = Attributes::of_instance_in(&noted, instance, Vec::new()).unwrap();
        assert_eq!(attributes.get("id"), Some("\"i-65535\""));
        same_answers(&text);
    }

    #[test]
    fn notes_of_thousands_of_instances_point_at_their_own() {
        let mut instances = Vec::new();
        for index in 0..6000 {
            instances.push(format!(
                "\"index_key\": {index}, \"attributes\": {{\"arn\": \"a{index}\", \"id\": \"i-{index}\", \"state\": \"{}\", \"tags\": {{\"Name\": \"n{index}\"}}}}",
                ["RUNNING", "CREATING", "FAILED"][index % 3]
            ));
        }
        // Laid out one resource a line, as the parse cuts states into parts (`parse_split`'s own
        // test forces the parts; here they come as the machine's CPUs allow).
        let mut text = String::from(
            "{\n  \"version\": 4,\n  \"serial\": 1,\n  \"lineage\": \"l\",\n  \"resources\": [\n",
        );
        for (index, instance) in instances.iter().enumerate() {
            let _ = writeln!(
                text,
                "    {{\"mode\": \"managed\", \"type\": \"t\", \"name\": \"r{index}\", \"provider\": \"provider[\\\"registry.terraform.io/hashicorp/t\\\"]\", \"instances\": [{{\"schema_version\": 0, {instance}}}]}}{}",
                if index + 1 == instances.len() {
                    ""
                } else {
                    ","
                }
            );
        }
        text.push_str("  ]\n}\n");
        assert!(text.len() > 1 << 20, "large enough to be read in parts");
        assert_eq!(same_answers(&text), 6000);
        let noted = parse_noting(text.as_bytes(), &filter()).unwrap();
        for (index, (_, instance)) in noted.instances().enumerate() {
            let attributes = Attributes::of_instance_in(&noted, instance, Vec::new()).unwrap();
            assert_eq!(
                attributes.get("id"),
                Some(format!("\"i-{index}\"").as_str())
            );
        }
    }

    #[test]
    fn moved_places_stay_none_and_never_wrap() {
        assert_eq!(NotesAt::NONE.moved(5), NotesAt::NONE);
        assert_eq!(NotesAt(3).moved(4), NotesAt(7));
        assert_eq!(NotesAt(u32::MAX - 2).moved(2), NotesAt::NONE);
        assert_eq!(NotesAt(u32::MAX - 2).moved(usize::MAX), NotesAt::NONE);
    }
}
