//! A detail read of a record the cache holds already (from a list, say)
//! is answered from that record: no request, no suspension, the very
//! `Rc` the list holds, expiring with the record's own fetch time. Not
//! for a record deleted or invalidated, nor for an endpoint that opts
//! out. Real HTTP to mockito (whose `expect(0)` fails a request made).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use crate::common::controller::*;
use crate::common::mock::*;
use crate::common::{Todo, TodoResource, TodoResourceParams};
use restcache::prelude::*;
use restcache::{Observe, ReadObserver};

endpoint!(pub todo_parent { path: "/todos/:id/parent", schema: std::rc::Rc<Todo> });
endpoint!(pub todo_json_file { path: "/files/todos/:id.json", schema: std::rc::Rc<Todo> });
endpoint!(pub todo_by_id { path: "/todo-by-id/:id", schema: std::rc::Rc<Todo>, params: { id: u64 } });
endpoint!(pub todo_by_code { path: "/todo-by-code/:id", schema: std::rc::Rc<Todo>, params: { id: String } });

/// The todo list fetched through the controller, with `GET /todos/:id`
/// failing the test if it is ever called.
async fn listed() -> (
    mockito::ServerGuard,
    Controller,
    ManualClock,
    Vec<Rc<Todo>>,
    mockito::Mock,
) {
    let (mut server, ctrl, clock) = setup().await;
    let _list = once(server.mock("GET", "/todos"), 200, LIST).await;
    let no_detail = server
        .mock("GET", mockito::Matcher::Regex("^/todos/".into()))
        .expect(0)
        .create_async()
        .await;
    let list = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    (server, ctrl, clock, (*list).clone(), no_detail)
}

#[tokio::test]
async fn a_listed_record_answers_its_detail_read_at_once() {
    let (_server, ctrl, clock, list, no_detail) = listed().await;
    let cached = ctrl.read(&TodoResource::get(), &one(2));
    assert_eq!(cached.status, ExpiryStatus::Valid);
    assert!(
        Rc::ptr_eq(cached.data.as_ref().unwrap(), &list[1]),
        "the list's own copy"
    );
    let todo = ctrl.ensure(&TodoResource::get(), &one(2)).await.unwrap();
    assert!(Rc::ptr_eq(&todo, &list[1]));

    // The record's own fetch time decides: stale with the list.
    clock.advance(Duration::from_secs(61));
    let stale = ctrl.read(&TodoResource::get(), &one(2));
    assert_eq!(stale.status, ExpiryStatus::Stale);
    assert_eq!(stale.data.unwrap().title, "eggs");
    no_detail.assert_async().await;
}

#[tokio::test]
async fn a_custom_endpoint_whose_params_hold_the_pk_infers_too() {
    let (_server, ctrl, _clock, list, _) = listed().await;
    let cached = ctrl.read(&todo_by_id(), &TodoByIdParams { id: 1 });
    assert_eq!(cached.status, ExpiryStatus::Valid);
    assert!(Rc::ptr_eq(cached.data.as_ref().unwrap(), &list[0]));
}

#[tokio::test]
async fn a_text_pk_is_inferred_as_written_not_as_a_number_it_parses_to() {
    let (_server, ctrl, _clock, list, _no_detail) = listed().await;
    let code = |id: &str| TodoByCodeParams { id: id.into() };
    let same = ctrl.read(&todo_by_code(), &code("2"));
    assert!(
        Rc::ptr_eq(same.data.as_ref().unwrap(), &list[1]),
        "\"2\" is todo 2"
    );
    for other in ["02", "+2"] {
        let read = ctrl.read(&todo_by_code(), &code(other));
        assert!(read.data.is_none(), "{other:?} names another record than 2");
    }
}

#[tokio::test]
async fn a_deleted_or_invalidated_record_is_not_inferred() {
    let (_server, ctrl, _clock, _list, _) = listed().await;
    ctrl.with_store(|_| ());
    assert!(ctrl.invalidate_entity::<Todo>(2u64));
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(2)).status,
        ExpiryStatus::Invalid
    );
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(3)).status,
        ExpiryStatus::Invalid,
        "never listed"
    );
}

#[tokio::test]
async fn an_inferred_read_invalidated_or_expired_by_its_key_fetches_again() {
    let (_server, ctrl, _clock, _list, _) = listed().await;
    assert!(
        ctrl.invalidate(&TodoResource::get(), &one(2)),
        "the cache answered it"
    );
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(2)).status,
        ExpiryStatus::Invalid
    );
    assert_eq!(
        ctrl.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Valid,
        "the list that brought it stays"
    );

    let (_server, ctrl, _clock, _list, _) = listed().await;
    let todo_1 = TodoResource::get()
        .key(ctrl.client().base_url(), &one(1))
        .unwrap();
    // A read the cache answered from the list's copy.
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(1)).status,
        ExpiryStatus::Valid
    );
    assert_eq!(ctrl.expire_all(|key| key == todo_1), 1);
    let stale = ctrl.read(&TodoResource::get(), &one(1));
    assert_eq!(stale.status, ExpiryStatus::Stale);
    assert_eq!(stale.data.unwrap().title, "milk", "still on show");
    assert_eq!(ctrl.invalidate_all(|key| key == todo_1), 1);
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(1)).status,
        ExpiryStatus::Invalid
    );
}

