//! `endpoint!` reading a path whose `?` is escaped, into an envelope.

use std::rc::Rc;

use restcache::prelude::*;

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

endpoint!(pub user_page { path: "/users\\?page=:page", schema: Page });

fn main() {
    let page = UserPageParams { page: "2".into() };
    let url = user_page().url("http://127.0.0.1:8080", &page).unwrap();
    assert_eq!(url, "http://127.0.0.1:8080/users?page=2");
}
