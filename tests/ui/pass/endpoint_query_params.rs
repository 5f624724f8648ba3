//! `endpoint!` whose params not in the path go into the query string.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

endpoint!(pub search {
    path: "/users/search/:term",
    schema: Vec<Rc<User>>,
    params: { term: String, limit: Option<u32>, tags: Vec<String> },
});

fn main() {
    let query = SearchParams { term: "a".into(), limit: Some(5), tags: vec!["x".into()] };
    let url = search().url("http://127.0.0.1:8080", &query).unwrap();
    assert_eq!(url, "http://127.0.0.1:8080/users/search/a?limit=5&tags=x");
}
