//! A set of object member names, looked up fast enough to ask for every key of a large document as
//! a parse passes it (see `state::notes`): the names the scan's detectors read; and whether a key,
//! as written, is a name.
//!
//! Keys are compared decoded, as Go's reader (and so Terraform) decodes them: `"i\u0064"` is `id`.
//! A key with an escape is rare, so it is decoded only when it has one.

use std::cmp::Ordering;

use crate::json::Cursor;

/// Buckets of the filter's table: a power of two, well above the few dozen names a scan asks for,
/// so that most keys of an attributes object land in an empty bucket and cost two loads.
const BUCKETS: usize = 256;

/// Member names, looked up by a key's text as written (between the quotes, as
/// [`crate::json::trusted::members`] gives keys), decoded when it has an escape.
#[derive(Debug, Clone)]
pub struct MemberNames {
    names: Vec<Box<str>>,
    /// Each bucket's names, by their place in `names`.
    buckets: Vec<Vec<u32>>,
}

impl MemberNames {
    pub fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> MemberNames {
        let mut filter = MemberNames {
            names: Vec::new(),
            buckets: vec![Vec::new(); BUCKETS],
        };
        for name in names {
            // More names than a `u32` counts could not come from any catalog; they go unnoted.
            let Ok(place) = u32::try_from(filter.names.len()) else {
                break;
            };
            if filter.place_of(name.as_bytes()).is_none() {
                filter.buckets[bucket_of(name.as_bytes())].push(place);
                filter.names.push(name.into());
            }
        }
        filter
    }

    /// Is `name` (decoded) one of the names?
    #[inline]
    pub fn wants(&self, name: &[u8]) -> bool {
        self.place_of(name).is_some()
    }

    /// Where the key written `raw` (valid string content, between the quotes, with an escape:
    /// one without is its own name, for [`MemberNames::place_of`]) is among the names, decoded.
    pub(crate) fn place_of_escaped(&self, raw: &[u8]) -> Option<u32> {
        let decoded = decoded(std::str::from_utf8(raw).ok()?)?;
        self.place_of(decoded.as_bytes())
    }

    /// Where `name` (decoded) is among the names.
    #[inline]
    pub(crate) fn place_of(&self, key: &[u8]) -> Option<u32> {
        self.buckets[bucket_of(key)]
            .iter()
            .copied()
            .find(|&place| *self.names[place as usize].as_bytes() == *key)
    }

    /// The name at `place`.
    pub(crate) fn name(&self, place: u32) -> &str {
        &self.names[place as usize]
    }

    /// Every name, with its place.
    pub(crate) fn names(&self) -> impl Iterator<Item = (u32, &str)> {
        (0..).zip(self.names.iter().map(|name| &**name))
    }
}

/// Whether `key` (decoded) names the field `name` (ASCII, as the state's fields are named) the way
/// Go's `encoding/json`, and so Terraform's reader, matches a key to a struct field when none is
/// the name exactly: letters in any case, by Unicode's simple case folding, under which two
/// letters that are not ASCII fold to ASCII ones: `ſ` (U+017F) to `s`, and the Kelvin sign `K`
/// (U+212A) to `k`. (`"ſensitive"` is an output's `sensitive` to Terraform; ignoring only ASCII
/// case, statectl read no such member and showed the output's value.)
pub fn folds_to_field(key: &str, name: &str) -> bool {
    let mut name = name.bytes();
    key.chars().all(|character| {
        let Some(byte) = name.next() else {
            return false;
        };
        match character {
            '\u{17F}' => byte.eq_ignore_ascii_case(&b's'),
            '\u{212A}' => byte.eq_ignore_ascii_case(&b'k'),
            _ => u8::try_from(character).is_ok_and(|ascii| ascii.eq_ignore_ascii_case(&byte)),
        }
    }) && name.next().is_none()
}

