use restcache::http::{Body, Client, ResponseFuture};
use restcache::legacy::{FetchShape, Resource};
use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct User {
    id: u64,
}

impl Resource for User {
    const URL_ROOT: &'static str = "/users/";
}

// A fetch function that takes the params by value: not the shape's
// signature, `fn(&Client, &P, Option<Body>) -> ResponseFuture`.
fn make_manager(client: &Client, id: u64, body: Option<Body>) -> ResponseFuture {
    client.request(Method::Post, &format!("/users/{id}/make_manager"), body)
}

fn main() {
    let _ = FetchShape {
        fetch: make_manager,
        ..User::update_shape()
    };
}
