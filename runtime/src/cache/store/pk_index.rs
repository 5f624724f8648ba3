//! The pk index of an entity table: which slot holds which record.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::numbers::Numbers;
#[cfg(any(test, feature = "tabs", feature = "persist"))]
use crate::pk::Pk;
use crate::pk::PkRef;

/// Where the index reads the text pk of a slot: its record's pk field,
/// or `None` when the slot holds no record (or one whose pk is not a
/// field's text, such as a pk made of two fields).
pub(crate) type LentTexts<'t, 'r> = &'t dyn Fn(u32) -> Option<&'r str>;

/// Slots by pk. Canonical numbers, the pks of most APIs, live in an index
/// of their own keyed by the `u64` ([`Numbers`]: a vector while they are
/// dense), so a read by a numeric pk finds one integer. Other pks are
/// found by the hash of their text in `texts`, which holds slot numbers
/// only (4 bytes a bucket): a slot's text is its record's own pk field,
/// read through [`LentTexts`], so a table keeps no second copy of its pks
/// (a 36-byte UUID costs the index 4 bytes, not 44). The few texts no
/// record holds are kept in `kept`.
#[derive(Clone, Default)]
pub(crate) struct PkIndex {
    numbers: Numbers,
    texts: HashTable<u32>,
    /// The text pks of slots whose record does not lend it: a slot with
    /// no record (deleted, invalidated, an optimistic create's once its
    /// layer goes) or a record whose pk is no field's text. A slot's pk
    /// never changes, so an entry stays right until the slot goes.
    kept: FxHashMap<u32, Box<str>>,
    /// Room asked for before the first pk showed which map needs it.
    planned: usize,
}

/// The hash of a text pk, from its bytes.
fn hash(text: &[u8]) -> u64 {
    FxBuildHasher.hash_one(text)
}

/// The text pk of `slot`: lent by its record, or kept.
#[inline]
fn text_of<'a, 'l: 'a, L>(kept: &'a FxHashMap<u32, Box<str>>, lent: &L, slot: u32) -> &'a str
where
    L: Fn(u32) -> Option<&'l str> + ?Sized,
{
    match lent(slot) {
        Some(text) => text,
        None => kept.get(&slot).map_or("", |text| text),
    }
}

