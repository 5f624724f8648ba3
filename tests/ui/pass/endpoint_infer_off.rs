//! `endpoint!` with `infer: false`: its params do not name the record
//! (the current user, by token), so the cache never answers it from a
//! record it holds.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct User {
    id: u64,
}

endpoint!(pub me { path: "/me", schema: Rc<User>, params: { id: u64 }, infer: false });
endpoint!(pub user { path: "/users/:id", schema: Rc<User> });

fn main() {
    assert!(!me().infers());
    assert!(user().infers());
}
