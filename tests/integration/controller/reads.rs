//! The controller's reads through the public API: expiry against a
//! `ManualClock`, shared requests, ordering, errors beside data, reset,
//! and subscriptions; real HTTP to mockito on 127.0.0.1 (no sleeps in the
//! tests' own logic; delayed responses come from the mock server).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use crate::common::controller::*;
use crate::common::mock::*;
use crate::common::{Found, Todo, TodoResource};
use futures_util::future::join_all;
use mockito::Server;
use restcache::http::{Body, Client, Error};
use restcache::prelude::*;
use serde_json::json;

resource!(pub FreshTodoResource {
    path: "/fresh/:id",
    schema: Todo,
    data_expiry: Duration::from_secs(5),
    error_expiry: Duration::from_secs(10),
    invalid_if_stale: true,
});

#[tokio::test]
async fn reads_follow_the_expiry_table_with_the_clock() {
    let (mut server, ctrl, clock) = setup().await;
    let list = once(server.mock("GET", "/todos"), 200, LIST).await;
    let get = TodoResource::get_list();

    assert_eq!(ctrl.read(&get, &()).status, ExpiryStatus::Invalid);
    let fetched = ctrl.fetch(&get, &(), None).await.unwrap();
    let cached = ctrl.read(&get, &());
    assert_eq!(cached.status, ExpiryStatus::Valid);
    assert!(Rc::ptr_eq(&fetched, cached.data.as_ref().unwrap()));
    assert_eq!(
        cached.expires_at,
        Timestamp::from_millis(1_000_000 + 60_000)
    );

    clock.advance(Duration::from_secs(60)); // exactly at expiry: still fresh
    assert_eq!(ctrl.read(&get, &()).status, ExpiryStatus::Valid);
    clock.advance(Duration::from_millis(1));
    let stale = ctrl.read(&get, &());
    assert_eq!(stale.status, ExpiryStatus::Stale);
    assert_eq!(titles(stale.data.as_ref().unwrap()), ["milk", "eggs"]);
    list.assert_async().await;
}

#[tokio::test]
async fn expiry_is_configured_per_controller_and_per_endpoint() {
    let server = Server::new_async().await;
    let clock = ManualClock::at(Timestamp::from_millis(0));
    let ctrl = Controller::builder(Client::new(server.url()))
        .clock(clock.clone())
        .data_expiry(Duration::from_secs(2))
        .build();
    let todo = Rc::new(Todo {
        id: 1,
        ..Todo::default()
    });
    ctrl.set_response(&TodoResource::get(), &one(1), Rc::clone(&todo))
        .unwrap();
    ctrl.set_response(
        &FreshTodoResource::get(),
        &FreshTodoResourceParams { id: 1 },
        todo,
    )
    .unwrap();

    clock.advance(Duration::from_millis(2_001));
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(1)).status,
        ExpiryStatus::Stale
    );
    let fresh = ctrl.read(
        &FreshTodoResource::get(),
        &FreshTodoResourceParams { id: 1 },
    );
    assert_eq!(fresh.status, ExpiryStatus::Valid, "the endpoint's 5 s win");

    clock.advance(Duration::from_secs(3));
    let fresh = ctrl.read(
        &FreshTodoResource::get(),
        &FreshTodoResourceParams { id: 1 },
    );
    assert_eq!(fresh.status, ExpiryStatus::Invalid, "invalid_if_stale");
    assert!(fresh.data.is_none());
}

#[tokio::test]
async fn a_hundred_concurrent_reads_share_one_request() {
    let (mut server, ctrl, _) = setup().await;
    let list = list_once_after(&mut server, Duration::from_millis(50)).await;
    let get = TodoResource::get_list();

    let reads = (0..100).map(|_| ctrl.fetch(&get, &(), None));
    let results = join_all(reads).await;
    let first = results[0].as_ref().unwrap();
    for result in &results {
        assert!(Rc::ptr_eq(first, result.as_ref().unwrap()));
    }
    assert_eq!(ctrl.in_flight(), 0);
    list.assert_async().await;
}

#[tokio::test]
async fn ensure_fetches_only_what_is_not_fresh() {
    let (mut server, ctrl, clock) = setup().await;
    let list = server
        .mock("GET", "/todos")
        .with_body(LIST)
        .expect(2)
        .create_async()
        .await;
    let get = TodoResource::get_list();
    let first = ctrl.ensure(&get, &()).await.unwrap(); // Invalid: fetches
    let again = ctrl.ensure(&get, &()).await.unwrap(); // Valid: no request
    assert!(Rc::ptr_eq(&first, &again));
    clock.advance(Duration::from_secs(61));
    ctrl.ensure(&get, &()).await.unwrap(); // Stale: fetches
    list.assert_async().await;
}

