//! `endpoint!` of one name in two owners: two params structs.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

pub struct UserResource;
pub struct TeamResource;

endpoint!(pub UserResource::by_name { path: "/users/by/:name", schema: Vec<Rc<User>> });
endpoint!(pub TeamResource::by_name { path: "/teams/by/:name", schema: serde_json::Value });

fn main() {
    let _ = (UserResourceByNameParams { name: "a".into() }, TeamResourceByNameParams { name: "b".into() });
    let _ = (UserResource::by_name(), TeamResource::by_name());
}
