//! Generic records and envelopes whose parameters have defaults (a type
//! and a const), as serde takes them.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Tagged<T: Clone + std::fmt::Debug + Default + 'static = String> {
    id: u64,
    tag: T,
}

#[derive(Schema, Clone, Debug, Deserialize)]
struct Envelope<T: restcache::Schema = Vec<Rc<Tagged>>, const LIMIT: usize = 10> {
    #[schema(nested)]
    data: T,
    total: u32,
}

fn main() {
    let mut store = Store::new();
    let page: Envelope = serde_json::from_str(r#"{"data": [{"id": 1, "tag": "a"}], "total": 1}"#).unwrap();
    store.set("tagged", page, Meta::default()).unwrap();
    assert_eq!(store.entity_count("Tagged"), 1);
    let _: Envelope<Vec<Rc<Tagged<u32>>>, 5>;
}
