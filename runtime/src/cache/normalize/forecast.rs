//! The forecast of a long list's growth: the first records of a list
//! tell how much room each table needs for the rest, so a first load of
//! a thousand records grows a table once or twice, not a dozen times.

use std::rc::Rc;

use crate::cache::entity::Entity;
use crate::error::SchemaError;
use crate::path::Segment;

use super::Normalizer;

impl Normalizer<'_> {
    /// Merges the records of a list one by one; with `forecast`, makes
    /// room in the tables its first records grew (see
    /// [`forecast`](Self::forecast)).
    pub(super) fn each_entity<E: Entity>(
        &mut self,
        records: &mut [Rc<E>],
        forecast: bool,
    ) -> Result<(), SchemaError> {
        let (len, mut plan) = (records.len(), Plan::default());
        for (index, record) in records.iter_mut().enumerate() {
            if forecast && index <= 2 * WINDOW {
                self.plan(&mut plan, index, len);
            }
            self.entity(record)
                .map_err(|e| e.within(Segment::Index(index)))?;
        }
        self.settle(&plan.tables);
        Ok(())
    }

    /// The step of a forecast due before the record at `index` of a list
    /// of `len`: the slot counts after the first window, the room after
    /// the second. One copy for every entity type.
    #[inline(never)]
    fn plan(&mut self, plan: &mut Plan, index: usize, len: usize) {
        if index == WINDOW {
            plan.sampled = self.slot_counts();
        } else if index == 2 * WINDOW {
            plan.tables = self.forecast(&plan.sampled, len - index);
        }
    }

    /// The slot counts of the tables this write touched, in their order.
    fn slot_counts(&self) -> Vec<usize> {
        self.touched
            .iter()
            .map(|touched| self.tables.any(touched.table).slot_count())
            .collect()
    }

    /// Two windows into a long list of records: each table that grew at
    /// least half as much in the second window as in the first
    /// (`sampled`: its slot counts between them) holds records of their
    /// own, not shared ones met again, and gets room for the `rest` of the
    /// list's records at the second window's rate. A first load of 1,000
    /// projects with three build types each then grows its build types'
    /// table once or twice, not a dozen times; its 50 owners, met again
    /// more and more often, get no more room than they take. Returns the
    /// tables given room.
    fn forecast(&mut self, sampled: &[usize], rest: usize) -> Vec<u32> {
        let mut forecast = Vec::new();
        for (at, touched) in self.touched.iter().enumerate() {
            let table = self.tables.any_mut(touched.table);
            let now = table.slot_count();
            let between = sampled.get(at).copied().unwrap_or(touched.len);
            let (first, second) = (between - touched.len, now - between);
            if second > 0 && second * 2 >= first {
                table.reserve(second * rest / WINDOW);
                forecast.push(touched.table);
            }
        }
        forecast
    }

    /// Gives back the room the tables of a forecast hold beyond their
    /// records: what a forecast too high reserved, or what the growth
    /// after one too low doubled.
    fn settle(&mut self, forecast: &[u32]) {
        for &table in forecast {
            self.tables.any_mut(table).shrink_to_fit();
        }
    }
}

/// The shortest list of records whose first records forecast the growth
/// of the tables they touch.
pub(super) const FORECAST_FROM: usize = 4 * WINDOW;

/// The records of one window of such a forecast.
const WINDOW: usize = 16;

/// A forecast under way: the slot counts of the tables after its first
/// window, then the tables it gave room.
#[derive(Default)]
struct Plan {
    sampled: Vec<usize>,
    tables: Vec<u32>,
}
