//! The older generation's shapes make the requests they name: method,
//! path, query, body and call count, against mockito.

use chrono::Datelike;
use mockito::Matcher;
use restcache::http::ErrorKind;
use restcache::legacy::{Query, Resource};
use restcache::prelude::*;
use restcache::rest::UrlError;
use serde_json::json;

use super::{current_user_shape, make_manager_shape, upcoming_shape};
use crate::common::Birthday;
use crate::common::mock::{json_response, once, once_sent, server};

const ADA: &str =
    r#"{"id": "1", "name": "Ada", "image": "", "source": "", "date": "2026-12-10T00:00:00Z"}"#;
const GRACE: &str = r#"{"id": "2", "name": "Grace", "date": "2026-12-09T00:00:00Z"}"#;

#[tokio::test]
async fn detail_and_list_shapes_read_the_url_root() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);

    let get = once(server.mock("GET", "/api/birthdays/1"), 200, ADA).await;
    let ada = Birthday::detail_shape()
        .call(&ctrl, &"1".to_owned(), None)
        .await
        .unwrap();
    get.assert_async().await;
    assert_eq!(ada.name, "Ada");
    assert_eq!(
        (ada.date.month(), ada.date.day()),
        (12, 10),
        "the date is parsed"
    );
    let cached = Birthday::detail_shape().read(&ctrl, &"1".to_owned());
    assert_eq!(cached.status, ExpiryStatus::Valid);

    let list = once(
        server
            .mock("GET", "/api/birthdays/")
            .match_query(Matcher::UrlEncoded("month".into(), "12".into())),
        200,
        &format!("[{ADA}]"),
    )
    .await;
    let query = Query::from([("month".to_owned(), "12".to_owned())]);
    let all = Birthday::list_shape()
        .call(&ctrl, &query, None)
        .await
        .unwrap();
    list.assert_async().await;
    assert_eq!(all.len(), 1);
    assert_eq!(
        ctrl.with_store(|s| s.entity_count("Birthday")),
        1,
        "one stored record"
    );
    let detail = Birthday::detail_shape().read(&ctrl, &"1".to_owned());
    assert!(std::rc::Rc::ptr_eq(&all[0], &detail.data.unwrap()));
}

#[tokio::test]
async fn create_update_partial_update_and_delete_shapes_send_their_bodies() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let one = "1".to_owned();

    let fields = json!({"name": "Grace", "date": "2026-12-09T00:00:00Z"});
    let create = once_sent(
        json_response(server.mock("POST", "/api/birthdays/"), 201, GRACE),
        &fields,
    )
    .await;
    let grace = Birthday::create_shape()
        .call(&ctrl, &Query::new(), Some(Body::json(&fields).unwrap()))
        .await
        .unwrap();
    create.assert_async().await;
    assert_eq!(grace.id.as_deref(), Some("2"));

    let whole = json!({"id": "1", "name": "Ada L.", "image": "", "source": "", "date": "2026-12-10T00:00:00Z"});
    let put = once_sent(
        json_response(
            server.mock("PUT", "/api/birthdays/1"),
            200,
            &whole.to_string(),
        ),
        &whole,
    )
    .await;
    let ada = Birthday::update_shape()
        .call(&ctrl, &one, Some(Body::json(&whole).unwrap()))
        .await
        .unwrap();
    put.assert_async().await;
    assert_eq!(ada.name, "Ada L.");

    let some = json!({"source": "the records"});
    let patched = json!({"id": "1", "name": "Ada L.", "source": "the records", "date": "2026-12-10T00:00:00Z"});
    let patch = once_sent(
        json_response(
            server.mock("PATCH", "/api/birthdays/1"),
            200,
            &patched.to_string(),
        ),
        &some,
    )
    .await;
    let ada = Birthday::partial_update_shape()
        .call(&ctrl, &one, Some(Body::json(&some).unwrap()))
        .await
        .unwrap();
    patch.assert_async().await;
    assert_eq!(ada.source, "the records");

    let delete = server
        .mock("DELETE", "/api/birthdays/1")
        .match_body("")
        .with_status(204)
        .expect(1)
        .create_async()
        .await;
    Birthday::delete_shape()
        .call(&ctrl, &one, None)
        .await
        .unwrap();
    delete.assert_async().await;
    assert!(matches!(
        ctrl.with_store(|store| store.get_entity::<Birthday>("1")),
        Lookup::Invalid
    ));
}