/// Two overlapping reads touching todo 1: the list starts first, the detail
/// one second later; whichever arrives first, the detail's fields win.
async fn overlapping_reads(list_delay: Duration, detail_delay: Duration) -> String {
    let (mut server, ctrl, clock) = setup().await;
    let old = json!([{"id": 1, "userId": 1, "title": "old", "completed": false}]).to_string();
    let list = once_after(server.mock("GET", "/todos"), list_delay, old).await;
    let detail = once_after(
        server.mock("GET", "/todos/1"),
        detail_delay,
        todo_json(1, "new"),
    )
    .await;

    let get_list = TodoResource::get_list();
    let (a, b) = tokio::join!(ctrl.fetch(&get_list, &(), None), async {
        clock.advance(Duration::from_millis(5));
        ctrl.fetch(&TodoResource::get(), &one(1), None).await
    });
    a.unwrap();
    b.unwrap();
    list.assert_async().await;
    detail.assert_async().await;
    let from_list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    let from_detail = ctrl.read(&TodoResource::get(), &one(1)).data.unwrap();
    assert!(Rc::ptr_eq(&from_list[0], &from_detail));
    from_detail.title.clone()
}

#[tokio::test]
async fn the_later_started_request_wins_whatever_the_arrival_order() {
    let slow_first = overlapping_reads(Duration::from_millis(200), Duration::ZERO).await;
    assert_eq!(slow_first, "new", "the earlier request arrived last");
    let slow_second = overlapping_reads(Duration::ZERO, Duration::from_millis(200)).await;
    assert_eq!(slow_second, "new");
}

#[tokio::test]
async fn a_failed_refetch_keeps_the_data_and_its_error_expires() {
    let (mut server, ctrl, clock) = setup().await;
    let ok = once(server.mock("GET", "/todos"), 200, LIST).await;
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    ok.remove_async().await;
    let down = once(server.mock("GET", "/todos"), 503, "upstream down").await;

    clock.advance(Duration::from_secs(61));
    assert_eq!(
        ctrl.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Stale
    );
    let error = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap_err();
    assert!(error.is_soft());

    let cached = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(
        titles(cached.data.as_ref().unwrap()),
        ["milk", "eggs"],
        "data kept"
    );
    assert_eq!(cached.error.as_ref().map(Error::status), Some(Some(503)));
    assert_eq!(
        cached.status,
        ExpiryStatus::Valid,
        "no retry while the error holds"
    );
    assert!(
        cached.settled().unwrap().is_ok(),
        "a soft error shows the data"
    );

    clock.advance(Duration::from_millis(1_001));
    let cached = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(
        cached.status,
        ExpiryStatus::Stale,
        "the error expired: retry"
    );
    assert!(cached.error.is_none());
    down.assert_async().await;
}

#[tokio::test]
async fn a_hard_error_surfaces_and_a_bad_body_leaves_the_store_as_it_was() {
    let (mut server, ctrl, clock) = setup().await;
    let missing = once(
        server.mock("GET", "/todos/9"),
        404,
        r#"{"detail": "not found"}"#,
    )
    .await;
    let error = ctrl
        .fetch(&TodoResource::get(), &one(9), None)
        .await
        .unwrap_err();
    assert!(error.is_hard());
    let cached = ctrl.read(&TodoResource::get(), &one(9));
    assert!(matches!(cached.settled(), Some(Err(e)) if e.status() == Some(404)));
    clock.advance(Duration::from_millis(1_001));
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(9)).status,
        ExpiryStatus::Invalid
    );
    missing.assert_async().await;

    let list = once(server.mock("GET", "/todos"), 200, LIST).await;
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    list.remove_async().await;
    let bad = r#"[{"id": 1, "title": "changed"}, {"id": 2, "completed": "yes"}]"#;
    let broken = once(server.mock("GET", "/todos"), 200, bad).await;
    ctrl.invalidate(&TodoResource::get_list(), &());
    let error = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap_err();
    assert!(error.is_hard(), "{error}");
    let todo = ctrl.with_store(|s| s.get_entity::<Todo>(1u64).found());
    assert_eq!(todo.title, "milk", "no half-applied response");
    broken.assert_async().await;
}

