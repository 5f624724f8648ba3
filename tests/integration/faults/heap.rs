//! The heap a store holds for what it keeps: a few words a record beyond
//! the records themselves, no second copy of a text pk, and no room a
//! long list's first records promised but the rest did not need.

use std::rc::Rc;

use restcache::prelude::*;

use crate::common::at;
use crate::common::heap::held_bytes;

/// The heap a store holds once `lists` are written to it, one result
/// each, from their JSON text.
fn held_by_store(lists: &[String]) -> isize {
    use restcache_demo::fixture::Projects;
    let before = held_bytes();
    let mut store = Store::new();
    for (n, text) in lists.iter().enumerate() {
        store
            .set_json::<Projects>(&format!("GET /projects?page={n}"), text, at(1))
            .unwrap();
    }
    let held = held_bytes() - before;
    assert_eq!(store.entity_count("Project"), 1000);
    assert_eq!(store.entity_count("BuildType"), 32 * 10);
    held
}

#[test]
fn a_long_list_keeps_no_room_its_first_records_promised() {
    use restcache_demo::fixture;
    // The first 32 projects bring ten build types each, the others none:
    // a long list's first records promise ten times as many build types
    // as the whole list holds.
    let projects: Vec<_> = (0..1000)
        .map(|i| {
            let mut project = fixture::project(i);
            project.build_types.build_type = if i < 32 {
                (0..10)
                    .map(|j| Rc::new(fixture::build_type(i, j)))
                    .collect()
            } else {
                Vec::new()
            };
            Rc::new(project)
        })
        .collect();
    let text = |projects: &[Rc<fixture::Project>]| {
        serde_json::to_string(&fixture::Projects {
            project: projects.to_vec(),
        })
        .unwrap()
    };

    let whole = held_by_store(&[text(&projects)]);
    // The same records in two lists, the first too short to plan ahead.
    let in_two = held_by_store(&[text(&projects[..32]), text(&projects[32..])]);
    assert!(
        whole <= in_two + in_two / 20,
        "one list of 1,000 holds {whole} bytes; the same records in two lists {in_two}"
    );
}

/// The heap `build`'s value holds.
fn held_by<T>(build: impl FnOnce() -> T) -> (T, isize) {
    let before = held_bytes();
    let value = build();
    (value, held_bytes() - before)
}

/// The most the store may add to a todo (it takes 16 bytes; 24 when its
/// list kept a reference a todo), and to a record keyed by a UUID (32
/// bytes), beyond the records themselves (64-bit).
const PER_TODO: isize = 20;
const PER_DEVICE: isize = 40;

/// What a store that keeps the list `text` (of `records` records of
/// the entity `entity`, read as `T`) under `key` holds beyond the records
/// themselves, in bytes a record.
fn stored_per_record<T>(key: &str, text: &str, entity: &str, records: usize) -> isize
where
    T: restcache::Schema + serde::de::DeserializeOwned,
{
    let (parsed, alone) = held_by(|| serde_json::from_str::<T>(text).unwrap());
    drop(parsed);
    let (store, stored) = held_by(|| {
        let mut store = Store::new();
        store.set_json::<T>(key, text, at(1)).unwrap();
        store
    });
    assert_eq!(store.entity_count(entity), records);
    (stored - alone) / records as isize
}

#[test]
fn a_list_of_flat_records_costs_the_store_a_few_words_a_record() {
    use restcache_demo::fixture::{self, Todos};
    let records = 10_000;
    let text = serde_json::to_string(&fixture::todos(records)).unwrap();
    let per_record = stored_per_record::<Todos>("GET /todos", &text, "Todo", records);
    // The records themselves, then the store's part: the record's slot
    // (its `Rc` and the write it came from). Pks 1 to 10,000 in slots 0
    // to 9,999 need no index, and the list keeps those slots as a run,
    // not a reference each. A slot that kept its own meta and write
    // version took 80 bytes in all; one with room for a nested reference
    // beside them, 56; with an index and a reference each in the list, 32;
    // with the list's references alone, 24; now 16.
    assert!(
        per_record <= PER_TODO,
        "the store adds {per_record} bytes a record to the records themselves"
    );
}

/// A record keyed by a UUID, as many APIs key theirs.
#[derive(Entity, Clone, Debug, serde::Deserialize)]
struct Device {
    #[entity(pk)]
    uuid: String,
    name: String,
}

#[test]
fn a_table_keyed_by_text_keeps_no_second_copy_of_its_pks() {
    let records = 10_000;
    let devices: Vec<String> = (0..records)
        .map(|n| {
            format!(r#"{{"uuid": "6f1c0a52-{n:04x}-4d6e-9b1a-3c2d7e8f9a0b", "name": "d{n}"}}"#)
        })
        .collect();
    let text = format!("[{}]", devices.join(","));
    let per_record = stored_per_record::<Vec<Rc<Device>>>("GET /devices", &text, "Device", records);
    // The index finds a pk through the record's own field: each of these
    // 36-byte pks costs it a bucket, not a copy (32 bytes a record in
    // all; with a copy of each pk the store took 128).
    assert!(
        per_record <= PER_DEVICE,
        "the store adds {per_record} bytes a record to the records themselves"
    );
}
