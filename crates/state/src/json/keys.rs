//! A set of object member names, looked up fast enough to ask for every key of a large document as
//! a parse passes it (see `state::notes`): the names the scan's detectors read.

/// Buckets of the filter's table: a power of two, well above the few dozen names a scan asks for,
/// so that most keys of an attributes object land in an empty bucket and cost two loads.
const BUCKETS: usize = 256;

/// Member names, compared with raw key text (between the quotes, escapes not decoded, as
/// [`crate::json::trusted::members`] gives keys).
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

    /// Is `key` (raw key text) one of the names?
    #[inline]
    pub fn wants(&self, key: &[u8]) -> bool {
        self.place_of(key).is_some()
    }

    /// Where `key` is among the names.
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
}