#[tokio::test]
async fn responses_to_requests_started_before_a_reset_are_dropped() {
    let (mut server, ctrl, _) = setup().await;
    let list = list_once_after(&mut server, Duration::from_millis(50)).await;
    let get_list = TodoResource::get_list();
    let (fetched, ()) = tokio::join!(ctrl.fetch(&get_list, &(), None), async {
        ctrl.reset();
    });
    assert_eq!(
        titles(&fetched.unwrap()),
        ["milk", "eggs"],
        "the caller still gets it"
    );
    assert_eq!(
        ctrl.with_store(|s| s.result_count() + s.entity_count("Todo")),
        0
    );
    assert_eq!(
        ctrl.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Invalid
    );
    list.assert_async().await;
}

#[tokio::test]
async fn set_error_invalidate_all_and_expire_all_act_on_matching_keys() {
    let (server, ctrl, _) = setup().await;
    let todo = |id| {
        Rc::new(Todo {
            id,
            ..Todo::default()
        })
    };
    for id in 1..=3 {
        ctrl.set_response(&TodoResource::get(), &one(id), todo(id))
            .unwrap();
    }
    ctrl.set_response(
        &TodoResource::get_list(),
        &(),
        vec![todo(1), todo(2), todo(3)],
    )
    .unwrap();

    let is_one = |key: &str| key.ends_with("/todos/1");
    assert_eq!(ctrl.expire_all(is_one), 1);
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(1)).status,
        ExpiryStatus::Stale
    );
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(2)).status,
        ExpiryStatus::Valid
    );

    assert_eq!(ctrl.invalidate_all(|key| key.contains("/todos/")), 3);
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(2)).status,
        ExpiryStatus::Invalid
    );
    assert_eq!(
        ctrl.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Valid
    );

    let error = Error::http_status(Method::Get, &format!("{}/todos", server.url()), 500, "down");
    ctrl.set_error(&TodoResource::get_list(), &(), error);
    let cached = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(cached.data.map(|l| l.len()), Some(3));
    assert_eq!(cached.error.and_then(|e| e.status()), Some(500));
}

#[tokio::test]
async fn subscribers_are_told_when_what_they_read_changes_and_only_then() {
    let (mut server, ctrl, clock) = setup().await;
    let list = server
        .mock("GET", "/todos")
        .with_body(LIST)
        .expect(2)
        .create_async()
        .await;
    let counter = || {
        let calls = Rc::new(Cell::new(0));
        let seen = Rc::clone(&calls);
        (calls, move || seen.set(seen.get() + 1))
    };
    let (list_calls, on_list) = counter();
    let (todo_calls, on_todo) = counter();
    let _list = ctrl.subscribe(&TodoResource::get_list(), &(), on_list);
    let _todo = ctrl.subscribe_entity::<Todo>(2u64, on_todo);

    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    assert_eq!((list_calls.get(), todo_calls.get()), (1, 1));

    let refetch = || async {
        clock.advance(Duration::from_secs(61));
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .unwrap();
        (list_calls.get(), todo_calls.get())
    };
    assert_eq!(refetch().await, (1, 1), "the same records change nothing");
    list.assert_async().await;
    list.remove_async().await;
    let edited = LIST.replace("eggs", "brown eggs");
    let list = once(server.mock("GET", "/todos"), 200, &edited).await;
    assert_eq!(refetch().await, (2, 2), "an edited record");

    let other = Rc::new(Todo {
        id: 7,
        ..Todo::default()
    });
    ctrl.set_response(&TodoResource::get(), &one(7), other)
        .unwrap();
    assert_eq!(
        (list_calls.get(), todo_calls.get()),
        (2, 2),
        "not read by either"
    );

    let renamed = Rc::new(Todo {
        id: 1,
        title: "oat milk".into(),
        ..Todo::default()
    });
    ctrl.set_response(&TodoResource::get(), &one(1), renamed)
        .unwrap();
    assert_eq!(
        (list_calls.get(), todo_calls.get()),
        (3, 2),
        "todo 1 is in the list"
    );

    drop(_list);
    ctrl.invalidate(&TodoResource::get_list(), &());
    assert_eq!(list_calls.get(), 3, "unsubscribed");
    assert_eq!(ctrl.subscriber_count(), 1);
    list.assert_async().await;
}

