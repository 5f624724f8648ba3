//! Every record of a type (`All`) and derived views (`Query`), against
//! the demo API: they follow creates, updates and deletes with no
//! request, and keep their identity while what they read is unchanged.

use std::rc::Rc;

use std::cell::Cell;

use restcache::prelude::*;
use restcache::{All, Query};
use restcache_demo::DemoApi;
use serde_json::json;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, TodoResourceParams, User};

// The todos of user 2, read as every todo the cache holds.
endpoint!(every_todo { path: "/todos\\?userId=2", schema: All<Todo> });

fn ids(all: &All<Todo>) -> Vec<u64> {
    all.iter().map(|todo| todo.id).collect()
}

#[tokio::test]
async fn every_record_of_a_type_follows_reads_creates_and_deletes_with_no_request() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let ctrl = Controller::new(Client::new(api.url()));
            let all = ctrl.fetch(&every_todo(), &(), None).await.unwrap();
            assert_eq!(ids(&all), [4, 5]);

            // Another read brings todo 1: every todo lists it.
            ctrl.fetch(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
                .await
                .unwrap();
            let told = Rc::new(std::cell::Cell::new(0));
            let seen = Rc::clone(&told);
            let _subscription =
                ctrl.subscribe(&every_todo(), &(), move || seen.set(seen.get() + 1));
            let read = ctrl.read(&every_todo(), &()).data.unwrap();
            assert_eq!(ids(&read), [4, 5, 1]);

            // A create joins it, a delete leaves it, and its view is told.
            let body = json!({"userId": 1, "title": "new", "completed": false});
            let made = ctrl
                .fetch(
                    &TodoResource::create(),
                    &(),
                    Some(Body::json(&body).unwrap()),
                )
                .await
                .unwrap();
            assert_eq!(
                ids(&ctrl.read(&every_todo(), &()).data.unwrap()),
                [4, 5, 1, made.id]
            );
            ctrl.fetch(&TodoResource::delete(), &TodoResourceParams { id: 4 }, None)
                .await
                .unwrap();
            let after = ctrl.read(&every_todo(), &()).data.unwrap();
            assert_eq!(ids(&after), [5, 1, made.id]);
            assert!(told.get() >= 2, "the view was told of both");
            assert_eq!(api.hits("GET /todos"), 1, "no request for the list again");

            // Nothing of it changed: the same value.
            assert!(Rc::ptr_eq(
                &after,
                &ctrl.read(&every_todo(), &()).data.unwrap()
            ));
        })
        .await;
}

/// "Open todos of user 1, newest first", counting its computations.
fn open_of_user_1(computed: &Rc<Cell<u32>>) -> Query<Vec<u64>> {
    let computed = Rc::clone(computed);
    Query::new(move |q| {
        computed.set(computed.get() + 1);
        let mut open: Vec<Rc<Todo>> = q
            .all::<Todo>()
            .into_iter()
            .filter(|todo| todo.user_id == 1 && !todo.completed)
            .collect();
        open.sort_by_key(|todo| std::cmp::Reverse(todo.id));
        open.iter().map(|todo| todo.id).collect()
    })
}

#[tokio::test]
async fn a_derived_view_follows_every_change_and_costs_nothing_when_nothing_it_read_changed() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let ctrl = Controller::new(Client::new(api.url()));
            ctrl.fetch(&TodoResource::get_list(), &(), None)
                .await
                .unwrap();
            let computed = Rc::new(Cell::new(0));
            let open = open_of_user_1(&computed);
            let told = Rc::new(Cell::new(0));
            let seen = Rc::clone(&told);
            let _subscription = ctrl.subscribe_query(&open, move || seen.set(seen.get() + 1));
            let first = ctrl.query(&open);
            assert_eq!(*first, [2, 1]);
            assert_eq!(computed.get(), 1);

            // A write to another type: nothing computed, the same value.
            let user = User {
                id: 1,
                username: "Bret".into(),
                ..User::default()
            };
            ctrl.set_entity(user, ctrl.write_time()).unwrap();
            assert!(Rc::ptr_eq(&first, &ctrl.query(&open)));
            assert_eq!(computed.get(), 1, "nothing it read changed");

            // A todo it does not show changed: computed again, the same `Rc`.
            ctrl.update_entity::<Todo>(4u64, ctrl.write_time(), |todo| Todo {
                title: "renamed".into(),
                ..todo.clone()
            })
            .unwrap();
            assert!(Rc::ptr_eq(&first, &ctrl.query(&open)));
            assert_eq!(told.get(), 0, "its value did not change");

            // Todo 1 done, on the server: it leaves the view, no GET.
            let done = Body::json(&json!({"completed": true})).unwrap();
            ctrl.fetch(
                &TodoResource::partial_update(),
                &TodoResourceParams { id: 1 },
                Some(done),
            )
            .await
            .unwrap();
            assert_eq!(*ctrl.query(&open), [2]);
            assert_eq!(told.get(), 1);

            // A todo of user 1 made: it joins, newest first.
            let body = json!({"userId": 1, "title": "new", "completed": false});
            let made = ctrl
                .fetch(
                    &TodoResource::create(),
                    &(),
                    Some(Body::json(&body).unwrap()),
                )
                .await
                .unwrap();
            assert_eq!(*ctrl.query(&open), [made.id, 2]);
            assert_eq!(told.get(), 2);
            assert_eq!(api.hits("GET /todos"), 1, "never fetched again");
        })
        .await;
}

