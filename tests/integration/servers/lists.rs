//! Filtered lists follow creates and deletes: a created record joins every
//! cached list of its resource whose filters its fields match (and only
//! those), where the create says; a list whose filter cannot be judged is
//! fetched again; a delete leaves every list.

use std::rc::Rc;

use restcache::http::{Body, Client};
use restcache::prelude::*;
use restcache::rest::JoinAt;
use restcache_demo::DemoApi;
use serde_json::json;

use crate::common::mock::once;
use crate::common::{Todo, TodoResource, TodoResourceForUserParams, TodoResourceParams};

endpoint!(pub TodoResource::full_text { path: "/todos", schema: Vec<Rc<Todo>>, params: { q: String } });

fn ids(list: &[Rc<Todo>]) -> Vec<u64> {
    list.iter().map(|t| t.id).collect()
}

/// `PATCH /todos/1` with `sent`, the server answering `answer`, through
/// `ctrl`.
async fn patch_todo_1(
    server: &mut mockito::ServerGuard,
    ctrl: &Controller,
    sent: serde_json::Value,
    answer: &str,
) {
    let _patch = once(server.mock("PATCH", "/todos/1"), 200, answer).await;
    let body = Body::json(&sent).unwrap();
    ctrl.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 1 },
        Some(body),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn a_created_record_joins_the_lists_whose_filters_it_matches() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (two, one) = (
        TodoResourceForUserParams { user_id: 2 },
        TodoResourceForUserParams { user_id: 1 },
    );
    let search = TodoResourceFullTextParams { q: "tea".into() };
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let before_two = ctrl
        .fetch(&TodoResource::for_user(), &two, None)
        .await
        .unwrap();
    let before_one = ctrl
        .fetch(&TodoResource::for_user(), &one, None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::full_text(), &search, None)
        .await
        .unwrap();
    let gets = api.hits("GET /todos");

    let body = Body::json(&json!({"userId": 2, "title": "tea", "completed": false})).unwrap();
    let tea = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();

    let all = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(
        all.last().unwrap().id,
        tea.id,
        "the unfiltered list, at its end"
    );
    let now_two = ctrl.read(&TodoResource::for_user(), &two);
    let mut expected = ids(&before_two);
    expected.push(tea.id);
    assert_eq!(ids(&now_two.data.unwrap()), expected, "userId=2 takes it");
    assert_eq!(now_two.status, ExpiryStatus::Valid);
    let now_one = ctrl.read(&TodoResource::for_user(), &one).data.unwrap();
    assert_eq!(ids(&now_one), ids(&before_one), "userId=1 does not");
    let searched = ctrl.read(&TodoResource::full_text(), &search);
    assert_eq!(
        searched.status,
        ExpiryStatus::Stale,
        "`q` cannot be judged: fetched again in the background, on show meanwhile"
    );
    assert!(searched.data.is_some());
    assert_eq!(
        api.hits("GET /todos"),
        gets,
        "no list was fetched again to learn it"
    );

    // A delete leaves every list.
    let params = TodoResourceParams { id: tea.id };
    ctrl.fetch(&TodoResource::delete(), &params, None)
        .await
        .unwrap();
    let all = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert!(!ids(&all).contains(&tea.id));
    let now_two = ctrl.read(&TodoResource::for_user(), &two).data.unwrap();
    assert_eq!(ids(&now_two), ids(&before_two));
}

