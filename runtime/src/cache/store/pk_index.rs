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
    /// Room asked for before the first pk showed which map needs it.
    planned: usize,
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
        let planned = std::mem::take(&mut self.planned);
        match pk.as_ref() {
            PkRef::Number(n) => {
                self.numbers.reserve(planned);
                vacant_or(self.numbers.entry(n), fresh)
            }
            PkRef::Text(text) => {
                self.texts.reserve(planned);
                vacant_or(self.texts.entry(CompactString::from(text)), fresh)
            }
        }
    }

    /// Forgets every pk whose slot is `len` or later (the slots a failed
    /// write added). Walks the whole index: a failure path only.
    pub fn retain_below(&mut self, len: usize) {
        self.numbers.retain(|_, slot| (*slot as usize) < len);
        self.texts.retain(|_, slot| (*slot as usize) < len);
    }

    /// Gives each pk the slot `moved[slot]`, forgetting the pks whose slot
    /// moved to `u32::MAX` (dropped).
    pub fn renumber(&mut self, moved: &[u32]) {
        self.numbers.retain(|_, slot| {
            *slot = moved[*slot as usize];
            *slot != u32::MAX
        });
        self.texts.retain(|_, slot| {
            *slot = moved[*slot as usize];
            *slot != u32::MAX
        });
        self.numbers.shrink_to_fit();
        self.texts.shrink_to_fit();
    }

    /// Makes room for `additional` more pks (a first load), in the map the
    /// next pk goes to.
    pub fn reserve(&mut self, additional: usize) {
        self.planned = additional;
    }
}

/// The slot of an occupied entry, or `None` after making `fresh` the slot
/// of a vacant one.
fn vacant_or<K>(entry: Entry<'_, K, u32>, fresh: u32) -> Option<u32> {
    match entry {
        Entry::Occupied(entry) => Some(*entry.get()),
        Entry::Vacant(entry) => {
            entry.insert(fresh);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_texts_are_found_apart_and_forgotten_by_slot() {
        let mut index = PkIndex::default();
        assert_eq!(index.get_or_insert(&Pk::from(5u64), 0), None);
        assert_eq!(index.get_or_insert(&Pk::from("five"), 1), None);
        assert_eq!(
            index.get_or_insert(&Pk::from("5"), 9),
            Some(0),
            "\"5\" is the pk 5"
        );
        assert_eq!(index.get(&Pk::from("five")), Some(1));
        index.retain_below(1);
        assert_eq!(index.get(&Pk::from(5u64)), Some(0));
        assert_eq!(index.get(&Pk::from("five")), None);
    }
}
