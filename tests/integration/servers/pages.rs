//! Pagination, both styles: pages named by a `Link` header (with the
//! collection's size in `X-Total-Count`) and pages named in the body
//! (a page number or a cursor) join one cached list, in order.

use futures_util::future::join;
use restcache::http::{Body, Client};
use restcache::prelude::*;
use restcache::rest::Page;
use restcache::rest::{NextPage, Paged};
use restcache_demo::DemoApi;
use serde_json::json;

use crate::common::{
    PaginatedPosts, Todo, TodoResource, TodoResourcePagesParams, TodoResourceParams, post_page,
};

/// The demo API, a controller on it, and its todos in pages of two, the
/// first one fetched.
pub(super) async fn first_page() -> (
    DemoApi,
    Controller,
    Endpoint<TodoResourcePagesParams, Page<Todo>>,
    TodoResourcePagesParams,
) {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
    (api, ctrl, pages, first)
}

/// Page 1 of the todos, two a page (todos 1 and 2), naming page 2 in
/// its `Link` header.
pub(super) async fn first_of_two_pages(server: &mut mockito::ServerGuard) -> mockito::Mock {
    server
        .mock("GET", "/todos?_limit=2&_page=1")
        .with_header("content-type", "application/json")
        .with_header("link", r#"</todos?_page=2&_limit=2>; rel="next""#)
        .with_body(r#"[{"id": 1}, {"id": 2}]"#)
        .create_async()
        .await
}

pub(super) fn ids(page: &Page<Todo>) -> Vec<u64> {
    page.items.iter().map(|t| t.id).collect()
}

#[tokio::test]
async fn link_header_pages_join_one_list_in_order() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    let page = ctrl.fetch(&pages, &first, None).await.unwrap();
    assert_eq!((ids(&page), page.total), (vec![1, 2], Some(5)));

    assert!(
        ctrl.fetch_next_page(&pages, &first).await.unwrap(),
        "a third page follows"
    );
    assert_eq!(ids(&ctrl.read(&pages, &first).data.unwrap()), [1, 2, 3, 4]);
    assert!(
        !ctrl.fetch_next_page(&pages, &first).await.unwrap(),
        "the last page"
    );
    let all = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(
        (ids(&all), all.total, all.next.clone()),
        (vec![1, 2, 3, 4, 5], Some(5), None)
    );
    assert!(!ctrl.fetch_next_page(&pages, &first).await.unwrap());
    assert_eq!(
        api.hits("GET /todos"),
        3,
        "one request a page, none past the last"
    );

    // Any page's params read the one list.
    let third = TodoResourcePagesParams { page: 3, limit: 2 };
    assert_eq!(
        ids(&ctrl.read(&pages, &third).data.unwrap()),
        [1, 2, 3, 4, 5]
    );

    // A record on page 2 changes there.
    let body = Body::json(&json!({"title": "renamed"})).unwrap();
    let three = TodoResourceParams { id: 3 };
    ctrl.fetch(&TodoResource::partial_update(), &three, Some(body))
        .await
        .unwrap();
    let all = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(all.items[2].title, "renamed");

    // A created record joins the paged list (its page params filter
    // nothing), at its end; the total counts it.
    let body = Body::json(&json!({"userId": 1, "title": "new"})).unwrap();
    let created = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    let all = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(all.items.last().unwrap().id, created.id);
    assert_eq!(all.total, Some(6));

    // A delete takes the record out and the total down with it, as the
    // server counts: both the created one and one from a page.
    for id in [created.id, 2] {
        let params = TodoResourceParams { id };
        ctrl.fetch(&TodoResource::delete(), &params, None)
            .await
            .unwrap();
    }
    let all = ctrl.read(&pages, &first);
    assert_eq!(all.status, ExpiryStatus::Valid);
    let all = all.data.unwrap();
    assert_eq!((ids(&all), all.total), (vec![1, 3, 4, 5], Some(4)));
    let server = ctrl.fetch(&pages, &first, None).await.unwrap();
    assert_eq!(server.total, all.total, "what the server says");
}

#[tokio::test]
async fn a_second_call_while_a_page_is_on_its_way_fetches_nothing() {
    let (api, ctrl, pages, first) = first_page().await;
    let (a, b) = join(
        ctrl.fetch_next_page(&pages, &first),
        ctrl.fetch_next_page(&pages, &first),
    )
    .await;
    assert!(a.unwrap() && b.unwrap());
    assert_eq!(api.hits("GET /todos"), 2, "page 1, then page 2 once");
    assert_eq!(ids(&ctrl.read(&pages, &first).data.unwrap()), [1, 2, 3, 4]);
}

/// The demo's body-paged posts name their next page by number.
impl Paged for PaginatedPosts {
    fn next_page(&self) -> Option<NextPage> {
        (!self.next_page.is_empty()).then(|| NextPage::Param(self.next_page.clone()))
    }
}

#[tokio::test]
async fn body_pages_named_by_number_join_one_list() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (posts, first) = (
        post_page().paginated_by("page"),
        crate::common::PostPageParams { page: "1".into() },
    );
    let page = ctrl.fetch(&posts, &first, None).await.unwrap();
    assert_eq!((page.results.len(), page.next_page.as_str()), (10, "2"));
    let mut more = true;
    while more {
        more = ctrl.fetch_next_page(&posts, &first).await.unwrap();
    }
    let all = ctrl.read(&posts, &first).data.unwrap();
    let ids: Vec<u64> = all.results.iter().filter_map(|p| p.id).collect();
    assert_eq!(ids, (1..=25).collect::<Vec<u64>>());
    assert_eq!(all.next_page, "", "the last page's");
    assert_eq!(api.hits("GET /post"), 3);
}

