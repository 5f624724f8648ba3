//! `#[derive(Schema)]` on an envelope of a list: its other fields kept as
//! they came.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Post {
    id: u64,
}

#[derive(Schema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    #[schema(nested)]
    results: Vec<Rc<Post>>,
    next_page: Option<String>,
}

fn main() {
    let mut store = Store::new();
    let page = r#"{"results": [{"id": 1}], "nextPage": "2"}"#;
    let stored = store.set_json::<Page>("GET /posts", page, Meta::default()).unwrap();
    assert_eq!(stored.next_page.as_deref(), Some("2"));
    assert_eq!(store.entity_count("Post"), 1);
}
