//! `endpoint!` of a paginated list: its decoder reads the headers, its
//! page params are named as the server names them.

use restcache::prelude::*;
use restcache::rest::Page;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

endpoint!(pub user_pages {
    path: "/users",
    schema: Page<User>,
    params: { #[serde(rename = "_page")] page: u32, #[serde(rename = "_limit")] limit: u32 },
    decode: Page::from_headers,
    paginated_by: "_page",
    page_size: "_limit",
});

// A placeholder in the query string pages too.
endpoint!(pub query_pages { path: "/users\\?page=:page", schema: Page<User>, paginated_by: "page" });

fn main() {
    let base = "http://127.0.0.1:8080";
    let pages = user_pages();
    let pagination = pages.pagination().unwrap();
    assert_eq!((pagination.field, pagination.size), ("_page", Some("_limit")));
    let (one, two) = (UserPagesParams { page: 1, limit: 9 }, UserPagesParams { page: 2, limit: 9 });
    assert_eq!(pages.key(base, &one).unwrap(), pages.key(base, &two).unwrap());
    let (one, two) = (QueryPagesParams { page: "1".into() }, QueryPagesParams { page: "2".into() });
    assert_eq!(query_pages().url(base, &one).unwrap(), "http://127.0.0.1:8080/users?page=1");
    assert_eq!(query_pages().key(base, &one).unwrap(), query_pages().key(base, &two).unwrap());
}
