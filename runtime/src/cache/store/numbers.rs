//! Slots by numeric pk. Most APIs number their records from 1 up, and a
//! first load stores them in slots in the same order: while each new pk
//! and its slot follow the last ones, the index is that run alone (no
//! memory a pk, and a read is a subtraction). Past that, while the pks
//! stay dense (the largest below twice their count, plus some room) they
//! index a vector directly: 4 bytes a pk, and a read is one bounds check.
//! A pk far past the others turns the index into a hash map for good.

use rustc_hash::FxHashMap;

/// What a vector's place holds when no pk has it.
const ABSENT: u32 = u32::MAX;

/// How far past twice the count a dense pk may go.
const ROOM: u64 = 1024;

#[derive(Clone, Debug)]
pub(crate) enum Numbers {
    /// Pks `first_pk..first_pk + len` in slots `first_slot..first_slot +
    /// len`, in order; `planned` is the room the load that started the
    /// run asked for, should the run end within it.
    Run {
        first_pk: u64,
        first_slot: u32,
        len: u32,
        planned: usize,
    },
    /// `slots[pk]` is the slot of `pk`; `len` places hold one.
    Dense {
        slots: Vec<u32>,
        len: usize,
    },
    Sparse(FxHashMap<u64, u32>),
}

impl Default for Numbers {
    fn default() -> Self {
        Numbers::Run {
            first_pk: 0,
            first_slot: 0,
            len: 0,
            planned: 0,
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
        match *self {
            Numbers::Run {
                first_pk,
                first_slot,
                len,
                ..
            } => {
                let at = pk.wrapping_sub(first_pk);
                (at < u64::from(len)).then(|| first_slot + at as u32)
            }
            Numbers::Dense { ref slots, .. } => usize::try_from(pk)
                .ok()
                .and_then(|at| slots.get(at))
                .copied()
                .filter(|&slot| slot != ABSENT),
            Numbers::Sparse(ref map) => map.get(&pk).copied(),
        }
    }

    /// The slot of `pk`, or `None` after making `fresh` its slot. `planned`
    /// is how many pks a first load is about to add.
    pub fn get_or_insert(&mut self, pk: u64, fresh: u32, planned: usize) -> Option<u32> {
        if let Numbers::Run {
            first_pk,
            first_slot,
            len,
            planned: asked,
        } = self
        {
            if *len == 0 {
                (*first_pk, *first_slot, *len, *asked) = (pk, fresh, 1, planned);
                return None;
            }
            let at = pk.wrapping_sub(*first_pk);
            if at < u64::from(*len) {
                return Some(*first_slot + at as u32);
            }
            // The next pk, unless the run already ends at the largest.
            let next = first_pk.checked_add(u64::from(*len));
            if next == Some(pk) && fresh == first_slot.wrapping_add(*len) && *len < u32::MAX {
                *len += 1;
                return None;
            }
            let left = asked.saturating_sub(*len as usize);
            self.leave_run(left.max(planned));
            return self.get_or_insert(pk, fresh, 0);
        }
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
        if let Numbers::Run { len, .. } = *self {
            // Retained as the vector (or map) of its pks, and a run again
            // when they and their slots still follow each other.
            if len > 0 {
                self.leave_run(0);
                self.retain(keep);
                self.close_run();
            }
            return;
        }
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
            Numbers::Run { .. } => unreachable!("a run is retained above"),
        }
    }

    /// Calls `f` with each pk and its slot.
    pub fn each(&self, mut f: impl FnMut(u64, u32)) {
        match self {
            &Numbers::Run {
                first_pk,
                first_slot,
                len,
                ..
            } => (0..len).for_each(|at| f(first_pk + u64::from(at), first_slot + at)),
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
            Numbers::Run { planned, .. } => *planned = 0,
            Numbers::Dense { slots, .. } => slots.shrink_to_fit(),
            Numbers::Sparse(map) => map.shrink_to_fit(),
        }
    }

