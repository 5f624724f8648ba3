//! Every form of `endpoint!` the docs show.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::rest::Kind;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

#[derive(Schema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    #[schema(nested)]
    results: Vec<Rc<User>>,
    next_page: String,
}

pub struct UserResource;

// A GET whose path escapes its `?`.
endpoint!(pub user_page { path: "/users\\?page=:page", schema: Page });

// An RPC in another type's impl, its placeholder typed.
endpoint!(pub UserResource::make_manager {
    method: POST,
    path: "/users/:id/make_manager",
    schema: serde_json::Value,
    params: { id: u64 },
});

// A POST that reads (no side effect), with no params.
endpoint!(pub current_user { method: POST, path: "/current_user/", schema: Rc<User>, side_effect: false });

// Params not in the path go into the query string.
endpoint!(pub search {
    path: "/users/search/:term",
    schema: Vec<Rc<User>>,
    params: { limit: Option<u32>, tags: Vec<String> },
});

// Other methods, and nothing in the body.
endpoint!(pub touch { method: PUT, path: "/touch", schema: () });
endpoint!(pub rename { method: PATCH, path: "/names/:id", schema: serde_json::Value });
endpoint!(pub forget { method: DELETE, path: "/sessions/:id", schema: () });

fn main() {
    let base = "http://127.0.0.1:8080";
    let page = UserPageParams { page: "2".into() };
    assert_eq!(user_page().url(base, &page).unwrap(), "http://127.0.0.1:8080/users?page=2");
    let id = MakeManagerParams { id: 3 };
    assert_eq!(UserResource::make_manager().key(base, &id).unwrap(), "POST http://127.0.0.1:8080/users/3/make_manager");
    assert_eq!(UserResource::make_manager().kind(), Kind::Mutate);
    assert_eq!(current_user().kind(), Kind::Read);
    let query = SearchParams { term: "a".into(), limit: Some(5), tags: vec!["x".into()] };
    assert_eq!(search().url(base, &query).unwrap(), "http://127.0.0.1:8080/users/search/a?limit=5&tags=x");
    assert_eq!(touch().kind(), Kind::Mutate);
    let _ = (rename(), forget(), RenameParams { id: "n".into() }, ForgetParams { id: "s".into() });
}
