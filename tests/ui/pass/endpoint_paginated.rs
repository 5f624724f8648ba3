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

fn main() {
    let base = "http://127.0.0.1:8080";
    let pages = user_pages();
    let pagination = pages.pagination().unwrap();
    assert_eq!((pagination.field, pagination.size), ("_page", Some("_limit")));
    let (one, two) = (UserPagesParams { page: 1, limit: 9 }, UserPagesParams { page: 2, limit: 9 });
    assert_eq!(pages.key(base, &one).unwrap(), pages.key(base, &two).unwrap());
}