#[test]
fn a_derived_view_reads_results_and_records_and_follows_what_it_read() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let computed = Rc::new(Cell::new(0));
    let counted = Rc::clone(&computed);
    // A header: how many todos the list shows, and the name of user 1.
    let header = Query::new(move |q| {
        counted.set(counted.get() + 1);
        let shown = q
            .read(&TodoResource::get_list(), &())
            .map_or(0, |list| list.len());
        let name = q.entity::<User>(1u64).map(|user| user.username.clone());
        (shown, name)
    });
    assert_eq!(*ctrl.query(&header), (0, None));
    let todo = |id| Rc::new(crate::common::todo(id, "t"));
    ctrl.set_response(&TodoResource::get_list(), &(), vec![todo(1), todo(2)])
        .unwrap();
    assert_eq!(*ctrl.query(&header), (2, None));
    let user = User {
        id: 1,
        username: "Bret".into(),
        ..User::default()
    };
    ctrl.set_entity(user, ctrl.write_time()).unwrap();
    let named = ctrl.query(&header);
    assert_eq!(*named, (2, Some("Bret".to_owned())));
    let before = computed.get();
    // A todo outside the list: nothing it read.
    ctrl.set_response(&TodoResource::get(), &TodoResourceParams { id: 9 }, todo(9))
        .unwrap();
    assert!(Rc::ptr_eq(&named, &ctrl.query(&header)));
    assert_eq!(computed.get(), before);
    // Expired, the list still shows; invalidated, it shows nothing.
    ctrl.expire_all(|_| true);
    assert!(Rc::ptr_eq(&named, &ctrl.query(&header)));
    ctrl.invalidate(&TodoResource::get_list(), &());
    assert_eq!(*ctrl.query(&header), (0, Some("Bret".to_owned())));
}

#[test]
fn every_record_inside_an_envelope_leaves_the_next_field_its_own_record() {
    #[derive(Schema, Clone, Debug, Deserialize)]
    struct Picker {
        #[schema(nested)]
        labels: All<Todo>,
        #[schema(nested)]
        chosen: Rc<User>,
    }
    let mut store = Store::new();
    let text = r#"{"labels": [{"id": 1}, {"id": 2}], "chosen": {"id": 7, "username": "Bret"}}"#;
    store
        .set_json::<Picker>("picker", text, Meta::default())
        .unwrap();
    let picker = store.read::<Picker>("picker").into_value().unwrap();
    assert_eq!(ids(&picker.labels), [1, 2]);
    assert_eq!(picker.chosen.username, "Bret");
}

#[test]
fn a_query_of_a_result_that_could_not_be_read_follows_the_record_that_comes_back() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let one = TodoResourceParams { id: 1 };
    ctrl.set_response(
        &TodoResource::get(),
        &one,
        Rc::new(crate::common::todo(1, "milk")),
    )
    .unwrap();
    let title = Query::new(move |q| {
        q.read(&TodoResource::get(), &TodoResourceParams { id: 1 })
            .map(|todo| todo.title.clone())
    });
    assert_eq!(ctrl.query(&title).as_deref(), Some("milk"));
    ctrl.delete_entity::<Todo>(1u64, ctrl.write_time());
    assert_eq!(*ctrl.query(&title), None);
    ctrl.set_entity(crate::common::todo(1, "oat milk"), ctrl.write_time())
        .unwrap();
    assert_eq!(ctrl.query(&title).as_deref(), Some("oat milk"));
}

#[test]
fn a_derived_view_sees_a_result_it_read_removed() {
    let mut store = Store::new();
    let todo = |id| Rc::new(crate::common::todo(id, "t"));
    store
        .set("todos", vec![todo(1), todo(2)], Meta::default())
        .unwrap();
    let mut memo = Memo::new();
    let shown = Query::new(|q| q.result::<Vec<Rc<Todo>>>("todos").map(|list| list.len()));
    assert_eq!(*shown.read(&store, &mut memo), Some(2));
    // A write elsewhere, then the same read again: the same answer.
    store.set("other", todo(3), Meta::default()).unwrap();
    let kept = shown.read(&store, &mut memo);
    assert!(Rc::ptr_eq(&kept, &shown.read(&store, &mut memo)));

    assert!(store.remove_result("todos"));
    assert_eq!(*shown.read(&store, &mut memo), None);
}

#[test]
fn a_derived_view_read_over_the_bare_store_first_reads_by_endpoint_once_it_knows_the_base() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    ctrl.set_response(
        &TodoResource::get(),
        &TodoResourceParams { id: 1 },
        Rc::new(crate::common::todo(1, "milk")),
    )
    .unwrap();
    let title = Query::new(|q| {
        q.read(&TodoResource::get(), &TodoResourceParams { id: 1 })
            .map(|todo| todo.title.clone())
    });
    // Over the bare store no endpoint has a key: the query finds nothing.
    let bare = ctrl.with_store(|store| title.read(store, &mut Memo::new()));
    assert_eq!(*bare, None);
    // The controller knows its base URL: the same store, unchanged, now
    // answers the read by endpoint.
    assert_eq!(ctrl.query(&title).as_deref(), Some("milk"));
    // And back over the bare store, nothing again.
    let bare = ctrl.with_store(|store| title.read(store, &mut Memo::new()));
    assert_eq!(*bare, None);
}
