//! Normalize / denormalize benchmarks on the fixture of `../shared/bench`,
//! named as its README lists so `../shared/bench/compare.py` can put them
//! beside the JavaScript reference.
//!
//!     cargo bench --bench normalize

use std::hint::black_box;
use std::rc::Rc;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use restcache::prelude::*;
use rustc_hash::FxHashMap;

use restcache_demo::fixture;

use fixture::{Project, Projects, Todo, Todos};

const PROJECTS: &str = "GET /projects";
const TODOS: &str = "GET /todos";

fn meta(ms: u64) -> Meta {
    Meta::fetched(
        Timestamp::from_millis(ms),
        Timestamp::from_millis(ms),
        Duration::from_secs(60),
    )
}

/// Freshly parsed input, as a response handed to the store would be.
fn parsed<T: serde::de::DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text).expect("the fixture parses")
}

fn bench(c: &mut Criterion) {
    let (projects_text, todos_text) = fixture::texts();

    let mut store = Store::new();
    store
        .set(PROJECTS, parsed::<Projects>(&projects_text), meta(1))
        .unwrap();
    store
        .set(TODOS, parsed::<Todos>(&todos_text), meta(1))
        .unwrap();
    sanity(&store);

    c.bench_function("parse_projects_1000", |b| {
        b.iter_with_large_drop(|| parsed::<Projects>(black_box(&projects_text)))
    });
    c.bench_function("parse_todos_10000", |b| {
        b.iter_with_large_drop(|| parsed::<Todos>(black_box(&todos_text)))
    });
    c.bench_function("parse_normalize_projects_1000", |b| {
        b.iter_batched(
            Store::new,
            |mut store| {
                store
                    .set_json::<Projects>(PROJECTS, black_box(&projects_text), meta(1))
                    .unwrap();
                store
            },
            BatchSize::LargeInput,
        )
    });

    partial_case(c, &todos_text);
    sharing_cases(c, &projects_text);
    normalize_cases::<Projects>(c, "projects_1000", PROJECTS, &projects_text, &store);
    normalize_cases::<Todos>(c, "todos_10000", TODOS, &todos_text, &store);
    denormalize_cases::<Projects>(c, "projects_1000", PROJECTS, &store);
    denormalize_cases::<Todos>(c, "todos_10000", TODOS, &store);
    entity_cases::<Project>(c, "project", "project-502", &store);
    entity_cases::<Todo>(c, "todo", 5000u64, &store);
    floor_case(c);
}

/// The fixture's todo, every field of which a response may leave out (a
/// serde default): its responses are read for which fields they carried.
#[derive(Entity, Clone, Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[entity(key = "PartialTodo")]
struct PartialTodo {
    user_id: u64,
    id: u64,
    title: String,
    completed: bool,
}

/// Not reference cases: JSON text into a store, for records whose fields
/// are all required (`parse_normalize_todos_10000`) and for the same
/// records whose fields may all be absent (`..._partial`), whose JSON is
/// read for which fields it carried. The ratio is the cost of that.
fn partial_case(c: &mut Criterion, text: &str) {
    c.bench_function("parse_normalize_todos_10000", |b| {
        b.iter_batched(
            Store::new,
            |mut store| {
                store
                    .set_json::<Todos>(TODOS, black_box(text), meta(1))
                    .unwrap();
                store
            },
            BatchSize::LargeInput,
        )
    });
    c.bench_function("parse_normalize_todos_10000_partial", |b| {
        b.iter_batched(
            Store::new,
            |mut store| {
                store
                    .set_json::<Vec<Rc<PartialTodo>>>(TODOS, black_box(text), meta(1))
                    .unwrap();
                store
            },
            BatchSize::LargeInput,
        )
    });
}

/// Not reference cases: the projects written again into a store that owns
/// its records (as an app's does, so each write frees the copies it
/// drops), once taking each copy as it comes (`_new_copies`) and once
/// keeping every stored copy an equal one repeats (`_shared_copies`, what
/// a controller's store does). The ratio is the cost of the compare.
fn sharing_cases(c: &mut Criterion, text: &str) {
    for (name, share) in [("new_copies", false), ("shared_copies", true)] {
        c.bench_function(&format!("refetch_projects_1000_{name}"), |b| {
            b.iter_batched(
                || {
                    let mut store = Store::new();
                    store.share_equal_copies(share);
                    store
                        .set(PROJECTS, parsed::<Projects>(text), meta(1))
                        .unwrap();
                    (parsed::<Projects>(text), store)
                },
                |(value, mut store)| {
                    store.set(PROJECTS, value, meta(2)).unwrap();
                    store
                },
                BatchSize::LargeInput,
            )
        });
    }
}

