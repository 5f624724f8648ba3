//! Writing records into the cache from outside a request (one record,
//! by type and pk, with the time its data stood), and listening to what
//! the controller does.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use restcache::http::{Client, Incoming, Outgoing};
use restcache::prelude::*;
use restcache::testing::{Fixture, MockClient, Reply, settled};
use restcache::{Event, RecordChange};
use serde_json::json;

use crate::common::controller::{one, titles};
use crate::common::{Todo, TodoResource, TodoResourcePagesParams, todo};

/// A controller on a clock the test moves, whose requests are answered by
/// `answer` of the request's path.
fn controller(answer: fn(&str) -> Incoming) -> (Controller, ManualClock) {
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let client = Client::new("http://api.test").with_transport(move |request: Outgoing| {
        let path = request.url.trim_start_matches("http://api.test").to_owned();
        async move { Ok(answer(&path)) }
    });
    let ctrl = Controller::builder(client)
        .clock(clock.clone())
        .retry(restcache::Retry::NONE)
        .build();
    (ctrl, clock)
}

fn nothing(_: &str) -> Incoming {
    Incoming::new(404, "")
}

fn two_todos(ctrl: &Controller) {
    let list = vec![Rc::new(todo(1, "milk")), Rc::new(todo(2, "eggs"))];
    ctrl.set_response(&TodoResource::get_list(), &(), list)
        .unwrap();
}

#[test]
fn a_record_set_from_outside_shows_in_every_read_that_holds_it_and_tells_its_views() {
    let (ctrl, clock) = controller(nothing);
    two_todos(&ctrl);
    let calls = Rc::new(Cell::new(0));
    let seen = Rc::clone(&calls);
    let _view = ctrl.subscribe(&TodoResource::get_list(), &(), move || {
        seen.set(seen.get() + 1)
    });
    clock.advance(Duration::from_millis(5));
    let stored = ctrl
        .set_entity(todo(2, "oat milk"), ctrl.write_time())
        .unwrap();
    assert_eq!(stored.title, "oat milk");
    assert_eq!(calls.get(), 1);
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&list), ["milk", "oat milk"]);
    let detail = ctrl.read(&TodoResource::get(), &one(2));
    assert_eq!(detail.data.unwrap().title, "oat milk");

    // A new record joins no list; it can be read by its pk.
    ctrl.set_entity(todo(3, "bread"), ctrl.write_time())
        .unwrap();
    assert_eq!(
        ctrl.read(&TodoResource::get_list(), &())
            .data
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(3)).data.unwrap().title,
        "bread"
    );
}

#[test]
fn a_record_older_than_the_stored_copy_does_not_win() {
    let (ctrl, clock) = controller(nothing);
    let before = ctrl.now();
    clock.advance(Duration::from_millis(10));
    two_todos(&ctrl);
    ctrl.set_entity(todo(1, "stale"), before).unwrap();
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&list), ["milk", "eggs"]);
}

#[test]
fn an_update_edits_the_stored_copy_and_skips_a_record_the_cache_lacks() {
    let (ctrl, _) = controller(nothing);
    two_todos(&ctrl);
    let done = ctrl
        .update_entity::<Todo>(1u64, ctrl.write_time(), |todo| Todo {
            completed: true,
            ..todo.clone()
        })
        .unwrap()
        .unwrap();
    assert!(done.completed && done.title == "milk");
    assert!(ctrl.read(&TodoResource::get_list(), &()).data.unwrap()[0].completed);
    let missing = ctrl
        .update_entity::<Todo>(9u64, ctrl.write_time(), Todo::clone)
        .unwrap();
    assert!(missing.is_none());
    assert!(ctrl.read(&TodoResource::get(), &one(9)).data.is_none());
}

#[test]
fn a_deleted_record_leaves_every_list_and_an_older_response_does_not_bring_it_back() {
    let (ctrl, clock) = controller(nothing);
    two_todos(&ctrl);
    assert!(ctrl.delete_entity::<Todo>(1u64, ctrl.write_time() + Duration::from_secs(1)));
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&list), ["eggs"]);
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(1)).status,
        ExpiryStatus::Invalid
    );
    // A list whose request started before the delete still holds it: the
    // cache leaves it out.
    clock.advance(Duration::from_millis(10));
    two_todos(&ctrl);
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&list), ["eggs"]);
    assert!(!ctrl.delete_entity::<Todo>(7u64, ctrl.write_time()));
}

