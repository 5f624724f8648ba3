//! `resource!` in its plain form: a path ending with the pk, and an entity.

use restcache::prelude::*;
use restcache::rest::{Create, Delete, Mutate, Read};
use std::rc::Rc;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });

fn main() {
    let base = "http://127.0.0.1:8080";
    let one = TodoResourceParams { id: 1 };
    assert_eq!(TodoResource::get().key(base, &one).unwrap(), "GET http://127.0.0.1:8080/todos/1");
    assert_eq!(TodoResource::get_list().url(base, &()).unwrap(), "http://127.0.0.1:8080/todos");
    assert_eq!(TodoResource::PATH, "/todos/:id");
    // Each endpoint's effect is part of its type.
    let _: Endpoint<TodoResourceParams, Rc<Todo>, Read> = TodoResource::get();
    let _: Endpoint<(), Vec<Rc<Todo>>, Read> = TodoResource::get_list();
    let _: Endpoint<(), Rc<Todo>, Create> = TodoResource::create();
    let _: Endpoint<TodoResourceParams, Rc<Todo>, Mutate> = TodoResource::update();
    let _: Endpoint<TodoResourceParams, Rc<Todo>, Mutate> = TodoResource::partial_update();
    let _: Endpoint<TodoResourceParams, restcache::rest::Deleted<Todo>, Delete> = TodoResource::delete();
    assert_eq!(TodoResource::update().target().map(|t| t.entity), Some("Todo"));
}
