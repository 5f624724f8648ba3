//! The heap a store keeps, counted inside wasm32: the memory a browser
//! tab holds for it, with 4-byte pointers, as V8's own heap has (its
//! pointers are compressed to 4 bytes). Built with the `heap` feature,
//! which puts a counting allocator under the whole module; the timing
//! build leaves it out, so it costs the timed cases nothing.

use std::time::Duration;

use restcache::prelude::*;
use wasm_bindgen::prelude::*;

use crate::fixture::{self, Projects, Todos};
use crate::heap;
use crate::median::median_held_mib;

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

/// The MiB held after each fixture's text is stored (`Store::set_json`,
/// everything but the store dropped, the text outside the count), and
/// by its records alone, parsed with no store: `[projects store,
/// projects records, todos store, todos records]`, each the median of
/// five rounds.
#[wasm_bindgen]
pub fn held_mib() -> Vec<f64> {
    let (projects, todos) = fixture::texts();
    vec![
        median_held_mib(|| stored::<Projects>("GET /projects", &projects)),
        median_held_mib(|| parsed::<Projects>(&projects)),
        median_held_mib(|| stored::<Todos>("GET /todos", &todos)),
        median_held_mib(|| parsed::<Todos>(&todos)),
    ]
}

fn stored<S: Schema + serde::de::DeserializeOwned>(key: &str, text: &str) -> Store {
    let at = Timestamp::from_millis(1);
    let mut store = Store::new();
    store
        .set_json::<S>(key, text, Meta::fetched(at, at, Duration::from_secs(60)))
        .expect("the fixture stores");
    store
}

fn parsed<S: serde::de::DeserializeOwned>(text: &str) -> S {
    serde_json::from_str(text).expect("the fixture parses")
}
