//! Go's reader keeps the last of repeated keys: the one rule for dropping the earlier ones, in one
//! pass. Dropping each earlier one as the next was read looked back at everything read so far,
//! quadratic in the number of keys: a state of 120,000 outputs took 29 s to read, and a 1 MB
//! instance of 60,000 keys 4 s to taint.

use std::collections::HashSet;
use std::hash::Hash;

/// `items` with only the last of each `key`, in the order of those last ones (where each would
/// stand had every earlier one been removed as the later one came).
pub(crate) fn last_of_each<T, K: Hash + Eq + ?Sized>(
    items: Vec<T>,
    key: impl Fn(&T) -> &K,
) -> Vec<T> {
    let mut seen = HashSet::with_capacity(items.len());
    let mut last: Vec<bool> = items
        .iter()
        .rev()
        .map(|item| seen.insert(key(item)))
        .collect();
    drop(seen);
    last.reverse();
    items
        .into_iter()
        .zip(last)
        .filter_map(|(item, last)| last.then_some(item))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_of_each_key_stays_where_the_last_was() {
        let items = vec![("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5), ("d", 6)];
        let kept = last_of_each(items, |item| item.0);
        assert_eq!(kept, [("a", 3), ("c", 4), ("b", 5), ("d", 6)]);
        // The same as removing the earlier one as each came, on many keys each seen twice.
        let items: Vec<(usize, usize)> = (0..2)
            .flat_map(|round| (0..5_000).map(move |key| (key * 7 % 5_000, round)))
            .collect();
        let mut one_by_one: Vec<(usize, usize)> = Vec::new();
        for &item in &items {
            one_by_one.retain(|kept| kept.0 != item.0);
            one_by_one.push(item);
        }
        assert_eq!(last_of_each(items, |item| &item.0), one_by_one);
        assert!(last_of_each(Vec::<(u8, u8)>::new(), |item| &item.0).is_empty());
    }
}
