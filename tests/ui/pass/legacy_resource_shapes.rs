//! The older API: a Resource with its URL root hands out its six shapes
//! and its schema.

use std::rc::Rc;

use restcache::legacy::{FetchShape, Query, Resource, ShapeKind};
use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Birthday {
    id: Option<String>,
    name: String,
}

impl Resource for Birthday {
    const URL_ROOT: &'static str = "/api/birthdays/";
}

fn main() {
    let (id, query) = ("1".to_owned(), Query::new());
    assert_eq!((Birthday::detail_shape().get_fetch_key)(&id), "/api/birthdays/1");
    assert_eq!((Birthday::list_shape().get_fetch_key)(&query), "/api/birthdays/");
    assert_eq!(Birthday::create_shape().kind, ShapeKind::Create);
    assert_eq!(Birthday::update_shape().kind, ShapeKind::Mutate);
    assert_eq!(Birthday::partial_update_shape().kind, ShapeKind::Mutate);
    assert_eq!(Birthday::delete_shape().kind, ShapeKind::Delete);
    let _one: FetchShape<String, Rc<Birthday>> = Birthday::detail_shape().with_schema(Birthday::as_schema());
}
