//! Which results reach a record: through their own references, or through
//! the nested references of the records they hold.

use rustc_hash::FxHashSet;

use super::table::EntityRef;
use super::{Refs, Store};
use crate::pk::PkValue;

impl Store {
    /// Expires every result that holds the record `pk` of the entity key
    /// `key`, directly or nested in another record, so that its next read
    /// is `Stale` and refetches. Returns how many results it expired.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// let fresh = Meta::fetched(Timestamp::from_millis(0), Timestamp::from_millis(0), std::time::Duration::from_secs(60));
    /// store.set("todos", vec![Rc::new(Todo { id: 1 }), Rc::new(Todo { id: 2 })], fresh)?;
    /// store.set("one", Rc::new(Todo { id: 2 }), fresh)?;
    /// assert_eq!(store.expire_holding("Todo", 1u64), 1);
    /// assert_eq!(store.result_meta("todos").unwrap().expires_at, Timestamp::default());
    /// assert_ne!(store.result_meta("one").unwrap().expires_at, Timestamp::default());
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn expire_holding(&mut self, key: &str, pk: impl PkValue) -> usize {
        self.expire_holding_keys(key, pk).len()
    }

    /// [`expire_holding`](Self::expire_holding), returning the keys of the
    /// results it expired.
    pub(crate) fn expire_holding_keys(&mut self, key: &str, pk: impl PkValue) -> Vec<String> {
        let Some(target) = pk.to_pk().and_then(|pk| self.record_ref(key, &pk)) else {
            return Vec::new();
        };
        let holding: Vec<String> = self
            .results
            .iter()
            .filter(|(_, result)| self.reaches(result.refs.view(), target))
            .map(|(key, _)| key.clone())
            .collect();
        for key in &holding {
            self.expire_result(key);
        }
        holding
    }

    /// Every record the results `keys` hold, at any depth.
    #[cfg(feature = "persist")]
    pub(crate) fn records_reached_from<'k>(
        &self,
        keys: impl Iterator<Item = &'k str>,
    ) -> FxHashSet<EntityRef> {
        let refs: Vec<EntityRef> = keys
            .filter_map(|key| self.results.get(key))
            .flat_map(|result| result.refs.view().iter())
            .collect();
        self.reached_from_refs(refs)
    }

    /// The records `refs` name and those they nest, at any depth, by
    /// entity key and pk.
    #[cfg(feature = "persist")]
    pub(crate) fn records_named_from(
        &self,
        refs: &[EntityRef],
    ) -> Vec<(&'static str, crate::pk::Pk)> {
        let reached = self.reached_from_refs(refs.to_vec());
        let mut by_table: rustc_hash::FxHashMap<u32, FxHashSet<u32>> = Default::default();
        for at in reached {
            by_table.entry(at.table).or_default().insert(at.slot);
        }
        let mut named = Vec::new();
        for (key, table) in self.tables.keys() {
            if let Some(slots) = by_table.get(&table) {
                let pks = self.tables.any(table).pks_of(slots);
                named.extend(pks.into_iter().map(|pk| (key, pk)));
            }
        }
        named
    }

    /// `refs` and every record they point at, at any depth.
    #[cfg(feature = "persist")]
    fn reached_from_refs(&self, mut pending: Vec<EntityRef>) -> FxHashSet<EntityRef> {
        let mut seen = FxHashSet::default();
        while let Some(next) = pending.pop() {
            if seen.insert(next) {
                pending.extend_from_slice(self.tables.any(next.table).refs_of(next.slot));
            }
        }
        seen
    }

    /// Whether `target` is among `refs` or among the records they point
    /// at, at any depth.
    fn reaches(&self, refs: Refs<'_>, target: EntityRef) -> bool {
        let mut seen = FxHashSet::default();
        let mut pending: Vec<EntityRef> = refs.to_vec();
        while let Some(next) = pending.pop() {
            if next == target {
                return true;
            }
            if seen.insert(next) {
                pending.extend_from_slice(self.tables.any(next.table).refs_of(next.slot));
            }
        }
        false
    }
}
