//! The entity references a stored result keeps, in the order its schema
//! visits them. A list loaded into a table that had none of its records
//! stores them in consecutive slots, in the list's order, and the result
//! then keeps that run as three numbers instead of a reference an item.

use super::table::{EntityRef, renumber};

/// The fewest references kept as a run: fewer take no more room one by
/// one.
const SHORTEST_RUN: usize = 2;

/// A stored result's entity references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ResultRefs {
    /// Slots `first..first + len` of `table`, in that order.
    Run { table: u32, first: u32, len: u32 },
    /// Any references, one by one.
    Each(Vec<EntityRef>),
}

impl Default for ResultRefs {
    fn default() -> Self {
        ResultRefs::Each(Vec::new())
    }
}

impl From<Vec<EntityRef>> for ResultRefs {
    /// `refs` as a run when they are one, else as they are.
    fn from(refs: Vec<EntityRef>) -> Self {
        run_of(&refs).unwrap_or(ResultRefs::Each(refs))
    }
}

impl From<&[EntityRef]> for ResultRefs {
    /// `refs` as a run when they are one, else a copy of them.
    fn from(refs: &[EntityRef]) -> Self {
        run_of(refs).unwrap_or_else(|| ResultRefs::Each(refs.to_vec()))
    }
}

/// `refs` as a run, when they are one long enough to keep as one.
fn run_of(refs: &[EntityRef]) -> Option<ResultRefs> {
    let (&head, rest) = refs.split_first()?;
    let follows = rest
        .iter()
        .zip(1u32..)
        .all(|(at, step)| at.table == head.table && Some(at.slot) == head.slot.checked_add(step));
    let len = u32::try_from(refs.len()).ok()?;
    // The slot past the run is a number too (`u32::MAX` stands for a
    // record that went, never a slot).
    let ends = head.slot.checked_add(len).is_some();
    (refs.len() >= SHORTEST_RUN && follows && ends).then_some(ResultRefs::Run {
        table: head.table,
        first: head.slot,
        len,
    })
}

impl ResultRefs {
    /// The references, to read.
    #[inline]
    pub fn view(&self) -> Refs<'_> {
        match *self {
            ResultRefs::Run { table, first, len } => Refs::run(table, first, len),
            ResultRefs::Each(ref refs) => Refs::from(refs.as_slice()),
        }
    }

    /// Points every reference at the slot its record moved to, when its
    /// table was compacted (`moved`: each table's new slot for each old
    /// one, or `None` for a table that kept its slots).
    pub fn renumber(&mut self, moved: &[Option<Vec<u32>>]) {
        match self {
            ResultRefs::Each(refs) => renumber(refs, moved),
            ResultRefs::Run { .. } => {
                let mut refs = self.view().to_vec();
                renumber(&mut refs, moved);
                *self = refs.into();
            }
        }
    }
}

/// A borrowed list of entity references: a slice, or a run of slots
/// (one of the two empty). A read walks it once a reference, so a
/// reference of the slice costs what an element of a plain slice does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Refs<'a> {
    /// References one by one.
    each: &'a [EntityRef],
    /// Slots `first..first + len` of `table`, in that order.
    table: u32,
    first: u32,
    len: u32,
}

impl<'a> From<&'a [EntityRef]> for Refs<'a> {
    #[inline]
    fn from(each: &'a [EntityRef]) -> Self {
        Refs {
            each,
            table: 0,
            first: 0,
            len: 0,
        }
    }
}

impl<'a> Refs<'a> {
    /// No references.
    pub const NONE: Refs<'static> = Refs {
        each: &[],
        table: 0,
        first: 0,
        len: 0,
    };

    /// Slots `first..first + len` of `table`.
    #[inline]
    fn run(table: u32, first: u32, len: u32) -> Self {
        Refs {
            each: &[],
            table,
            first,
            len,
        }
    }

    /// How many references there are.
    #[inline]
    pub fn len(self) -> usize {
        self.each.len() + self.len as usize
    }

    /// Reference `index`, if there are that many.
    #[inline]
    pub fn get(self, index: usize) -> Option<EntityRef> {
        if let Some(&at) = self.each.get(index) {
            return Some(at);
        }
        (index < self.len as usize).then(|| EntityRef {
            table: self.table,
            slot: self.first + index as u32,
        })
    }

    /// The references in order.
    pub fn iter(self) -> impl Iterator<Item = EntityRef> + 'a {
        (0..self.len()).filter_map(move |index| self.get(index))
    }

    /// Where `item` first is among them.
    pub fn position(self, item: EntityRef) -> Option<usize> {
        let in_run =
            item.table == self.table && (self.first..self.first + self.len).contains(&item.slot);
        match in_run {
            true => Some((item.slot - self.first) as usize),
            false => self.each.iter().position(|at| *at == item),
        }
    }

    /// Whether `item` is among them.
    pub fn contains(self, item: EntityRef) -> bool {
        self.position(item).is_some()
    }

    /// The references, copied out.
    pub fn to_vec(self) -> Vec<EntityRef> {
        let Refs {
            each,
            table,
            first,
            len,
        } = self;
        let mut refs = each.to_vec();
        refs.extend((first..first + len).map(|slot| EntityRef { table, slot }));
        refs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(table: u32, slot: u32) -> EntityRef {
        EntityRef { table, slot }
    }

    #[test]
    fn consecutive_slots_of_one_table_keep_three_numbers() {
        let refs: Vec<EntityRef> = (5..10_005).map(|slot| at(2, slot)).collect();
        let kept = ResultRefs::from(refs.clone());
        assert_eq!(
            kept,
            ResultRefs::Run {
                table: 2,
                first: 5,
                len: 10_000
            }
        );
        assert_eq!(kept.view().to_vec(), refs);
        assert_eq!(kept.view().len(), 10_000);
        assert_eq!(kept.view().get(3), Some(at(2, 8)));
        assert_eq!(kept.view().get(10_000), None);
        assert_eq!(kept.view().position(at(2, 9)), Some(4));
        assert!(!kept.view().contains(at(2, 4)));
        assert!(!kept.view().contains(at(1, 9)));
    }

    #[test]
    fn anything_else_is_kept_one_by_one() {
        let cases = [
            vec![],
            vec![at(0, 3)],
            vec![at(0, 1), at(0, 3)],
            vec![at(0, 2), at(0, 1)],
            vec![at(0, 1), at(1, 2)],
            vec![at(0, 1), at(0, 2), at(0, 2)],
        ];
        for refs in cases {
            let kept = ResultRefs::from(refs.as_slice());
            assert_eq!(kept, ResultRefs::Each(refs.clone()));
            assert_eq!(kept.view().iter().collect::<Vec<_>>(), refs);
        }
    }

    #[test]
    fn a_run_renumbered_stays_a_run_while_its_slots_follow() {
        let mut kept = ResultRefs::from((2..5).map(|slot| at(0, slot)).collect::<Vec<_>>());
        // Slots 0 and 1 went: 2, 3, 4 are now 0, 1, 2.
        kept.renumber(&[Some(vec![u32::MAX, u32::MAX, 0, 1, 2])]);
        assert_eq!(
            kept,
            ResultRefs::Run {
                table: 0,
                first: 0,
                len: 3
            }
        );
        // A slot went from the middle: the rest are kept one by one.
        kept.renumber(&[Some(vec![0, u32::MAX, 1])]);
        assert_eq!(
            kept,
            ResultRefs::Each(vec![at(0, 0), at(0, u32::MAX), at(0, 1)])
        );
    }
}
