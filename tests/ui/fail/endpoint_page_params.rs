use restcache::prelude::*;

// The page param is named as the server names it (`_page`), not as Rust
// names the field; a page size goes with a page param.
endpoint!(pub pages {
    path: "/users",
    schema: serde_json::Value,
    params: { #[serde(rename = "_page")] page: u32 },
    paginated_by: "page",
});
endpoint!(pub sized { path: "/users", schema: serde_json::Value, params: { size: u32 }, page_size: "size" });
endpoint!(pub unnamed { path: "/users", schema: serde_json::Value, paginated_by: _page });
// The next page sets its param in the query string, not in the path.
endpoint!(pub in_path { path: "/users/page/:page", schema: serde_json::Value, paginated_by: "page" });

fn main() {
    let _ = (pages(), sized(), unnamed(), in_path());
}