#[tokio::test]
async fn a_controller_dropped_with_a_read_on_its_way_is_freed() {
    /// A clock that sets its flag when dropped: the controller holds it as
    /// long as the controller lives (the read's request does not).
    struct Watched(Rc<Cell<bool>>);
    impl Drop for Watched {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    impl restcache::Clock for Watched {
        fn now(&self) -> Timestamp {
            Timestamp::now()
        }
    }
    let (mut server, _, _) = setup().await;
    let _slow = slowly(
        server.mock("GET", "/todos"),
        Duration::from_millis(200),
        LIST,
    )
    .create_async()
    .await;
    let freed = Rc::new(Cell::new(false));
    let ctrl = Controller::builder(Client::new(server.url()))
        .clock(Watched(Rc::clone(&freed)))
        .build();
    let get_list = TodoResource::get_list();
    let mut fetching = Box::pin(ctrl.fetch(&get_list, &(), None));
    let started = futures_util::FutureExt::now_or_never(fetching.as_mut());
    assert!(started.is_none(), "the request is on its way");
    // Its caller never ends and never goes away: the read stays on its way.
    std::mem::forget(fetching);
    assert_eq!(ctrl.in_flight(), 1);
    drop(ctrl);
    assert!(
        freed.get(),
        "a read on its way holds no strong reference to its controller"
    );
}

#[tokio::test]
async fn a_predicate_of_invalidate_all_and_expire_all_may_call_the_controller() {
    let (_server, ctrl, _) = setup().await;
    let todo = |id| {
        Rc::new(Todo {
            id,
            completed: id == 2,
            ..Todo::default()
        })
    };
    for id in 1..=3 {
        ctrl.set_response(&TodoResource::get(), &one(id), todo(id))
            .unwrap();
    }
    // A predicate that asks the cache what a key holds: the completed
    // todos' reads.
    let completed = |ctrl: &Controller, key: &str| {
        (1..=3).any(|id| {
            key.ends_with(&format!("/todos/{id}"))
                && ctrl
                    .read(&TodoResource::get(), &one(id))
                    .data
                    .is_some_and(|todo| todo.completed)
        })
    };
    assert_eq!(ctrl.expire_all(|key| completed(&ctrl, key)), 1);
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(2)).status,
        ExpiryStatus::Stale
    );
    assert_eq!(ctrl.invalidate_all(|key| completed(&ctrl, key)), 1);
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(2)).status,
        ExpiryStatus::Invalid
    );
    assert_eq!(
        ctrl.read(&TodoResource::get(), &one(1)).status,
        ExpiryStatus::Valid
    );
    // One that writes to the controller itself.
    let writes = ctrl.invalidate_all(|key| {
        ctrl.expire_all(|other| other == key);
        key.ends_with("/todos/3")
    });
    assert_eq!(writes, 1);
}

endpoint!(pub search {
    method: POST,
    path: "/search",
    schema: Vec<Rc<Todo>>,
    side_effect: false,
});

#[tokio::test]
async fn reads_sent_with_other_bodies_are_other_reads() {
    let (mut server, ctrl, _clock) = setup().await;
    let mut asked = Vec::new();
    for (id, query, title) in [(1, "milk", "found milk"), (2, "eggs", "found eggs")] {
        let answer = format!("[{}]", todo_json(id, title));
        let mock = slowly(
            server
                .mock("POST", "/search")
                .match_body(mockito::Matcher::Json(json!({ "q": query }))),
            Duration::from_millis(50),
            answer,
        )
        .expect(1)
        .create_async()
        .await;
        asked.push(mock);
    }
    let body = |query: &str| Some(Body::json(&json!({ "q": query })).unwrap());
    let search = search();
    let (milk, eggs) = tokio::join!(
        ctrl.fetch(&search, &(), body("milk")),
        ctrl.fetch(&search, &(), body("eggs")),
    );
    assert_eq!(titles(&milk.unwrap()), ["found milk"]);
    assert_eq!(titles(&eggs.unwrap()), ["found eggs"]);
    for mock in asked {
        mock.assert_async().await;
    }
}

#[tokio::test]
async fn a_record_invalidated_while_its_list_is_on_its_way_comes_back_with_the_next_fetch() {
    let (mut server, ctrl, _clock) = setup().await;
    let lists = slowly(
        server.mock("GET", "/todos"),
        Duration::from_millis(150),
        LIST,
    )
    .expect(3)
    .create_async()
    .await;
    let list = TodoResource::get_list();
    ctrl.fetch(&list, &(), None).await.unwrap();
    let refetch = ctrl.fetch(&list, &(), None);
    let invalidated_meanwhile = async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        // A push says todo 1 changed: the list on its way may hold an
        // older copy of it.
        ctrl.invalidate_entity::<Todo>(1u64);
        ctrl.fetch(&list, &(), None).await
    };
    let (refetched, after) = futures_util::future::join(refetch, invalidated_meanwhile).await;
    refetched.unwrap();
    after.unwrap();
    let shown = ctrl.read(&list, &());
    assert_eq!(
        (titles(&shown.data.unwrap()), shown.status),
        (vec!["milk", "eggs"], ExpiryStatus::Valid),
        "fetched after the invalidation, not joined to the request from before it"
    );
    lists.assert_async().await;
}

