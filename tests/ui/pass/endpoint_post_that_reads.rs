//! `endpoint!` of a POST that reads (`side_effect: false`), with no
//! params: a read by its type.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::rest::Read;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

endpoint!(pub current_user { method: POST, path: "/current_user/", schema: Rc<User>, side_effect: false });
endpoint!(pub ping { path: "/ping", schema: serde_json::Value, side_effect: true });

fn main() {
    let _: Endpoint<(), Rc<User>, Read> = current_user();
    let _: Endpoint<(), serde_json::Value, restcache::rest::Mutate> = ping();
    assert_eq!(current_user().method(), Method::Post);
}
