//! When a mutation counts from, and what its end leaves: an optimistic
//! value a reset ended leaves its id to no other, a mutation's answer is
//! as new as its sending, and two deletes of one record count it out of
//! its list once.

use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;

use super::optimistic::{todo, with_milk};
use crate::common::controller::{one, setup, todo_json};
use crate::common::mock::once;
use crate::common::{Todo, TodoResource};

#[tokio::test]
async fn an_optimistic_value_a_reset_ends_leaves_its_id_to_no_other() {
    use restcache::Event;
    use std::cell::RefCell;
    let (_server, ctrl, _clock) = with_milk().await;
    let heard = Rc::new(RefCell::new(Vec::new()));
    let log = Rc::clone(&heard);
    let _listener = ctrl.on_event(move |event, _| match event {
        Event::OptimisticShown { layer, .. } => log.borrow_mut().push(format!("shown {layer}")),
        Event::OptimisticEnded { layer, .. } => log.borrow_mut().push(format!("ended {layer}")),
        Event::Reset => log.borrow_mut().push("reset".to_owned()),
        _ => {}
    });
    let (update, params) = (TodoResource::partial_update(), one(1));
    let rename = |title: &str| {
        let body = Body::json(&serde_json::json!({ "title": title })).unwrap();
        ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(todo(1, title)))
    };
    // Offline, each waits in the queue with its value on show.
    ctrl.set_online(false);
    let first = rename("first");
    futures_util::pin_mut!(first);
    assert!(futures_util::poll!(&mut first).is_pending());
    ctrl.reset(); // a log-out ends it
    assert!(first.await.is_err());
    // The next session reads milk again, then renames it.
    ctrl.set_response(&TodoResource::get(), &params, Rc::new(todo(1, "milk")))
        .unwrap();
    let second = rename("second");
    futures_util::pin_mut!(second);
    assert!(futures_util::poll!(&mut second).is_pending());
    let heard = heard.borrow().clone();
    assert_eq!(heard.len(), 3, "{heard:?}");
    assert_eq!(
        heard[1], "reset",
        "a reset ends the value on show: {heard:?}"
    );
    assert_ne!(
        heard[0].trim_start_matches("shown "),
        heard[2].trim_start_matches("shown "),
        "the next value's id is its own: {heard:?}"
    );
}

#[tokio::test]
async fn a_read_started_before_a_mutation_is_sent_does_not_outrank_its_answer() {
    let (mut server, ctrl, clock) = with_milk().await;
    let _get = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "milk")).await;
    let patch = once(
        server.mock("PATCH", "/todos/1"),
        200,
        &todo_json(1, "oat milk"),
    )
    .await;
    let (update, params) = (TodoResource::partial_update(), one(1));
    let body = Body::json(&serde_json::json!({ "title": "oat milk" })).unwrap();
    // Made, but not sent until first awaited (as a task spawned for it).
    let rename = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(todo(1, "oat milk")));
    clock.advance(Duration::from_millis(5));
    // A refetch starts and is answered before the rename is sent: the
    // server had not seen the rename.
    ctrl.fetch(&TodoResource::get(), &params, None)
        .await
        .unwrap();
    clock.advance(Duration::from_millis(5));
    rename.await.unwrap();
    patch.assert_async().await;
    let shown = ctrl.read(&TodoResource::get(), &params).data.unwrap();
    assert_eq!(shown.title, "oat milk", "the rename's answer is the newer");
}

#[tokio::test]
async fn two_optimistic_deletes_of_one_record_count_it_out_of_its_list_once() {
    use restcache::rest::{Deleted, Page};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (mut server, ctrl, _clock) = setup().await;
    // A double click: the first delete is answered at once, the second
    // after a while.
    let calls = std::sync::Arc::new(AtomicUsize::new(0));
    let deletes = server
        .mock("DELETE", "/todos/1")
        .with_status(204)
        .with_chunked_body(move |_| {
            if calls.fetch_add(1, Ordering::SeqCst) == 1 {
                std::thread::sleep(Duration::from_millis(150));
            }
            Ok(())
        })
        .expect(2)
        .create_async()
        .await;
    let (pages, first) = (
        TodoResource::pages(),
        crate::common::TodoResourcePagesParams { page: 1, limit: 3 },
    );
    let page = Page {
        items: vec![
            Rc::new(todo(1, "milk")),
            Rc::new(todo(2, "eggs")),
            Rc::new(todo(3, "tea")),
        ],
        total: Some(3),
        next: None,
    };
    ctrl.set_response(&pages, &first, page).unwrap();
    let (delete, params) = (TodoResource::delete(), one(1));
    let gone = || Deleted::<Todo>::new(restcache::Pk::from(1u64));
    let (a, b) = futures_util::future::join(
        ctrl.fetch_optimistic(&delete, &params, None, gone()),
        ctrl.fetch_optimistic(&delete, &params, None, gone()),
    )
    .await;
    a.unwrap();
    b.unwrap();
    deletes.assert_async().await;
    let shown = ctrl.read(&pages, &first).data.unwrap();
    assert_eq!((shown.items.len(), shown.total), (2, Some(2)));
}
