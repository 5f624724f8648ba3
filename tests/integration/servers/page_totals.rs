//! The size a paged list reports (`X-Total-Count`, or a total in the
//! body) while records come and go: an update or a delete of a record on
//! a page not loaded yet, and creates that land around a page or a
//! refetch, each counted once.

use futures_util::future::join;
use restcache::http::{Body, Client};
use restcache::prelude::*;
use serde_json::json;

use super::pages::{first_of_two_pages, first_page, ids};
use crate::common::{TodoResource, TodoResourcePagesParams, TodoResourceParams};

#[tokio::test]
async fn an_update_to_a_record_on_a_page_not_loaded_leaves_the_total_alone() {
    let (api, ctrl, pages, first) = first_page().await;
    for title in ["renamed", "renamed again"] {
        let body = Body::json(&json!({ "title": title })).unwrap();
        ctrl.fetch(
            &TodoResource::partial_update(),
            &TodoResourceParams { id: 3 },
            Some(body),
        )
        .await
        .unwrap();
        let shown = ctrl.read(&pages, &first).data.unwrap();
        assert_eq!((ids(&shown), shown.total), (vec![1, 2], Some(5)), "{title}");
    }
    assert_eq!(api.hits("PATCH /todos/3"), 2);
    // Its page brings it, once, as the server has it.
    assert!(ctrl.fetch_next_page(&pages, &first).await.unwrap());
    let shown = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!((ids(&shown), shown.total), (vec![1, 2, 3, 4], Some(5)));
    assert_eq!(shown.items[2].title, "renamed again");
}

#[tokio::test]
async fn a_record_deleted_from_a_page_not_loaded_leaves_the_total() {
    let (api, ctrl, pages, first) = first_page().await;
    let total = |ctrl: &Controller| ctrl.read(&pages, &first).data.unwrap().total;
    // Created, then deleted before its page was loaded: counted, then
    // not.
    let body = Body::json(&json!({ "title": "tea" })).unwrap();
    let created = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    assert_eq!(total(&ctrl), Some(6));
    let created = TodoResourceParams { id: created.id };
    ctrl.fetch(&TodoResource::delete(), &created, None)
        .await
        .unwrap();
    assert_eq!(total(&ctrl), Some(5));
    // One the server counted, on page 3.
    let fifth = TodoResourceParams { id: 5 };
    ctrl.fetch(&TodoResource::delete(), &fifth, None)
        .await
        .unwrap();
    assert_eq!(total(&ctrl), Some(4));
    let server = ctrl.fetch(&pages, &first, None).await.unwrap();
    assert_eq!(server.total, Some(4), "as the server counts");
    assert_eq!(api.hits("DELETE /todos/5"), 1);
}

