//! Custom updaters, against the demo API: a create bumps a cached count
//! with no refetch; an optimistic create shows the bump at once
//! and takes it back when the request fails; an updater moves a record
//! between two lists the cache could not match.

use std::rc::Rc;

use restcache::prelude::*;
use serde_json::json;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, TodoResourceParams, todo};
use restcache_demo::DemoApi;

// A count of the todos, which no list holds: `{"todos": 5}`.
endpoint!(stats {
    path: "/stats",
    schema: serde_json::Value
});

/// A create that counts in the stats.
fn counted_create() -> Endpoint<(), Rc<Todo>, restcache::rest::Create> {
    TodoResource::create().with_update(|updates, _, _| {
        updates.update(&stats(), &(), |stats| {
            stats["todos"] = json!(stats["todos"].as_u64().unwrap_or(0) + 1);
        });
    })
}

fn count(ctrl: &Controller) -> Option<u64> {
    ctrl.read(&stats(), &()).data.unwrap()["todos"].as_u64()
}

#[tokio::test]
async fn a_create_bumps_a_cached_count_and_an_optimistic_one_takes_it_back_on_failure() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let ctrl = Controller::new(Client::new(api.url()));
            ctrl.set_response(&stats(), &(), json!({"todos": 5}))
                .unwrap();
            let key = stats().key(ctrl.client().base_url(), &()).unwrap();
            let meta = || ctrl.with_store(|store| store.result_meta(&key)).unwrap();
            let fetched = meta();

            let body = || Some(Body::json(&json!({"userId": 1, "title": "new"})).unwrap());
            ctrl.fetch(&counted_create(), &(), body()).await.unwrap();
            assert_eq!(count(&ctrl), Some(6));
            assert_eq!(
                meta().expires_at,
                fetched.expires_at,
                "it keeps its fetch time"
            );

            // Optimistic: shown at once, taken back when the request fails.
            api.set_outage(true);
            let made = Rc::new(todo(99, "optimistic"));
            let create = counted_create();
            let creating = ctrl.fetch_optimistic(&create, &(), body(), made);
            assert_eq!(count(&ctrl), Some(7), "the count shows at once");
            assert!(creating.await.is_err());
            assert_eq!(count(&ctrl), Some(6), "and goes with the failed request");
            api.set_outage(false);
            assert_eq!(api.hits("POST /todos"), 2, "the second was answered 503");
        })
        .await;
}

// Two cached lists the cache cannot match a record to: "starred" and
// "archived" are not fields of a todo.
endpoint!(starred { path: "/todos\\?starred=1", schema: Vec<Rc<Todo>> });
endpoint!(archived { path: "/todos\\?archived=1", schema: Vec<Rc<Todo>> });

#[test]
fn an_updater_moves_a_record_between_two_lists() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let item = |id| Rc::new(todo(id, "t"));
    ctrl.set_response(&starred(), &(), vec![item(1), item(2)])
        .unwrap();
    ctrl.set_response(&archived(), &(), vec![item(3)]).unwrap();
    let archive = TodoResource::partial_update().with_update(|updates, params, todo| {
        let (id, moved) = (params.id, Rc::clone(todo));
        updates.update(&starred(), &(), move |list| list.retain(|t| t.id != id));
        updates.update(&archived(), &(), move |list| list.push(moved));
    });
    // What the server answers, stored as a mutation's answer.
    let answer = Rc::new(todo(2, "archived"));
    ctrl.set_response(&archive, &TodoResourceParams { id: 2 }, answer)
        .unwrap();
    let ids = |list: Rc<Vec<Rc<Todo>>>| list.iter().map(|t| t.id).collect::<Vec<_>>();
    assert_eq!(ids(ctrl.read(&starred(), &()).data.unwrap()), [1]);
    let archived_list = ctrl.read(&archived(), &()).data.unwrap();
    assert_eq!(ids(Rc::clone(&archived_list)), [3, 2]);
    assert_eq!(archived_list[1].title, "archived");
}

#[tokio::test]
async fn an_updater_edits_what_the_server_confirmed_not_another_mutations_optimistic_value() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let ctrl = Controller::new(Client::new(api.url()));
            ctrl.set_response(&starred(), &(), vec![Rc::new(todo(1, "t"))])
                .unwrap();
            // An optimistic create that will fail joins "starred" as a layer.
            let starring = TodoResource::create().with_update(|updates, _, made| {
                let made = Rc::clone(made);
                updates.update(&starred(), &(), move |list| list.push(made));
            });
            api.set_outage(true);
            let body = || Some(Body::json(&json!({"userId": 1, "title": "x"})).unwrap());
            let failing = ctrl.fetch_optimistic(&starring, &(), body(), Rc::new(todo(99, "x")));
            let ids = |ctrl: &Controller| -> Vec<u64> {
                let list = ctrl.read(&starred(), &()).data.unwrap();
                list.iter().map(|t| t.id).collect()
            };
            assert_eq!(ids(&ctrl), [1, 99]);
            // Meanwhile a confirmed change with an updater on the same list.
            let unstar = TodoResource::partial_update().with_update(|updates, params, _| {
                let id = params.id;
                updates.update(&starred(), &(), move |list| list.retain(|t| t.id != id));
            });
            ctrl.set_response(
                &unstar,
                &TodoResourceParams { id: 1 },
                Rc::new(todo(1, "t")),
            )
            .unwrap();
            assert!(ids(&ctrl).contains(&99), "the optimistic one still shows");
            assert!(failing.await.is_err());
            api.set_outage(false);
            // The confirmed edit removed todo 1 from what the server said;
            // the failed create's todo never reached the confirmed list.
            assert_eq!(ids(&ctrl), Vec::<u64>::new());
        })
        .await;
}

#[tokio::test]
async fn an_updaters_edit_turns_down_a_read_that_started_before_the_mutation() {
    use crate::common::mock::{once, once_after, server};
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    ctrl.set_response(&stats(), &(), json!({"todos": 5}))
        .unwrap();
    // A refetch of the stats starts, and its answer (as of before the
    // create) comes only after the create's.
    let old = json!({"todos": 5}).to_string();
    let refetch = once_after(
        server.mock("GET", "/stats"),
        std::time::Duration::from_millis(300),
        old,
    )
    .await;
    let created = json!({"id": 9, "userId": 1, "title": "new", "completed": false}).to_string();
    let create = once(server.mock("POST", "/todos"), 201, &created).await;
    let read = stats();
    let refetching = ctrl.fetch(&read, &(), None);
    let creating = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let body = Body::json(&json!({"title": "new"})).unwrap();
        ctrl.fetch(&counted_create(), &(), Some(body)).await
    };
    let (refetched, created) = tokio::join!(refetching, creating);
    created.unwrap();
    drop(refetched);
    refetch.assert_async().await;
    create.assert_async().await;
    assert_eq!(count(&ctrl), Some(6), "the bump stands");
}

#[test]
fn an_updater_stays_with_its_endpoint_through_another_effect() {
    let mutation = counted_create().with_effect::<restcache::rest::Mutate>();
    assert!(mutation.updater().is_some());
}
