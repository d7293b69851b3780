//! Looking up a sorted list the way a walk reads it: forward through the text, so the entry for a
//! node is most often the one after the last found, or a few on. Looked for there first, then by
//! binary search; the answer is the binary search's either way.
//!
//! Why: a query over a large state looks up each instance in the lists the parser handed over
//! (its `attributes`, a noted member, whether it is masked); a binary search through a list of a
//! quarter of a million entries reads a dozen cache lines far apart for each.

use std::cell::Cell;

/// How many entries past the last answer are tried before searching the whole list.
const FORWARD_STEPS: usize = 8;

/// Where one walker's last look-up in one list landed.
#[derive(Debug, Default, Clone)]
pub(crate) struct Hint(Cell<usize>);

impl Hint {
    /// The index of the first entry of `list` whose key (by `key_of`; `list` sorted by it) is not
    /// below `key`, or the length of `list`: what `list.partition_point(|e| key_of(e) < key)` says.
    pub(crate) fn first_not_below<T, K: Ord + Copy>(
        &self,
        list: &[T],
        key: K,
        key_of: impl Fn(&T) -> K,
    ) -> usize {
        let mut at = self.0.get();
        // From the last answer only when everything before it is below `key`.
        if at <= list.len() && (at == 0 || key_of(&list[at - 1]) < key) {
            for _ in 0..FORWARD_STEPS {
                match list.get(at) {
                    Some(entry) if key_of(entry) < key => at += 1,
                    _ => {
                        self.0.set(at);
                        return at;
                    }
                }
            }
        }
        at = list.partition_point(|entry| key_of(entry) < key);
        self.0.set(at);
        at
    }

    /// The entry of `list` whose key is `key` (the first, should several be), if there is one.
    pub(crate) fn find<'l, T, K: Ord + Copy>(
        &self,
        list: &'l [T],
        key: K,
        key_of: impl Fn(&T) -> K,
    ) -> Option<&'l T> {
        let at = self.first_not_below(list, key, &key_of);
        list.get(at).filter(|entry| key_of(entry) == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_order_of_look_ups_answers_what_a_binary_search_answers() {
        let list: Vec<u32> = vec![
            2, 3, 3, 5, 8, 13, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 40,
        ];
        let keys: Vec<u32> = (0..45).collect();
        let orders: Vec<Vec<u32>> = vec![
            keys.clone(),
            keys.iter().rev().copied().collect(),
            keys.iter().map(|key| key * 7 % 45).collect(),
            keys.iter()
                .map(|key| [key / 2, 44 - key / 2][(key % 2) as usize])
                .collect(),
        ];
        for order in orders {
            let hint = Hint::default();
            for key in order {
                let expected = list.partition_point(|entry| *entry < key);
                assert_eq!(hint.first_not_below(&list, key, |e| *e), expected, "{key}");
                let found = hint.find(&list, key, |e| *e).copied();
                assert_eq!(found, list.contains(&key).then_some(key), "{key}");
            }
        }
        assert_eq!(Hint::default().find(&[] as &[u32], 1, |e| *e), None);
    }
}
