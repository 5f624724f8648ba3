use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Default, Deserialize)]
struct User {
    id: u64,
}

#[derive(Entity, Clone, Default, Deserialize)]
struct Post {
    id: u64,
    #[entity(nested)]
    #[serde(default)]
    author: Rc<User>,
    // An `Option` reads as `None` when absent: fine.
    #[entity(nested)]
    #[serde(default)]
    editor: Option<Rc<User>>,
}

#[derive(Schema, Clone, Default, Deserialize)]
#[serde(default)]
struct Profile {
    #[schema(nested)]
    user: Rc<User>,
    // A list reads as empty: fine.
    #[schema(nested)]
    friends: Vec<Rc<User>>,
}

fn main() {}
