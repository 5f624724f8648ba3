//! The messages tabs send each other, and how one entity type's records
//! travel in them.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::cache::entity::Entity;
use crate::cache::store::Store;
use crate::controller::Controller;
use crate::meta::Timestamp;
use crate::pk::Pk;

/// One message.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Message {
    /// Records written (or dropped: `data` null) since the last message.
    Records { records: Vec<Record> },
    /// A read was invalidated.
    Invalidate { key: String },
    /// The cache was emptied (a log-out).
    Reset,
}

/// One record as it travels.
#[derive(Serialize, Deserialize)]
pub(super) struct Record {
    pub entity: String,
    pub pk: String,
    /// The record, or `None` when it was deleted or invalidated.
    pub data: Option<Box<RawValue>>,
    /// When its data stood, in microseconds since the Unix epoch.
    pub at: u64,
}

/// How the records of one entity type travel.
#[derive(Clone, Copy)]
pub(super) struct Codec {
    pub key: &'static str,
    /// The records of the type the store changed after write `since`.
    pub collect: fn(&Store, u64) -> Vec<Record>,
    /// Writes a record another tab sent.
    pub apply: fn(&Controller, &Record),
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

fn apply<E: Entity + DeserializeOwned>(ctrl: &Controller, record: &Record) {
    let at = Timestamp::from_micros(record.at);
    match &record.data {
        Some(data) => {
            if let Ok(record) = serde_json::from_str::<E>(data.get()) {
                let _ = ctrl.set_entity(record, at);
            }
        }
        None => {
            if let Some(pk) = Pk::parse(&record.pk) {
                ctrl.invalidate_entity::<E>(pk);
            }
        }
    }
}
