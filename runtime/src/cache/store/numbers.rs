//! Slots by numeric pk. Most APIs number their records from 1 up, so
//! while the pks stay dense (the largest below twice their count, plus
//! some room) they index a vector directly: 4 bytes a pk, and a read is
//! one bounds check. A pk far past the others turns the index into a
//! hash map for good.

use rustc_hash::FxHashMap;

/// What a vector's place holds when no pk has it.
const ABSENT: u32 = u32::MAX;

/// How far past twice the count a dense pk may go.
const ROOM: u64 = 1024;

#[derive(Clone, Debug)]
pub(crate) enum Numbers {
    /// `slots[pk]` is the slot of `pk`; `len` places hold one.
    Dense {
        slots: Vec<u32>,
        len: usize,
    },
    Sparse(FxHashMap<u64, u32>),
}

impl Default for Numbers {
    fn default() -> Self {
        Numbers::Dense {
            slots: Vec::new(),
            len: 0,
        }
    }
}

/// Whether a vector indexed by pk stays dense with `pk` among `count`.
fn dense_with(pk: u64, count: usize) -> bool {
    pk < (count as u64).saturating_mul(2).saturating_add(ROOM)
}

impl Numbers {
    /// The slot of `pk`.
    #[inline(always)]
    pub fn get(&self, pk: u64) -> Option<u32> {
        match self {
            Numbers::Dense { slots, .. } => usize::try_from(pk)
                .ok()
                .and_then(|at| slots.get(at))
                .copied()
                .filter(|&slot| slot != ABSENT),
            Numbers::Sparse(map) => map.get(&pk).copied(),
        }
    }

    /// The slot of `pk`, or `None` after making `fresh` its slot. `planned`
    /// is how many pks a first load is about to add.
    pub fn get_or_insert(&mut self, pk: u64, fresh: u32, planned: usize) -> Option<u32> {
        if let Numbers::Dense { slots, len } = self {
            if dense_with(pk, *len + 1) {
                let at = pk as usize;
                if at >= slots.len() {
                    // A load's pks mostly count up from its first one:
                    // room for that run, up to and with its last pk.
                    let wanted = (at + planned).max(at + 1);
                    slots.reserve(wanted - slots.len());
                    slots.resize(at + 1, ABSENT);
                }
                let slot = &mut slots[at];
                if *slot != ABSENT {
                    return Some(*slot);
                }
                *slot = fresh;
                *len += 1;
                return None;
            }
            self.spread();
        }
        let Numbers::Sparse(map) = self else {
            unreachable!("spread above");
        };
        map.reserve(planned);
        match map.entry(pk) {
            std::collections::hash_map::Entry::Occupied(entry) => Some(*entry.get()),
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(fresh);
                None
            }
        }
    }

    /// Passes each slot to `keep`, which may change it; forgets the pks
    /// it returns `false` for.
    pub fn retain(&mut self, mut keep: impl FnMut(&mut u32) -> bool) {
        match self {
            Numbers::Dense { slots, len } => {
                for slot in slots.iter_mut().filter(|slot| **slot != ABSENT) {
                    if !keep(slot) {
                        *slot = ABSENT;
                        *len -= 1;
                    }
                }
                let used = slots.iter().rposition(|&slot| slot != ABSENT);
                slots.truncate(used.map_or(0, |last| last + 1));
            }
            Numbers::Sparse(map) => map.retain(|_, slot| keep(slot)),
        }
    }

    /// Calls `f` with each pk and its slot.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub fn each(&self, mut f: impl FnMut(u64, u32)) {
        match self {
            Numbers::Dense { slots, .. } => {
                for (pk, &slot) in slots.iter().enumerate() {
                    if slot != ABSENT {
                        f(pk as u64, slot);
                    }
                }
            }
            Numbers::Sparse(map) => map.iter().for_each(|(&pk, &slot)| f(pk, slot)),
        }
    }

    /// Gives back the room the pks do not use.
    pub fn shrink_to_fit(&mut self) {
        match self {
            Numbers::Dense { slots, .. } => slots.shrink_to_fit(),
            Numbers::Sparse(map) => map.shrink_to_fit(),
        }
    }

    /// Moves every pk into a hash map.
    fn spread(&mut self) {
        if let Numbers::Dense { slots, len } = self {
            let mut map = FxHashMap::with_capacity_and_hasher(*len + 1, Default::default());
            for (pk, &slot) in slots.iter().enumerate() {
                if slot != ABSENT {
                    map.insert(pk as u64, slot);
                }
            }
            *self = Numbers::Sparse(map);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_pks_index_a_vector_and_a_far_pk_spreads_them_into_a_map() {
        let mut numbers = Numbers::default();
        for pk in 1..=100u64 {
            assert_eq!(numbers.get_or_insert(pk, pk as u32 * 10, 100), None);
        }
        assert_eq!(numbers.get_or_insert(7, 1, 0), Some(70), "found, not added");
        assert_eq!(numbers.get(0), None);
        assert_eq!(numbers.get(101), None);
        assert!(matches!(numbers, Numbers::Dense { len: 100, .. }));

        assert_eq!(numbers.get_or_insert(1_700_000_000_000, 5, 0), None);
        assert!(matches!(numbers, Numbers::Sparse(_)));
        assert_eq!(numbers.get(1_700_000_000_000), Some(5));
        assert_eq!(numbers.get(100), Some(1000), "every pk moved over");
        assert_eq!(numbers.get(101), None);
    }

    #[test]
    fn a_load_numbered_from_one_takes_room_for_its_pks_once() {
        let mut numbers = Numbers::default();
        numbers.get_or_insert(1, 0, 10_000);
        for pk in 2..=10_000u64 {
            numbers.get_or_insert(pk, pk as u32, 0);
        }
        let Numbers::Dense { slots, .. } = &numbers else {
            panic!("dense pks stay in a vector");
        };
        assert!(
            slots.capacity() <= 10_001,
            "room for pks 0 to 10,000, not twice that: {}",
            slots.capacity()
        );
    }

    #[test]
    fn retain_changes_and_forgets_slots_in_either_form() {
        for far in [false, true] {
            let mut numbers = Numbers::default();
            for pk in 0..10u64 {
                numbers.get_or_insert(pk, pk as u32, 0);
            }
            if far {
                numbers.get_or_insert(u64::MAX, 10, 0);
            }
            numbers.retain(|slot| {
                *slot += 100;
                *slot % 2 == 0
            });
            assert_eq!(numbers.get(4), Some(104));
            assert_eq!(numbers.get(5), None);
            assert_eq!(numbers.get(9), None);
            assert_eq!(numbers.get(u64::MAX), far.then_some(110));
            assert_eq!(
                numbers.get_or_insert(5, 7, 0),
                None,
                "a forgotten pk comes back"
            );
            assert_eq!(numbers.get(5), Some(7));
        }
    }
}
