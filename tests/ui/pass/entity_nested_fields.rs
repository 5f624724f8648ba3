//! `#[derive(Entity)]` with nested entities: one, a list, an optional
//! one, a map, and an envelope with entities of its own.

use std::collections::HashMap;
use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct User {
    id: u64,
}

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

#[derive(Schema, Clone, Debug, Default, Serialize, Deserialize)]
struct Members {
    #[schema(nested)]
    people: Vec<Rc<User>>,
    total: u32,
}

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Project {
    id: u64,
    #[entity(nested)]
    owner: Rc<User>,
    #[entity(nested)]
    todos: Vec<Rc<Todo>>,
    #[entity(nested)]
    reviewer: Option<Rc<User>>,
    #[entity(nested)]
    by_name: HashMap<String, Rc<User>>,
    #[entity(nested)]
    members: Members,
}

fn main() {
    let mut store = Store::new();
    let project = r#"{"id": 1, "owner": {"id": 7}, "todos": [{"id": 3}], "reviewer": null,
        "by_name": {"ada": {"id": 7}}, "members": {"people": [{"id": 8}], "total": 1}}"#;
    store.set_json::<Rc<Project>>("GET /projects/1", project, Meta::default()).unwrap();
    assert_eq!(store.entity_count("User"), 2);
    assert_eq!(store.entity_count("Todo"), 1);
}