#[tokio::test]
async fn an_updated_record_moves_between_the_lists_its_fields_match() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (one, two) = (
        TodoResourceForUserParams { user_id: 1 },
        TodoResourceForUserParams { user_id: 2 },
    );
    let search = TodoResourceFullTextParams { q: "a".into() };
    let before_one = ctrl
        .fetch(&TodoResource::for_user(), &one, None)
        .await
        .unwrap();
    let before_two = ctrl
        .fetch(&TodoResource::for_user(), &two, None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::full_text(), &search, None)
        .await
        .unwrap();
    let gets = api.hits("GET /todos");
    let moved = before_one[0].id;

    let body = Body::json(&json!({"userId": 2})).unwrap();
    let params = TodoResourceParams { id: moved };
    ctrl.fetch(&TodoResource::partial_update(), &params, Some(body))
        .await
        .unwrap();

    let now_one = ctrl.read(&TodoResource::for_user(), &one);
    assert_eq!(now_one.status, ExpiryStatus::Valid);
    let expected: Vec<u64> = ids(&before_one).into_iter().skip(1).collect();
    assert_eq!(ids(&now_one.data.unwrap()), expected, "it left userId=1");
    let now_two = ctrl.read(&TodoResource::for_user(), &two);
    assert_eq!(now_two.status, ExpiryStatus::Valid);
    let mut expected = ids(&before_two);
    expected.push(moved);
    let now_two = now_two.data.unwrap();
    assert_eq!(ids(&now_two), expected, "it joined userId=2");
    assert_eq!(now_two.last().unwrap().user_id, 2);
    let all = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(all.status, ExpiryStatus::Valid, "it matches no filter");
    assert!(ids(&all.data.unwrap()).contains(&moved));
    let searched = ctrl.read(&TodoResource::full_text(), &search);
    assert_eq!(searched.status, ExpiryStatus::Stale, "`q` cannot be judged");
    assert!(searched.data.is_some(), "and stays on show");
    assert_eq!(api.hits("GET /todos"), gets, "no list was fetched again");

    // The server agrees.
    for (params, cached) in [
        (
            &one,
            ids(&ctrl.read(&TodoResource::for_user(), &one).data.unwrap()),
        ),
        (
            &two,
            ids(&ctrl.read(&TodoResource::for_user(), &two).data.unwrap()),
        ),
    ] {
        let mut served = ids(&ctrl
            .fetch(&TodoResource::for_user(), params, None)
            .await
            .unwrap());
        let mut cached = cached;
        served.sort_unstable();
        cached.sort_unstable();
        assert_eq!(served, cached);
    }
}

#[tokio::test]
async fn a_base_address_query_filters_no_list() {
    let mut server = mockito::Server::new_async().await;
    let list = once(
        server.mock("GET", "/todos?userId=2&key=K"),
        200,
        r#"[{"id": 1, "userId": 2, "title": "milk", "completed": false}]"#,
    )
    .await;
    let create = once(
        server.mock("POST", "/todos?key=K"),
        201,
        r#"{"id": 9, "userId": 2, "title": "tea", "completed": false}"#,
    )
    .await;
    let update = once(
        server.mock("PATCH", "/todos/9?key=K"),
        200,
        r#"{"id": 9, "userId": 3, "title": "tea", "completed": false}"#,
    )
    .await;
    let ctrl = Controller::new(Client::new(format!("{}?key=K", server.url())));
    let two = TodoResourceForUserParams { user_id: 2 };
    ctrl.fetch(&TodoResource::for_user(), &two, None)
        .await
        .unwrap();

    let body = Body::json(&json!({"userId": 2, "title": "tea"})).unwrap();
    ctrl.fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    let now = ctrl.read(&TodoResource::for_user(), &two);
    assert_eq!(
        (ids(&now.data.unwrap()), now.status),
        (vec![1, 9], ExpiryStatus::Valid),
        "judged by userId alone: the base's `key` is on every URL, no filter"
    );

    let body = Body::json(&json!({"userId": 3})).unwrap();
    ctrl.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 9 },
        Some(body),
    )
    .await
    .unwrap();
    let now = ctrl.read(&TodoResource::for_user(), &two);
    assert_eq!(
        (ids(&now.data.unwrap()), now.status),
        (vec![1], ExpiryStatus::Valid),
        "an update moving it to user 3 takes it out"
    );
    for mock in [list, create, update] {
        mock.assert_async().await;
    }
}