/// Whether the key written `raw` (valid string content, between the quotes) is `name` once
/// decoded. Decoding never lengthens a key, and shortens every key with an escape, so only a
/// longer key with an escape is decoded.
pub fn same_name(raw: &str, name: &str) -> bool {
    match raw.len().cmp(&name.len()) {
        Ordering::Less => false,
        Ordering::Equal => raw == name && !raw.contains('\\'),
        Ordering::Greater => raw.contains('\\') && decoded(raw).is_some_and(|key| key == name),
    }
}

/// The key written `raw` (string content, between the quotes), decoded; `None` when it is not
/// valid string content.
fn decoded(raw: &str) -> Option<String> {
    let quoted = format!("\"{raw}\"");
    let mut cursor = Cursor::new(&quoted);
    let (key, _) = cursor.string().ok()?;
    let key = key.into_owned();
    cursor.finish().ok()?;
    Some(key)
}

/// A key's bucket, from its length and its first and last bytes (cheap, and spread enough for
/// attribute names, which share prefixes and suffixes but rarely all three).
#[inline]
fn bucket_of(key: &[u8]) -> usize {
    let first = key.first().copied().unwrap_or(0) as usize;
    let last = key.last().copied().unwrap_or(0) as usize;
    (key.len().wrapping_mul(31) ^ first.wrapping_mul(7) ^ last.wrapping_mul(131)) % BUCKETS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_knows_its_names_and_no_others() {
        let filter = MemberNames::new(["id", "state", "id", "", "a_rather_long_attribute_name"]);
        for name in ["id", "state", "", "a_rather_long_attribute_name"] {
            assert!(filter.wants(name.as_bytes()), "{name}");
            assert_eq!(filter.name(filter.place_of(name.as_bytes()).unwrap()), name);
        }
        for name in [
            "Id",
            "ids",
            "i",
            "stat",
            "state ",
            "a_rather_long_attribute_nam",
        ] {
            assert!(!filter.wants(name.as_bytes()), "{name}");
        }
        assert_eq!(filter.names.len(), 4, "a repeated name is kept once");
    }

    #[test]
    fn a_key_folds_to_a_field_as_go_folds_it() {
        for (key, name, folds) in [
            ("sensitive", "sensitive", true),
            ("SENSITIVE", "sensitive", true),
            ("\u{17F}ensitive", "sensitive", true),
            ("\u{17F}EN\u{17F}ITIVE", "sensitive", true),
            ("index_\u{212A}ey", "index_key", true),
            ("\u{212A}ey", "key", true),
            ("sensitiv", "sensitive", false),
            ("sensitivee", "sensitive", false),
            ("\u{17F}", "k", false),
            ("\u{212A}", "s", false),
            // A dotted capital I folds to no ASCII letter (Go's simple folding has it alone).
            ("\u{130}d", "id", false),
            ("\u{131}d", "id", false),
            ("\u{E9}", "e", false),
            ("", "", true),
            ("", "a", false),
            ("a", "", false),
            ("index-key", "index_key", false),
        ] {
            assert_eq!(folds_to_field(key, name), folds, "{key:?} {name:?}");
        }
    }

    #[test]
    fn a_key_is_a_name_once_decoded() {
        let filter = MemberNames::new(["id", "state", "é"]);
        for (raw, name) in [
            ("id", Some("id")),
            ("i\\u0064", Some("id")),
            ("\\u0069\\u0064", Some("id")),
            ("st\\u0061te", Some("state")),
            ("\\u00e9", Some("é")),
            ("i\\u0064 ", None),
            ("i\\\\u0064", None),
            ("i\\\\d", None),
            ("i\\n", None),
        ] {
            let place = filter.place_of_escaped(raw.as_bytes());
            assert_eq!(place.map(|place| filter.name(place)), name, "{raw}");
            for candidate in ["id", "state", "é", "i\\u0064", "i\\d"] {
                let decoded = decoded(raw).unwrap();
                assert_eq!(
                    same_name(raw, candidate),
                    decoded == candidate,
                    "{raw} {candidate}"
                );
            }
        }
        // Not valid string content: never a name.
        assert!(!same_name("i\\x", "i"));
        assert_eq!(filter.place_of_escaped(b"i\\"), None);
    }
}