/// Every event `ctrl` tells, as `Debug` text of its kind and key.
fn recorded(ctrl: &Controller) -> (Rc<RefCell<Vec<String>>>, restcache::EventListener) {
    let events = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&events);
    let listener = ctrl.on_event(move |event, _| {
        seen.borrow_mut().push(match event {
            Event::RequestStarted { key, method, url } => {
                format!("started {key} ({method:?} {url})")
            }
            Event::ResponseStored { key } => format!("stored {key}"),
            Event::RequestFailed { key, error } => format!("failed {key}: {:?}", error.status()),
            Event::Invalidated { key } => format!("invalidated {key}"),
            Event::Record { entity, pk, change } => {
                let change = match change {
                    RecordChange::Set => "Set",
                    RecordChange::Deleted => "Deleted",
                    RecordChange::Invalidated => "Invalidated",
                };
                format!("record {entity} {pk:?} {change}")
            }
            Event::RequestCancelled { key } => format!("cancelled {key}"),
            Event::ErrorStored { key, error } => {
                format!("error stored {key}: {:?}", error.status())
            }
            Event::Reset => "reset".to_owned(),
            other => format!("{other:?}"),
        })
    });
    (events, listener)
}

fn todos_or_missing(path: &str) -> Incoming {
    match path {
        "/todos" => Incoming::new(200, r#"[{"id": 1, "title": "milk"}]"#),
        _ => Incoming::new(404, "no such todo"),
    }
}

#[tokio::test]
async fn listeners_hear_requests_stores_failures_invalidations_records_and_resets() {
    let (ctrl, _) = controller(todos_or_missing);
    let (events, listener) = recorded(&ctrl);
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::get(), &one(5), None)
        .await
        .unwrap_err();
    ctrl.invalidate(&TodoResource::get_list(), &());
    ctrl.set_entity(todo(1, "oat milk"), ctrl.write_time())
        .unwrap();
    ctrl.delete_entity::<Todo>(1u64, ctrl.write_time());
    ctrl.reset();
    let list = "GET http://api.test/todos";
    let five = "GET http://api.test/todos/5";
    assert_eq!(
        *events.borrow(),
        [
            format!("started {list} (Get {})", "http://api.test/todos"),
            format!("stored {list}"),
            format!("started {five} (Get {})", "http://api.test/todos/5"),
            format!("failed {five}: Some(404)"),
            format!("invalidated {list}"),
            r#"record Todo Pk("1") Set"#.to_owned(),
            r#"record Todo Pk("1") Deleted"#.to_owned(),
            "reset".to_owned(),
        ]
    );
    drop(listener);
    ctrl.reset();
    assert_eq!(events.borrow().len(), 8, "a dropped listener hears nothing");
}

#[tokio::test]
async fn a_listener_may_call_the_controller_it_listens_to() {
    let (ctrl, _) = controller(|_| Incoming::new(401, "session expired"));
    two_todos(&ctrl);
    let resets = Rc::new(Cell::new(0));
    let counted = Rc::clone(&resets);
    let _log_out = ctrl.on_event(move |event, ctrl| {
        if let Event::RequestFailed { error, .. } = event
            && error.status() == Some(401)
        {
            counted.set(counted.get() + 1);
            ctrl.reset();
        }
    });
    let failed = ctrl
        .fetch(&TodoResource::get(), &one(9), None)
        .await
        .unwrap_err();
    assert_eq!(failed.status(), Some(401));
    assert_eq!(resets.get(), 1);
    assert!(ctrl.read(&TodoResource::get_list(), &()).data.is_none());
    // A mutation refused the same way logs out too.
    two_todos(&ctrl);
    let body = Body::json(&serde_json::json!({"title": "x"})).unwrap();
    ctrl.fetch(&TodoResource::partial_update(), &one(1), Some(body))
        .await
        .unwrap_err();
    assert_eq!(resets.get(), 2);
    assert!(ctrl.read(&TodoResource::get_list(), &()).data.is_none());
}