#[tokio::test]
async fn two_loops_loading_one_list_to_its_end_share_its_pages() {
    let (api, ctrl, pages, first) = first_page().await;
    let to_the_end = || async { while ctrl.fetch_next_page(&pages, &first).await.unwrap() {} };
    join(to_the_end(), to_the_end()).await;
    assert_eq!(
        ids(&ctrl.read(&pages, &first).data.unwrap()),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(api.hits("GET /todos"), 3, "each page once");
}

#[tokio::test]
async fn a_record_created_while_pages_are_left_to_load_comes_with_its_page() {
    let (_api, ctrl, pages, first) = first_page().await;
    let body = Body::json(&json!({"userId": 1, "title": "new"})).unwrap();
    let created = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    let list = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(
        (ids(&list), list.total),
        (vec![1, 2], Some(6)),
        "not at the end yet"
    );
    while ctrl.fetch_next_page(&pages, &first).await.unwrap() {}
    let list = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(
        ids(&list),
        [1, 2, 3, 4, 5, created.id],
        "once, where the server puts it"
    );
}

endpoint!(sized_pages {
    path: "/todos",
    schema: Page<Todo>,
    params: {
        #[serde(rename = "_page")]
        page: u32,
        #[serde(rename = "_limit")]
        limit: u32,
    },
    decode: Page::from_headers,
});

#[tokio::test]
async fn a_page_size_named_before_the_page_param_is_kept() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let pages = sized_pages().with_page_size("_limit").paginated_by("_page");
    assert_eq!(pages.pagination().unwrap().size, Some("_limit"));
    let first = SizedPagesParams { page: 1, limit: 2 };
    ctrl.fetch(&pages, &first, None).await.unwrap();
    let body = Body::json(&json!({"userId": 1, "title": "new"})).unwrap();
    ctrl.fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    let list = ctrl.read(&pages, &first);
    assert_eq!(
        list.status,
        ExpiryStatus::Valid,
        "the page size filters nothing: the created todo is judged, not the list made stale"
    );
}

