//! Polls: a read observer that polls refetches on the controller's clock
//! while it watches, as its endpoint says last, keeps its data on show
//! when a poll fails, and pauses while the app is away. Real HTTP to
//! mockito on 127.0.0.1; time moves on a `ManualClock`.

use std::rc::Rc;
use std::time::Duration;

use crate::common::controller::*;
use crate::common::{Todo, TodoResource, TodoResourceParams};
use restcache::prelude::*;
use restcache::{Observe, ReadObserver};
use tokio::task::LocalSet;

use super::observers::{settle, store_todo};

resource!(pub PolledTodoResource {
    path: "/todos/:id",
    schema: Todo,
    poll_frequency: Duration::from_secs(10),
});

/// `GET /todos/1` answering "polled", expected `times`.
async fn polls_of_todo_1(server: &mut mockito::ServerGuard, times: usize) -> mockito::Mock {
    server
        .mock("GET", "/todos/1")
        .with_body(todo_json(1, "polled"))
        .expect(times)
        .create_async()
        .await
}

/// `TodoResource::get()`, polled every `seconds`.
fn polled_every(seconds: u64) -> Endpoint<TodoResourceParams, Rc<Todo>> {
    let get = TodoResource::get();
    let options = restcache::rest::Options {
        poll_frequency: Some(Duration::from_secs(seconds)),
        ..get.options()
    };
    get.with_options(options)
}

#[tokio::test]
async fn polls_follow_the_controllers_clock_and_stop_with_the_last_observer() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let polls = polls_of_todo_1(&mut server, 2).await;
            let options = Observe::new().changes().poll();
            let mut first = ReadObserver::new(&ctrl, options);
            first.set(
                &PolledTodoResource::get(),
                &PolledTodoResourceParams { id: 1 },
            );
            first.subscribe(|| {});
            let mut second = ReadObserver::new(&ctrl, options);
            second.set(
                &PolledTodoResource::get(),
                &PolledTodoResourceParams { id: 1 },
            );
            second.subscribe(|| {});
            settle(&ctrl).await;

            clock.advance(Duration::from_secs(9));
            settle(&ctrl).await;
            clock.advance(Duration::from_secs(1)); // one period: one request for both
            settle(&ctrl).await;
            drop(first);
            clock.advance(Duration::from_secs(10)); // the second still polls
            settle(&ctrl).await;
            drop(second);
            clock.advance(Duration::from_secs(60)); // nobody polls
            settle(&ctrl).await;
            polls.assert_async().await;
        })
        .await;
}

#[tokio::test]
async fn polls_slow_down_when_the_fastest_poller_leaves() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let polls = polls_of_todo_1(&mut server, 2).await;
            store_todo(&ctrl, 1, "one");
            let options = Observe::new().changes().poll();
            let mut fast = ReadObserver::new(&ctrl, options);
            fast.set(&polled_every(1), &one(1));
            fast.subscribe(|| {});
            let mut slow = ReadObserver::new(&ctrl, options);
            slow.set(&polled_every(10), &one(1));
            slow.subscribe(|| {});
            clock.advance(Duration::from_secs(1)); // the fast one's poll
            settle(&ctrl).await;
            drop(fast);
            for _ in 0..9 {
                clock.advance(Duration::from_secs(1)); // none: 10 s apart now
                settle(&ctrl).await;
            }
            clock.advance(Duration::from_secs(1)); // the slow one's poll
            settle(&ctrl).await;
            polls.assert_async().await;
        })
        .await;
}

#[tokio::test]
async fn an_observer_polls_as_the_endpoint_it_was_set_to_last_says() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let polls = polls_of_todo_1(&mut server, 1).await;
            let still = TodoResource::get();
            let polled = polled_every(10);
            store_todo(&ctrl, 1, "one");
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().poll());
            view.set(&still, &one(1));
            view.subscribe(|| {});
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            // The same read, now polled (a view's "live" switch turned on).
            assert!(!view.set(&polled, &one(1)), "the same read");
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            // And switched off again.
            view.set(&still, &one(1));
            clock.advance(Duration::from_secs(30));
            settle(&ctrl).await;
            polls.assert_async().await;
        })
        .await;
}