#[tokio::test]
async fn a_record_deleted_before_the_cache_held_it_stays_out_of_an_older_list() {
    let mock = MockClient::new();
    let list = json!([{"id": 1, "title": "milk"}, {"id": 7, "title": "gone"}]);
    mock.answer(Fixture::new(&TodoResource::get_list(), (), list).after(Duration::from_millis(20)));
    let ctrl = mock.controller();
    let endpoint = TodoResource::get_list();
    // The list is on its way when todo 7's deletion is pushed.
    let (fetched, deleted) = futures_util::join!(ctrl.fetch(&endpoint, &(), None), async {
        assert_eq!(ctrl.in_flight(), 1);
        ctrl.delete_entity::<Todo>(7u64, ctrl.write_time())
    });
    assert!(!deleted, "the cache did not hold todo 7");
    assert_eq!(titles(&fetched.unwrap()), ["milk"]);
    assert_eq!(titles(&ctrl.read(&endpoint, &()).data.unwrap()), ["milk"]);
}

#[test]
fn a_write_at_write_time_is_newer_than_every_request_started_before_it() {
    let (ctrl, _) = controller(nothing);
    // Two writes in one tick of the clock: the second starts just after.
    two_todos(&ctrl);
    two_todos(&ctrl);
    let stored = ctrl
        .set_entity(todo(1, "pushed"), ctrl.write_time())
        .unwrap();
    assert_eq!(stored.title, "pushed");
    let older = ctrl.set_entity(todo(1, "late"), ctrl.now()).unwrap();
    assert_eq!(older.title, "pushed", "the store's newer copy comes back");
}

#[tokio::test]
async fn an_error_stored_by_hand_is_not_told_as_a_failed_request() {
    let mock = MockClient::new();
    mock.answer(Fixture::new(
        &TodoResource::get_list(),
        (),
        json!([{"id": 1, "title": "milk"}]),
    ));
    mock.answer(Fixture::error(
        &TodoResource::get(),
        one(2),
        401,
        "signed out",
    ));
    let ctrl = mock.controller();
    let (events, _listener) = recorded(&ctrl);
    mock.fill(&ctrl).unwrap();
    assert_eq!(
        *events.borrow(),
        [
            "stored GET http://restcache.test/todos",
            "error stored GET http://restcache.test/todos/2: Some(401)",
        ],
        "filling stores the list and the error; no request failed"
    );
}

