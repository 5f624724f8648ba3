//! The pk index of an entity table: which slot holds which record.

use std::collections::hash_map::Entry;

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use crate::pk::{Pk, PkRef};

/// Slots by pk. Canonical numbers, the pks of most APIs, live in a map of
/// their own keyed by the `u64`, so a read by a numeric pk hashes and
/// compares one integer; other pks are keyed by their text.
#[derive(Clone, Default)]
pub(crate) struct PkIndex {
    numbers: FxHashMap<u64, u32>,
    texts: FxHashMap<CompactString, u32>,
}

impl PkIndex {
    /// The slot of `pk`.
    #[inline(always)]
    pub fn get(&self, pk: &Pk) -> Option<u32> {
        match pk.as_ref() {
            PkRef::Number(n) => self.numbers.get(&n).copied(),
            PkRef::Text(text) => self.texts.get(text).copied(),
        }
    }

    /// The slot of `pk`, or `None` after making `fresh` its slot.
    pub fn get_or_insert(&mut self, pk: &Pk, fresh: u32) -> Option<u32> {
        match pk.as_ref() {
            PkRef::Number(n) => match self.numbers.entry(n) {
                Entry::Occupied(entry) => Some(*entry.get()),
                Entry::Vacant(entry) => {
                    entry.insert(fresh);
                    None
                }
            },
            PkRef::Text(text) => match self.texts.get(text) {
                Some(&slot) => Some(slot),
                None => {
                    self.texts.insert(CompactString::from(text), fresh);
                    None
                }
            },
        }
    }

    pub fn remove(&mut self, pk: &Pk) {
        match pk.as_ref() {
            PkRef::Number(n) => drop(self.numbers.remove(&n)),
            PkRef::Text(text) => drop(self.texts.remove(text)),
        }
    }

    /// Makes room for `additional` more numeric pks (a first load; text
    /// pks grow as needed).
    pub fn reserve(&mut self, additional: usize) {
        self.numbers.reserve(additional);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_texts_are_found_and_removed_apart() {
        let mut index = PkIndex::default();
        assert_eq!(index.get_or_insert(&Pk::from(5u64), 0), None);
        assert_eq!(index.get_or_insert(&Pk::from("five"), 1), None);
        assert_eq!(
            index.get_or_insert(&Pk::from("5"), 9),
            Some(0),
            "\"5\" is the pk 5"
        );
        assert_eq!(index.get(&Pk::from("five")), Some(1));
        index.remove(&Pk::from(5u64));
        assert_eq!(index.get(&Pk::from(5u64)), None);
        assert_eq!(index.get(&Pk::from("five")), Some(1));
    }
}
