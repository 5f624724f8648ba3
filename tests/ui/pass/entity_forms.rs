//! Every form of `#[derive(Entity)]` and `#[derive(Schema)]` the docs show.

use std::collections::HashMap;
use std::rc::Rc;

use restcache::prelude::*;

// The key defaults to the struct's name, the pk to the field `id`.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
    title: String,
}

// Another key; a pk of another name and type; serde's renames.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[entity(key = "Person")]
#[serde(rename_all = "camelCase")]
struct User {
    #[entity(pk)]
    user_name: String,
    #[serde(rename = "displayName")]
    name: String,
}

// A pk that may be absent on the wire.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Draft {
    id: Option<u64>,
}

// An envelope inside an entity, with entities of its own.
#[derive(Schema, Clone, Debug, Default, Serialize, Deserialize)]
struct Members {
    #[schema(nested)]
    people: Vec<Rc<User>>,
    total: u32,
}

// Nested entities: one, a list, an optional one, a map, an envelope.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Project {
    id: u64,
    #[entity(nested)]
    owner: Rc<User>,
    #[entity(nested)]
    todos: Vec<Rc<Todo>>,
    #[entity(nested)]
    draft: Option<Rc<Draft>>,
    #[entity(nested)]
    by_name: HashMap<String, Rc<User>>,
    #[entity(nested)]
    members: Members,
}

// A version field: the server says which copy is newer.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Versioned {
    id: u64,
    #[entity(version)]
    updated_at: Option<String>,
}

// A generic entity: one table per instantiation.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Tagged<T: Clone + std::fmt::Debug + Default + 'static> {
    id: u64,
    tag: T,
}

// A record that merges partial responses its own way.
#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[entity(merge = keep_nothing)]
struct Whole {
    id: u64,
    note: Option<String>,
}

fn keep_nothing(_: &mut Whole, _: &Whole, absent: &restcache::Absent) {
    let _ = absent.iter().count();
}

// An envelope of a list, with its other fields kept as they came.
#[derive(Schema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    #[schema(nested)]
    results: Vec<Rc<Project>>,
    next_page: Option<String>,
}

fn main() {
    assert_eq!(Todo::KEY, "Todo");
    assert_eq!(User::KEY, "Person");
    assert_eq!(Draft::default().pk(), None);
    assert_eq!(Tagged::<String>::KEY, "Tagged");
    assert!(Versioned::HAS_VERSION);
    let _ = Whole::default();
    let mut store = Store::new();
    let page = r#"{"results": [{"id": 1, "owner": {"userName": "ada", "displayName": "Ada"},
        "todos": [{"id": 7, "title": "t"}], "draft": null, "by_name": {},
        "members": {"people": [{"userName": "ada", "displayName": "Ada"}], "total": 1}}],
        "nextPage": null}"#;
    store.set_json::<Page>("GET /projects", page, Meta::default()).unwrap();
    assert_eq!(store.entity_count("Person"), 1);
    assert_eq!(store.entity_count("Todo"), 1);
}