#[tokio::test]
async fn a_read_expired_while_on_its_way_is_fetched_again_not_joined() {
    let (mut server, ctrl, _clock) = setup().await;
    // Each answer tells which request it is: the server changes todo 1
    // between them.
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&answered);
    let todo = server
        .mock("GET", "/todos/1")
        .with_header("content-type", "application/json")
        .with_chunked_body(move |w| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(150));
            w.write_all(todo_json(1, &format!("version {n}")).as_bytes())
        })
        .expect(3)
        .create_async()
        .await;
    let (get, first) = (TodoResource::get(), one(1));
    ctrl.fetch(&get, &first, None).await.unwrap();
    let refetch = ctrl.fetch(&get, &first, None);
    let expired_meanwhile = async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        // A stream that cannot resume reconnects: what it may have missed
        // expires, and is fetched again.
        assert_eq!(ctrl.expire_all(|_| true), 1);
        let again = ctrl.fetch(&get, &first, None);
        futures_util::pin_mut!(again);
        assert!(futures_util::poll!(&mut again).is_pending());
        assert_eq!(ctrl.in_flight(), 2, "the one let go is on its way too");
        assert!(!ctrl.is_idle());
        again.await
    };
    let (_, after) = futures_util::future::join(refetch, expired_meanwhile).await;
    assert_eq!(after.unwrap().title, "version 2", "a request of its own");
    let shown = ctrl.read(&get, &one(1));
    assert_eq!(
        (shown.data.unwrap().title.as_str(), shown.status),
        ("version 2", ExpiryStatus::Valid)
    );
    todo.assert_async().await;
}

#[tokio::test]
async fn a_request_let_go_ends_cancelled_when_nobody_waits_on_it() {
    let (mut server, ctrl, _clock) = setup().await;
    let _todo = slowly(
        server.mock("GET", "/todos/1"),
        Duration::from_millis(150),
        todo_json(1, "milk"),
    )
    .create_async()
    .await;
    let events = Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = Rc::clone(&events);
    let _listener = ctrl.on_event(move |event, _| match event {
        restcache::Event::RequestStarted { .. } => log.borrow_mut().push("started"),
        restcache::Event::RequestCancelled { .. } => log.borrow_mut().push("cancelled"),
        _ => {}
    });
    let (get, first) = (TodoResource::get(), one(1));
    ctrl.fetch(&get, &first, None).await.unwrap();
    events.borrow_mut().clear();
    let mut fetch = Box::pin(ctrl.fetch(&get, &first, None));
    assert!(futures_util::poll!(&mut fetch).is_pending());
    assert_eq!(ctrl.expire_all(|_| true), 1);
    assert_eq!(ctrl.in_flight(), 1);
    drop(fetch); // its one waiter goes
    assert_eq!(ctrl.in_flight(), 0);
    assert!(ctrl.is_idle());
    assert_eq!(*events.borrow(), ["started", "cancelled"]);
}

#[tokio::test]
async fn a_first_read_on_its_way_is_let_go_by_invalidate_all() {
    let (mut server, ctrl, _clock) = setup().await;
    let todo = server
        .mock("GET", "/todos/1")
        .with_header("content-type", "application/json")
        .with_chunked_body(|w| {
            std::thread::sleep(Duration::from_millis(150));
            w.write_all(todo_json(1, "as it was").as_bytes())
        })
        .expect(2)
        .create_async()
        .await;
    let (get, params) = (TodoResource::get(), one(1));
    let first = ctrl.fetch(&get, &params, None);
    let invalidated_meanwhile = async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        // A write the cache cannot follow (a custom RPC) changed todos.
        ctrl.invalidate_all(|key| key.contains("/todos"));
        let again = ctrl.fetch(&get, &params, None);
        futures_util::pin_mut!(again);
        assert!(futures_util::poll!(&mut again).is_pending());
        assert_eq!(
            ctrl.in_flight(),
            2,
            "a request of its own, not the older one"
        );
        again.await
    };
    let (older, _) = futures_util::future::join(first, invalidated_meanwhile).await;
    older.unwrap();
    todo.assert_async().await;
}
