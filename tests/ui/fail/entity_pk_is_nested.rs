use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone)]
struct User {
    id: u64,
}

#[derive(Entity, Clone)]
struct Membership {
    #[entity(pk, nested)]
    user: Rc<User>,
}

fn main() {}
