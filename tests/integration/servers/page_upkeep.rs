//! A list being loaded page by page, as the cache keeps it: loading a
//! page counts as using the list, so the list is not let go between its
//! pages; a page every caller gave up on tells listeners it ended.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use restcache::{Event, ManualClock};

use super::pages::first_of_two_pages;
use crate::common::{TodoResource, TodoResourcePagesParams};

#[tokio::test]
async fn a_list_loaded_slowly_page_by_page_is_kept_between_its_pages() {
    let (mut server, client) = crate::common::mock::server().await;
    let first = first_of_two_pages(&mut server).await;
    let second = server
        .mock("GET", "/todos?_page=2&_limit=2")
        .with_header("content-type", "application/json")
        .with_body(r#"[{"id": 3}, {"id": 4}]"#)
        .expect(1)
        .create_async()
        .await;
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = Controller::builder(client).clock(clock.clone()).build();
    let (pages, params) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &params, None).await.unwrap();
    // The reader takes its time over page 1 (past the two minutes an
    // unused list is kept), then asks for more.
    clock.advance(Duration::from_secs(121));
    assert!(
        !ctrl.fetch_next_page(&pages, &params).await.unwrap(),
        "page 2 is the last"
    );
    let list = ctrl.read(&pages, &params).data.expect("the list stays");
    let ids: Vec<u64> = list.items.iter().map(|todo| todo.id).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    first.assert_async().await;
    second.assert_async().await;
}

#[tokio::test]
async fn a_page_every_caller_gave_up_on_tells_listeners_it_ended() {
    let (mut server, client) = crate::common::mock::server().await;
    let _first = first_of_two_pages(&mut server).await;
    let _second = crate::common::mock::once_after(
        server.mock("GET", "/todos?_page=2&_limit=2"),
        Duration::from_millis(300),
        r#"[{"id": 3}]"#.into(),
    )
    .await;
    let ctrl = Controller::new(client);
    let (pages, params) = (
        TodoResource::pages(),
        TodoResourcePagesParams { page: 1, limit: 2 },
    );
    ctrl.fetch(&pages, &params, None).await.unwrap();
    let heard = Rc::new(RefCell::new(Vec::new()));
    let log = Rc::clone(&heard);
    let _listener = ctrl.on_event(move |event, _| log.borrow_mut().push(event.clone()));
    let gave_up = tokio::time::timeout(
        Duration::from_millis(50),
        ctrl.fetch_next_page(&pages, &params),
    )
    .await;
    assert!(gave_up.is_err(), "the only caller gave up");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let key = pages.key(&server.url(), &params).unwrap();
    let heard: Vec<String> = heard
        .borrow()
        .iter()
        .map(|event| match event {
            Event::RequestStarted { key: of, .. } if *of == key => "started".to_owned(),
            Event::RequestCancelled { key: of } if *of == key => "cancelled".to_owned(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(heard, ["started", "cancelled"]);
    assert_eq!(
        ctrl.read(&pages, &params).data.unwrap().items.len(),
        2,
        "the page given up on is not stored"
    );
}
