//! The controller's mutations through the public API: updates merged
//! into every cached result, creates joining lists, deletes leaving them,
//! optimistic updates and their rollback; real HTTP to mockito on
//! 127.0.0.1.

use std::rc::Rc;
use std::time::Duration;

use crate::common::controller::*;
use crate::common::mock::*;
use crate::common::{Todo, TodoResource};
use futures_util::FutureExt;
use futures_util::future::join_all;
use mockito::Matcher;
use restcache::Event;
use restcache::http::Body;
use restcache::prelude::*;
use serde_json::json;

#[tokio::test]
async fn mutations_are_never_deduplicated() {
    let (mut server, ctrl, _) = setup().await;
    let patch = server
        .mock("PATCH", "/todos/1")
        .match_body(Matcher::Json(json!({"completed": true})))
        .with_body(todo_json(1, "milk"))
        .expect(3)
        .create_async()
        .await;
    let body = || Some(Body::json(&json!({"completed": true})).unwrap());
    let update = TodoResource::partial_update();
    let params = one(1);
    let calls = (0..3).map(|_| ctrl.fetch(&update, &params, body()));
    for result in join_all(calls).await {
        result.unwrap();
    }
    patch.assert_async().await;
}

#[tokio::test]
async fn an_update_shows_in_every_cached_result_without_a_refetch() {
    let (mut server, ctrl, _) = setup().await;
    let list = once(server.mock("GET", "/todos"), 200, LIST).await;
    let put = server
        .mock("PUT", "/todos/2")
        .match_body(Matcher::PartialJson(json!({"title": "brown eggs"})))
        .with_body(todo_json(2, "brown eggs"))
        .expect(1)
        .create_async()
        .await;
    let before = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();

    let body =
        Body::json(&json!({"id": 2, "userId": 1, "title": "brown eggs", "completed": false}))
            .unwrap();
    let updated = ctrl
        .fetch(&TodoResource::update(), &one(2), Some(body))
        .await
        .unwrap();
    assert_eq!(updated.title, "brown eggs");

    let after = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&after), ["milk", "brown eggs"]);
    assert!(
        Rc::ptr_eq(&before[0], &after[0]),
        "todo 1 kept its identity"
    );
    assert!(
        Rc::ptr_eq(&updated, &after[1]),
        "the list holds the response's record"
    );
    list.assert_async().await; // one GET only
    put.assert_async().await;
}

#[tokio::test]
async fn a_create_joins_the_cached_list_and_a_delete_leaves_it() {
    let (mut server, ctrl, _) = setup().await;
    let list = once(server.mock("GET", "/todos"), 200, LIST).await;
    let post = server
        .mock("POST", "/todos")
        .match_body(Matcher::Json(json!({"title": "bread"})))
        .with_status(201)
        .with_body(todo_json(3, "bread"))
        .expect(1)
        .create_async()
        .await;
    let delete = once(server.mock("DELETE", "/todos/1"), 204, "").await;
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::get(), &one(1), None).await.ok(); // not mocked: an error, kept aside

    let body = Body::json(&json!({"title": "bread"})).unwrap();
    let created = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    assert_eq!(created.id, 3);
    let cached = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(
        titles(cached.data.as_ref().unwrap()),
        ["milk", "eggs", "bread"]
    );
    assert_eq!(cached.status, ExpiryStatus::Valid);

    ctrl.fetch(&TodoResource::delete(), &one(1), None)
        .await
        .unwrap();
    let cached = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(titles(cached.data.as_ref().unwrap()), ["eggs", "bread"]);
    ctrl.set_response(
        &TodoResource::get(),
        &one(2),
        Rc::new(Todo {
            id: 2,
            ..Todo::default()
        }),
    )
    .unwrap();
    assert!(ctrl.with_store(|s| matches!(s.get_entity::<Todo>(1u64), Lookup::Invalid)));
    list.assert_async().await;
    post.assert_async().await;
    delete.assert_async().await;
}

