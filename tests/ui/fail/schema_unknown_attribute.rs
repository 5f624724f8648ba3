use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone)]
struct Todo {
    id: u64,
}

#[derive(Schema, Clone)]
struct Page {
    #[schema(nested, flatten)]
    data: Vec<Rc<Todo>>,
    #[schema(pk)]
    next: String,
}

fn main() {}