#[tokio::test]
async fn a_list_whose_first_answer_is_on_its_way_during_a_create_shows_stale() {
    let mut server = mockito::Server::new_async().await;
    // The server answered the list before the create reached it.
    let list = crate::common::mock::slowly(
        server.mock("GET", "/todos?userId=2"),
        std::time::Duration::from_millis(150),
        "[]",
    )
    .expect(1)
    .create_async()
    .await;
    let create = once(
        server.mock("POST", "/todos"),
        201,
        r#"{"id": 9, "userId": 2, "title": "tea", "completed": false}"#,
    )
    .await;
    let ctrl = Controller::new(Client::new(server.url()));
    let (for_user, two) = (
        TodoResource::for_user(),
        TodoResourceForUserParams { user_id: 2 },
    );
    let mut first_load = Box::pin(ctrl.fetch(&for_user, &two, None));
    assert!(futures_util::poll!(&mut first_load).is_pending());
    let body = Body::json(&json!({"userId": 2, "title": "tea"})).unwrap();
    ctrl.fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    first_load.await.unwrap();
    let shown = ctrl.read(&TodoResource::for_user(), &two);
    assert_eq!(
        (ids(&shown.data.unwrap()), shown.status),
        (vec![], ExpiryStatus::Stale),
        "its answer may predate the create: fetched again on its next read"
    );
    list.assert_async().await;
    create.assert_async().await;
}

#[tokio::test]
async fn a_create_may_join_its_lists_at_their_start() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let two = TodoResourceForUserParams { user_id: 2 };
    ctrl.fetch(&TodoResource::for_user(), &two, None)
        .await
        .unwrap();
    let newest_first = TodoResource::create().join_at(JoinAt::Start);
    let body = Body::json(&json!({"userId": 2, "title": "first"})).unwrap();
    let created = ctrl.fetch(&newest_first, &(), Some(body)).await.unwrap();
    let list = ctrl.read(&TodoResource::for_user(), &two).data.unwrap();
    assert_eq!(list[0].id, created.id);
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Product {
    id: u64,
    price: f64,
}

resource!(pub ProductResource { path: "/products/:id", schema: Product });
endpoint!(pub ProductResource::priced { path: "/products", schema: Vec<Rc<Product>>, params: { price: f64 } });

#[tokio::test]
async fn a_float_filter_matches_the_number_not_how_it_is_written() {
    let (mut server, client) = crate::common::mock::server().await;
    let ctrl = Controller::new(client);
    let one = ProductResourcePricedParams { price: 1.0 };
    let half = ProductResourcePricedParams { price: 1.5 };
    // The query writes the params as JSON numbers do: `1.0`, `1.5`.
    let _one = once(
        server.mock("GET", "/products?price=1.0"),
        200,
        r#"[{"id": 1, "price": 1}]"#,
    )
    .await;
    let _half = once(
        server.mock("GET", "/products?price=1.5"),
        200,
        r#"[{"id": 3, "price": 1.5}]"#,
    )
    .await;
    ctrl.fetch(&ProductResource::priced(), &one, None)
        .await
        .unwrap();
    ctrl.fetch(&ProductResource::priced(), &half, None)
        .await
        .unwrap();

    let _create = once(
        server.mock("POST", "/products"),
        201,
        r#"{"id": 2, "price": 1.0}"#,
    )
    .await;
    let body = Body::json(&json!({"price": 1.0})).unwrap();
    ctrl.fetch(&ProductResource::create(), &(), Some(body))
        .await
        .unwrap();

    let priced = |params| {
        let list = ctrl.read(&ProductResource::priced(), params);
        let ids: Vec<u64> = list.data.unwrap().iter().map(|p| p.id).collect();
        (ids, list.status)
    };
    assert_eq!(priced(&one), (vec![1, 2], ExpiryStatus::Valid), "1.0 is 1");
    assert_eq!(priced(&half), (vec![3], ExpiryStatus::Valid));
}

endpoint!(pub TodoResource::done_as_one { path: "/todos\\?completed=1", schema: Vec<Rc<Todo>> });
endpoint!(pub TodoResource::user_as_float { path: "/todos\\?userId=2.0", schema: Vec<Rc<Todo>> });
endpoint!(pub TodoResource::user_eq { path: "/todos\\?userId=eq.2", schema: Vec<Rc<Todo>> });

