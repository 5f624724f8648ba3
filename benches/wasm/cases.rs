//! The cases, under the names of `../shared/bench/README.md`, on the
//! fixture rebuilt byte for byte (`examples/demo/src/fixture.rs`).

use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use wasm_bindgen::prelude::*;

use crate::fixture::{self, Project, Projects, Todo, Todos, User};
use crate::timing::{Budget, batched, per_call};

const PROJECTS: &str = "GET /projects";
const TODOS: &str = "GET /todos";

/// Every case, in the order [`Suite::time`] runs them.
const CASES: [&str; 22] = [
    "parse_projects_1000",
    "parse_todos_10000",
    "parse_normalize_projects_1000",
    "parse_normalize_todos_10000",
    "normalize_projects_1000",
    "normalize_projects_1000_owners_shared",
    "normalize_projects_1000_into_store",
    "normalize_todos_10000",
    "normalize_todos_10000_into_store",
    "denormalize_projects_1000_nocache",
    "denormalize_projects_1000_memo_cold",
    "denormalize_projects_1000_memo_warm",
    "denormalize_todos_10000_nocache",
    "denormalize_todos_10000_memo_cold",
    "denormalize_todos_10000_memo_warm",
    "denormalize_entity_project_nocache",
    "denormalize_entity_project_memo_warm_by_pk",
    "denormalize_entity_project_memo_warm",
    "denormalize_entity_todo_nocache",
    "denormalize_entity_todo_memo_warm_by_pk",
    "denormalize_entity_todo_memo_warm",
    "floor_held_rc",
];

fn meta(ms: u64) -> Meta {
    Meta::fetched(
        Timestamp::from_millis(ms),
        Timestamp::from_millis(ms),
        Duration::from_secs(60),
    )
}

fn parsed<T: serde::de::DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text).expect("the fixture parses")
}

/// The fixture's texts and a store holding both responses, which the
/// read cases read and the `_into_store` cases write into again.
#[wasm_bindgen]
pub struct Suite {
    projects_text: String,
    todos_text: String,
    store: Store,
}

#[wasm_bindgen]
impl Suite {
    /// Builds the fixture and the store, and checks the store holds what
    /// the reference's own sanity check expects.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<Suite, JsError> {
        let (projects_text, todos_text) = fixture::texts();
        let mut store = Store::new();
        store.set(PROJECTS, parsed::<Projects>(&projects_text), meta(1))?;
        store.set(TODOS, parsed::<Todos>(&todos_text), meta(1))?;
        let suite = Suite {
            projects_text,
            todos_text,
            store,
        };
        suite.check()?;
        Ok(suite)
    }

    /// The names of every case.
    pub fn cases() -> Vec<String> {
        CASES.iter().map(|case| case.to_string()).collect()
    }

    /// Runs `case` unmeasured for `warmup_ms`, then measured for at least
    /// `time_ms`; returns its mean in microseconds.
    pub fn time(&self, case: &str, warmup_ms: f64, time_ms: f64) -> Result<f64, JsError> {
        let budget = Budget { warmup_ms, time_ms };
        let (projects, todos, store) = (&self.projects_text, &self.todos_text, &self.store);
        Ok(match case {
            "parse_projects_1000" => per_call(budget, || (), |()| parsed::<Projects>(projects)),
            "parse_todos_10000" => per_call(budget, || (), |()| parsed::<Todos>(todos)),
            "parse_normalize_projects_1000" => {
                text_to_store::<Projects>(budget, PROJECTS, projects)
            }
            "parse_normalize_todos_10000" => text_to_store::<Todos>(budget, TODOS, todos),
            "normalize_projects_1000" => normalize::<Projects>(budget, PROJECTS, projects, None),
            "normalize_projects_1000_owners_shared" => normalize_owners_shared(budget, projects),
            "normalize_projects_1000_into_store" => {
                normalize::<Projects>(budget, PROJECTS, projects, Some(store))
            }
            "normalize_todos_10000" => normalize::<Todos>(budget, TODOS, todos, None),
            "normalize_todos_10000_into_store" => {
                normalize::<Todos>(budget, TODOS, todos, Some(store))
            }
            "denormalize_projects_1000_nocache" => no_cache::<Projects>(budget, PROJECTS, store),
            "denormalize_projects_1000_memo_cold" => memo_cold::<Projects>(budget, PROJECTS, store),
            "denormalize_projects_1000_memo_warm" => memo_warm::<Projects>(budget, PROJECTS, store),
            "denormalize_todos_10000_nocache" => no_cache::<Todos>(budget, TODOS, store),
            "denormalize_todos_10000_memo_cold" => memo_cold::<Todos>(budget, TODOS, store),
            "denormalize_todos_10000_memo_warm" => memo_warm::<Todos>(budget, TODOS, store),
            "denormalize_entity_project_nocache" => {
                entity_no_cache::<Project>(budget, "project-502", store)
            }
            "denormalize_entity_project_memo_warm_by_pk" => {
                entity_by_pk::<Project>(budget, "project-502", store)
            }
            "denormalize_entity_project_memo_warm" => {
                entity_query::<Project>(budget, "project-502", store)
            }
            "denormalize_entity_todo_nocache" => entity_no_cache::<Todo>(budget, 5000u64, store),
            "denormalize_entity_todo_memo_warm_by_pk" => {
                entity_by_pk::<Todo>(budget, 5000u64, store)
            }
            "denormalize_entity_todo_memo_warm" => entity_query::<Todo>(budget, 5000u64, store),
            "floor_held_rc" => held_rc(budget, store),
            other => return Err(JsError::new(&format!("no case named {other}"))),
        })
    }

    fn check(&self) -> Result<(), JsError> {
        let store = &self.store;
        let counts = [
            ("Project", 1000),
            ("BuildType", 3000),
            ("User", 50),
            ("Todo", 10_000),
        ];
        for (key, expected) in counts {
            let held = store.entity_count(key);
            if held != expected {
                return Err(JsError::new(&format!(
                    "{held} {key} stored, not {expected}"
                )));
            }
        }
        let read = store.read::<Projects>(PROJECTS).into_value();
        if read.as_deref() != Some(&fixture::projects(1000)) {
            return Err(JsError::new(
                "the projects read back differ from the fixture",
            ));
        }
        Ok(())
    }
}

