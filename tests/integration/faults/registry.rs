//! A failed write registers nothing: a response for a new entity type
//! that fails leaves no empty table behind to refuse a later type.

use std::rc::Rc;

use restcache::prelude::*;

use crate::common::at;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[entity(key = "Shared")]
struct First {
    id: Option<u64>,
}

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[entity(key = "Shared")]
struct Second {
    id: u64,
    name: String,
}

#[test]
fn a_failed_write_of_a_new_type_leaves_its_key_free() {
    let mut store = Store::new();
    let failed = store.set_json::<Vec<Rc<First>>>("first", r#"[{"id": null}]"#, Meta::default());
    assert!(
        matches!(failed, Err(SchemaError::MissingPk { .. })),
        "{failed:?}"
    );
    assert_eq!(store.entity_count("Shared"), 0);

    let second = Second {
        id: 1,
        name: "kept".into(),
    };
    store
        .set("second", Rc::new(second), Meta::default())
        .unwrap();
    assert_eq!(store.entity_count("Shared"), 1);
}

/// Sixty-four entity types, each stored once, so that the next new type's
/// table shares the change stamp of the first one.
macro_rules! entity_types {
    ($($name:ident)*) => {
        $(
            #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
            struct $name {
                id: Option<u64>,
                label: String,
            }
        )*

        fn store_every_type(store: &mut Store) {
            $(
                let record = $name { id: Some(1), label: "one".into() };
                store.set_entity(record, Meta::default()).unwrap();
            )*
        }
    };
}

entity_types!(
    T00 T01 T02 T03 T04 T05 T06 T07 T08 T09 T10 T11 T12 T13 T14 T15
    T16 T17 T18 T19 T20 T21 T22 T23 T24 T25 T26 T27 T28 T29 T30 T31
    T32 T33 T34 T35 T36 T37 T38 T39 T40 T41 T42 T43 T44 T45 T46 T47
    T48 T49 T50 T51 T52 T53 T54 T55 T56 T57 T58 T59 T60 T61 T62 T63
);

/// The sixty-fifth type: its table shares the first one's change stamp.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct T64 {
    id: Option<u64>,
}

#[test]
fn a_failed_write_of_a_65th_type_keeps_the_change_of_the_type_it_shares_a_stamp_with() {
    let mut store = Store::new();
    let mut memo = Memo::new();
    store
        .set(
            "first",
            vec![Rc::new(T00 {
                id: Some(7),
                label: "before".into(),
            })],
            at(1),
        )
        .unwrap();
    store_every_type(&mut store);
    let before = memo
        .read::<Vec<Rc<T00>>>(&store, "first")
        .into_value()
        .unwrap();
    assert_eq!(before[0].label, "before");

    // The list's record changes; then a write of a new type fails.
    store
        .set_entity(
            T00 {
                id: Some(7),
                label: "after".into(),
            },
            at(2),
        )
        .unwrap();
    let failed = store.set_json::<Vec<Rc<T64>>>("new", r#"[{"id": null}]"#, at(3));
    assert!(
        matches!(failed, Err(SchemaError::MissingPk { .. })),
        "{failed:?}"
    );

    let after = memo
        .read::<Vec<Rc<T00>>>(&store, "first")
        .into_value()
        .unwrap();
    assert_eq!(
        after[0].label, "after",
        "the memoized read shows the change"
    );
}