#[tokio::test]
async fn a_create_joins_the_cached_list_under_its_url_and_a_delete_leaves_it() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let _list = once(
        server.mock("GET", "/api/birthdays/"),
        200,
        &format!("[{ADA}]"),
    )
    .await;
    Birthday::list_shape()
        .call(&ctrl, &Query::new(), None)
        .await
        .unwrap();
    let _create = once(server.mock("POST", "/api/birthdays/"), 201, GRACE).await;
    Birthday::create_shape()
        .call(
            &ctrl,
            &Query::new(),
            Some(Body::json(&json!({"name": "Grace"})).unwrap()),
        )
        .await
        .unwrap();
    let names = |ctrl: &Controller| -> Vec<String> {
        let cached = Birthday::list_shape().read(ctrl, &Query::new());
        cached
            .data
            .unwrap()
            .iter()
            .map(|b| b.name.clone())
            .collect()
    };
    assert_eq!(names(&ctrl), ["Ada", "Grace"]);

    let _delete = server
        .mock("DELETE", "/api/birthdays/1")
        .with_status(204)
        .create_async()
        .await;
    Birthday::delete_shape()
        .call(&ctrl, &"1".to_owned(), None)
        .await
        .unwrap();
    assert_eq!(names(&ctrl), ["Grace"]);
}

#[tokio::test]
async fn the_current_user_is_read_with_empty_params_posting_to_its_url() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let me = server
        .mock("POST", "/current_user/")
        .match_body("")
        .with_status(200)
        .with_body(r#"{"id": 1, "username": "Bret"}"#)
        .expect(1)
        .create_async()
        .await;
    let user = current_user_shape()
        .call(&ctrl, &Query::new(), None)
        .await
        .unwrap();
    me.assert_async().await;
    assert_eq!(user.username, "Bret");
    let cached = current_user_shape().read(&ctrl, &Query::new());
    assert_eq!(cached.status, ExpiryStatus::Valid, "cached as a read");
}

#[tokio::test]
async fn upcoming_birthdays_post_and_keep_their_envelope() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let upcoming = server
        .mock("POST", "/api/birthdays/upcoming/")
        .match_body("")
        .with_status(200)
        .with_body(format!(
            r#"{{"withinSevenDays": [{ADA}], "withinThirtyDays": [{GRACE}]}}"#
        ))
        .expect(1)
        .create_async()
        .await;
    let soon = upcoming_shape()
        .call(&ctrl, &Query::new(), None)
        .await
        .unwrap();
    upcoming.assert_async().await;
    assert_eq!(soon.within_seven_days[0].name, "Ada");
    assert_eq!(soon.within_thirty_days[0].name, "Grace");
    assert_eq!(ctrl.with_store(|s| s.entity_count("Birthday")), 2);
}

#[tokio::test]
async fn make_manager_posts_with_or_without_a_body() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let manager = r#"{"id": 3, "username": "Samantha", "isManager": true}"#;
    let bare = server
        .mock("POST", "/users/3/make_manager")
        .match_header("content-type", Matcher::Missing)
        .match_body("")
        .with_status(200)
        .with_body(manager)
        .expect(1)
        .create_async()
        .await;
    let user = make_manager_shape().call(&ctrl, &3, None).await.unwrap();
    bare.assert_async().await;
    assert!(user.is_manager);

    let with_note = server
        .mock("POST", "/users/3/make_manager")
        .match_body("since today")
        .with_status(200)
        .with_body(manager)
        .expect(1)
        .create_async()
        .await;
    make_manager_shape()
        .call(&ctrl, &3, Some(Body::text("since today")))
        .await
        .unwrap();
    with_note.assert_async().await;
}

#[tokio::test]
async fn an_update_shapes_answer_replaces_the_record_whole() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let one = "1".to_owned();
    let with_image =
        r#"{"id": "1", "name": "Ada", "image": "ada.png", "date": "2026-12-10T00:00:00Z"}"#;
    let _get = once(server.mock("GET", "/api/birthdays/1"), 200, with_image).await;
    Birthday::detail_shape()
        .call(&ctrl, &one, None)
        .await
        .unwrap();
    // The server replaced it whole: no image any more, nor in its answer.
    let without_image = r#"{"id": "1", "name": "Ada", "date": "2026-12-10T00:00:00Z"}"#;
    let put = once(server.mock("PUT", "/api/birthdays/1"), 200, without_image).await;
    let body = Body::json(&json!({"name": "Ada", "date": "2026-12-10T00:00:00Z"})).unwrap();
    Birthday::update_shape()
        .call(&ctrl, &one, Some(body))
        .await
        .unwrap();
    put.assert_async().await;
    let shown = Birthday::detail_shape().read(&ctrl, &one).data.unwrap();
    assert_eq!(shown.image, "", "the answer left the image out");
}

