//! The pk index of an entity table: which slot holds which record.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry as TextEntry;
use rustc_hash::FxBuildHasher;

use super::numbers::Numbers;
#[cfg(any(test, feature = "tabs", feature = "persist"))]
use crate::pk::Pk;
use crate::pk::PkRef;

/// Slots by pk. Canonical numbers, the pks of most APIs, live in an index
/// of their own keyed by the `u64` ([`Numbers`]: a vector while they are
/// dense), so a read by a numeric pk finds one integer. Other pks are
/// kept as [`TextKeys`], and `texts` finds a key's place there by its hash
/// (4 bytes a bucket, so that growing the table moves little).
#[derive(Clone, Default)]
pub(crate) struct PkIndex {
    numbers: Numbers,
    texts: HashTable<u32>,
    keys: TextKeys,
    /// Room asked for before the first pk showed which map needs it.
    planned: usize,
}

/// The text pks of a table and their slots, in the order they came. Their
/// text lies end to end in one string, so a new pk costs no allocation of
/// its own (a browser's allocator makes one slow, and a 32-bit target keeps
/// only 12 bytes of text inline) and 8 bytes beside its text.
#[derive(Clone, Default)]
struct TextKeys {
    text: String,
    /// Where each key's text starts in `text`, and after the last key,
    /// where its text ends: a key ends where the next one starts. Empty
    /// while there are no keys.
    starts: Vec<u32>,
    slots: Vec<u32>,
}

impl TextKeys {
    fn len(&self) -> usize {
        self.slots.len()
    }

    /// The bytes of key `at`'s text.
    #[inline]
    fn bytes(&self, at: u32) -> &[u8] {
        let at = at as usize;
        &self.text.as_bytes()[self.starts[at] as usize..self.starts[at + 1] as usize]
    }

    /// The text of key `at`.
    fn text(&self, at: u32) -> &str {
        let at = at as usize;
        &self.text[self.starts[at] as usize..self.starts[at + 1] as usize]
    }

    /// The slot of key `at`.
    #[inline]
    fn slot(&self, at: u32) -> u32 {
        self.slots[at as usize]
    }

    fn push(&mut self, text: &str, slot: u32) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.text.push_str(text);
        let end = u32::try_from(self.text.len()).expect("text pks of one table fit in 4 GiB");
        self.starts.push(end);
        self.slots.push(slot);
    }

    /// Makes room for `additional` more keys, of about 16 bytes each.
    fn reserve(&mut self, additional: usize) {
        self.starts.reserve(additional + 1);
        self.slots.reserve(additional);
        self.text.reserve(additional.saturating_mul(16));
    }

    /// Keeps the keys whose slot `keep` maps to `Some` slot, now that one.
    fn retain(&mut self, mut keep: impl FnMut(u32) -> Option<u32>) {
        let mut kept = TextKeys::default();
        for at in 0..self.len() as u32 {
            if let Some(slot) = keep(self.slot(at)) {
                kept.push(self.text(at), slot);
            }
        }
        kept.text.shrink_to_fit();
        kept.starts.shrink_to_fit();
        kept.slots.shrink_to_fit();
        *self = kept;
    }
}

/// The hash of a text pk, from its bytes.
fn hash(text: &[u8]) -> u64 {
    FxBuildHasher.hash_one(text)
}

impl PkIndex {
    /// The slot of `pk`.
    #[inline(always)]
    pub fn get(&self, pk: PkRef<'_>) -> Option<u32> {
        match pk {
            PkRef::Number(n) => self.numbers.get(n),
            PkRef::Text(text) => {
                let keys = &self.keys;
                let text = text.as_bytes();
                self.texts
                    .find(hash(text), |&at| keys.bytes(at) == text)
                    .map(|&at| keys.slot(at))
            }
        }
    }

    /// The slot of `pk`, or `None` after making `fresh` its slot (a text
    /// pk's text is copied into the index). The numeric path is inlined
    /// into the caller; the text path stays one function, so that each
    /// table type does not carry a copy.
    #[inline]
    pub fn get_or_insert(&mut self, pk: PkRef<'_>, fresh: u32) -> Option<u32> {
        let planned = std::mem::take(&mut self.planned);
        match pk {
            PkRef::Number(n) => self.numbers.get_or_insert(n, fresh, planned),
            PkRef::Text(text) => self.text_get_or_insert(text, fresh, planned),
        }
    }