#[tokio::test]
async fn a_failed_poll_keeps_the_data_on_show_and_reports_its_error() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let refused = server
                .mock("GET", "/todos/1")
                .with_status(401)
                .with_body("{}")
                .expect(1)
                .create_async()
                .await;
            let params = PolledTodoResourceParams { id: 1 };
            let todo = Rc::new(crate::common::todo(1, "shown"));
            ctrl.set_response(&PolledTodoResource::get(), &params, todo)
                .unwrap();
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().poll());
            view.set(&PolledTodoResource::get(), &params);
            view.read();
            view.subscribe(|| {});
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            refused.assert_async().await;

            let cached = view.read().unwrap();
            assert_eq!(cached.error.as_ref().and_then(|e| e.status()), Some(401));
            let settled = cached.settled().expect("data to show");
            assert_eq!(
                settled.unwrap().title,
                "shown",
                "no boundary while data shows"
            );
        })
        .await;
}

#[tokio::test]
async fn polling_starts_from_the_last_fetch_and_pauses_while_the_app_is_away() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let hits = Arc::new(AtomicUsize::new(0));
            let counted = Arc::clone(&hits);
            let _polls = server
                .mock("GET", "/todos/1")
                .with_body_from_request(move |_| {
                    counted.fetch_add(1, Ordering::SeqCst);
                    todo_json(1, "polled").into_bytes()
                })
                .create_async()
                .await;
            let params = PolledTodoResourceParams { id: 1 };
            let todo = Rc::new(crate::common::todo(1, "first"));
            ctrl.set_response(&PolledTodoResource::get(), &params, todo)
                .unwrap();
            // Mounted 8 s after the fetch: the first poll comes 2 s later,
            // not a whole period after mounting.
            clock.advance(Duration::from_secs(8));
            let mut view = ReadObserver::new(&ctrl, Observe::new().poll());
            view.set(&PolledTodoResource::get(), &params);
            view.subscribe(|| {});
            settle(&ctrl).await;
            clock.advance(Duration::from_secs(2));
            settle(&ctrl).await;
            assert_eq!(
                hits.load(Ordering::SeqCst),
                1,
                "polled 10 s after the fetch"
            );

            // Away: no poll.
            ctrl.set_focused(false);
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            assert_eq!(hits.load(Ordering::SeqCst), 1, "paused while out of view");
            ctrl.set_online(false);
            ctrl.set_focused(true);
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            assert_eq!(hits.load(Ordering::SeqCst), 1, "paused while offline");

            // Back: polling resumes.
            ctrl.set_online(true);
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            assert_eq!(hits.load(Ordering::SeqCst), 2, "resumed");
        })
        .await;
}

#[tokio::test]
async fn polls_send_what_the_latest_render_of_a_poller_still_there_captured() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let _polls = server
                .mock("GET", "/todos/1")
                .with_body(todo_json(1, "polled"))
                .create_async()
                .await;
            store_todo(&ctrl, 1, "one");
            let sent = Rc::default();
            let polled = |token| {
                let endpoint = super::observer_fetches::with_token(token, &sent);
                let options = restcache::rest::Options {
                    poll_frequency: Some(Duration::from_secs(10)),
                    ..endpoint.options()
                };
                endpoint.with_options(options)
            };
            let options = Observe::new().changes().poll();
            let mut first = ReadObserver::new(&ctrl, options);
            first.set(&polled("old"), &one(1));
            first.subscribe(|| {});
            let mut second = ReadObserver::new(&ctrl, options);
            second.set(&polled("old"), &one(1));
            second.subscribe(|| {});
            // The first view goes; the second renders with a refreshed token.
            drop(first);
            second.set(&polled("new"), &one(1));
            clock.advance(Duration::from_secs(10));
            settle(&ctrl).await;
            assert_eq!(*sent.borrow(), ["new"], "the poll sends the new token");
        })
        .await;
}