#[tokio::test]
async fn an_optimistic_update_shows_at_once_and_is_rolled_back_on_failure() {
    let (mut server, ctrl, _) = setup().await;
    let list = once(server.mock("GET", "/todos"), 200, LIST).await;
    let failing = slowly(
        server.mock("PUT", "/todos/1"),
        Duration::from_millis(30),
        "upstream down",
    )
    .with_status(500)
    .expect(1)
    .create_async()
    .await;
    let before = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();

    let (guess, body) = oat_milk_done();
    let update = TodoResource::update();
    let params = one(1);
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess));
    let (outcome, during) = tokio::join!(request, async {
        let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
        titles(&list).join(",")
    });

    assert_eq!(during, "oat milk,eggs", "applied before the response");
    let error = outcome.unwrap_err();
    assert_eq!(error.status(), Some(500));
    let after = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&after), ["milk", "eggs"], "rolled back");
    assert!(
        Rc::ptr_eq(&before[0], &after[0]),
        "the very record it replaced"
    );
    list.assert_async().await;
    failing.assert_async().await;
}

#[tokio::test]
async fn an_optimistic_update_is_replaced_by_the_real_response() {
    let (mut server, ctrl, _) = setup().await;
    let put = once(
        server.mock("PUT", "/todos/1"),
        200,
        &todo_json(1, "server says"),
    )
    .await;
    ctrl.set_response(
        &TodoResource::get(),
        &one(1),
        Rc::new(Todo {
            id: 1,
            ..Todo::default()
        }),
    )
    .unwrap();
    let guess = Rc::new(Todo {
        id: 1,
        title: "guess".into(),
        ..Todo::default()
    });
    let body = Body::json(&*guess).unwrap();
    let done = ctrl
        .fetch_optimistic(&TodoResource::update(), &one(1), Some(body), guess)
        .await
        .unwrap();
    assert_eq!(done.title, "server says");
    let cached = ctrl.read(&TodoResource::get(), &one(1)).data.unwrap();
    assert_eq!(cached.title, "server says");
    put.assert_async().await;
}

#[tokio::test]
async fn a_response_that_started_before_a_delete_does_not_bring_the_record_back() {
    let (mut server, ctrl, clock) = setup().await;
    let list = list_once_after(&mut server, Duration::from_millis(150)).await;
    let delete = once(server.mock("DELETE", "/todos/1"), 204, "").await;
    let get_list = TodoResource::get_list();
    // The list's request starts first; its answer is taken after the
    // delete, though a slow machine brings both at once.
    let mut listing = Box::pin(ctrl.fetch(&get_list, &(), None));
    assert!(futures_util::poll!(&mut listing).is_pending());
    clock.advance(Duration::from_millis(10));
    let deleted = ctrl.fetch(&TodoResource::delete(), &one(1), None).await;
    let listed = listing.await;
    deleted.unwrap();
    assert_eq!(
        titles(&listed.unwrap()),
        ["eggs"],
        "the list arrived after the delete"
    );
    let cached = ctrl.read(&get_list, &()).data.unwrap();
    assert_eq!(titles(&cached), ["eggs"]);
    assert!(ctrl.with_store(|s| matches!(s.get_entity::<Todo>(1u64), Lookup::Invalid)));
    list.assert_async().await;
    delete.assert_async().await;
}

#[tokio::test]
async fn a_list_read_that_started_before_a_create_does_not_take_the_record_out() {
    let (mut server, ctrl, clock) = setup().await;
    let get_list = TodoResource::get_list();
    let cached: Vec<Todo> = serde_json::from_str(LIST).unwrap();
    ctrl.set_response(&get_list, &(), cached.into_iter().map(Rc::new).collect())
        .unwrap();
    clock.advance(Duration::from_millis(10));
    // A refetch of the list starts, then a create answers before it.
    let list = list_once_after(&mut server, Duration::from_millis(150)).await;
    let post = once(server.mock("POST", "/todos"), 201, &todo_json(3, "bread")).await;
    let (listed, created) = tokio::join!(ctrl.fetch(&get_list, &(), None), async {
        clock.advance(Duration::from_millis(10));
        let body = Body::json(&json!({"title": "bread"})).unwrap();
        ctrl.fetch(&TodoResource::create(), &(), Some(body)).await
    });
    listed.unwrap();
    created.unwrap();
    let shown = ctrl.read(&get_list, &()).data.unwrap();
    assert_eq!(
        titles(&shown),
        ["milk", "eggs", "bread"],
        "the list's answer left before the create"
    );
    list.assert_async().await;
    post.assert_async().await;
}

