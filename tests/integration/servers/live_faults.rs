//! A live stream's connection when the server misbehaves: bytes that are
//! not UTF-8, a refusal no retry changes, and a connection that falls
//! silent.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::SeqCst;
use std::time::Duration;

use restcache::live::{Live, StreamStatus};
use restcache::prelude::*;
use restcache::{Event, ManualClock, Timestamp};
use tokio::sync::watch;

use super::live::{eventually, in_local_set, sse, websocket};
use crate::common::Todo;

#[tokio::test]
async fn a_byte_that_is_not_utf8_is_replaced_and_the_stream_goes_on() {
    in_local_set(async {
        let (mut server, client) = crate::common::mock::server().await;
        let set = |id: u64, title: &[u8]| {
            let head = format!(
                r#"data: {{"entity": "Todo", "op": "set", "data": {{"id": {id}, "userId": 1, "completed": false, "title": ""#
            );
            [head.as_bytes(), title, b"\"}}\n\n"].concat()
        };
        // A title in Latin-1 (`é` as the lone byte 0xE9), then a message
        // in UTF-8 whose `é` comes in one piece.
        let body = [set(1, b"caf\xE9"), set(2, "café".as_bytes())].concat();
        let events = server
            .mock("GET", "/events")
            .with_header("content-type", "text/event-stream")
            .with_body(body)
            .expect_at_least(1)
            .create_async()
            .await;
        let ctrl = Controller::new(client);
        let title = |id: u64| {
            ctrl.with_store(|store| store.get_entity::<Todo>(id).value().map(|t| t.title.clone()))
        };
        let _hold = ctrl.open_stream(&sse());
        eventually("the message after the stray byte is applied", || {
            title(2).is_some()
        })
        .await;
        assert_eq!(title(2).as_deref(), Some("café"));
        assert_eq!(
            title(1).as_deref(),
            Some("caf\u{FFFD}"),
            "the stray byte reads as the replacement character"
        );
        events.assert_async().await;
    })
    .await;
}

