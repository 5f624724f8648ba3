//! The older API: a custom shape spreads a base one, its key, fetch and
//! schema replaced.

use std::rc::Rc;

use restcache::http::{Body, Client, Method, ResponseFuture};
use restcache::legacy::{FetchShape, Query, Resource, SchemaOf};
use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Birthday {
    id: Option<String>,
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

fn post_upcoming(client: &Client, _: &Query, body: Option<Body>) -> ResponseFuture {
    client.request(Method::Post, "/api/birthdays/upcoming/", body)
}

fn main() {
    let upcoming = FetchShape {
        get_fetch_key: upcoming_key,
        fetch: post_upcoming,
        ..Birthday::list_shape().with_schema(SchemaOf::<Upcoming>::new())
    };
    assert_eq!((upcoming.get_fetch_key)(&Query::new()), "/api/birthdays/upcoming/");
}
