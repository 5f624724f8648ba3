//! The heap a store keeps, counted inside wasm32: the memory a browser
//! tab holds for it, with 4-byte pointers, as V8's own heap has (its
//! pointers are compressed to 4 bytes). Built with the `heap` feature,
//! which puts a counting allocator under the whole module; the timing
//! build leaves it out, so it costs the timed cases nothing.

use wasm_bindgen::prelude::*;

use crate::fixture::{self, Projects, Todos};
use crate::fixture_heap::{parsed_mib, stored_mib};
use crate::heap;

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
        stored_mib::<Projects>("GET /projects", &projects),
        parsed_mib::<Projects>(&projects),
        stored_mib::<Todos>("GET /todos", &todos),
        parsed_mib::<Todos>(&todos),
    ]
}