/// Not a reference case: the least a read by pk can cost, a hash probe
/// into 10,000 keys and an `Rc` clone, with no store around it. It shows
/// how far below any hash-keyed read a bar under ~5 ns would be.
fn floor_case(c: &mut Criterion) {
    let records: Vec<Rc<u64>> = (0..10_000u64).map(Rc::new).collect();
    let index: FxHashMap<u64, usize> = (0..10_000u64).map(|id| (id, id as usize)).collect();
    c.bench_function("floor_hash_probe_and_rc_clone", |b| {
        b.iter(|| {
            index
                .get(&black_box(5000u64))
                .map(|&i| Rc::clone(&records[i]))
        })
    });
}

fn normalize_cases<S: Schema + serde::de::DeserializeOwned>(
    c: &mut Criterion,
    name: &str,
    key: &str,
    text: &str,
    populated: &Store,
) {
    c.bench_function(&format!("normalize_{name}"), |b| {
        b.iter_batched(
            || (parsed::<S>(text), Store::new()),
            |(value, mut store)| {
                store.set(key, value, meta(1)).unwrap();
                store
            },
            BatchSize::LargeInput,
        )
    });
    c.bench_function(&format!("normalize_{name}_into_store"), |b| {
        b.iter_batched(
            || (parsed::<S>(text), populated.clone()),
            |(value, mut store)| {
                store.set(key, value, meta(2)).unwrap();
                store
            },
            BatchSize::LargeInput,
        )
    });
}

fn denormalize_cases<S: Schema>(c: &mut Criterion, name: &str, key: &str, store: &Store) {
    c.bench_function(&format!("denormalize_{name}_nocache"), |b| {
        b.iter(|| store.read::<S>(black_box(key)).into_value())
    });
    c.bench_function(&format!("denormalize_{name}_memo_cold"), |b| {
        b.iter_batched(
            Memo::new,
            |mut memo| {
                let read = memo.read::<S>(store, black_box(key));
                (memo, read)
            },
            BatchSize::SmallInput,
        )
    });
    let mut memo = Memo::new();
    let first = memo.read::<S>(store, key).into_value().unwrap();
    let again = memo.read::<S>(store, key).into_value().unwrap();
    assert!(
        Rc::ptr_eq(&first, &again),
        "a warm read returns the same value"
    );
    c.bench_function(&format!("denormalize_{name}_memo_warm"), |b| {
        b.iter(|| memo.read::<S>(store, black_box(key)).into_value())
    });
}

/// One record by pk. A warm read has two forms: `_memo_warm` is the read a
/// view keeps between renders ([`EntityQuery`], what the reference's
/// `memo.denormalize(Todo, "5000", ..)` stands for in a hook), and
/// `_memo_warm_by_pk` a [`Memo`] asked by pk every time (a lookup per read).
///
/// Every case hands out the value alone, as the reference does (`.data`).
fn entity_cases<E: Entity>(c: &mut Criterion, name: &str, pk: impl PkValue + Copy, store: &Store) {
    c.bench_function(&format!("denormalize_entity_{name}_nocache"), |b| {
        b.iter(|| store.get_entity::<E>(black_box(pk)).into_value())
    });
    let mut memo = Memo::new();
    assert!(memo.entity::<E>(store, pk).value().is_some());
    c.bench_function(&format!("denormalize_entity_{name}_memo_warm_by_pk"), |b| {
        b.iter(|| memo.entity::<E>(store, black_box(pk)).into_value())
    });
    let mut query = EntityQuery::<E>::new(pk);
    let first = query.read(store).into_value().unwrap();
    let again = query.read(store).into_value().unwrap();
    assert!(
        Rc::ptr_eq(&first, &again),
        "a warm read returns the same value"
    );
    c.bench_function(&format!("denormalize_entity_{name}_memo_warm"), |b| {
        b.iter(|| query.read(black_box(store)).into_value())
    });
}

/// The store holds what the reference's sanity check expects.
fn sanity(store: &Store) {
    assert_eq!(store.entity_count("Project"), 1000);
    assert_eq!(store.entity_count("BuildType"), 3000);
    assert_eq!(store.entity_count("User"), 50);
    assert_eq!(store.entity_count("Todo"), 10_000);
    let p502 = store
        .get_entity::<Project>("project-502")
        .into_value()
        .unwrap();
    assert_eq!(p502.build_types.build_type.len(), 3);
    assert_eq!(p502.build_types.build_type[0].owner.login, "user7");
    assert_eq!(
        *store.read::<Projects>(PROJECTS).into_value().unwrap(),
        fixture::projects(1000)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
