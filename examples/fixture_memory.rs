//! Holds both benchmark fixtures normalized in one store, for measuring the
//! process's peak memory next to the fixture's size:
//!
//!     cargo build --release --example fixture_memory
//!     /usr/bin/time -v target/release/examples/fixture_memory

use restcache_demo::fixture;

use restcache::prelude::*;

fn main() -> Result<(), SchemaError> {
    let (projects, todos) = fixture::texts();
    let bytes = projects.len() + todos.len();
    let mut store = Store::new();
    store.set_json::<fixture::Projects>("GET /projects", &projects, Meta::default())?;
    store.set_json::<fixture::Todos>("GET /todos", &todos, Meta::default())?;
    drop((projects, todos));
    println!(
        "fixture JSON: {bytes} bytes; store: {} projects, {} build types, {} users, {} todos",
        store.entity_count("Project"),
        store.entity_count("BuildType"),
        store.entity_count("User"),
        store.entity_count("Todo"),
    );
    Ok(())
}
