//! Where slots got their contents: the meta of the response and the
//! version of the write, kept once for every slot one write stored in a
//! table, since a write stores all of its records with the same ones.

use crate::meta::Meta;

/// When a slot's contents were fetched and the store write that last
/// changed the slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Origin {
    pub meta: Meta,
    pub version: u64,
}

/// The origin of a slot nothing wrote: the default meta, version 0.
/// Every table's origins keep it first.
pub(crate) const NO_ORIGIN: u32 = 0;

/// The fewest origins a table adds after a gathering before it gathers
/// again.
const SPARE: usize = 32;

/// The origins of one table's slots, each slot naming its own by index.
/// Every write adds one, so a table written often gathers them now and
/// then: it drops the ones no slot names any more.
#[derive(Clone)]
pub(crate) struct Origins {
    /// The origins, [`NO_ORIGIN`] first; some no slot names any more,
    /// until the next gathering.
    list: Vec<Origin>,
    /// How many were in use at the last gathering.
    gathered: usize,
}

impl Default for Origins {
    fn default() -> Self {
        Origins {
            list: vec![Origin::default()],
            gathered: 1,
        }
    }
}

impl Origins {
    /// Origin number `at`.
    #[inline(always)]
    pub fn get(&self, at: u32) -> &Origin {
        &self.list[at as usize]
    }

    /// The number of the origin of a write `version` of a response
    /// fetched as `meta`: the last one added, when it is the same (the
    /// write's previous slot in this table).
    #[inline]
    pub fn of(&mut self, meta: Meta, version: u64) -> u32 {
        let origin = Origin { meta, version };
        let last = self.list.len() - 1;
        if self.list[last] == origin {
            return last as u32;
        }
        self.list.push(origin);
        (last + 1) as u32
    }

    /// Whether a table of `slots` slots gathers its origins now: once it
    /// added a sixteenth of its slots more than were in use at the last
    /// gathering, at least [`SPARE`], so that a large table spreads the
    /// cost of a gathering over many writes.
    pub fn due(&self, slots: usize) -> bool {
        self.list.len() >= self.gathered + Self::room(slots)
    }

    fn room(slots: usize) -> usize {
        SPARE.max(slots / 16)
    }

    /// Keeps the origins `each_named` names, in a table of `slots` slots:
    /// `each_named` calls its argument on every origin number the table
    /// holds, which it renumbers.
    #[inline(never)]
    pub fn gather(&mut self, slots: usize, each_named: impl FnOnce(&mut dyn FnMut(&mut u32))) {
        let mut moved = vec![u32::MAX; self.list.len()];
        moved[NO_ORIGIN as usize] = NO_ORIGIN;
        let mut kept = vec![Origin::default()];
        let list = &self.list;
        each_named(&mut |origin: &mut u32| {
            let at = *origin as usize;
            if moved[at] == u32::MAX {
                moved[at] = kept.len() as u32;
                kept.push(list[at]);
            }
            *origin = moved[at];
        });
        self.gathered = kept.len();
        self.list = kept;
        // A large set of origins in use (a table most of whose records
        // came one write each) gets exactly the room it adds to before the
        // next gathering: growth by doubling would leave up to as much
        // again unused.
        let room = Self::room(slots);
        self.list.shrink_to(self.list.len() + room);
        if self.gathered > SPARE {
            self.list.reserve_exact(room);
        }
    }

    /// How many origins it holds, named or not.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.list.len()
    }
}
