//! Pagination, both styles: pages named by a `Link` header (with the
//! collection's size in `X-Total-Count`) and pages named in the body
//! (a page number or a cursor) join one cached list, in order.

use futures_util::future::join;
use restcache::Page;
use restcache::http::Client;
use restcache::prelude::*;
use restcache::rest::{NextPage, Paged};
use restcache_demo::DemoApi;
use serde_json::json;

use crate::common::{PaginatedPosts, Todo, TodoResource, TodoResourceParams, post_page};

endpoint!(pub TodoResource::pages {
    path: "/todos",
    schema: Page<Todo>,
    params: {
        #[serde(rename = "_page")]
        page: u32,
        #[serde(rename = "_limit")]
        limit: u32,
    },
    decode: Page::from_headers,
    paginated_by: "_page",
    page_size: "_limit",
});

fn ids(page: &Page<Todo>) -> Vec<u64> {
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
}

#[tokio::test]
async fn a_second_call_while_a_page_is_on_its_way_fetches_nothing() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (pages, first) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &first, None).await.unwrap();
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