fn text_to_store<S: Schema + serde::de::DeserializeOwned>(
    budget: Budget,
    key: &str,
    text: &str,
) -> f64 {
    per_call(budget, Store::new, |mut store| {
        store.set_json::<S>(key, text, meta(1)).unwrap();
        store
    })
}

/// Parsed input into an empty store, or into a copy of `populated` (a
/// refetch with a newer fetch time).
fn normalize<S: Schema + serde::de::DeserializeOwned>(
    budget: Budget,
    key: &str,
    text: &str,
    populated: Option<&Store>,
) -> f64 {
    let (fetched, setup_store) = match populated {
        Some(store) => (2, store.clone()),
        None => (1, Store::new()),
    };
    per_call(
        budget,
        || (parsed::<S>(text), setup_store.clone()),
        |(value, mut store)| {
            store.set(key, value, meta(fetched)).unwrap();
            store
        },
    )
}

/// [`normalize`] of the projects with each owner parsed once: every
/// build type of one user holds the same `Rc`, as a parse that shared
/// nested records by pk would hand them over. Not a reference case: set
/// beside `normalize_projects_1000`, it tells what dropping the 2,950
/// owners the response repeats costs the write.
fn normalize_owners_shared(budget: Budget, text: &str) -> f64 {
    per_call(
        budget,
        || (owners_shared(parsed(text)), Store::new()),
        |(value, mut store)| {
            store.set(PROJECTS, value, meta(1)).unwrap();
            store
        },
    )
}

/// `projects` with every owner the first copy of its user.
fn owners_shared(mut projects: Projects) -> Projects {
    let mut first: HashMap<u64, Rc<User>> = HashMap::new();
    for project in &mut projects.project {
        for build_type in &mut Rc::make_mut(project).build_types.build_type {
            let build_type = Rc::make_mut(build_type);
            let owner = first
                .entry(build_type.owner.id)
                .or_insert_with(|| Rc::clone(&build_type.owner));
            build_type.owner = Rc::clone(owner);
        }
    }
    projects
}

fn no_cache<S: Schema>(budget: Budget, key: &str, store: &Store) -> f64 {
    per_call(budget, || (), |()| store.read::<S>(key).into_value())
}

fn memo_cold<S: Schema>(budget: Budget, key: &str, store: &Store) -> f64 {
    per_call(budget, Memo::new, |mut memo| {
        let read = memo.read::<S>(store, key);
        (memo, read)
    })
}

fn memo_warm<S: Schema>(budget: Budget, key: &str, store: &Store) -> f64 {
    let mut memo = Memo::new();
    let first = memo.read::<S>(store, key).into_value().unwrap();
    let again = memo.read::<S>(store, key).into_value().unwrap();
    assert!(
        Rc::ptr_eq(&first, &again),
        "a warm read returns the same value"
    );
    batched(budget, || memo.read::<S>(store, key).into_value())
}

fn entity_no_cache<E: Entity>(budget: Budget, pk: impl PkValue + Copy, store: &Store) -> f64 {
    batched(budget, || store.get_entity::<E>(pk).into_value())
}

/// A [`Memo`] asked by pk every time (a lookup per read).
fn entity_by_pk<E: Entity>(budget: Budget, pk: impl PkValue + Copy, store: &Store) -> f64 {
    let mut memo = Memo::new();
    batched(budget, || memo.entity::<E>(store, pk).into_value())
}

/// The least a warm read of one record can cost in this loop: handing out
/// an `Rc` it already holds. Not a reference case; it shows how close
/// [`entity_query`] comes to nothing.
fn held_rc(budget: Budget, store: &Store) -> f64 {
    let todo = store.get_entity::<Todo>(5000u64).into_value();
    batched(budget, || todo.clone())
}

/// The read a view keeps between renders.
fn entity_query<E: Entity>(budget: Budget, pk: impl PkValue + Copy, store: &Store) -> f64 {
    let mut query = EntityQuery::<E>::new(pk);
    batched(budget, || query.read(store).into_value())
}