#[tokio::test]
async fn a_next_page_is_told_from_start_to_end_and_keeps_the_controller_busy() {
    let mock = MockClient::new();
    let first = TodoResourcePagesParams { page: 1, limit: 1 };
    let next = TodoResourcePagesParams { page: 2, limit: 1 };
    let link = r#"</todos?_limit=1&_page=2>; rel="next""#;
    let page = |id: u64| json!([{"id": id, "title": format!("todo {id}")}]);
    mock.answer(Fixture::reply(
        &TodoResource::pages(),
        first,
        Reply::json(&page(1)).with_header("link", link),
    ));
    mock.answer(Fixture::reply(
        &TodoResource::pages(),
        next,
        Reply::json(&page(2)).after(Duration::from_millis(20)),
    ));
    let ctrl = mock.controller();
    let pages = TodoResource::pages();
    let first = TodoResourcePagesParams { page: 1, limit: 1 };
    ctrl.fetch(&pages, &first, None).await.unwrap();
    let (events, _listener) = recorded(&ctrl);
    let (more, ()) = futures_util::join!(ctrl.fetch_next_page(&pages, &first), async {
        assert!(!ctrl.is_idle(), "a next page on its way");
        settled(&ctrl).await;
    });
    assert!(!more.unwrap());
    let key = "GET http://restcache.test/todos?_limit=1"; // a list's key drops its page
    assert_eq!(
        *events.borrow(),
        [
            format!("started {key} (Get http://restcache.test/todos?_limit=1&_page=2)"),
            format!("stored {key}"),
        ]
    );
    let list = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(list.items.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn a_record_written_from_outside_leaves_the_lists_it_no_longer_matches() {
    // The base address's query scopes every URL: it filters no list.
    let ctrl = Controller::new(Client::new("http://api.test?key=K"));
    let (for_user, first, second) = (
        TodoResource::for_user(),
        crate::common::TodoResourceForUserParams { user_id: 1 },
        crate::common::TodoResourceForUserParams { user_id: 2 },
    );
    let milk = Todo {
        user_id: 1,
        ..todo(1, "milk")
    };
    let eggs = Todo {
        user_id: 1,
        ..todo(2, "eggs")
    };
    ctrl.set_response(
        &for_user,
        &first,
        vec![Rc::new(milk.clone()), Rc::new(eggs)],
    )
    .unwrap();
    ctrl.set_response(&TodoResource::get_list(), &(), vec![Rc::new(milk.clone())])
        .unwrap();
    ctrl.set_response(&for_user, &second, vec![]).unwrap();

    // Another user took milk over (a live message says so).
    let moved = Todo { user_id: 2, ..milk };
    ctrl.set_entity(moved, ctrl.write_time()).unwrap();
    let shown = ctrl.read(&for_user, &first);
    assert_eq!(
        (titles(&shown.data.unwrap()), shown.status),
        (vec!["eggs"], ExpiryStatus::Valid),
        "user 1's list lets it go"
    );
    let all = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(
        (titles(&all.data.unwrap()), all.status),
        (vec!["milk"], ExpiryStatus::Valid),
        "the unfiltered list keeps it"
    );
    let theirs = ctrl.read(&for_user, &second);
    assert_eq!(
        (theirs.data.unwrap().len(), theirs.status),
        (0, ExpiryStatus::Stale),
        "user 2's list, which it now matches, fetches again to bring it"
    );
}

#[test]
fn a_record_in_an_unfiltered_list_alone_still_finds_the_filtered_list_it_now_matches() {
    // No query on the base address: the unfiltered list's key has none.
    let ctrl = Controller::new(Client::new("http://api.test"));
    let (for_user, second) = (
        TodoResource::for_user(),
        crate::common::TodoResourceForUserParams { user_id: 2 },
    );
    let milk = Todo {
        user_id: 1,
        ..todo(1, "milk")
    };
    ctrl.set_response(&TodoResource::get_list(), &(), vec![Rc::new(milk.clone())])
        .unwrap();
    ctrl.set_response(&for_user, &second, vec![]).unwrap();
    ctrl.set_entity(Todo { user_id: 2, ..milk }, ctrl.write_time())
        .unwrap();
    assert_eq!(
        ctrl.read(&for_user, &second).status,
        ExpiryStatus::Stale,
        "user 2's list, which it now matches, fetches again to bring it"
    );
    assert_eq!(
        ctrl.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Valid,
        "the unfiltered list keeps it"
    );
}

#[test]
fn a_record_deleted_from_outside_leaves_a_paged_lists_count() {
    let ctrl = Controller::new(Client::new("http://api.test"));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    let page = restcache::rest::Page {
        items: vec![Rc::new(todo(1, "milk")), Rc::new(todo(2, "eggs"))],
        total: Some(5),
        next: None,
    };
    ctrl.set_response(&pages, &first, page).unwrap();
    // Another user deleted milk (a live message says so).
    assert!(ctrl.delete_entity::<Todo>(1u64, ctrl.write_time()));
    let shown = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(
        (titles(&shown.items), shown.total),
        (vec!["eggs"], Some(4)),
        "one record fewer in the collection"
    );
}

#[test]
fn a_create_on_a_list_whose_count_is_at_its_limit_keeps_it_there() {
    let ctrl = Controller::new(Client::new("http://api.test"));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    let page = restcache::rest::Page {
        items: vec![Rc::new(todo(1, "milk"))],
        total: Some(u64::MAX),
        next: None,
    };
    ctrl.set_response(&pages, &first, page).unwrap();
    ctrl.set_response(&TodoResource::create(), &(), Rc::new(todo(2, "eggs")))
        .unwrap();
    let shown = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(
        (titles(&shown.items), shown.total),
        (vec!["milk", "eggs"], Some(u64::MAX)),
        "the server's count, as far as it goes"
    );
}

endpoint!(pub done_as_one { path: "/todos\\?completed=1", schema: Vec<Rc<Todo>> });

#[test]
fn a_list_whose_filter_its_field_cannot_read_goes_stale_on_news_of_a_record() {
    let ctrl = Controller::new(Client::new("http://api.test"));
    let done = Todo {
        completed: true,
        ..todo(1, "milk")
    };
    ctrl.set_response(&done_as_one(), &(), vec![Rc::new(done.clone())])
        .unwrap();
    // A live message says it is not done any more.
    let undone = Todo {
        completed: false,
        ..done
    };
    ctrl.set_entity(undone, ctrl.write_time()).unwrap();
    let shown = ctrl.read(&done_as_one(), &());
    assert_eq!(
        (titles(&shown.data.unwrap()), shown.status),
        (vec!["milk"], ExpiryStatus::Stale),
        "`completed=1` is the server's syntax: it says whether the record stays"
    );
}
