//! Records as JSON, by entity type: what tabs send each other and what a
//! saved cache holds. [`Codecs`] read the records of their types a store
//! wrote after a given write, and write one back into a controller at the
//! time its data stood.

use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::cache::entity::Entity;
use crate::cache::schema::{Decoded, from_json};
use crate::cache::store::Store;
use crate::controller::Controller;
#[cfg(feature = "tabs")]
use crate::controller::ForeignLayer;
use crate::error::SchemaError;
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
    /// The records of the type an optimistic layer shows.
    #[cfg(feature = "tabs")]
    collect_layer: fn(&Store, u64) -> Vec<Record>,
    /// Shows a record another tab shows optimistically, as a layer of
    /// its own; `None` when it does not fit the type.
    #[cfg(feature = "tabs")]
    apply_layer: fn(&Controller, &Record) -> Option<ForeignLayer>,
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
                #[cfg(feature = "tabs")]
                collect_layer: collect_layer::<E>,
                #[cfg(feature = "tabs")]
                apply_layer: apply_layer::<E>,
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
        self.codec(record)
            .is_some_and(|codec| (codec.apply)(ctrl, record))
    }

    /// The records of these types the optimistic layer `layer` of
    /// `store` shows.
    #[cfg(feature = "tabs")]
    pub fn collect_layer(&self, store: &Store, layer: u64) -> Vec<Record> {
        self.0
            .iter()
            .flat_map(|codec| (codec.collect_layer)(store, layer))
            .collect()
    }

    /// Shows `record` in `ctrl` as an optimistic layer of its own.
    #[cfg(feature = "tabs")]
    pub fn apply_layer(&self, ctrl: &Controller, record: &Record) -> Option<ForeignLayer> {
        self.codec(record)
            .and_then(|codec| (codec.apply_layer)(ctrl, record))
    }

    /// The key of the entity type named `entity`, when it is one of these.
    #[cfg(all(feature = "tabs", feature = "persist"))]
    pub fn key_of(&self, entity: &str) -> Option<&'static str> {
        self.0
            .iter()
            .find(|codec| codec.key == entity)
            .map(|codec| codec.key)
    }

    fn codec(&self, record: &Record) -> Option<&Codec> {
        self.0.iter().find(|codec| codec.key == record.entity)
    }
}

fn collect<E: Entity + Serialize>(store: &Store, since: u64) -> Vec<Record> {
    store
        .records_written_after::<E>(since)
        .into_iter()
        .filter_map(|(pk, record, at)| encoded(&pk, record.as_deref(), at))
        .collect()
}

/// `record` of `E` (`None`: gone) as it travels.
fn encoded<E: Entity + Serialize>(pk: &Pk, record: Option<&E>, at: Timestamp) -> Option<Record> {
    let data = match record {
        Some(record) => Some(serde_json::value::to_raw_value(record).ok()?),
        None => None,
    };
    Some(Record {
        entity: E::KEY.to_owned(),
        pk: pk.to_string(),
        data,
        at: at.as_micros(),
    })
}

#[cfg(feature = "tabs")]
fn collect_layer<E: Entity + Serialize>(store: &Store, layer: u64) -> Vec<Record> {
    store
        .records_in_layer::<E>(layer)
        .into_iter()
        .filter_map(|(pk, record, at)| encoded(&pk, Some(&*record), at))
        .collect()
}

#[cfg(feature = "tabs")]
fn apply_layer<E: Entity + DeserializeOwned>(
    ctrl: &Controller,
    record: &Record,
) -> Option<ForeignLayer> {
    let at = stood_at(record, ctrl);
    if ctrl.stood_before_reset(at) {
        return None;
    }
    let data = copy_of::<E>(record.data.as_ref()?).ok()?;
    ctrl.show_foreign_layer(data, at)
}

fn apply<E: Entity + DeserializeOwned>(ctrl: &Controller, record: &Record) -> bool {
    let at = stood_at(record, ctrl);
    // The cache was emptied since (a log-out): what stood before is not
    // brought back.
    if ctrl.stood_before_reset(at) {
        return true;
    }
    // A copy as new as the stored one changes nothing, and is not written
    // (so that it is not sent on again). An optimistic value on show is
    // not what it is measured against: the confirmed copy beneath is.
    let stored = Pk::parse(&record.pk)
        .and_then(|pk| ctrl.with_store(|store| store.confirmed_entity_meta::<E>(&pk)));
    if stored.is_some_and(|meta| meta.fetched_at >= at) {
        return true;
    }
    match &record.data {
        Some(data) => match copy_of::<E>(data) {
            Ok(record) => ctrl.set_decoded_entity(record, at).is_ok(),
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

/// `data`, another cache's copy of a record of `E`: it and each record
/// nested in it replace the stored ones but for the app's own fields
/// (those serde never reads, so no copy carries them), which keep this
/// cache's values. Every other field is the copy's: one it leaves out (a
/// `None` that `skip_serializing_if` drops) was cleared there.
fn copy_of<E: Entity + DeserializeOwned>(data: &RawValue) -> Result<Decoded<Rc<E>>, SchemaError> {
    Ok(from_json::<Rc<E>>(data.get())?.copied_whole())
}

/// When `record`'s data stood; a time past now (a clock set back since)
/// counts as now.
fn stood_at(record: &Record, ctrl: &Controller) -> Timestamp {
    Timestamp::from_micros(record.at).min(ctrl.now())
}
