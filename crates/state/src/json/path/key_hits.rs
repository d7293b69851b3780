//! Where a descendant segment of names (`$..instances`) can select nothing: a subtree whose text
//! holds none of the names as a key, written plainly or with an escape that could spell one of its
//! letters, has no member of those names at any depth, and the walk skips it without listing its
//! descendants.
//!
//! Why: `..name` visits every node of the document to ask each for a member, while in a state the
//! names looked for (`instances`, `status`) are rarely inside the attributes that are most of its
//! bytes. Finding that an instance's text holds no `"instances"` is one search at the speed of
//! memory (`memchr::memmem`), where listing its descendants parses all of it.
//!
//! Each search goes forward from where the walk stands and is remembered, so a subtree's bytes are
//! searched once however many of its nodes are asked about (a pre-order walk asks in text order),
//! and never past the node the segment started from.

use memchr::memmem::Finder;

use crate::json::Span;
use crate::json::path::ast::Selector;

/// The searches for one descendant segment's names inside one node.
#[derive(Debug)]
pub(crate) struct KeyHits<'t> {
    /// Where the segment's selectors are (the same address: the same segment of one expression).
    selectors_at: usize,
    text: &'t [u8],
    /// The end of the node the segment descends from: no search goes past it.
    limit: usize,
    searches: Vec<Search>,
    /// The bytes of the names: an escape `\u00XX` of one of them could spell a key.
    letters: [bool; 128],
    /// Bytes searched since the walk last counted them ([`KeyHits::take_searched`]).
    searched: usize,
}

/// One needle, searched forward, its last answer kept: the first hit at or after `from` is `at`.
#[derive(Debug)]
struct Search {
    finder: Finder<'static>,
    kind: Needle,
    from: usize,
    at: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needle {
    /// A name as a key is written without escapes: `"name"`.
    Plain,
    /// `\u00`, a hit when its two last hex digits are a letter of a name.
    UnicodeEscape,
    /// `\/`, which spells the `/` of a name.
    Solidus,
}

impl<'t> KeyHits<'t> {
    /// The searches for `selectors` descending from `node` of `text`, when they are all names that
    /// can be searched for: ASCII without a quote, a backslash or a control character (any other
    /// name has spellings the searches would not find, and its segment walks every node).
    pub(super) fn for_selectors(
        selectors: &[Selector],
        text: &'t str,
        node: Span,
    ) -> Option<KeyHits<'t>> {
        let mut letters = [false; 128];
        let mut searches = Vec::new();
        for selector in selectors {
            let Selector::Name(name) = selector else {
                return None;
            };
            let searchable = name
                .bytes()
                .all(|byte| byte.is_ascii() && byte >= 0x20 && byte != b'"' && byte != b'\\');
            if !searchable {
                return None;
            }
            for byte in name.bytes() {
                letters[usize::from(byte)] = true;
            }
            searches.push(Search::new(&format!("\"{name}\""), Needle::Plain));
        }
        if searches.is_empty() {
            return None;
        }
        searches.push(Search::new("\\u00", Needle::UnicodeEscape));
        if letters[usize::from(b'/')] {
            searches.push(Search::new("\\/", Needle::Solidus));
        }
        Some(KeyHits {
            selectors_at: selectors.as_ptr() as usize,
            text: text.as_bytes(),
            limit: node.end.min(text.len()),
            searches,
            letters,
            searched: 0,
        })
    }

    /// Whether these are the searches for `selectors`.
    pub(super) fn searches_for(&self, selectors: &[Selector]) -> bool {
        self.selectors_at == selectors.as_ptr() as usize
    }

    /// The same searches, inside `node` now: nothing found before counts.
    pub(super) fn restart(&mut self, node: Span) {
        self.limit = node.end.min(self.text.len());
        for search in &mut self.searches {
            search.from = usize::MAX;
            search.at = None;
        }
    }

    /// Whether the text of `node` (inside the node the segment started from) may hold a member
    /// of one of the names; `false` only when it certainly holds none.
    pub(super) fn may_hold(&mut self, node: Span) -> bool {
        let (text, limit, letters) = (self.text, self.limit, &self.letters);
        let searched = &mut self.searched;
        self.searches.iter_mut().any(|search| {
            search
                .first_from(text, node.start, limit, letters, searched)
                .is_some_and(|at| at < node.end)
        })
    }

