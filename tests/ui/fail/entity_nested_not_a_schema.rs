use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone)]
struct User {
    id: u64,
}

#[derive(Entity, Clone)]
struct Post {
    id: u64,
    #[entity(nested)]
    author: User,
    #[entity(nested)]
    likes: u32,
    #[entity(nested)]
    editor: Rc<User>,
}

fn main() {}
