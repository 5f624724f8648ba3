//! Every form of the older API generation the docs show: a Resource, its
//! six shapes and `as_schema`, and custom shapes spread from a base.

use std::rc::Rc;

use restcache::http::{Body, Client, FetchFuture};
use restcache::legacy::{FetchShape, Query, Resource, SchemaOf};
use restcache::prelude::*;
use restcache::rest::Kind;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Birthday {
    id: Option<String>,
    name: String,
}

impl Resource for Birthday {
    const URL_ROOT: &'static str = "/api/birthdays/";
}

#[derive(Schema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Upcoming {
    #[schema(nested)]
    within_seven_days: Vec<Rc<Birthday>>,
}

fn upcoming_key(_: &Query) -> String {
    "/api/birthdays/upcoming/".to_owned()
}

fn post_upcoming(client: &Client, _: &Query, body: Option<Body>) -> FetchFuture {
    client.fetch("post", "/api/birthdays/upcoming/", body)
}

fn main() {
    let id = "1".to_owned();
    let query = Query::new();
    assert_eq!((Birthday::detail_shape().get_fetch_key)(&id), "/api/birthdays/1");
    assert_eq!((Birthday::list_shape().get_fetch_key)(&query), "/api/birthdays/");
    assert_eq!(Birthday::create_shape().kind, Kind::Create);
    assert_eq!(Birthday::update_shape().kind, Kind::Mutate);
    assert_eq!(Birthday::partial_update_shape().kind, Kind::Mutate);
    assert_eq!(Birthday::delete_shape().kind, Kind::Delete);

    // A custom read: a base shape spread, its key, fetch and schema replaced.
    let upcoming = FetchShape {
        get_fetch_key: upcoming_key,
        fetch: post_upcoming,
        ..Birthday::list_shape().with_schema(SchemaOf::<Upcoming>::new())
    };
    assert_eq!((upcoming.get_fetch_key)(&query), "/api/birthdays/upcoming/");
    let _one: FetchShape<String, Rc<Birthday>> =
        Birthday::detail_shape().with_schema(Birthday::as_schema());
}