    /// The bytes searched since the last call: the walk counts them against its budget, as a
    /// hostile expression could otherwise have the same deep text searched once for each of
    /// thousands of nodes it descends from, each search costing one visit.
    pub(super) fn take_searched(&mut self) -> usize {
        std::mem::take(&mut self.searched)
    }
}

impl Search {
    fn new(needle: &str, kind: Needle) -> Search {
        Search {
            finder: Finder::new(needle.as_bytes()).into_owned(),
            kind,
            from: usize::MAX,
            at: None,
        }
    }

    /// The first hit at or after `start` and before `limit`.
    fn first_from(
        &mut self,
        text: &[u8],
        start: usize,
        limit: usize,
        letters: &[bool; 128],
        searched: &mut usize,
    ) -> Option<usize> {
        if start >= self.from && self.at.is_none_or(|at| start <= at) {
            return self.at;
        }
        let mut from = start;
        let found = loop {
            let Some(offset) = text
                .get(from..limit)
                .and_then(|rest| self.finder.find(rest))
            else {
                break None;
            };
            let at = from + offset;
            if self.kind != Needle::UnicodeEscape || spells_a_letter(text, at, letters) {
                break Some(at);
            }
            from = at + 1;
        };
        *searched = searched.saturating_add(found.unwrap_or(limit).saturating_sub(start));
        self.from = start;
        self.at = found;
        found
    }
}

