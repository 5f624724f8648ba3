//! Ordering without ties: two requests that start within one tick of the
//! clock are ordered by start, not arrival; an entity with a version field
//! orders its copies by it, whatever order their requests started in.

use std::rc::Rc;
use std::time::Duration;

use futures_util::future::join;
use restcache::prelude::*;

use crate::common::controller::{setup, todo_json};
use crate::common::mock::once_after;
use crate::common::{TodoResource, TodoResourceParams};

#[tokio::test]
async fn of_two_requests_started_in_one_tick_the_later_started_wins() {
    let (mut server, ctrl, _clock) = setup().await; // the clock never moves
    // The list starts first and answers last, with an older copy of todo 1.
    let _list = once_after(
        server.mock("GET", "/todos"),
        Duration::from_millis(300),
        format!("[{}]", todo_json(1, "older, from the list")),
    )
    .await;
    let _one = once_after(
        server.mock("GET", "/todos/1"),
        Duration::ZERO,
        todo_json(1, "newer, from the detail"),
    )
    .await;
    let (get_list, get) = (TodoResource::get_list(), TodoResource::get());
    let params = TodoResourceParams { id: 1 };
    let (list, one) = join(ctrl.fetch(&get_list, &(), None), async {
        // Started after the list, within the same tick.
        ctrl.fetch(&get, &params, None).await
    })
    .await;
    let (list, one) = (list.unwrap(), one.unwrap());
    assert_eq!(one.title, "newer, from the detail");
    assert_eq!(
        list[0].title, "newer, from the detail",
        "the later-started copy stays"
    );
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Doc {
    id: u64,
    text: String,
    #[entity(version)]
    updated_at: u64,
}

fn doc(text: &str, updated_at: u64) -> Rc<Doc> {
    Rc::new(Doc {
        id: 1,
        text: text.into(),
        updated_at,
    })
}

fn at(ms: u64) -> Meta {
    Meta {
        fetched_at: Timestamp::from_millis(ms),
        ..Meta::default()
    }
}

#[test]
fn a_version_field_orders_copies_whatever_order_their_requests_started_in() {
    let mut store = Store::new();
    store.set("late", doc("version 5", 5), at(20)).unwrap();
    // Started earlier, but the server says it is newer.
    store.set("early", doc("version 9", 9), at(10)).unwrap();
    assert_eq!(
        store.get_entity::<Doc>(1u64).value().unwrap().text,
        "version 9"
    );
    // Started later, but older.
    store.set("later", doc("version 7", 7), at(30)).unwrap();
    assert_eq!(
        store.get_entity::<Doc>(1u64).value().unwrap().text,
        "version 9"
    );
    // Equal versions: start order.
    store
        .set("same", doc("version 9, again", 9), at(40))
        .unwrap();
    assert_eq!(
        store.get_entity::<Doc>(1u64).value().unwrap().text,
        "version 9, again"
    );
}
