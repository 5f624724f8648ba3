//! Time limits: a request that stalls (no status line, a body that never
//! ends, a byte a second) fails with a soft error within its limit and
//! frees its key, so the next read makes a new request; a read whose
//! every caller went away is cancelled; a fetch function that panics fails
//! its request only.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use restcache::http::{Client, ErrorKind, Request, ResponseFuture};
use restcache::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::common::controller::todo_json;
use crate::common::mock::{once, server};
use crate::common::{TodoResource, TodoResourceParams};

/// What a stalling server does once it has read a request.
#[derive(Clone, Copy)]
pub enum Stall {
    /// Never answers.
    Silent,
    /// Sends a status line and headers, then one byte a second, forever.
    Drip,
    /// Sends a status line and headers, then 64 KiB chunks as fast as it
    /// can, forever.
    Endless,
}

/// A server on 127.0.0.1 that stalls every request as `stall` says; its
/// base URL, and how many connections it accepted. It stops with the
/// test's runtime.
pub async fn stalling(stall: Stall) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut request = [0_u8; 4096];
                let _ = socket.read(&mut request).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                match stall {
                    Stall::Silent => tokio::time::sleep(Duration::from_secs(3600)).await,
                    Stall::Drip => {
                        let _ = socket.write_all(head.as_bytes()).await;
                        loop {
                            if socket.write_all(b"1\r\n \r\n").await.is_err() {
                                return;
                            }
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                    }
                    Stall::Endless => {
                        let _ = socket.write_all(head.as_bytes()).await;
                        let chunk = format!("10000\r\n{}\r\n", " ".repeat(0x10000));
                        while socket.write_all(chunk.as_bytes()).await.is_ok() {}
                    }
                }
            });
        }
    });
    (url, accepted)
}

fn params() -> TodoResourceParams {
    TodoResourceParams { id: 1 }
}

#[tokio::test]
async fn a_silent_server_times_out_soft_and_frees_the_key() {
    let (url, accepted) = stalling(Stall::Silent).await;
    let client = Client::new(url).with_timeout(Duration::from_millis(300));
    let ctrl = Controller::builder(client)
        .retry(restcache::Retry::NONE)
        .build();
    let error = ctrl
        .fetch(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::Timeout(_)), "{error}");
    assert!(error.is_soft());
    assert_eq!(ctrl.in_flight(), 0, "the key is free again");
    // The next read makes a new request instead of joining a dead one.
    ctrl.fetch(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_body_that_drips_times_out_and_an_endpoint_may_set_its_own_limit() {
    let (url, _) = stalling(Stall::Drip).await;
    // The client allows a minute; the endpoint a quarter of a second.
    let ctrl = Controller::new(Client::new(url).with_timeout(Duration::from_secs(60)));
    let quick = TodoResource::get().with_options(restcache::rest::Options {
        timeout: Some(Duration::from_millis(250)),
        ..Default::default()
    });
    let error = ctrl.fetch(&quick, &params(), None).await.unwrap_err();
    assert_eq!(
        error.kind(),
        &ErrorKind::Timeout(Duration::from_millis(250))
    );
    assert!(
        error.to_string().contains("no answer within 250ms"),
        "{error}"
    );
}

#[tokio::test]
async fn a_read_whose_every_caller_went_away_is_cancelled() {
    let (url, accepted) = stalling(Stall::Silent).await;
    let ctrl = Controller::new(Client::new(url));
    let (get, one) = (TodoResource::get(), params());
    let first = ctrl.fetch(&get, &one, None);
    let second = ctrl.fetch(&get, &one, None);
    let gave_up = tokio::time::timeout(Duration::from_millis(200), async {
        futures_util::future::join(first, second).await
    })
    .await;
    assert!(gave_up.is_err(), "nobody answered");
    assert_eq!(ctrl.in_flight(), 0, "nobody waits: the request is gone");
    let again = tokio::time::timeout(
        Duration::from_millis(200),
        ctrl.fetch(&get, &params(), None),
    )
    .await;
    assert!(again.is_err());
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        2,
        "a new request, not the dead one"
    );
}

static PANICKED: AtomicBool = AtomicBool::new(false);

/// Panics the first time it is called, then fetches.
fn panics_once<P>(client: &Client, _: &P, request: Request) -> ResponseFuture {
    if !PANICKED.swap(true, Ordering::SeqCst) {
        panic!("a bug in a custom fetch function");
    }
    client.request(Method::Get, &request.url, None)
}

#[tokio::test]
async fn a_fetch_function_that_panics_fails_its_request_only() {
    let (mut server, client) = server().await;
    let _get = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "milk")).await;
    let ctrl = Controller::new(client);
    let endpoint = TodoResource::get().with_fetch(panics_once);
    let error = ctrl.fetch(&endpoint, &params(), None).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("a bug in a custom fetch function"),
        "{error}"
    );
    assert_eq!(ctrl.in_flight(), 0);
    let todo = ctrl.fetch(&endpoint, &params(), None).await.unwrap();
    assert_eq!(todo.title, "milk");
}

#[tokio::test]
async fn an_endpoints_longer_limit_holds_the_requests_of_its_fetch_function() {
    // The client allows 50 ms; the server takes 150; the endpoint allows 2 s.
    let client = Client::new("http://api.test")
        .with_timeout(Duration::from_millis(50))
        .with_transport(|_: restcache::http::Outgoing| async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            Ok(restcache::http::Incoming::new(200, todo_json(1, "slow")))
        });
    let ctrl = Controller::new(client);
    let patient = TodoResource::get()
        .with_options(restcache::rest::Options {
            timeout: Some(Duration::from_secs(2)),
            ..Default::default()
        })
        .with_fetch(
            |client: &Client, _: &_, request: Request| -> ResponseFuture { client.send(request) },
        );
    let todo = ctrl.fetch(&patient, &params(), None).await.unwrap();
    assert_eq!(todo.title, "slow");
}
