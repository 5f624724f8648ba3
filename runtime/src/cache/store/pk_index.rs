//! The pk index of an entity table: which slot holds which record.

use std::hash::BuildHasher;

use compact_str::CompactString;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry as TextEntry;
use rustc_hash::FxBuildHasher;

use super::numbers::Numbers;
use crate::pk::{Pk, PkRef};

/// Slots by pk. Canonical numbers, the pks of most APIs, live in an index
/// of their own keyed by the `u64` ([`Numbers`]: a vector while they are
/// dense), so a read by a numeric pk finds one integer. Other pks are kept in `keys`, in the order they
/// came, with their slots; `texts` finds a key's place there by its hash
/// (4 bytes a bucket, so that growing the table moves little).
#[derive(Clone, Default)]
pub(crate) struct PkIndex {
    numbers: Numbers,
    texts: HashTable<u32>,
    keys: Vec<(CompactString, u32)>,
    /// Room asked for before the first pk showed which map needs it.
    planned: usize,
}

fn hash(text: &str) -> u64 {
    FxBuildHasher.hash_one(text)
}

impl PkIndex {
    /// The slot of `pk`.
    #[inline(always)]
    pub fn get(&self, pk: &Pk) -> Option<u32> {
        match pk.as_ref() {
            PkRef::Number(n) => self.numbers.get(n),
            PkRef::Text(text) => {
                let keys = &self.keys;
                self.texts
                    .find(hash(text), |&at| keys[at as usize].0 == text)
                    .map(|&at| keys[at as usize].1)
            }
        }
    }

    /// The slot of `pk`, or `None` after making `fresh` its slot (a text
    /// pk's own string becomes the key, taken from `pk`: no copy of it is
    /// made). The numeric path is inlined into the caller; the text path
    /// stays one function, so that each table type does not carry a copy.
    #[inline]
    pub fn get_or_insert(&mut self, pk: &mut Pk, fresh: u32) -> Option<u32> {
        let planned = std::mem::take(&mut self.planned);
        match pk.as_ref() {
            PkRef::Number(n) => self.numbers.get_or_insert(n, fresh, planned),
            PkRef::Text(_) => self.text_get_or_insert(pk, fresh, planned),
        }
    }

    /// [`get_or_insert`](Self::get_or_insert) for a text pk.
    #[inline(never)]
    fn text_get_or_insert(&mut self, pk: &mut Pk, fresh: u32, planned: usize) -> Option<u32> {
        let PkRef::Text(text) = pk.as_ref() else {
            unreachable!("called for text pks only")
        };
        let keys = &mut self.keys;
        if planned > 0 {
            keys.reserve(planned);
            self.texts
                .reserve(planned, |&at| hash(&keys[at as usize].0));
        }
        let entry = self.texts.entry(
            hash(text),
            |&at| keys[at as usize].0 == text,
            |&at| hash(&keys[at as usize].0),
        );
        match entry {
            TextEntry::Occupied(entry) => Some(keys[*entry.get() as usize].1),
            TextEntry::Vacant(entry) => {
                let at = u32::try_from(keys.len()).unwrap_or(u32::MAX);
                entry.insert(at);
                keys.push((pk.take_text(), fresh));
                None
            }
        }
    }

    /// Forgets every pk whose slot is `len` or later (the slots a failed
    /// write added). Walks the whole index: a failure path only.
    pub fn retain_below(&mut self, len: usize) {
        self.numbers.retain(|slot| (*slot as usize) < len);
        self.keys.retain(|(_, slot)| (*slot as usize) < len);
        self.reindex_texts();
    }

    /// Gives each pk the slot `moved[slot]`, forgetting the pks whose slot
    /// moved to `u32::MAX` (dropped).
    pub fn renumber(&mut self, moved: &[u32]) {
        self.numbers.retain(|slot| {
            *slot = moved[*slot as usize];
            *slot != u32::MAX
        });
        self.keys.retain_mut(|(_, slot)| {
            *slot = moved[*slot as usize];
            *slot != u32::MAX
        });
        self.numbers.shrink_to_fit();
        self.keys.shrink_to_fit();
        self.reindex_texts();
    }

    /// Calls `f` with each pk and its slot.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub fn each(&self, mut f: impl FnMut(Pk, u32)) {
        self.numbers.each(|pk, slot| f(Pk::from(pk), slot));
        for (text, slot) in &self.keys {
            f(Pk::from(text.as_str()), *slot);
        }
    }

    /// Makes room for `additional` more pks (a first load), in the map the
    /// next pk goes to.
    pub fn reserve(&mut self, additional: usize) {
        self.planned = additional;
    }

    /// Builds `texts` again from `keys`, after keys were dropped.
    fn reindex_texts(&mut self) {
        let keys = &self.keys;
        self.texts = HashTable::with_capacity(keys.len());
        for (at, (text, _)) in keys.iter().enumerate() {
            self.texts
                .insert_unique(hash(text), at as u32, |&at| hash(&keys[at as usize].0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_texts_are_found_apart_and_forgotten_by_slot() {
        let mut index = PkIndex::default();
        assert_eq!(index.get_or_insert(&mut Pk::from(5u64), 0), None);
        assert_eq!(index.get_or_insert(&mut Pk::from("five"), 1), None);
        assert_eq!(
            index.get_or_insert(&mut Pk::from("5"), 9),
            Some(0),
            "\"5\" is the pk 5"
        );
        assert_eq!(index.get(&Pk::from("five")), Some(1));
        index.retain_below(1);
        assert_eq!(index.get(&Pk::from(5u64)), Some(0));
        assert_eq!(index.get(&Pk::from("five")), None);
    }

    #[test]
    fn text_pks_survive_growth_and_follow_renumbering() {
        let mut index = PkIndex::default();
        for slot in 0..1000u32 {
            let pk = Pk::from(format!("project-{slot}").as_str());
            assert_eq!(index.get_or_insert(&mut pk.clone(), slot), None);
        }
        let pk = |n: u32| Pk::from(format!("project-{n}").as_str());
        assert_eq!(
            index.get_or_insert(&mut pk(502), 7777),
            Some(502),
            "found, not added"
        );
        assert_eq!(index.get(&pk(999)), Some(999));

        // Every third slot dropped; the others move down.
        let mut next = 0;
        let moved: Vec<u32> = (0..1000u32)
            .map(|slot| {
                if slot % 3 == 0 {
                    u32::MAX
                } else {
                    next += 1;
                    next - 1
                }
            })
            .collect();
        index.renumber(&moved);
        assert_eq!(index.get(&pk(0)), None);
        assert_eq!(index.get(&pk(1)), Some(0));
        assert_eq!(index.get(&pk(502)), Some(moved[502]));
        assert_eq!(index.get(&pk(999)), None);
        assert_eq!(
            index.get_or_insert(&mut pk(3), 5000),
            None,
            "a dropped pk comes back"
        );
        assert_eq!(index.get(&pk(3)), Some(5000));
    }
}