#[tokio::test]
async fn a_filter_written_otherwise_than_its_field_keeps_or_refetches_not_drops() {
    let (mut server, client) = crate::common::mock::server().await;
    let ctrl = Controller::new(client);
    let todo = r#"[{"id": 1, "userId": 2, "title": "a", "completed": true}]"#;
    for path in [
        "/todos?completed=1",
        "/todos?userId=2.0",
        "/todos?userId=eq.2",
    ] {
        let _list = once(server.mock("GET", path), 200, todo).await;
    }
    ctrl.fetch(&TodoResource::done_as_one(), &(), None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::user_as_float(), &(), None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::user_eq(), &(), None)
        .await
        .unwrap();

    patch_todo_1(
        &mut server,
        &ctrl,
        json!({"title": "b"}),
        r#"{"id": 1, "userId": 2, "title": "b", "completed": true}"#,
    )
    .await;

    let shown = |read: Cached<Vec<Rc<Todo>>>| (ids(&read.data.unwrap()), read.status);
    assert_eq!(
        shown(ctrl.read(&TodoResource::done_as_one(), &())),
        (vec![1], ExpiryStatus::Stale),
        "a bool filter written `1` cannot be judged: fetched again, the record kept"
    );
    assert_eq!(
        shown(ctrl.read(&TodoResource::user_as_float(), &())),
        (vec![1], ExpiryStatus::Valid),
        "2.0 is the number 2"
    );
    assert_eq!(
        shown(ctrl.read(&TodoResource::user_eq(), &())),
        (vec![1], ExpiryStatus::Stale),
        "`eq.2` is no number: fetched again, the record kept"
    );
}

endpoint!(pub TodoResource::titled_eq { path: "/todos\\?title=eq.a", schema: Vec<Rc<Todo>> });

#[tokio::test]
async fn a_text_filter_in_the_servers_syntax_keeps_a_record_it_listed() {
    let (mut server, client) = crate::common::mock::server().await;
    let ctrl = Controller::new(client);
    // PostgREST's syntax: `title=eq.a` lists the todos titled "a".
    let _list = once(
        server.mock("GET", "/todos?title=eq.a"),
        200,
        r#"[{"id": 1, "userId": 2, "title": "a", "completed": false}]"#,
    )
    .await;
    ctrl.fetch(&TodoResource::titled_eq(), &(), None)
        .await
        .unwrap();
    patch_todo_1(
        &mut server,
        &ctrl,
        json!({"completed": true}),
        r#"{"id": 1, "userId": 2, "title": "a", "completed": true}"#,
    )
    .await;
    let read = ctrl.read(&TodoResource::titled_eq(), &());
    assert_eq!(
        (ids(&read.data.unwrap()), read.status),
        (vec![1], ExpiryStatus::Stale),
        "read as text, the filter turned the record away before the change too: \
         the server judges it (fetched again), the record kept meanwhile"
    );
}

#[tokio::test]
async fn a_record_a_number_filter_turned_away_before_an_update_still_leaves() {
    let (mut server, client) = crate::common::mock::server().await;
    let ctrl = Controller::new(client);
    let _list = once(
        server.mock("GET", "/todos?userId=2"),
        200,
        r#"[{"id": 1, "userId": 2, "title": "a", "completed": false}]"#,
    )
    .await;
    let user_2 = crate::common::TodoResourceForUserParams { user_id: 2 };
    ctrl.fetch(&TodoResource::for_user(), &user_2, None)
        .await
        .unwrap();
    // Moved to user 3 elsewhere; its detail read brings that.
    let _detail = once(
        server.mock("GET", "/todos/1"),
        200,
        r#"{"id": 1, "userId": 3, "title": "a", "completed": false}"#,
    )
    .await;
    ctrl.fetch(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap();
    patch_todo_1(
        &mut server,
        &ctrl,
        json!({"completed": true}),
        r#"{"id": 1, "userId": 3, "title": "a", "completed": true}"#,
    )
    .await;
    let read = ctrl.read(&TodoResource::for_user(), &user_2);
    assert_eq!(
        (ids(&read.data.unwrap()), read.status),
        (vec![], ExpiryStatus::Valid),
        "a number filter is judged here: the record leaves"
    );
}