/// Whether the `\u00XX` at `at` is a letter of the names (or too short to tell: then it may be).
fn spells_a_letter(text: &[u8], at: usize, letters: &[bool; 128]) -> bool {
    let digits = text
        .get(at + 4..at + 6)
        .and_then(|digits| std::str::from_utf8(digits).ok())
        .and_then(|digits| u8::from_str_radix(digits, 16).ok());
    match digits {
        Some(byte) => letters.get(usize::from(byte)).copied().unwrap_or(false),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::path::{Document, JsonPath, Limits};

    fn names(names: &[&str]) -> Vec<Selector> {
        names
            .iter()
            .map(|name| Selector::Name((*name).to_owned()))
            .collect()
    }

    /// The span of the first `{...}` after `marker` (no nesting in these texts).
    fn object_after(text: &str, marker: &str) -> Span {
        let start =
            text.find(marker).unwrap() + text[text.find(marker).unwrap()..].find('{').unwrap();
        Span::new(start, start + text[start..].find('}').unwrap() + 1)
    }

    #[test]
    fn a_subtree_may_hold_a_name_plainly_or_through_an_escape_of_its_letters() {
        let text = r#"{"p": {"x": 1, "instances": 2}, "q": {"x": "instances are", "y": "my instances"}, "r": {"inst\u0061nces": 3}, "s": {"x": "\u003c\u003e"}, "t": {"x\u0041": 4}, "u": {"x": 5}}"#;
        let root = Span::new(0, text.len());
        let mut keys = KeyHits::for_selectors(&names(&["instances"]), text, root).unwrap();
        let [plain, in_values, escaped, other_escapes, upper, none] =
            ["\"p\"", "\"q\"", "\"r\"", "\"s\"", "\"t\"", "\"u\""]
                .map(|marker| object_after(text, marker));
        assert!(keys.may_hold(root));
        assert!(keys.may_hold(plain), "the key itself");
        assert!(!keys.may_hold(in_values), "`instances` not between quotes");
        assert!(keys.may_hold(escaped), "`\\u0061` spells its `a`");
        assert!(
            !keys.may_hold(other_escapes),
            "`\\u003c` and `\\u003e` spell none of its letters"
        );
        assert!(
            !keys.may_hold(upper),
            "`\\u0041` is `A`, not one of its letters"
        );
        assert!(!keys.may_hold(none));
        // A string value that is the name is no key, but no search tells: it may hold one.
        let value = r#"{"x": "instances"}"#;
        let whole = Span::new(0, value.len());
        assert!(
            KeyHits::for_selectors(&names(&["instances"]), value, whole)
                .unwrap()
                .may_hold(whole)
        );
        // Asked again out of order, the searches start over and answer the same.
        assert!(keys.may_hold(plain));
        assert!(!keys.may_hold(none));
        assert!(keys.may_hold(escaped));
    }

    /// A query cut into parts descends from each element in turn, the searches set up once and
    /// started again inside each: every element answers as its own.
    #[test]
    fn searches_started_again_in_each_part_find_each_element_s_own() {
        let mut elements = Vec::new();
        let mut expected = Vec::new();
        for index in 0..3000 {
            elements.push(match index % 5 {
                0 => format!(r#"{{"x": {{"instances": {index}}}}}"#),
                1 => format!(r#"{{"inst\u0061nces": {index}}}"#),
                2 => format!(r#"{{"y": "\"instances\": {index}"}}"#),
                _ => format!(r#"{{"z": [{index}, {{"instance": 0}}]}}"#),
            });
            if index % 5 < 2 {
                expected.push(index.to_string());
            }
        }
        let text = format!("[\n  {}\n]", elements.join(",\n  "));
        let expected = format!("[{}]", expected.join(","));
        let document = Document::parse(&text).unwrap();
        let path = JsonPath::parse("$..instances").unwrap();
        for parts in [1, 2, 5] {
            let selected = crate::parts::forced(parts, || {
                path.select(&document, Limits::for_document(text.len()))
                    .and_then(|mut selection| selection.to_json(false))
                    .unwrap()
            });
            assert!(selected == expected, "{parts} parts select otherwise");
        }
    }

    #[test]
    fn only_plain_names_are_searched() {
        let text = r#"{"a": 1}"#;
        let root = Span::new(0, text.len());
        for unsearchable in [
            names(&["a\"b"]),
            names(&["a\\b"]),
            names(&["a\nb"]),
            names(&["é"]),
            vec![Selector::Wildcard],
            names(&[]),
            vec![Selector::Name("a".into()), Selector::Index(0)],
        ] {
            assert!(KeyHits::for_selectors(&unsearchable, text, root).is_none());
        }
        let slash = r#"{"x": {"a\/b": 1}, "y": {"a/c": 2}}"#;
        let mut keys =
            KeyHits::for_selectors(&names(&["a/b"]), slash, Span::new(0, slash.len())).unwrap();
        assert!(
            keys.may_hold(object_after(slash, "\"x\"")),
            "`\\/` spells its `/`"
        );
        assert!(!keys.may_hold(object_after(slash, "\"y\"")));
    }

    /// What the descendant segments select with the subtrees skipped is what they select in full:
    /// keys spelled with escapes, names in string values, repeated keys, nesting.
    #[test]
    fn descendant_names_select_every_member_however_spelled() {
        // Longer than the nodes the walk searches from, with a filler no name is in.
        let text = format!(
            r#"{{
  "filler": "{}",
  "a": {{"inst\u0061nces": 1, "deep": [{{"x": {{"instances": 2}}}}, {{"y": "\"instances\": 3"}}]}},
  "b": [{{"c": {{"a\/b": 4, "z": {{"\u0061/b": 5}}}}}}, {{"instances": 6, "instances": 7}}],
  "d": {{"x": "\u003c\u003e", "policy": "{{\"instances\":[]}}"}},
  "e": [{{"f": {{"inst\u0061nces": 9}}}}],
  "instances": {{"instances": 8}}
}}"#,
            "x".repeat(5000)
        );
        let document = Document::parse(&text).unwrap();
        let select = |path: &str| {
            JsonPath::parse(path)
                .unwrap()
                .select(&document, Limits::for_document(text.len()))
                .and_then(|mut selection| selection.to_json(false))
                .unwrap()
        };
        assert_eq!(select("$..instances"), r#"[{"instances":8},1,2,7,9,8]"#);
        assert_eq!(select("$..['a/b', 'x']"), r#"[{"instances":2},4,5,"<>"]"#);
        assert_eq!(select("$..policy"), r#"["{\"instances\":[]}"]"#);
        assert_eq!(select("$.d..instances"), "[]");
    }
}