/// A stream the server refuses (`401`, a session gone): it stops trying,
/// says so once, stays stopped through the log-out an app's rule makes
/// of that refusal, and connects again when the app says the user is back.
async fn a_refused_stream_waits_until_told_to_connect_again(live: Live, route: &str) {
    in_local_set(async {
        let (mut server, client) = crate::common::mock::server().await;
        let refused = server
            .mock("GET", route)
            .with_status(401)
            .expect(1)
            .create_async()
            .await;
        let ctrl = Controller::new(client);
        let failed = Rc::new(RefCell::new(Vec::new()));
        let heard = Rc::clone(&failed);
        let _listener = ctrl.on_event(move |event, ctrl| {
            if let Event::RequestFailed { key, error } = event {
                heard.borrow_mut().push((key.clone(), error.status()));
                // The log-out rule of an app: a refusal ends the session.
                ctrl.reset();
            }
        });
        let live = live.retry(Duration::from_millis(5), Duration::from_millis(10));
        let _hold = ctrl.open_stream(&live);
        eventually("the stream is refused", || {
            ctrl.stream_status(&live) == Some(StreamStatus::Refused { status: 401 })
        })
        .await;
        // Long enough for a dozen retries at these waits.
        tokio::time::sleep(Duration::from_millis(150)).await;
        refused.assert_async().await;
        assert_eq!(
            *failed.borrow(),
            [(live.key(ctrl.client()), Some(401))],
            "told once"
        );
        assert_eq!(
            ctrl.stream_status(&live),
            Some(StreamStatus::Refused { status: 401 })
        );

        refused.remove_async().await;
        let accepted = server
            .mock("GET", route)
            .with_status(200)
            .with_header("content-type", "text/event-stream")
            .with_body("data: {}\n\n")
            .expect_at_least(1)
            .create_async()
            .await;
        ctrl.reconnect_streams();
        eventually("connected again", || {
            ctrl.stream_status(&live) != Some(StreamStatus::Refused { status: 401 })
        })
        .await;
        eventually("the server asked again", || accepted.matched()).await;
        assert_eq!(failed.borrow().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_refused_event_stream_waits_until_told_to_connect_again() {
    a_refused_stream_waits_until_told_to_connect_again(sse(), "/events").await;
}

#[tokio::test]
async fn a_refused_websocket_waits_until_told_to_connect_again() {
    a_refused_stream_waits_until_told_to_connect_again(websocket(), "/socket").await;
}

/// A server on 127.0.0.1 that answers each connection with a stream of
/// events, sends one message (todo `n`, titled `connection n`, for the
/// `n`th connection), then falls silent, sending a comment (`: ping`)
/// each time it is told to; its base URL, the connections made, and
/// what tells it.
async fn falling_silent() -> (String, Arc<AtomicUsize>, watch::Sender<u32>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let (ping, pings) = watch::channel(0);
    let counted = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let n = counted.fetch_add(1, SeqCst) + 1;
            let mut pings = pings.clone();
            tokio::spawn(async move {
                let mut request = [0_u8; 4096];
                let _ = socket.read(&mut request).await;
                let todo = format!(
                    r#"{{"id": {n}, "userId": 1, "title": "connection {n}", "completed": false}}"#
                );
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n\
                     data: {{\"entity\": \"Todo\", \"op\": \"set\", \"data\": {todo}}}\n\n"
                );
                if socket.write_all(answer.as_bytes()).await.is_err() {
                    return;
                }
                pings.borrow_and_update();
                while pings.changed().await.is_ok() {
                    if socket.write_all(b": ping\n\n").await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, connections, ping)
}

fn has_todo(ctrl: &Controller, id: u64) -> bool {
    ctrl.with_store(|store| store.get_entity::<Todo>(id).value().is_some())
}

const LIMIT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn a_connection_silent_past_its_heartbeat_timeout_reconnects() {
    in_local_set(async {
        let (url, connections, _ping) = falling_silent().await;
        let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
        let ctrl = Controller::builder(Client::new(url))
            .clock(clock.clone())
            .build();
        let errors = Rc::new(RefCell::new(Vec::new()));
        let heard = Rc::clone(&errors);
        let _listener = ctrl.on_event(move |event, _| {
            if let Event::StreamError { message, .. } = event {
                heard.borrow_mut().push(message.clone());
            }
        });
        let live = sse().heartbeat_timeout(LIMIT);
        let _hold = ctrl.open_stream(&live);
        eventually("the first connection's message", || has_todo(&ctrl, 1)).await;
        assert_eq!(ctrl.stream_status(&live), Some(StreamStatus::Open));
        clock.advance(LIMIT);
        // Then past the wait before a reconnect, a little at a time.
        eventually("a second connection", || {
            clock.advance(Duration::from_millis(10));
            has_todo(&ctrl, 2)
        })
        .await;
        assert!(connections.load(SeqCst) >= 2);
        assert!(
            errors.borrow()[0].contains("no sign of life for 30s"),
            "{:?}",
            errors.borrow()
        );
    })
    .await;
}

#[tokio::test]
async fn comments_keep_a_quiet_connection_alive() {
    in_local_set(async {
        let (url, connections, ping) = falling_silent().await;
        let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
        let ctrl = Controller::builder(Client::new(url))
            .clock(clock.clone())
            .build();
        let live = sse().heartbeat_timeout(LIMIT);
        let _hold = ctrl.open_stream(&live);
        eventually("the first connection's message", || has_todo(&ctrl, 1)).await;
        // Twice the limit with no message, but a comment every two thirds
        // of it.
        for _ in 0..3 {
            clock.advance(LIMIT * 2 / 3);
            ping.send_modify(|sent| *sent += 1);
            // Far longer than loopback takes to bring it.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(connections.load(SeqCst), 1, "never reconnected");
        assert_eq!(ctrl.stream_status(&live), Some(StreamStatus::Open));
    })
    .await;
}

#[tokio::test]
async fn a_silent_connection_is_noticed_though_focus_comes_and_goes() {
    in_local_set(async {
        let (url, _connections, _ping) = falling_silent().await;
        let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
        let ctrl = Controller::builder(Client::new(url))
            .clock(clock.clone())
            .build();
        let live = sse().heartbeat_timeout(LIMIT).pause_when_hidden(false);
        let _hold = ctrl.open_stream(&live);
        eventually("the first connection's message", || has_todo(&ctrl, 1)).await;
        // Twice the limit with no sign of life, the page leaving view and
        // coming back every two thirds of it.
        for _ in 0..3 {
            clock.advance(LIMIT * 2 / 3);
            ctrl.set_focused(false);
            ctrl.set_focused(true);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Past the wait before a reconnect, and well short of one more
        // limit.
        for _ in 0..200 {
            if has_todo(&ctrl, 2) {
                break;
            }
            clock.advance(Duration::from_millis(10));
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(has_todo(&ctrl, 2), "connected again");
    })
    .await;
}