#[tokio::test]
async fn a_record_deleted_twice_from_a_page_not_loaded_counts_once() {
    let mut server = mockito::Server::new_async().await;
    let _page = server
        .mock("GET", "/todos?_limit=2&_page=1")
        .with_header("content-type", "application/json")
        .with_header("x-total-count", "5")
        .with_header("link", r#"</todos?_page=2&_limit=2>; rel="next""#)
        .with_body(r#"[{"id": 1}, {"id": 2}]"#)
        .create_async()
        .await;
    // A double click: the server answers both.
    let deletes = server
        .mock("DELETE", "/todos/5")
        .with_status(204)
        .expect(2)
        .create_async()
        .await;
    let ctrl = Controller::new(Client::new(server.url()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
    let fifth = TodoResourceParams { id: 5 };
    for _ in 0..2 {
        ctrl.fetch(&TodoResource::delete(), &fifth, None)
            .await
            .unwrap();
    }
    deletes.assert_async().await;
    assert_eq!(ctrl.read(&pages, &first).data.unwrap().total, Some(4));
}

#[tokio::test]
async fn a_page_that_comes_after_a_create_joined_its_list_still_grows_it() {
    use std::time::Duration;
    use tokio::time::sleep;
    let mut server = mockito::Server::new_async().await;
    let _first = first_of_two_pages(&mut server).await;
    let second = crate::common::mock::once_after(
        server.mock("GET", "/todos?_page=2&_limit=2"),
        Duration::from_millis(300),
        r#"[{"id": 3}, {"id": 4}]"#.into(),
    )
    .await;
    let _create = server
        .mock("POST", "/todos")
        .with_status(201)
        .with_header("content-type", "application/json")
        .with_body(r#"{"id": 9, "title": "tea"}"#)
        .create_async()
        .await;
    let ctrl = Controller::new(Client::new(server.url()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
    let more = ctrl.fetch_next_page(&pages, &first);
    let create = async {
        sleep(Duration::from_millis(50)).await;
        let body = Body::json(&json!({ "title": "tea" })).unwrap();
        ctrl.fetch(&TodoResource::create(), &(), Some(body)).await
    };
    let (more, created) = join(more, create).await;
    created.unwrap();
    more.unwrap();
    second.assert_async().await;
    let read = ctrl.read(&pages, &first);
    let shown = ids(&read.data.unwrap());
    assert!(
        shown.starts_with(&[1, 2]) && shown.contains(&3) && shown.contains(&4),
        "{shown:?}"
    );
    // Page 2, the last, was asked for before the create: the new record
    // is on no page loaded, so the list is fetched again to bring it.
    assert!(
        shown.contains(&9) || read.status == ExpiryStatus::Stale,
        "{shown:?}, {:?}",
        read.status
    );
}

#[tokio::test]
async fn a_create_answered_after_a_refetch_that_counts_it_is_not_counted_twice() {
    use std::time::Duration;
    use tokio::time::sleep;
    let mut server = mockito::Server::new_async().await;
    fn page_one(server: &mut mockito::ServerGuard, total: &str) -> mockito::Mock {
        server
            .mock("GET", "/todos?_limit=2&_page=1")
            .with_header("content-type", "application/json")
            .with_header("link", r#"</todos?_page=2&_limit=2>; rel="next""#)
            .with_header("x-total-count", total)
            .with_body(r#"[{"id": 1}, {"id": 2}]"#)
    }
    let before = page_one(&mut server, "5").create_async().await;
    let ctrl = Controller::new(Client::new(server.url()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
    before.remove_async().await;
    // The server takes the create at once, and its answer comes late.
    let _after = page_one(&mut server, "6").create_async().await;
    let create = crate::common::mock::once_after(
        server.mock("POST", "/todos"),
        Duration::from_millis(300),
        r#"{"id": 9, "title": "tea"}"#.into(),
    )
    .await;
    let creating = async {
        let body = Body::json(&json!({ "title": "tea" })).unwrap();
        ctrl.fetch(&TodoResource::create(), &(), Some(body)).await
    };
    // A refetch that starts after the create and lands before its answer:
    // the server's total counts the new record already.
    let refetching = async {
        sleep(Duration::from_millis(50)).await;
        let list = ctrl.fetch(&pages, &first, None).await.unwrap();
        assert_eq!(list.total, Some(6));
    };
    let (created, ()) = join(creating, refetching).await;
    created.unwrap();
    create.assert_async().await;
    let shown = ctrl.read(&pages, &first);
    assert_eq!(
        shown.data.unwrap().total,
        Some(6),
        "counted once, as the server counts"
    );
}

#[tokio::test]
async fn two_creates_answered_out_of_order_are_both_counted() {
    use std::time::Duration;
    let mut server = mockito::Server::new_async().await;
    let page = server
        .mock("GET", "/todos?_limit=2&_page=1")
        .with_header("content-type", "application/json")
        .with_header("link", r#"</todos?_page=2&_limit=2>; rel="next""#)
        .with_header("x-total-count", "5")
        .with_body(r#"[{"id": 1}, {"id": 2}]"#)
        .expect(1)
        .create_async()
        .await;
    let ctrl = Controller::new(Client::new(server.url()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
    // The first create's answer comes after the second's.
    let slow = crate::common::mock::once_after(
        server
            .mock("POST", "/todos")
            .match_body(mockito::Matcher::Regex("tea".into())),
        Duration::from_millis(200),
        r#"{"id": 9, "title": "tea"}"#.into(),
    )
    .await;
    let fast = server
        .mock("POST", "/todos")
        .match_body(mockito::Matcher::Regex("milk".into()))
        .with_status(201)
        .with_header("content-type", "application/json")
        .with_body(r#"{"id": 10, "title": "milk"}"#)
        .create_async()
        .await;
    let create = TodoResource::create();
    let body = |title: &str| Some(Body::json(&json!({ "title": title })).unwrap());
    let (tea, milk) = join(
        ctrl.fetch(&create, &(), body("tea")),
        ctrl.fetch(&create, &(), body("milk")),
    )
    .await;
    assert_eq!((tea.unwrap().id, milk.unwrap().id), (9, 10));
    slow.assert_async().await;
    fast.assert_async().await;
    let shown = ctrl.read(&pages, &first);
    assert_eq!(
        shown.status,
        restcache::ExpiryStatus::Valid,
        "no refetch needed"
    );
    assert_eq!(shown.data.unwrap().total, Some(7));
    page.assert_async().await;
}

// The done todos, in pages of two named by `Link` headers.
endpoint!(done_pages {
    path: "/todos",
    schema: restcache::rest::Page<crate::common::Todo>,
    params: {
        completed: bool,
        #[serde(rename = "_page")]
        page: u32,
        #[serde(rename = "_limit")]
        limit: u32,
    },
    decode: restcache::rest::Page::from_headers,
    paginated_by: "_page",
    page_size: "_limit",
});

/// A controller holding page 1 of the done todos (1 and 2, of more), and
/// the server's answer to ticking todo 9 (not done before), after `delay`.
async fn done_page_and_a_tick(
    server: &mut mockito::ServerGuard,
    delay: std::time::Duration,
) -> (Controller, DonePagesParams) {
    server
        .mock("GET", "/todos?_limit=2&_page=1&completed=true")
        .with_header("content-type", "application/json")
        .with_header("x-total-count", "5")
        .with_header(
            "link",
            r#"</todos?completed=true&_page=2&_limit=2>; rel="next""#,
        )
        .with_body(r#"[{"id": 1, "completed": true}, {"id": 2, "completed": true}]"#)
        .create_async()
        .await;
    crate::common::mock::once_after(
        server.mock("PATCH", "/todos/9"),
        delay,
        r#"{"id": 9, "title": "tea", "completed": true}"#.into(),
    )
    .await;
    let ctrl = Controller::new(Client::new(server.url()));
    let done = DonePagesParams {
        completed: true,
        page: 1,
        limit: 2,
    };
    ctrl.fetch(&done_pages(), &done, None).await.unwrap();
    (ctrl, done)
}

#[tokio::test]
async fn a_record_an_update_moves_into_a_filtered_paged_list_makes_it_stale() {
    let mut server = mockito::Server::new_async().await;
    let (ctrl, done) = done_page_and_a_tick(&mut server, std::time::Duration::ZERO).await;
    // Ticked elsewhere: it was not done, so on no page of this list.
    let body = Body::json(&json!({ "completed": true })).unwrap();
    ctrl.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 9 },
        Some(body),
    )
    .await
    .unwrap();
    let shown = ctrl.read(&done_pages(), &done);
    assert_eq!(
        shown.status,
        ExpiryStatus::Stale,
        "fetched again: the server says where it goes"
    );
    assert_eq!(ids(&shown.data.unwrap()), [1, 2], "shown meanwhile");
}

#[tokio::test]
async fn an_optimistic_tick_leaves_a_filtered_paged_list_until_the_server_answers() {
    let mut server = mockito::Server::new_async().await;
    let delay = std::time::Duration::from_millis(200);
    let (ctrl, done) = done_page_and_a_tick(&mut server, delay).await;
    let ticked = crate::common::Todo {
        id: 9,
        title: "tea".into(),
        completed: true,
        ..Default::default()
    };
    let body = Body::json(&json!({ "completed": true })).unwrap();
    let params = TodoResourceParams { id: 9 };
    let update = TodoResource::partial_update();
    let mut tick =
        Box::pin(ctrl.fetch_optimistic(&update, &params, Some(body), std::rc::Rc::new(ticked)));
    assert!(futures_util::poll!(&mut tick).is_pending());
    assert_eq!(
        ctrl.read(&done_pages(), &done).status,
        ExpiryStatus::Valid,
        "not fetched again before the server has the change"
    );
    tick.await.unwrap();
    assert_eq!(ctrl.read(&done_pages(), &done).status, ExpiryStatus::Stale);
}