    /// Ends a run: its pks move to a vector, or a hash map when they are
    /// not dense, with room for `additional` more.
    fn leave_run(&mut self, additional: usize) {
        let Numbers::Run {
            first_pk,
            first_slot,
            len,
            ..
        } = *self
        else {
            return;
        };
        let count = len as usize;
        let last = first_pk + u64::from(len - 1);
        *self = if dense_with(last, count) {
            let mut slots = Vec::with_capacity(last as usize + 1 + additional);
            slots.resize(first_pk as usize, ABSENT);
            slots.extend(first_slot..first_slot + len);
            Numbers::Dense { slots, len: count }
        } else {
            let mut map =
                FxHashMap::with_capacity_and_hasher(count + additional, Default::default());
            map.extend((0..len).map(|at| (first_pk + u64::from(at), first_slot + at)));
            Numbers::Sparse(map)
        };
    }

    /// Becomes a run when the pks and their slots follow each other: every
    /// pk is its slot plus one same offset, and the pks leave no gap.
    fn close_run(&mut self) {
        let mut first = None::<(u64, u32)>;
        let (mut last, mut count) = (0u64, 0u64);
        let mut offset = None::<i128>;
        let mut follows = true;
        self.each(|pk, slot| {
            count += 1;
            last = last.max(pk);
            if first.is_none_or(|(least, _)| pk < least) {
                first = Some((pk, slot));
            }
            let apart = i128::from(pk) - i128::from(slot);
            follows &= *offset.get_or_insert(apart) == apart;
        });
        let Some((first_pk, first_slot)) = first else {
            *self = Numbers::default();
            return;
        };
        let Ok(len) = u32::try_from(count) else {
            return;
        };
        if follows && last - first_pk + 1 == count {
            *self = Numbers::Run {
                first_pk,
                first_slot,
                len,
                planned: 0,
            };
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
    fn pks_stored_in_order_of_their_slots_keep_no_index() {
        let mut numbers = Numbers::default();
        for pk in 1..=10_000u64 {
            assert_eq!(numbers.get_or_insert(pk, pk as u32 - 1, 10_000), None);
        }
        assert!(matches!(numbers, Numbers::Run { len: 10_000, .. }));
        assert_eq!(numbers.get(1), Some(0));
        assert_eq!(numbers.get(10_000), Some(9_999));
        assert_eq!((numbers.get(0), numbers.get(10_001)), (None, None));
        assert_eq!(numbers.get_or_insert(7, 99, 0), Some(6), "found, not added");

        // Slots moved down by one, every pk kept: still a run.
        numbers.retain(|slot| {
            *slot += 5;
            true
        });
        assert!(matches!(numbers, Numbers::Run { first_slot: 5, .. }));
        assert_eq!(numbers.get(3), Some(7));

        // A pk dropped: the others stay, in a vector.
        numbers.retain(|slot| *slot != 9);
        assert!(matches!(numbers, Numbers::Dense { len: 9_999, .. }));
        assert_eq!(
            (numbers.get(4), numbers.get(5), numbers.get(6)),
            (Some(8), None, Some(10))
        );
    }

    #[test]
    fn a_pk_out_of_the_run_keeps_every_pk_of_it() {
        for (pk, dense) in [(150u64, true), (1_700_000_000_000, false)] {
            let mut numbers = Numbers::default();
            for n in 1..=100u64 {
                numbers.get_or_insert(n, n as u32 + 9, 0);
            }
            assert_eq!(numbers.get_or_insert(pk, 500, 0), None);
            assert_eq!(matches!(numbers, Numbers::Dense { .. }), dense);
            assert_eq!(numbers.get(1), Some(10));
            assert_eq!(numbers.get(100), Some(109));
            assert_eq!(numbers.get(pk), Some(500));
            assert_eq!(numbers.get(101), None);
        }
    }

    #[test]
    fn a_load_numbered_from_one_takes_room_for_its_pks_once() {
        // Slots out of the pks' order: the pks go to a vector.
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
