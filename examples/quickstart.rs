//! A tour of the normalized cache: one record stored once, a change shown
//! everywhere, identity kept for what did not change, bad input refused.
//!
//!     cargo run --example quickstart

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Todo {
    id: u64,
    user_id: u64,
    title: String,
    completed: bool,
}

/// `{data: [Todo]}`, as some APIs wrap their lists.
#[derive(Schema, Clone, Debug, Deserialize)]
struct TodoPage {
    #[schema(nested)]
    data: Vec<Rc<Todo>>,
    total: u32,
}

const LIST: &str = r#"[
    {"id": 1, "userId": 1, "title": "delectus aut autem", "completed": false},
    {"id": 2, "userId": 1, "title": "quis ut nam facilis", "completed": false},
    {"id": 3, "userId": 2, "title": "fugiat veniam minus", "completed": true}
]"#;

fn started(ms: u64) -> Meta {
    let at = Timestamp::from_millis(ms);
    Meta::fetched(at, at, std::time::Duration::from_secs(60))
}

fn main() -> Result<(), SchemaError> {
    let mut store = Store::new();
    let mut memo = Memo::new();

    store.set_json::<Vec<Rc<Todo>>>("GET /todos", LIST, started(1))?;
    store.set_json::<TodoPage>(
        "GET /todos?page=1",
        r#"{"data": [{"id": 2, "title": "quis ut nam facilis"}], "total": 3}"#,
        started(1),
    )?;
    println!(
        "stored two responses; the store holds {} todos (todo 2 is in both, stored once)",
        store.entity_count("Todo")
    );

    let list = memo
        .read::<Vec<Rc<Todo>>>(&store, "GET /todos")
        .into_value()
        .expect("just stored");
    let again = memo
        .read::<Vec<Rc<Todo>>>(&store, "GET /todos")
        .into_value()
        .expect("just stored");
    println!(
        "reading the list twice hands out the same Rc: {}",
        Rc::ptr_eq(&list, &again)
    );

    store.set_json::<Rc<Todo>>(
        "PATCH /todos/2",
        r#"{"id": 2, "userId": 1, "title": "quis ut nam facilis", "completed": true}"#,
        started(2),
    )?;
    let list = memo
        .read::<Vec<Rc<Todo>>>(&store, "GET /todos")
        .into_value()
        .expect("still stored");
    let page = memo
        .read::<TodoPage>(&store, "GET /todos?page=1")
        .into_value()
        .expect("still stored");
    println!(
        "after PATCH /todos/2: list shows completed={}, the page shows completed={} (total kept: {})",
        list[1].completed, page.data[0].completed, page.total
    );
    println!(
        "todo 1 did not change and kept its identity: {}",
        Rc::ptr_eq(&list[0], &again[0])
    );

    let late = store.set_json::<Rc<Todo>>(
        "GET /todos/2",
        r#"{"id": 2, "title": "old copy", "completed": false}"#,
        started(1),
    );
    let two = memo
        .entity::<Todo>(&store, 2u64)
        .into_value()
        .expect("stored");
    println!(
        "a slower response that started earlier arrived ({late:?}); todo 2 still reads completed={}",
        two.completed
    );

    store.invalidate_entity::<Todo>(3u64, Timestamp::from_millis(3));
    let list = memo
        .read::<Vec<Rc<Todo>>>(&store, "GET /todos")
        .into_value()
        .expect("still stored");
    println!(
        "todo 3 deleted: the list now has ids {:?}",
        list.iter().map(|t| t.id).collect::<Vec<_>>()
    );

    let bad = store.set_json::<Vec<Rc<Todo>>>(
        "GET /todos",
        r#"[{"id": 1, "completed": "yes"}]"#,
        started(4),
    );
    println!(
        "a response that does not fit is refused, the store untouched:\n  {}",
        bad.unwrap_err()
    );
    Ok(())
}
