//! Entity queries: a record's read kept between renders hands out the same
//! `Rc` until the record, or an entity nested in it, changes.

use restcache_demo::fixture;

use std::rc::Rc;

use crate::common::{Todo, at, store_list, todo};
use fixture::{Project, User};
use restcache::prelude::*;

fn todos(ids: &[u64]) -> Store {
    let mut store = Store::new();
    store_list(&mut store, "GET /todos", ids);
    store
}

fn value<E: Entity>(query: &mut EntityQuery<E>, store: &Store) -> Rc<E> {
    match query.read(store) {
        Lookup::Found(value, _) => value,
        other => panic!("expected a record, got {:?}", other.value().is_some()),
    }
}

#[test]
fn a_query_hands_out_the_same_rc_until_its_record_changes() {
    let mut store = todos(&[1, 2, 3]);
    store.set_entity(fixture::user(1), at(1)).unwrap();
    let mut query = EntityQuery::<Todo>::new(2u64);
    let first = value(&mut query, &store);
    assert_eq!(first.id, 2);
    assert!(Rc::ptr_eq(&first, &value(&mut query, &store)));

    // Another todo, another table, and a response that fails whole.
    store.set_entity(todo(3, "changed"), at(2)).unwrap();
    store.set_entity(fixture::user(2), at(2)).unwrap();
    let bad = r#"[{"id": 2, "title": "half"}, {"id": 3, "title": 5}]"#;
    assert!(
        store
            .set_json::<Vec<Rc<Todo>>>("GET /todos", bad, at(3))
            .is_err()
    );
    assert!(Rc::ptr_eq(&first, &value(&mut query, &store)));

    // The record itself: the read shows the new copy and its meta.
    store.set_entity(todo(2, "oat milk"), at(4)).unwrap();
    let Lookup::Found(second, meta) = query.read(&store) else {
        panic!("todo 2 is stored");
    };
    assert_eq!(second.title, "oat milk");
    assert_eq!(meta.fetched_at, Timestamp::from_millis(4));
    assert!(!Rc::ptr_eq(&first, &second));
    assert!(Rc::ptr_eq(&second, &value(&mut query, &store)));
}

#[test]
fn a_query_of_a_nested_record_follows_its_nested_entities() {
    let mut store = Store::new();
    store
        .set("GET /projects", fixture::projects(30), at(1))
        .unwrap();
    // Of the first 30 projects, user 2 owns project-17_bt0 only.
    let mut owned = EntityQuery::<Project>::new("project-17");
    let mut other = EntityQuery::<Project>::new("project-7");
    let (p17, p7) = (value(&mut owned, &store), value(&mut other, &store));

    let renamed = User {
        name: "Renamed".into(),
        ..fixture::user(1)
    };
    store.set_entity(renamed, at(2)).unwrap();
    let p17_after = value(&mut owned, &store);
    assert!(!Rc::ptr_eq(&p17, &p17_after));
    assert_eq!(p17_after.build_types.build_type[0].owner.name, "Renamed");
    assert!(Rc::ptr_eq(
        &p17.build_types.build_type[1],
        &p17_after.build_types.build_type[1]
    ));
    assert!(Rc::ptr_eq(&p7, &value(&mut other, &store)));
    assert!(Rc::ptr_eq(&p17_after, &value(&mut owned, &store)));
}

#[test]
fn a_query_sees_its_record_invalidated_and_written_again() {
    let mut store = todos(&[1, 2]);
    let mut query = EntityQuery::<Todo>::new("2");
    assert_eq!(value(&mut query, &store).id, 2, "\"2\" names todo 2");

    store.invalidate_entity::<Todo>(2u64, Timestamp::from_millis(5));
    assert!(matches!(query.read(&store), Lookup::Invalid));
    store.set_entity(todo(2, "back"), at(6)).unwrap();
    assert_eq!(value(&mut query, &store).title, "back");
}

#[test]
fn a_query_of_an_unknown_record_is_absent_until_it_is_written() {
    let mut store = todos(&[1]);
    let mut query = EntityQuery::<Todo>::new(9u64);
    assert!(matches!(query.read(&store), Lookup::Absent));
    assert!(matches!(query.read(&store), Lookup::Absent));
    store.set_entity(todo(9, "new"), at(2)).unwrap();
    assert_eq!(value(&mut query, &store).title, "new");

    let mut nothing = EntityQuery::<Todo>::new(None::<u64>);
    assert_eq!(nothing.pk(), None);
    assert!(matches!(nothing.read(&store), Lookup::Absent));
}

#[test]
fn a_query_reads_the_store_it_is_given() {
    let one = todos(&[1]);
    let mut two = one.clone();
    two.set_entity(todo(1, "in two"), at(2)).unwrap();
    let mut query = EntityQuery::<Todo>::new(1u64);
    assert_eq!(value(&mut query, &one).title, "t");
    assert_eq!(value(&mut query, &two).title, "in two");
    assert_eq!(value(&mut query, &one).title, "t");
}

#[test]
fn a_query_tells_a_copy_of_the_store_from_the_store() {
    let mut one = todos(&[1, 2]);
    let mut query = EntityQuery::<Todo>::new(1u64);
    let first = value(&mut query, &one);

    // An unwritten copy shows the same records, the same `Rc`.
    let mut two = one.clone();
    assert!(Rc::ptr_eq(&first, &value(&mut query, &two)));

    // Each store's next write shows in that store alone.
    one.set_entity(todo(1, "in one"), at(2)).unwrap();
    assert_eq!(value(&mut query, &one).title, "in one");
    assert_eq!(value(&mut query, &two).title, "t");
    two.set_entity(todo(2, "other"), at(3)).unwrap();
    assert_eq!(value(&mut query, &two).title, "t");
    assert_eq!(value(&mut query, &one).title, "in one");
}

#[test]
fn a_query_shows_the_meta_of_its_record_written_again_unchanged() {
    let mut store = todos(&[1, 2]);
    store.share_equal_copies(true);
    let mut query = EntityQuery::<Todo>::new(1u64);
    let first = value(&mut query, &store);

    // The same todo comes again, equal: the record stays, its fetch time
    // moves.
    store.set_entity(todo(1, "t"), at(5)).unwrap();
    let Lookup::Found(again, meta) = query.read(&store) else {
        panic!("todo 1 is stored");
    };
    assert!(Rc::ptr_eq(&first, &again));
    assert_eq!(meta.fetched_at, Timestamp::from_millis(5));
    assert_eq!(Some(meta), store.entity_meta::<Todo>(1u64));
}
