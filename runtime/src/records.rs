//! Records as JSON, by entity type: what tabs send each other and what a
//! saved cache holds. [`Codecs`] read the records of their types a store
//! wrote after a given write, and write one back into a controller at the
//! time its data stood.

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

/// How the records of one entity type travel.
#[derive(Clone, Copy)]
struct Codec {
    key: &'static str,
    /// The records of the type the store changed after write `since`.
    collect: fn(&Store, u64) -> Vec<Record>,
    /// Writes a record another tab sent (or a saved one); `false` when
    /// it no longer fits the type.
    apply: fn(&Controller, &Record) -> bool,
}

/// The entity types whose records travel (or are saved), each once.
#[derive(Clone, Default)]
pub(crate) struct Codecs(Vec<Codec>);

impl Codecs {
    /// The records of `E` travel too.
    pub fn add<E: Entity + Serialize + DeserializeOwned>(&mut self) {
        if !self.0.iter().any(|codec| codec.key == E::KEY) {
            self.0.push(Codec {
                key: E::KEY,
                collect: collect::<E>,
                apply: apply::<E>,
            });
        }
    }

    /// Their entity keys.
    pub fn keys(&self) -> Vec<&'static str> {
        self.0.iter().map(|codec| codec.key).collect()
    }

    /// The records of these types `store` changed after write `since`.
    pub fn collect(&self, store: &Store, since: u64) -> Vec<Record> {
        self.0
            .iter()
            .flat_map(|codec| (codec.collect)(store, since))
            .collect()
    }

    /// Writes `record` into `ctrl`; `false` when it is of no type here
    /// or no longer fits its type.
    pub fn apply(&self, ctrl: &Controller, record: &Record) -> bool {
        self.0
            .iter()
            .find(|codec| codec.key == record.entity)
            .is_some_and(|codec| (codec.apply)(ctrl, record))
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
        // Gone (deleted or invalidated) as of `at`: written as a delete
        // is, so that an answer whose request started earlier does not
        // bring it back, whether or not this cache held it.
        None => {
            if let Some(pk) = Pk::parse(&record.pk) {
                ctrl.delete_entity::<E>(pk, at);
            }
            true
        }
    }
}
