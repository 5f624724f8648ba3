//! `endpoint!` of an RPC in another type's impl, its placeholder typed:
//! a POST mutates.

use restcache::prelude::*;
use restcache::rest::Mutate;

pub struct UserResource;

endpoint!(pub UserResource::make_manager {
    method: POST,
    path: "/users/:id/make_manager",
    schema: serde_json::Value,
    params: { id: u64 },
});

fn main() {
    let id = UserResourceMakeManagerParams { id: 3 };
    let key = UserResource::make_manager().key("http://127.0.0.1:8080", &id).unwrap();
    assert_eq!(key, "POST http://127.0.0.1:8080/users/3/make_manager");
    let _: Endpoint<UserResourceMakeManagerParams, serde_json::Value, Mutate> =
        UserResource::make_manager();
}
