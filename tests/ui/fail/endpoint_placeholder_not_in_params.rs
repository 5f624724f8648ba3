//! An endpoint that types its params must type every placeholder: here
//! `:user_id` is left out (and `id` would have gone to the query).

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

endpoint!(pub todos_of { path: "/users/:user_id/todos", schema: Vec<Rc<Todo>>, params: { id: u64 } });

fn main() {}