#[tokio::test]
async fn an_invalidated_record_sends_the_lists_that_held_it_to_fetch_again() {
    let (mut server, ctrl, _clock, _list, _) = listed().await;
    let again = once(server.mock("GET", "/todos"), 200, LIST).await;
    let list = TodoResource::get_list();
    assert!(ctrl.invalidate_entity::<Todo>(2u64));
    let cached = ctrl.read(&list, &());
    assert_eq!(cached.status, ExpiryStatus::Stale, "it refetches");
    assert_eq!(
        titles(&cached.data.unwrap()),
        ["milk"],
        "todo 2 is not on show"
    );
    ctrl.fetch(&list, &(), None).await.unwrap();
    again.assert_async().await;
    assert_eq!(
        titles(&ctrl.read(&list, &()).data.unwrap()),
        ["milk", "eggs"]
    );
}

#[tokio::test]
async fn a_read_of_a_record_beneath_the_one_its_path_names_is_not_inferred() {
    let (_server, ctrl, _clock, list, _) = listed().await;
    // The parent of todo 1 is not todo 1.
    let parent = ctrl.read(&todo_parent(), &TodoParentParams { id: "1".into() });
    assert_eq!(parent.status, ExpiryStatus::Invalid);
    assert!(parent.data.is_none());
    // A placeholder with more of its own segment after it still names the record.
    let file = ctrl.read(&todo_json_file(), &TodoJsonFileParams { id: "1".into() });
    assert!(Rc::ptr_eq(file.data.as_ref().unwrap(), &list[0]));
}

#[tokio::test]
async fn an_endpoint_that_opts_out_is_fetched() {
    let (_server, ctrl, _clock, _list, _) = listed().await;
    let opted_out = TodoResource::get().without_inference();
    assert_eq!(ctrl.read(&opted_out, &one(2)).status, ExpiryStatus::Invalid);
}

#[tokio::test]
async fn an_observed_inferred_read_follows_its_record() {
    let (_server, ctrl, _clock, _list, _) = listed().await;
    let mut observer = ReadObserver::new(&ctrl, Observe::new().changes());
    observer.set(&TodoResource::get(), &one(2));
    assert_eq!(observer.read().unwrap().data.unwrap().title, "eggs");
    let told = Rc::new(Cell::new(0));
    let seen = Rc::clone(&told);
    observer.subscribe(move || seen.set(seen.get() + 1));
    assert_eq!(told.get(), 0, "nothing changed since the read");
    let renamed = Rc::new(Todo {
        title: "free-range eggs".into(),
        ..crate::common::todo(2, "")
    });
    ctrl.set_response(&TodoResource::get_list(), &(), vec![renamed])
        .unwrap();
    assert_eq!(told.get(), 1);
    assert_eq!(
        observer.read().unwrap().data.unwrap().title,
        "free-range eggs"
    );
}

#[tokio::test]
async fn switching_list_detail_list_ten_times_makes_one_request() {
    let (_server, ctrl, _clock, _list, no_detail) = listed().await;
    for round in 0..10_u64 {
        let id = round % 2 + 1;
        ctrl.ensure(&TodoResource::get_list(), &()).await.unwrap();
        let todo = ctrl
            .ensure(&TodoResource::get(), &TodoResourceParams { id })
            .await
            .unwrap();
        assert_eq!(todo.id, id);
    }
    no_detail.assert_async().await; // only the first list request was made
}

/// A profile read of the users' path: another schema on the same key.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Badge {
    pub id: u64,
    pub label: String,
}

endpoint!(pub badge_of { path: "/todos/:id", schema: std::rc::Rc<Badge>, params: { id: u64 } });

#[tokio::test]
async fn two_schemas_on_one_key_give_one_clear_error_not_a_refetch_loop() {
    let (mut server, ctrl, _clock) = setup().await;
    let get = server
        .mock("GET", "/todos/1")
        .with_body(todo_json(1, "milk"))
        .expect(1)
        .create_async()
        .await;
    let todo = ctrl.ensure(&TodoResource::get(), &one(1)).await.unwrap();
    assert_eq!(todo.title, "milk");

    // The other schema's read of that key: an error, and no request.
    let clash = ctrl.read(&badge_of(), &BadgeOfParams { id: 1 });
    assert_eq!(clash.status, ExpiryStatus::Valid, "nothing to fetch");
    let error = clash.error.expect("a clear error");
    assert!(
        matches!(error.kind(), restcache::http::ErrorKind::KeyClash { .. }),
        "{error}"
    );
    for _ in 0..3 {
        assert!(
            ctrl.ensure(&badge_of(), &BadgeOfParams { id: 1 })
                .await
                .is_err()
        );
        ctrl.ensure(&TodoResource::get(), &one(1)).await.unwrap();
    }
    get.assert_async().await;
}
