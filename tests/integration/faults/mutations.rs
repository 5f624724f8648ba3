//! A mutation whose answer does not decode (or does not come in time):
//! the server may have applied it, the cache cannot read how. Through
//! either API generation, the record it named is not left on show as
//! Valid (the next read refetches), the lists a create would have joined
//! fetch again, and the caller gets the error.

use std::time::Duration;

use restcache::http::ErrorKind;
use restcache::legacy::{FetchShape, Query, Resource};
use restcache::prelude::*;
use restcache::rest::Options;
use serde_json::json;

use crate::common::controller::{LIST, setup, todo_json};
use crate::common::mock::{once, once_after};
use crate::common::{Birthday, TodoResource, TodoResourceParams};

#[tokio::test]
async fn an_update_whose_answer_does_not_decode_leaves_no_valid_old_record() {
    let (mut server, ctrl, _clock) = setup().await;
    let _list = once(server.mock("GET", "/todos"), 200, LIST).await;
    let _one = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "milk")).await;
    let params = TodoResourceParams { id: 1 };
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::get(), &params, None)
        .await
        .unwrap();

    let _patch = once(server.mock("PATCH", "/todos/1"), 200, "<html>saved!</html>").await;
    let body = Body::json(&json!({"title": "oat milk"})).unwrap();
    let error = ctrl
        .fetch(&TodoResource::partial_update(), &params, Some(body))
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::Decode(_)), "{error}");

    let one = ctrl.read(&TodoResource::get(), &params);
    assert_eq!(
        one.status,
        ExpiryStatus::Invalid,
        "the old copy is not on show"
    );
    let list = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(list.status, ExpiryStatus::Stale, "the list refetches");
    let ids: Vec<u64> = list.data.unwrap().iter().map(|t| t.id).collect();
    assert_eq!(
        ids,
        [2],
        "without the record whose copy is unknown meanwhile"
    );

    let again = once(
        server.mock("GET", "/todos/1"),
        200,
        &todo_json(1, "oat milk"),
    )
    .await;
    let fresh = ctrl
        .fetch(&TodoResource::get(), &params, None)
        .await
        .unwrap();
    assert_eq!(fresh.title, "oat milk");
    again.assert_async().await;
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(
        list.len(),
        2,
        "the record is back in the list with its new copy"
    );
    assert_eq!(list[0].title, "oat milk");
}

#[tokio::test]
async fn a_create_whose_answer_does_not_decode_has_its_list_fetched_again() {
    let (mut server, ctrl, _clock) = setup().await;
    let _list = once(server.mock("GET", "/todos"), 200, LIST).await;
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();

    let _create = once(server.mock("POST", "/todos"), 201, "<html>created</html>").await;
    let body = Body::json(&json!({"title": "bread"})).unwrap();
    let error = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::Decode(_)), "{error}");
    let list = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(list.status, ExpiryStatus::Invalid, "the list fetches again");
}

const ADA: &str = r#"{"id": "1", "name": "Ada", "date": "2026-12-10T00:00:00Z"}"#;

/// Reads birthday 1 and the birthday list through the older API's shapes,
/// each answered once.
async fn read_ada(server: &mut mockito::ServerGuard, ctrl: &Controller) {
    let _one = once(server.mock("GET", "/api/birthdays/1"), 200, ADA).await;
    let list = format!("[{ADA}]");
    let _list = once(server.mock("GET", "/api/birthdays/"), 200, &list).await;
    Birthday::detail_shape()
        .call(ctrl, &"1".to_owned(), None)
        .await
        .unwrap();
    Birthday::list_shape()
        .call(ctrl, &Query::new(), None)
        .await
        .unwrap();
}

#[tokio::test]
async fn an_older_generation_mutation_that_may_have_applied_leaves_no_valid_old_record() {
    let (mut server, client) = crate::common::mock::server().await;
    let ctrl = Controller::new(client);
    let id = "1".to_owned();
    read_ada(&mut server, &ctrl).await;

    for (method, shape) in [
        ("PATCH", Birthday::partial_update_shape()),
        ("PUT", Birthday::update_shape()),
    ] {
        let _answer = once(
            server.mock(method, "/api/birthdays/1"),
            200,
            "<html>saved</html>",
        )
        .await;
        let body = Body::json(&json!({"name": "Ada L."})).unwrap();
        let error = shape.call(&ctrl, &id, Some(body)).await.unwrap_err();
        assert!(
            matches!(error.kind(), ErrorKind::Decode(_)),
            "{method}: {error}"
        );

        let one = Birthday::detail_shape().read(&ctrl, &id);
        assert_eq!(
            one.status,
            ExpiryStatus::Invalid,
            "{method}: the old copy is not on show"
        );
        let list = Birthday::list_shape().read(&ctrl, &Query::new());
        assert_eq!(
            list.status,
            ExpiryStatus::Stale,
            "{method}: the list refetches"
        );

        read_ada(&mut server, &ctrl).await;
    }

    // A delete's answer is not read (its params name the record), but one
    // that does not come in time may have been applied all the same.
    let quick_delete = FetchShape {
        options: Options {
            timeout: Some(Duration::from_millis(150)),
            ..Options::default()
        },
        ..Birthday::delete_shape()
    };
    let _delete = once_after(
        server.mock("DELETE", "/api/birthdays/1"),
        Duration::from_secs(1),
        String::new(),
    )
    .await;
    let error = quick_delete.call(&ctrl, &id, None).await.unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::Timeout(_)), "{error}");
    assert_eq!(
        Birthday::detail_shape().read(&ctrl, &id).status,
        ExpiryStatus::Invalid,
        "DELETE: the old copy is not on show"
    );
}
