//! Records as JSON, by entity type: what tabs send each other and what a
//! saved cache holds. A [`Codec`] reads the records of one type a store
//! wrote after a given write, and writes one back into a controller at
//! the time its data stood.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::cache::entity::Entity;
use crate::cache::store::Store;
use crate::controller::Controller;
use crate::meta::Timestamp;
use crate::pk::Pk;

/// One record, as it travels and as it is saved.
#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    pub entity: String,
    pub pk: String,
    /// The record, or `None` when it was deleted or invalidated.
    pub data: Option<Box<RawValue>>,
    /// When its data stood, in microseconds since the Unix epoch.
    pub at: u64,
}

impl Record {
    /// Its size in a saved text, roughly.
    #[cfg(feature = "persist")]
    pub fn weight(&self) -> usize {
        let data = self.data.as_ref().map_or(4, |data| data.get().len());
        self.entity.len() + self.pk.len() + data + 48
    }
}

/// How the records of one entity type travel.
#[derive(Clone, Copy)]
pub(crate) struct Codec {
    pub key: &'static str,
    /// The records of the type the store changed after write `since`.
    pub collect: fn(&Store, u64) -> Vec<Record>,
    /// Writes a record another tab sent (or a saved one); `false` when
    /// it no longer fits the type.
    pub apply: fn(&Controller, &Record) -> bool,
}

impl Codec {
    pub fn of<E: Entity + Serialize + DeserializeOwned>() -> Self {
        Codec {
            key: E::KEY,
            collect: collect::<E>,
            apply: apply::<E>,
        }
    }
}

fn collect<E: Entity + Serialize>(store: &Store, since: u64) -> Vec<Record> {
    store
        .records_written_after::<E>(since)
        .into_iter()
        .filter_map(|(pk, record, at)| {
            let data = match record {
                Some(record) => Some(serde_json::value::to_raw_value(&*record).ok()?),
                None => None,
            };
            Some(Record {
                entity: E::KEY.to_owned(),
                pk: pk.to_string(),
                data,
                at: at.as_micros(),
            })
        })
        .collect()
}

fn apply<E: Entity + DeserializeOwned>(ctrl: &Controller, record: &Record) -> bool {
    // A time past now (a clock set back since) counts as now.
    let at = Timestamp::from_micros(record.at).min(ctrl.now());
    // A copy as new as the stored one changes nothing, and is not written
    // (so that it is not sent on again).
    let stored =
        Pk::parse(&record.pk).and_then(|pk| ctrl.with_store(|store| store.entity_meta::<E>(pk)));
    if stored.is_some_and(|meta| meta.fetched_at >= at) {
        return true;
    }
    match &record.data {
        Some(data) => match serde_json::from_str::<E>(data.get()) {
            Ok(record) => ctrl.set_entity(record, at).is_ok(),
            Err(_) => false,
        },
        None => {
            if let Some(pk) = Pk::parse(&record.pk) {
                ctrl.invalidate_entity::<E>(pk);
            }
            true
        }
    }
}