impl PkIndex {
    /// The slot of `pk`. Generic over `lent`, so that reading a record's
    /// pk field inlines into the lookup.
    #[inline(always)]
    pub fn get<'l, L>(&self, pk: PkRef<'_>, lent: &L) -> Option<u32>
    where
        L: Fn(u32) -> Option<&'l str>,
    {
        match pk {
            PkRef::Number(n) => self.numbers.get(n),
            PkRef::Text(text) => self.text_find(text, hash(text.as_bytes()), lent),
        }
    }

    /// The slot of the text pk `text`, whose hash is `hash`.
    #[inline]
    fn text_find<'l, L>(&self, text: &str, hash: u64, lent: &L) -> Option<u32>
    where
        L: Fn(u32) -> Option<&'l str> + ?Sized,
    {
        let kept = &self.kept;
        self.texts
            .find(hash, |&slot| text_of(kept, lent, slot) == text)
            .copied()
    }

    /// The slot of `pk`, or `None` after making `fresh` its slot. `lends`
    /// says whether the record the caller puts in `fresh` holds the text
    /// of a text pk (else the index keeps a copy). Finding a pk inlines
    /// into the caller; adding a text pk stays one function, so that each
    /// table type does not carry a copy.
    #[inline]
    pub fn get_or_insert<'l, L>(
        &mut self,
        pk: PkRef<'_>,
        fresh: u32,
        lends: bool,
        lent: &L,
    ) -> Option<u32>
    where
        L: Fn(u32) -> Option<&'l str>,
    {
        match pk {
            PkRef::Number(n) => {
                let planned = std::mem::take(&mut self.planned);
                self.numbers.get_or_insert(n, fresh, planned)
            }
            PkRef::Text(text) => {
                let hash = hash(text.as_bytes());
                let found = self.text_find(text, hash, lent);
                if found.is_none() {
                    self.text_insert(text, hash, fresh, lends, lent);
                }
                found
            }
        }
    }

    /// Adds the text pk `text`, whose hash is `hash` and which the index
    /// does not hold, in slot `fresh`.
    #[inline(never)]
    fn text_insert(
        &mut self,
        text: &str,
        hash: u64,
        fresh: u32,
        lends: bool,
        lent: LentTexts<'_, '_>,
    ) {
        let planned = std::mem::take(&mut self.planned);
        let kept = &self.kept;
        let rehash = |&slot: &u32| self::hash(text_of(kept, lent, slot).as_bytes());
        if planned > 0 {
            self.texts.reserve(planned, rehash);
        }
        self.texts.insert_unique(hash, fresh, rehash);
        if !lends {
            self.kept.insert(fresh, text.into());
        }
    }

    /// Keeps the text of `pk`, the pk of `slot`, for when the slot holds
    /// no record: before a write leaves the slot without one.
    pub fn keep(&mut self, slot: u32, pk: PkRef<'_>) {
        if let PkRef::Text(text) = pk {
            self.kept.entry(slot).or_insert_with(|| text.into());
        }
    }

    /// Keeps the text pk `slot`'s record lends now, for when the slot
    /// holds no record (an optimistic create's, once its layer goes).
    pub fn keep_lent(&mut self, slot: u32, lent: LentTexts<'_, '_>) {
        if let Some(text) = lent(slot) {
            self.kept.entry(slot).or_insert_with(|| text.into());
        }
    }

    /// Forgets every pk whose slot is `len` or later (the slots a failed
    /// write added), once the table holds only the slots below `len`.
    /// Walks the whole index: a failure path only.
    pub fn retain_below(&mut self, len: usize, lent: LentTexts<'_, '_>) {
        let below = |slot: u32| ((slot as usize) < len).then_some(slot);
        self.numbers.retain(|slot| (*slot as usize) < len);
        self.reindex_texts(below, lent);
    }

    /// Gives each pk the slot `moved[slot]`, forgetting the pks whose slot
    /// moved to `u32::MAX` (dropped), once the table's slots have moved.
    pub fn renumber(&mut self, moved: &[u32], lent: LentTexts<'_, '_>) {
        self.numbers.retain(|slot| {
            *slot = moved[*slot as usize];
            *slot != u32::MAX
        });
        self.numbers.shrink_to_fit();
        let moved_to = |slot: u32| Some(moved[slot as usize]).filter(|&to| to != u32::MAX);
        self.reindex_texts(moved_to, lent);
    }

    /// Calls `f` with each pk and its slot.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub fn each(&self, lent: LentTexts<'_, '_>, mut f: impl FnMut(Pk, u32)) {
        self.numbers.each(|pk, slot| f(Pk::from(pk), slot));
        for &slot in &self.texts {
            f(Pk::from(text_of(&self.kept, lent, slot)), slot);
        }
    }

    /// Makes room for `additional` more pks (a first load), in the map the
    /// next pk goes to.
    pub fn reserve(&mut self, additional: usize) {
        self.planned = additional;
    }

    /// Gives back the room the pks do not use, and forgets room asked for.
    pub fn shrink_to_fit(&mut self, lent: LentTexts<'_, '_>) {
        self.planned = 0;
        self.numbers.shrink_to_fit();
        let kept = &self.kept;
        self.texts
            .shrink_to_fit(|&slot| hash(text_of(kept, lent, slot).as_bytes()));
        self.kept.shrink_to_fit();
    }

    /// Builds `texts` and `kept` again with each text pk's slot `to(slot)`
    /// (the slot it has now), dropping those `to` maps to `None`. `lent`
    /// reads the slots as they are now; a kept text whose slot's record
    /// lends it now is dropped.
    fn reindex_texts(&mut self, to: impl Fn(u32) -> Option<u32>, lent: LentTexts<'_, '_>) {
        let mut kept = FxHashMap::default();
        for (slot, text) in self.kept.drain() {
            if let Some(slot) = to(slot)
                && lent(slot).is_none()
            {
                kept.insert(slot, text);
            }
        }
        let slots: Vec<u32> = self.texts.iter().filter_map(|&slot| to(slot)).collect();
        let mut texts = HashTable::with_capacity(slots.len());
        for slot in slots {
            let rehash = |&slot: &u32| hash(text_of(&kept, lent, slot).as_bytes());
            texts.insert_unique(rehash(&slot), slot, rehash);
        }
        self.texts = texts;
        self.kept = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of slots as a table's records would lend them: `None`
    /// for a slot with no record.
    fn records<'t>(texts: &'t [Option<String>]) -> impl Fn(u32) -> Option<&'t str> + Copy + 't {
        |slot| texts.get(slot as usize)?.as_deref()
    }

    #[test]
    fn numbers_and_texts_are_found_apart_and_forgotten_by_slot() {
        let mut index = PkIndex::default();
        let slots = vec![None, Some("five".to_owned())];
        let lent = records(&slots);
        assert_eq!(index.get_or_insert(PkRef::Number(5), 0, false, &lent), None);
        assert_eq!(
            index.get_or_insert(PkRef::Text("five"), 1, true, &lent),
            None
        );
        assert_eq!(
            index.get_or_insert(Pk::from("5").as_ref(), 9, true, &lent),
            Some(0),
            "\"5\" is the pk 5"
        );
        assert_eq!(index.get(PkRef::Text("five"), &lent), Some(1));
        let slots = &slots[..1];
        let lent = records(slots);
        index.retain_below(1, &lent);
        assert_eq!(index.get(PkRef::Number(5), &lent), Some(0));
        assert_eq!(index.get(PkRef::Text("five"), &lent), None);
    }

    #[test]
    fn text_pks_survive_growth_and_follow_renumbering() {
        let name = |n: u32| format!("project-{n}");
        let mut slots: Vec<Option<String>> = Vec::new();
        let mut index = PkIndex::default();
        for slot in 0..1000u32 {
            slots.push(Some(name(slot)));
            let lent = records(&slots);
            let pk = Pk::from(name(slot).as_str());
            assert_eq!(index.get_or_insert(pk.as_ref(), slot, true, &lent), None);
        }
        let pk = |n: u32| Pk::from(name(n).as_str());
        let lent = records(&slots);
        assert_eq!(
            index.get_or_insert(pk(502).as_ref(), 7777, true, &lent),
            Some(502),
            "found, not added"
        );
        assert_eq!(index.get(pk(999).as_ref(), &lent), Some(999));

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
        let kept: Vec<Option<String>> = (0..1000u32)
            .filter(|slot| slot % 3 != 0)
            .map(|slot| Some(name(slot)))
            .collect();
        let lent = records(&kept);
        index.renumber(&moved, &lent);
        assert_eq!(index.get(pk(0).as_ref(), &lent), None);
        assert_eq!(index.get(pk(1).as_ref(), &lent), Some(0));
        assert_eq!(index.get(pk(502).as_ref(), &lent), Some(moved[502]));
        assert_eq!(index.get(pk(999).as_ref(), &lent), None);
        let mut kept = kept;
        kept.resize(5001, None);
        kept[5000] = Some(name(3));
        let lent = records(&kept);
        assert_eq!(
            index.get_or_insert(pk(3).as_ref(), 5000, true, &lent),
            None,
            "a dropped pk comes back"
        );
        assert_eq!(index.get(pk(3).as_ref(), &lent), Some(5000));
    }

    #[test]
    fn a_slot_without_a_record_keeps_its_text_pk() {
        let mut index = PkIndex::default();
        // Slot 0 is lent its text; slot 1 is a deletion's marker, with
        // no record from the start; slot 2's record is deleted later.
        let mut slots = vec![Some("a".to_owned()), None, Some("c".to_owned())];
        let lent = records(&slots);
        index.get_or_insert(PkRef::Text("a"), 0, true, &lent);
        index.get_or_insert(PkRef::Text("b"), 1, false, &lent);
        index.get_or_insert(PkRef::Text("c"), 2, true, &lent);
        index.keep(2, PkRef::Text("c"));
        slots[2] = None;
        let lent = records(&slots);
        for (text, slot) in [("a", 0), ("b", 1), ("c", 2)] {
            assert_eq!(index.get(PkRef::Text(text), &lent), Some(slot));
        }
        // Growth rehashes every slot's text, kept ones too.
        for n in 3..200u32 {
            slots.push(Some(format!("pk {n}")));
            let lent = records(&slots);
            let text = format!("pk {n}");
            index.get_or_insert(PkRef::Text(&text), n, true, &lent);
        }
        let lent = records(&slots);
        for (text, slot) in [("a", 0), ("b", 1), ("c", 2), ("pk 150", 150)] {
            assert_eq!(index.get(PkRef::Text(text), &lent), Some(slot));
        }
    }
}
