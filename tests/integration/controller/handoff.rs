//! A server's cache handed to the page (`export_handoff`,
//! `import_handoff`): only what the server's cache still shows as a
//! response gave it crosses, and a read stale on the server crosses
//! stale. The demo API and mockito on 127.0.0.1.

use std::rc::Rc;

use restcache::ExpiryStatus;
use restcache::prelude::*;
use restcache_demo::DemoApi;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, TodoResourceParams};

#[tokio::test]
async fn a_response_the_cache_turned_down_does_not_cross_to_the_page() {
    let mut server = mockito::Server::new_async().await;
    let slow = crate::common::mock::once_after(
        server.mock("GET", "/todos/1"),
        std::time::Duration::from_millis(200),
        r#"{"id": 1, "title": "older"}"#.into(),
    )
    .await;
    let on_server = Controller::new(Client::new(server.url()));
    on_server.record_for_handoff();
    let (get, one) = (TodoResource::get(), TodoResourceParams { id: 1 });
    let (fetched, ()) = tokio::join!(on_server.fetch(&get, &one, None), async {
        // A newer write lands while the read is on its way.
        let newer = Rc::new(crate::common::todo(1, "newer"));
        on_server
            .set_response(&TodoResource::get(), &one, newer)
            .unwrap();
    });
    assert_eq!(fetched.unwrap().title, "newer", "the cache keeps the newer");
    slow.assert_async().await;

    let page = Controller::new(Client::new(server.url()));
    page.import_handoff(&on_server.export_handoff()).unwrap();
    let shown = page.read(&TodoResource::get(), &one).data;
    let title = shown.map(|todo| todo.title.clone());
    assert_ne!(
        title.as_deref(),
        Some("older"),
        "the page never shows what the server's cache turned down"
    );
}

/// The todo list as a page reads it from a server's handoff, after the
/// server fetched it and then did `then` to its cache.
async fn list_handed_over_after(then: impl FnOnce(&Controller)) -> Cached<Vec<Rc<Todo>>> {
    let api = DemoApi::start().unwrap();
    let on_server = Controller::new(Client::new(api.url()));
    on_server.record_for_handoff();
    let list = TodoResource::get_list();
    on_server.fetch(&list, &(), None).await.unwrap();
    then(&on_server);
    let page = Controller::new(Client::new(api.url()));
    page.import_handoff(&on_server.export_handoff()).unwrap();
    page.read(&list, &())
}

#[tokio::test]
async fn a_read_invalidated_on_the_server_does_not_cross_as_fresh() {
    LocalSet::new()
        .run_until(async {
            let cached = list_handed_over_after(|ctrl| {
                ctrl.invalidate_all(|_| true);
            })
            .await;
            assert_ne!(cached.status, ExpiryStatus::Valid);
        })
        .await;
}

#[tokio::test]
async fn a_read_expired_on_the_server_crosses_on_show_and_stale() {
    LocalSet::new()
        .run_until(async {
            let cached = list_handed_over_after(|ctrl| {
                ctrl.expire_all(|_| true);
            })
            .await;
            assert!(cached.data.is_some(), "what the server showed");
            assert_eq!(cached.status, ExpiryStatus::Stale);
        })
        .await;
}

#[tokio::test]
async fn a_handoff_over_the_limit_leaves_out_its_largest_reads_not_all() {
    let mut server = mockito::Server::new_async().await;
    let huge = format!(
        r#"[{{"id": 2, "title": "{}"}}]"#,
        "x".repeat(restcache::MAX_HANDOFF_BYTES)
    );
    let list = server
        .mock("GET", "/todos")
        .with_body(huge)
        .create_async()
        .await;
    let one = server
        .mock("GET", "/todos/1")
        .with_body(r#"{"id": 1, "title": "small"}"#)
        .create_async()
        .await;
    let on_server = Controller::new(Client::new(server.url()));
    on_server.record_for_handoff();
    let params = TodoResourceParams { id: 1 };
    on_server
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    on_server
        .fetch(&TodoResource::get(), &params, None)
        .await
        .unwrap();
    list.assert_async().await;
    one.assert_async().await;

    let text = on_server.export_handoff();
    assert!(
        text.len() <= restcache::MAX_HANDOFF_BYTES,
        "{} bytes",
        text.len()
    );
    let page = Controller::new(Client::new(server.url()));
    assert_eq!(page.import_handoff(&text), Ok(1), "the small read crosses");
    assert_eq!(
        page.read(&TodoResource::get(), &params).status,
        ExpiryStatus::Valid
    );
    assert!(
        page.read(&TodoResource::get_list(), &()).data.is_none(),
        "the page fetches the list itself"
    );
}