#[tokio::test]
async fn a_page_that_repeats_a_record_the_list_holds_adds_it_once() {
    let (mut server, client) = crate::common::mock::server().await;
    let _first = first_of_two_pages(&mut server).await;
    // The collection shifted: page 2 starts with a record page 1 held.
    let _second = server
        .mock("GET", "/todos?_page=2&_limit=2")
        .with_header("content-type", "application/json")
        .with_body(r#"[{"id": 2}, {"id": 3}]"#)
        .create_async()
        .await;
    let ctrl = Controller::new(client);
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
    assert!(!ctrl.fetch_next_page(&pages, &first).await.unwrap());
    assert_eq!(ids(&ctrl.read(&pages, &first).data.unwrap()), [1, 2, 3]);
}

/// A page with two lists cannot grow by pages.
#[derive(Schema, Clone, Debug, serde::Deserialize)]
struct TwoLists {
    #[schema(nested)]
    todos: Vec<std::rc::Rc<Todo>>,
    #[schema(nested)]
    done: Vec<std::rc::Rc<Todo>>,
    next: Option<String>,
}

impl Paged for TwoLists {
    fn next_page(&self) -> Option<NextPage> {
        self.next.clone().map(NextPage::Param)
    }
}

endpoint!(two_lists { path: "/two", schema: TwoLists, params: { page: u32 }, paginated_by: "page" });

#[tokio::test]
async fn a_list_that_cannot_grow_by_pages_says_so() {
    let (mut server, client) = crate::common::mock::server().await;
    let _pages = server
        .mock("GET", mockito::Matcher::Regex("^/two".into()))
        .with_header("content-type", "application/json")
        .with_body(r#"{"todos": [{"id": 1}], "done": [], "next": "2"}"#)
        .create_async()
        .await;
    let ctrl = Controller::new(client);
    let params = TwoListsParams { page: 1 };
    ctrl.fetch(&two_lists(), &params, None).await.unwrap();
    let error = ctrl
        .fetch_next_page(&two_lists(), &params)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("cannot grow by pages"),
        "{error}"
    );
}

#[tokio::test]
async fn a_next_page_that_lands_after_its_list_was_refetched_is_dropped() {
    use mockito::Matcher;
    use std::time::Duration;
    let mut server = mockito::Server::new_async().await;
    let url = server.url();
    let mut page = |n: u32, ids: &[u64], next: bool| {
        let body: Vec<_> = ids
            .iter()
            .map(|id| json!({"id": id, "userId": 1, "title": format!("t{id}"), "completed": false}))
            .collect();
        let mut mock = server
            .mock("GET", "/todos")
            .match_query(Matcher::AllOf(vec![
                Matcher::UrlEncoded("_page".into(), n.to_string()),
                Matcher::UrlEncoded("_limit".into(), "2".into()),
            ]))
            .with_header("x-total-count", "6")
            .with_body(json!(body).to_string());
        if next {
            let link = format!("<{url}/todos?_page={}&_limit=2>; rel=\"next\"", n + 1);
            mock = mock.with_header("link", &link);
        }
        mock
    };
    let _one = page(1, &[1, 2], true).create_async().await;
    let _two = page(2, &[3, 4], true).create_async().await;
    let _three = page(3, &[5, 6], false)
        .with_chunked_body(|w| {
            std::thread::sleep(Duration::from_millis(300));
            w.write_all(br#"[{"id": 5, "userId": 1, "title": "t5", "completed": false}]"#)
        })
        .create_async()
        .await;
    let ctrl = Controller::new(Client::new(url.clone()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
    ctrl.fetch_next_page(&pages, &first).await.unwrap();
    assert_eq!(ids(&ctrl.read(&pages, &first).data.unwrap()), [1, 2, 3, 4]);

    // Page 3 is on its way when page 1 is fetched again (a focus, say).
    let refetch = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctrl.fetch(&pages, &first, None).await.unwrap();
    };
    let (_, ()) = join(ctrl.fetch_next_page(&pages, &first), refetch).await;
    let list = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!(ids(&list), [1, 2], "page 3 after page 1 would skip 3 and 4");
    assert!(ctrl.has_next_page(&pages, &first));
}

endpoint!(feed { path: "/feed", schema: Page<Todo>, decode: Page::from_headers });

#[tokio::test]
async fn a_relative_next_link_is_read_against_the_page_that_sent_it() {
    let (mut server, client) = crate::common::mock::server().await;
    let page = |server: &mut mockito::ServerGuard, path: &str, body: &str, next: Option<&str>| {
        let mut mock = server
            .mock("GET", path)
            .match_query(mockito::Matcher::Any)
            .with_header("content-type", "application/json")
            .with_body(body)
            .expect(1);
        if let Some(next) = next {
            mock = mock.with_header("link", &format!(r#"<{next}>; rel="next""#));
        }
        mock
    };
    let first = page(&mut server, "/feed", r#"[{"id": 1}]"#, Some("/feed/p/2"))
        .create_async()
        .await;
    // Relative to /feed/p/2, with an address in its query.
    let second = page(
        &mut server,
        "/feed/p/2",
        r#"[{"id": 2}]"#,
        Some("3?from=https://elsewhere.example/x"),
    )
    .create_async()
    .await;
    let third = page(&mut server, "/feed/p/3", r#"[{"id": 3}]"#, None)
        .match_query(mockito::Matcher::UrlEncoded(
            "from".into(),
            "https://elsewhere.example/x".into(),
        ))
        .create_async()
        .await;
    let ctrl = Controller::new(client);
    ctrl.fetch(&feed(), &(), None).await.unwrap();
    assert!(ctrl.fetch_next_page(&feed(), &()).await.unwrap());
    assert!(!ctrl.fetch_next_page(&feed(), &()).await.unwrap());
    assert_eq!(ids(&ctrl.read(&feed(), &()).data.unwrap()), [1, 2, 3]);
    for mock in [first, second, third] {
        mock.assert_async().await;
    }
}

#[tokio::test]
async fn a_next_page_asked_after_a_reset_is_fetched_for_the_new_list() {
    let (mut server, client) = crate::common::mock::server().await;
    let first = server
        .mock("GET", "/todos?_limit=2&_page=1")
        .with_header("content-type", "application/json")
        .with_header("link", r#"</todos?_page=2&_limit=2>; rel="next""#)
        .with_body(r#"[{"id": 1}, {"id": 2}]"#)
        .expect(2)
        .create_async()
        .await;
    // Page 2 comes slowly the first time (for the list from before the
    // reset) and at once the second.
    let slow_second = crate::common::mock::once_after(
        server.mock("GET", "/todos?_page=2&_limit=2"),
        std::time::Duration::from_millis(300),
        r#"[{"id": 3}, {"id": 4}]"#.into(),
    )
    .await;
    let ctrl = Controller::new(client);
    let (pages, params) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &params, None).await.unwrap();
    let before_reset = ctrl.fetch_next_page(&pages, &params);
    let after_reset = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        // Another user signs in: the cache starts over, and the list is
        // fetched again.
        ctrl.reset();
        ctrl.fetch(&pages, &params, None).await.unwrap();
        slow_second.remove_async().await;
        let _quick = server
            .mock("GET", "/todos?_page=2&_limit=2")
            .with_header("content-type", "application/json")
            .with_body(r#"[{"id": 5}, {"id": 6}]"#)
            .expect(1)
            .create_async()
            .await;
        ctrl.fetch_next_page(&pages, &params).await.unwrap();
        ids(&ctrl.read(&pages, &params).data.unwrap())
    };
    let (_, shown) = join(before_reset, after_reset).await;
    assert_eq!(shown, [1, 2, 5, 6], "the new list's own next page");
    first.assert_async().await;
}

#[tokio::test]
async fn a_page_fetch_outlives_the_call_that_started_it() {
    use std::time::Duration;
    use tokio::time::{sleep, timeout};
    let (mut server, client) = crate::common::mock::server().await;
    let _first = first_of_two_pages(&mut server).await;
    let second = crate::common::mock::once_after(
        server.mock("GET", "/todos?_page=2&_limit=2"),
        Duration::from_millis(300),
        r#"[{"id": 3}, {"id": 4}]"#.into(),
    )
    .await;
    let ctrl = Controller::new(client);
    let (pages, params) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &params, None).await.unwrap();
    // The call that starts page 2 gives up before it comes; one that
    // joined it still waits, and a third asks while it is on its way.
    let started = timeout(
        Duration::from_millis(50),
        ctrl.fetch_next_page(&pages, &params),
    );
    let joined = async {
        sleep(Duration::from_millis(10)).await;
        ctrl.fetch_next_page(&pages, &params).await.unwrap()
    };
    let after_it_gave_up = async {
        sleep(Duration::from_millis(100)).await;
        ctrl.fetch_next_page(&pages, &params).await.unwrap()
    };
    let (started, (joined, after)) = join(started, join(joined, after_it_gave_up)).await;
    assert!(started.is_err(), "the first call gave up");
    assert_eq!((joined, after), (false, false), "page 2 is the last");
    assert_eq!(ids(&ctrl.read(&pages, &params).data.unwrap()), [1, 2, 3, 4]);
    second.assert_async().await;
}