#[tokio::test]
async fn a_create_invalidates_a_cached_list_it_cannot_join() {
    // `{data: [Todo]}` under the key of `GET /todos`: not a plain list.
    endpoint!(pub wrapped_todos { path: "/todos", schema: crate::common::TodoList });
    let (mut server, ctrl, _) = setup().await;
    let post = once(server.mock("POST", "/todos"), 201, &todo_json(3, "bread")).await;
    let wrapped = crate::common::TodoList {
        data: vec![Rc::new(Todo {
            id: 1,
            ..Todo::default()
        })],
    };
    ctrl.set_response(&wrapped_todos(), &(), wrapped).unwrap();

    let body = Body::json(&json!({"title": "bread"})).unwrap();
    ctrl.fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    let cached = ctrl.read(&wrapped_todos(), &());
    assert_eq!(
        cached.status,
        ExpiryStatus::Invalid,
        "its next read fetches it again"
    );
    post.assert_async().await;
}

#[tokio::test]
async fn an_optimistic_update_given_up_while_the_cache_is_in_use_goes_at_its_next_use() {
    let (mut server, ctrl, _) = setup().await;
    let (list, put) = list_and_a_slow_update(&mut server, &ctrl).await;
    let ended = Rc::new(std::cell::RefCell::new(Vec::new()));
    let heard = Rc::clone(&ended);
    let _listener = ctrl.on_event(move |event, _| {
        if let Event::OptimisticEnded { key, .. } = event {
            heard.borrow_mut().push(key.clone());
        }
    });
    let (guess, body) = oat_milk_done();
    let (update, params) = (TodoResource::update(), one(1));
    let mut request = Box::pin(ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess)));
    assert!((&mut request).now_or_never().is_none(), "on its way");
    let shown = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&shown), ["oat milk", "eggs"]);

    // Given up (its future dropped) while the store is borrowed: the
    // layer cannot go at once, and goes at the cache's next use. Its
    // request was out, so the server may have applied it: todo 1 is
    // fetched again before it shows, and the list fetches again.
    ctrl.with_store(move |_| drop(request));
    assert!(ended.borrow().is_empty(), "not while the store is borrowed");
    let after = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(titles(&after.data.unwrap()), ["eggs"], "the guess is gone");
    assert_eq!(after.status, ExpiryStatus::Stale);
    let ended = ended.borrow().clone();
    assert!(
        matches!(ended.as_slice(), [key] if key.starts_with("PUT ") && key.ends_with("/todos/1")),
        "{ended:?}"
    );
    list.assert_async().await;
    put.remove_async().await;
}

#[tokio::test]
async fn an_optimistic_update_given_up_while_the_cache_is_in_use_tells_the_views_at_any_next_use() {
    let (mut server, ctrl, _) = setup().await;
    let (list, put) = list_and_a_slow_update(&mut server, &ctrl).await;
    let told = Rc::new(std::cell::Cell::new(0));
    let bump = Rc::clone(&told);
    let _watching = ctrl.subscribe_entity::<Todo>(1u64, move || bump.set(bump.get() + 1));
    let (guess, body) = oat_milk_done();
    let (update, params) = (TodoResource::update(), one(1));
    let mut request = Box::pin(ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess)));
    assert!((&mut request).now_or_never().is_none(), "on its way");
    assert_eq!(told.get(), 1, "the guess shows");

    // Given up while the store is borrowed; the cache's next use is a
    // derived query, which only reads: the layer goes then, and the view
    // that shows the guess hears of it (the request was out: todo 1 is
    // fetched again before it shows).
    ctrl.with_store(move |_| drop(request));
    let title = restcache::Query::new(|q| q.entity::<Todo>(1u64).map(|todo| todo.title.clone()));
    assert_eq!(ctrl.query(&title).as_deref(), None);
    assert_eq!(told.get(), 2, "the view no longer shows the guess");
    list.assert_async().await;
    put.remove_async().await;
}

/// `GET /todos` fetched once (the list of [`LIST`]) and `PUT /todos/1`
/// answering in 5 s, at most once: the mocks.
async fn list_and_a_slow_update(
    server: &mut mockito::ServerGuard,
    ctrl: &Controller,
) -> (mockito::Mock, mockito::Mock) {
    let list = once(server.mock("GET", "/todos"), 200, LIST).await;
    let put = slowly(server.mock("PUT", "/todos/1"), Duration::from_secs(5), "{}")
        .expect_at_most(1)
        .create_async()
        .await;
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    (list, put)
}

/// Todo 1 retitled "oat milk" and done, with its body: the guess the
/// optimistic updates show.
fn oat_milk_done() -> (Todo, Body) {
    let guess = Todo {
        id: 1,
        user_id: 1,
        title: "oat milk".into(),
        completed: true,
    };
    let body = Body::json(&guess).unwrap();
    (guess, body)
}