#[tokio::test]
async fn an_update_shape_judges_the_filtered_lists_under_its_url_root() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let december = Query::from([("month".to_owned(), "12".to_owned())]);
    let _list = once(
        server
            .mock("GET", "/api/birthdays/")
            .match_query(Matcher::UrlEncoded("month".into(), "12".into())),
        200,
        &format!("[{ADA}]"),
    )
    .await;
    Birthday::list_shape()
        .call(&ctrl, &december, None)
        .await
        .unwrap();
    let moved = r#"{"id": "1", "name": "Ada", "date": "2026-11-10T00:00:00Z"}"#;
    let patch = once(server.mock("PATCH", "/api/birthdays/1"), 200, moved).await;
    let body = Body::json(&json!({"date": "2026-11-10T00:00:00Z"})).unwrap();
    Birthday::partial_update_shape()
        .call(&ctrl, &"1".to_owned(), Some(body))
        .await
        .unwrap();
    patch.assert_async().await;
    // "month" is no field of the record: the list cannot be judged, so
    // it goes stale (it is fetched again, and stays on show meanwhile).
    let list = Birthday::list_shape().read(&ctrl, &december);
    assert_ne!(list.status, ExpiryStatus::Valid);
}

#[tokio::test]
async fn a_read_shape_sent_with_a_body_is_keyed_as_its_shape_says() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let body = json!({"days": 30});
    let upcoming = once_sent(
        json_response(
            server.mock("POST", "/api/birthdays/upcoming/"),
            200,
            &format!(r#"{{"withinSevenDays": [{ADA}], "withinThirtyDays": []}}"#),
        ),
        &body,
    )
    .await;
    upcoming_shape()
        .call(&ctrl, &Query::new(), Some(Body::json(&body).unwrap()))
        .await
        .unwrap();
    upcoming.assert_async().await;
    // Its fetch key names it, whatever body it went with.
    let cached = upcoming_shape().read(&ctrl, &Query::new());
    assert_eq!(cached.status, ExpiryStatus::Valid);
}

#[tokio::test]
async fn a_create_through_a_shape_joins_the_current_apis_list_and_back() {
    restcache::resource!(BirthdayResource {
        path: "/api/birthdays/:id",
        schema: Birthday
    });
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let _list = once(
        server.mock("GET", "/api/birthdays"),
        200,
        &format!("[{ADA}]"),
    )
    .await;
    let _legacy_list = once(
        server.mock("GET", "/api/birthdays/"),
        200,
        &format!("[{ADA}]"),
    )
    .await;
    ctrl.fetch(&BirthdayResource::get_list(), &(), None)
        .await
        .unwrap();
    Birthday::list_shape()
        .call(&ctrl, &Query::new(), None)
        .await
        .unwrap();
    let names =
        |list: &[std::rc::Rc<Birthday>]| list.iter().map(|b| b.name.clone()).collect::<Vec<_>>();

    // Created through the older API: the current API's list shows it.
    let _create = once(server.mock("POST", "/api/birthdays/"), 201, GRACE).await;
    let fields = json!({"name": "Grace", "date": "2026-12-09T00:00:00Z"});
    Birthday::create_shape()
        .call(&ctrl, &Query::new(), Some(Body::json(&fields).unwrap()))
        .await
        .unwrap();
    let current = ctrl.read(&BirthdayResource::get_list(), &()).data.unwrap();
    assert_eq!(names(&current), ["Ada", "Grace"]);

    // Created through the current API: the older API's list shows it.
    let third = r#"{"id": "3", "name": "Alan", "date": "2026-12-08T00:00:00Z"}"#;
    let _create = once(server.mock("POST", "/api/birthdays"), 201, third).await;
    let fields = json!({"name": "Alan", "date": "2026-12-08T00:00:00Z"});
    ctrl.fetch(
        &BirthdayResource::create(),
        &(),
        Some(Body::json(&fields).unwrap()),
    )
    .await
    .unwrap();
    let older = Birthday::list_shape()
        .read(&ctrl, &Query::new())
        .data
        .unwrap();
    assert_eq!(names(&older), ["Ada", "Grace", "Alan"]);
}

#[tokio::test]
async fn a_shape_of_one_record_refuses_a_pk_that_would_name_another_url() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    // An empty pk would send a record's request to the list's URL, and
    // `..` (percent-encoded or not, a URL parser reads it as "up") to
    // the one above it: nothing may reach the server.
    let anything = server
        .mock("ANY", Matcher::Any)
        .expect(0)
        .create_async()
        .await;
    for pk in ["", ".", ".."] {
        let pk = pk.to_owned();
        let refused = [
            Birthday::detail_shape().call(&ctrl, &pk, None).await.err(),
            Birthday::update_shape().call(&ctrl, &pk, None).await.err(),
            Birthday::partial_update_shape()
                .call(&ctrl, &pk, None)
                .await
                .err(),
            Birthday::delete_shape()
                .call(&ctrl, &pk, None)
                .await
                .map(|_| ())
                .err(),
        ];
        for error in refused {
            let error = error.expect("refused");
            assert!(
                matches!(error.kind(), ErrorKind::Url(UrlError::Unsafe { .. })),
                "{pk:?}: {error}"
            );
        }
    }
    anything.assert_async().await;
}
