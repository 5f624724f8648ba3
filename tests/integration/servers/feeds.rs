//! Feeds paged in their body by an envelope of their own type
//! (`{results, nextPage}`): a write they cannot place keeps the pages
//! loaded on show, and makes the feed stale only when it may belong on
//! one of them.

use restcache::http::Body;
use restcache::prelude::*;
use serde_json::json;

use crate::common::mock::{once, server};
use crate::common::{PaginatedPost, PaginatedPosts, PostPageParams, post_page};

resource!(PostResource {
    path: "/post/:id",
    schema: PaginatedPost
});

/// Page 1 of a feed paged in its body (`nextPage`), posts 1 and 2.
const FEED_PAGE_1: &str = r#"{"results": [{"id": 1, "title": "a", "content": ""},
    {"id": 2, "title": "b", "content": ""}], "nextPage": "2", "lastPage": "3"}"#;

#[tokio::test]
async fn an_update_to_a_record_on_a_page_not_loaded_leaves_an_envelope_feed() {
    let (mut server, client) = server().await;
    let first = once(server.mock("GET", "/post?page=1"), 200, FEED_PAGE_1).await;
    let patch = once(
        server.mock("PATCH", "/post/57"),
        200,
        r#"{"id": 57, "title": "edited", "content": ""}"#,
    )
    .await;
    let ctrl = Controller::new(client);
    let (feed, params) = (
        post_page().paginated_by("page"),
        PostPageParams { page: "1".into() },
    );
    ctrl.fetch(&feed, &params, None).await.unwrap();
    let body = Body::json(&json!({ "title": "edited" })).unwrap();
    ctrl.fetch(
        &PostResource::partial_update(),
        &PostResourceParams { id: 57 },
        Some(body),
    )
    .await
    .unwrap();
    let shown = ctrl.read(&feed, &params);
    let ids: Vec<_> = shown
        .data
        .unwrap()
        .results
        .iter()
        .filter_map(|p| p.id)
        .collect();
    assert_eq!(
        (ids, shown.status),
        (vec![1, 2], ExpiryStatus::Valid),
        "post 57 comes with its page: the pages loaded stay on show"
    );

    let create = once(
        server.mock("POST", "/post"),
        201,
        r#"{"id": 60, "title": "new", "content": ""}"#,
    )
    .await;
    let body = Body::json(&json!({ "title": "new" })).unwrap();
    ctrl.fetch(&PostResource::create(), &(), Some(body))
        .await
        .unwrap();
    let shown = ctrl.read(&feed, &params);
    let ids: Vec<_> = shown
        .data
        .unwrap()
        .results
        .iter()
        .filter_map(|p| p.id)
        .collect();
    assert_eq!(
        (ids, shown.status),
        (vec![1, 2], ExpiryStatus::Stale),
        "a created post: on show while the feed is fetched again"
    );
    for mock in [first, patch, create] {
        mock.assert_async().await;
    }
}

endpoint!(titled_feed {
    path: "/post\\?title=:title&page=:page",
    schema: PaginatedPosts,
});

#[tokio::test]
async fn an_update_that_brings_a_record_into_a_filtered_envelope_feed_makes_it_stale() {
    let (mut server, client) = server().await;
    let first = once(
        server.mock("GET", "/post?title=out&page=1"),
        200,
        FEED_PAGE_1,
    )
    .await;
    let patch = once(
        server.mock("PATCH", "/post/57"),
        200,
        r#"{"id": 57, "title": "out", "content": ""}"#,
    )
    .await;
    let ctrl = Controller::new(client);
    let feed = titled_feed().paginated_by("page");
    let params = TitledFeedParams {
        title: "out".into(),
        page: "1".into(),
    };
    ctrl.fetch(&feed, &params, None).await.unwrap();
    let body = Body::json(&json!({ "title": "out" })).unwrap();
    ctrl.fetch(
        &PostResource::partial_update(),
        &PostResourceParams { id: 57 },
        Some(body),
    )
    .await
    .unwrap();
    let shown = ctrl.read(&feed, &params);
    assert_eq!(
        shown.status,
        ExpiryStatus::Stale,
        "post 57 may belong on a loaded page now: fetched again, the pages on show meanwhile"
    );
    first.assert_async().await;
    patch.assert_async().await;
}
