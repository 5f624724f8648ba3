//! What a read observer fetches with: the session it reads for (a read
//! waited on across a reset fetches for the new one) and the endpoint as
//! its view last gave it (what a fetch function captured in the latest
//! render). Real HTTP to mockito on 127.0.0.1.

use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use restcache::rest::Read;
use restcache::{Observe, ReadObserver};
use tokio::task::LocalSet;

use super::observers::settle;
use crate::common::controller::*;
use crate::common::mock::*;
use crate::common::{Todo, TodoResource};

#[tokio::test]
async fn a_read_waited_on_across_a_reset_fetches_for_the_new_session() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, _clock) = setup().await;
            let both = slowly(
                server.mock("GET", "/todos/1"),
                Duration::from_millis(150),
                todo_json(1, "milk"),
            )
            .expect(2)
            .create_async()
            .await;
            let mut observer = ReadObserver::new(&ctrl, Observe::new().fetching());
            observer.set(&TodoResource::get(), &one(1));
            observer.subscribe(|| {});
            let before = observer.wait().unwrap();
            let before = tokio::task::spawn_local(before);
            tokio::time::sleep(Duration::from_millis(30)).await;
            ctrl.reset(); // signed out while the read was on its way

            observer.wait().unwrap().await;
            let shown = observer.read().unwrap();
            assert_eq!(
                shown.data.map(|todo| todo.title.clone()).as_deref(),
                Some("milk"),
                "fetched again for the new session, not joined to the request the reset dropped"
            );
            before.await.unwrap();
            both.assert_async().await;
        })
        .await;
}

/// Todo 1 read with a token the fetch sends, as a view's endpoint made in
/// a render captures it; `sent` notes each token sent.
pub(super) fn with_token(
    token: &'static str,
    sent: &Rc<std::cell::RefCell<Vec<&'static str>>>,
) -> Endpoint<crate::common::TodoResourceParams, Rc<Todo>, Read> {
    let sent = Rc::clone(sent);
    TodoResource::get().with_fetch(
        move |client: &restcache::http::Client,
              _: &crate::common::TodoResourceParams,
              request: restcache::http::Request| {
            sent.borrow_mut().push(token);
            client.send(request.with_header(
                restcache::http::HeaderName::from_static("x-token"),
                restcache::http::HeaderValue::from_static(token),
            ))
        },
    )
}

#[tokio::test]
async fn a_read_sends_what_its_latest_endpoint_captured() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let _todo = server
                .mock("GET", "/todos/1")
                .with_header("content-type", "application/json")
                .with_body(todo_json(1, "milk"))
                .create_async()
                .await;
            let sent = Rc::default();
            let mut observer = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            observer.set(&with_token("old", &sent), &one(1));
            observer.subscribe(|| {});
            // The token was refreshed: the next render's endpoint has the new one.
            observer.set(&with_token("new", &sent), &one(1));
            observer.wait().unwrap().await;
            clock.advance(Duration::from_secs(61));
            // Shown again: the stale read refetches.
            ctrl.set_focused(false);
            ctrl.set_focused(true);
            settle(&ctrl).await;
            assert_eq!(
                *sent.borrow(),
                ["new", "new"],
                "the wait's fetch and the refetch on show both send the new token"
            );
        })
        .await;
}