    /// [`get_or_insert`](Self::get_or_insert) for a text pk.
    #[inline(never)]
    fn text_get_or_insert(&mut self, text: &str, fresh: u32, planned: usize) -> Option<u32> {
        let keys = &mut self.keys;
        if planned > 0 {
            keys.reserve(planned);
            self.texts.reserve(planned, |&at| hash(keys.bytes(at)));
        }
        let bytes = text.as_bytes();
        let entry = self.texts.entry(
            hash(bytes),
            |&at| keys.bytes(at) == bytes,
            |&at| hash(keys.bytes(at)),
        );
        match entry {
            TextEntry::Occupied(entry) => Some(keys.slot(*entry.get())),
            TextEntry::Vacant(entry) => {
                let at = u32::try_from(keys.len()).unwrap_or(u32::MAX);
                entry.insert(at);
                keys.push(text, fresh);
                None
            }
        }
    }

    /// Forgets every pk whose slot is `len` or later (the slots a failed
    /// write added). Walks the whole index: a failure path only.
    pub fn retain_below(&mut self, len: usize) {
        self.numbers.retain(|slot| (*slot as usize) < len);
        self.keys
            .retain(|slot| ((slot as usize) < len).then_some(slot));
        self.reindex_texts();
    }

    /// Gives each pk the slot `moved[slot]`, forgetting the pks whose slot
    /// moved to `u32::MAX` (dropped).
    pub fn renumber(&mut self, moved: &[u32]) {
        self.numbers.retain(|slot| {
            *slot = moved[*slot as usize];
            *slot != u32::MAX
        });
        self.keys.retain(|slot| {
            let slot = moved[slot as usize];
            (slot != u32::MAX).then_some(slot)
        });
        self.numbers.shrink_to_fit();
        self.reindex_texts();
    }

    /// Calls `f` with each pk and its slot.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub fn each(&self, mut f: impl FnMut(Pk, u32)) {
        self.numbers.each(|pk, slot| f(Pk::from(pk), slot));
        for at in 0..self.keys.len() as u32 {
            f(Pk::from(self.keys.text(at)), self.keys.slot(at));
        }
    }

    /// Makes room for `additional` more pks (a first load), in the map the
    /// next pk goes to.
    pub fn reserve(&mut self, additional: usize) {
        self.planned = additional;
    }

    /// Gives back the room the pks do not use, and forgets room asked for.
    pub fn shrink_to_fit(&mut self) {
        self.planned = 0;
        self.numbers.shrink_to_fit();
        let keys = &mut self.keys;
        keys.text.shrink_to_fit();
        keys.starts.shrink_to_fit();
        keys.slots.shrink_to_fit();
        self.texts.shrink_to_fit(|&at| hash(keys.bytes(at)));
    }

    /// Builds `texts` again from `keys`, after keys were dropped.
    fn reindex_texts(&mut self) {
        let keys = &self.keys;
        self.texts = HashTable::with_capacity(keys.len());
        for at in 0..keys.len() as u32 {
            self.texts
                .insert_unique(hash(keys.bytes(at)), at, |&at| hash(keys.bytes(at)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_texts_are_found_apart_and_forgotten_by_slot() {
        let mut index = PkIndex::default();
        assert_eq!(index.get_or_insert(PkRef::Number(5), 0), None);
        assert_eq!(index.get_or_insert(PkRef::Text("five"), 1), None);
        assert_eq!(
            index.get_or_insert(Pk::from("5").as_ref(), 9),
            Some(0),
            "\"5\" is the pk 5"
        );
        assert_eq!(index.get(PkRef::Text("five")), Some(1));
        index.retain_below(1);
        assert_eq!(index.get(PkRef::Number(5)), Some(0));
        assert_eq!(index.get(PkRef::Text("five")), None);
    }

    #[test]
    fn text_pks_survive_growth_and_follow_renumbering() {
        let mut index = PkIndex::default();
        for slot in 0..1000u32 {
            let pk = Pk::from(format!("project-{slot}").as_str());
            assert_eq!(index.get_or_insert(pk.as_ref(), slot), None);
        }
        let pk = |n: u32| Pk::from(format!("project-{n}").as_str());
        assert_eq!(
            index.get_or_insert(pk(502).as_ref(), 7777),
            Some(502),
            "found, not added"
        );
        assert_eq!(index.get(pk(999).as_ref()), Some(999));

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
        assert_eq!(index.get(pk(0).as_ref()), None);
        assert_eq!(index.get(pk(1).as_ref()), Some(0));
        assert_eq!(index.get(pk(502).as_ref()), Some(moved[502]));
        assert_eq!(index.get(pk(999).as_ref()), None);
        assert_eq!(
            index.get_or_insert(pk(3).as_ref(), 5000),
            None,
            "a dropped pk comes back"
        );
        assert_eq!(index.get(pk(3).as_ref()), Some(5000));
    }
}
