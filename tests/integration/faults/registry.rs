//! A failed write registers nothing: a response for a new entity type
//! that fails leaves no empty table behind to refuse a later type.

use std::rc::Rc;

use restcache::prelude::*;

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
