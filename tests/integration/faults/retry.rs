//! Retry with backoff for reads: a soft error is retried a few times,
//! hard errors and mutations never are, and a read says whether a request
//! for it is on its way.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use restcache::Retry;
use restcache::http::Client;
use restcache::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::common::controller::todo_json;
use crate::common::{TodoResource, TodoResourceParams};

/// A server on 127.0.0.1 that answers its requests with `answers` in
/// order (status, body), then 500s; its base URL and how many requests it
/// answered.
async fn scripted(answers: Vec<(u16, String)>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let answered = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&answered);
    let answers = Arc::new(Mutex::new(answers.into_iter()));
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = [0_u8; 4096];
            let _ = socket.read(&mut request).await;
            count.fetch_add(1, Ordering::SeqCst);
            let (status, body) = answers.lock().unwrap().next().unwrap_or((500, "{}".into()));
            let answer = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    (url, answered)
}

fn quick() -> Retry {
    Retry {
        attempts: 3,
        first_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(100),
    }
}

fn params() -> TodoResourceParams {
    TodoResourceParams { id: 1 }
}

#[tokio::test]
async fn a_soft_error_on_a_read_is_retried_and_the_read_says_it_is_fetching() {
    let down = (503, r#"{"detail": "down"}"#.to_owned());
    let (url, answered) = scripted(vec![down.clone(), down, (200, todo_json(1, "milk"))]).await;
    let ctrl = Controller::builder(Client::new(url)).retry(quick()).build();
    let get = TodoResource::get();
    let (todo, seen_fetching) =
        futures_util::future::join(ctrl.fetch(&get, &params(), None), async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            ctrl.read(&get, &params()).fetching
        })
        .await;
    assert_eq!(todo.unwrap().title, "milk");
    assert_eq!(answered.load(Ordering::SeqCst), 3);
    assert!(seen_fetching, "fetching while the retries run");
    assert!(!ctrl.read(&get, &params()).fetching);
}

#[tokio::test]
async fn retries_end_with_the_last_soft_error() {
    let down = (503, "{}".to_owned());
    let (url, answered) = scripted(vec![down; 10]).await;
    let ctrl = Controller::builder(Client::new(url)).retry(quick()).build();
    let error = ctrl
        .fetch(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(503));
    assert_eq!(
        answered.load(Ordering::SeqCst),
        4,
        "the first try and three retries"
    );
}

#[tokio::test]
async fn hard_errors_mutations_and_retry_none_are_never_retried() {
    let (url, answered) = scripted(vec![(404, "{}".into())]).await;
    let ctrl = Controller::builder(Client::new(url)).retry(quick()).build();
    let error = ctrl
        .fetch(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert!(error.is_hard());
    assert_eq!(answered.load(Ordering::SeqCst), 1);

    let (url, answered) = scripted(vec![(503, "{}".into()), (503, "{}".into())]).await;
    let ctrl = Controller::builder(Client::new(url)).retry(quick()).build();
    let body = Body::json(&serde_json::json!({"title": "x"})).unwrap();
    ctrl.fetch(&TodoResource::partial_update(), &params(), Some(body))
        .await
        .unwrap_err();
    assert_eq!(
        answered.load(Ordering::SeqCst),
        1,
        "a mutation is not retried"
    );

    let (url, answered) = scripted(vec![(503, "{}".into()), (503, "{}".into())]).await;
    let ctrl = Controller::builder(Client::new(url))
        .retry(Retry::NONE)
        .build();
    ctrl.fetch(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert_eq!(answered.load(Ordering::SeqCst), 1);
}

/// A controller on `url` that retries quickly, on a clock the test moves:
/// no retry goes before the test says.
fn on_a_manual_clock(url: &str) -> (Controller, restcache::ManualClock) {
    let clock = restcache::ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = Controller::builder(Client::new(url))
        .retry(quick())
        .clock(clock.clone())
        .build();
    (ctrl, clock)
}

/// Moves `clock` on until the retry has been answered (its wait may have
/// begun after the clock last moved).
async fn back_online(clock: &restcache::ManualClock, answered: &AtomicUsize) {
    crate::common::until(|| {
        clock.advance(Duration::from_millis(100));
        answered.load(Ordering::SeqCst) == 2
    })
    .await;
}

#[tokio::test]
async fn a_read_whose_network_goes_waits_for_it_before_its_retry() {
    let down = (503, r#"{"detail": "down"}"#.to_owned());
    let (url, answered) = scripted(vec![down, (200, todo_json(1, "milk"))]).await;
    let (ctrl, clock) = on_a_manual_clock(&url);
    let get = TodoResource::get();
    let (todo, ()) = futures_util::future::join(ctrl.fetch(&get, &params(), None), async {
        // The first answer failed; the network goes before the retry.
        crate::common::until(|| answered.load(Ordering::SeqCst) == 1).await;
        ctrl.set_online(false);
        clock.advance(Duration::from_secs(1)); // past the retry's wait
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(answered.load(Ordering::SeqCst), 1, "no retry offline");
        ctrl.set_online(true);
        back_online(&clock, &answered).await;
    })
    .await;
    assert_eq!(todo.unwrap().title, "milk", "retried once back online");
    assert_eq!(answered.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_retry_waits_on_the_controllers_clock() {
    let down = (503, r#"{"detail": "down"}"#.to_owned());
    let (url, answered) = scripted(vec![down, (200, todo_json(1, "milk"))]).await;
    let clock = restcache::ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = Controller::builder(Client::new(url))
        .retry(quick())
        .clock(clock.clone())
        .build();
    let get = TodoResource::get();
    let (todo, ()) = futures_util::future::join(ctrl.fetch(&get, &params(), None), async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(answered.load(Ordering::SeqCst), 1, "its time has not come");
        clock.advance(Duration::from_secs(1));
    })
    .await;
    assert_eq!(todo.unwrap().title, "milk");
    assert_eq!(answered.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_retry_sent_after_a_wait_for_the_network_is_as_new_as_its_sending() {
    let down = (503, r#"{"detail": "down"}"#.to_owned());
    let (url, answered) = scripted(vec![down, (200, todo_json(1, "from the server"))]).await;
    let (ctrl, clock) = on_a_manual_clock(&url);
    let get = TodoResource::get();
    let (todo, ()) = futures_util::future::join(ctrl.fetch(&get, &params(), None), async {
        crate::common::until(|| answered.load(Ordering::SeqCst) == 1).await;
        ctrl.set_online(false);
        clock.advance(Duration::from_secs(1)); // past the retry's wait
        // Meanwhile a live message wrote the record.
        let pushed = crate::common::Todo {
            title: "pushed while offline".into(),
            ..crate::common::todo(1, "")
        };
        ctrl.set_entity(pushed, ctrl.write_time()).unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctrl.set_online(true);
        back_online(&clock, &answered).await;
    })
    .await;
    todo.unwrap();
    assert_eq!(answered.load(Ordering::SeqCst), 2);
    let shown = ctrl.read(&get, &params()).data.unwrap();
    assert_eq!(shown.title, "from the server", "sent after the message");
}
