//! Bounded memory per response: a body longer than the client's limit is
//! an error once the limit is read, and an error answer's body is read
//! only as far as its excerpt needs. A body is UTF-8 text (a byte-order
//! mark before it aside).

use std::time::Duration;

use restcache::http::{Client, ErrorKind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::timeouts::{Stall, stalling};
use crate::common::mock::server;
use crate::common::{TodoResource, TodoResourceParams};

fn params() -> TodoResourceParams {
    TodoResourceParams { id: 1 }
}

#[tokio::test]
async fn an_endless_body_stops_at_the_clients_limit() {
    let (url, _) = stalling(Stall::Endless).await;
    let client = Client::new(url)
        .with_max_body(1024 * 1024)
        .with_timeout(Duration::from_secs(30));
    let error = client
        .call(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), &ErrorKind::TooLarge { limit: 1024 * 1024 });
    assert!(error.is_hard());
    assert!(
        error.to_string().contains("longer than 1048576 bytes"),
        "{error}"
    );
}

#[tokio::test]
async fn a_declared_length_over_the_limit_fails_before_reading() {
    let (mut server, _) = server().await;
    let _big = server
        .mock("GET", "/todos/1")
        .with_body(" ".repeat(4096))
        .create_async()
        .await;
    let client = Client::new(server.url()).with_max_body(1000);
    let error = client
        .call(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), &ErrorKind::TooLarge { limit: 1000 });
    assert_eq!(error.status(), Some(200), "the answer's status is kept");
    assert!(
        error
            .to_string()
            .ends_with("HTTP 200: the body is longer than 1000 bytes"),
        "{error}"
    );
}

#[tokio::test]
async fn a_body_too_large_with_no_status_names_none() {
    let client = Client::new("http://api.test")
        .with_max_body(1000)
        .with_transport(|_: restcache::http::Outgoing| async {
            Err(restcache::http::TransportError::too_large())
        });
    let error = client
        .call(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert_eq!(error.status(), None);
    assert_eq!(
        error.to_string(),
        "GET http://api.test/todos/1: the body is longer than 1000 bytes"
    );
}

#[tokio::test]
async fn an_error_answer_is_read_only_as_far_as_its_excerpt() {
    // A 500 whose body never ends.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0_u8; 4096];
        let _ = socket.read(&mut request).await;
        let head = "HTTP/1.1 500 Internal Server Error\r\ntransfer-encoding: chunked\r\n\r\n";
        let _ = socket.write_all(head.as_bytes()).await;
        let chunk = format!("400\r\n{}\r\n", "e".repeat(0x400));
        while socket.write_all(chunk.as_bytes()).await.is_ok() {}
    });
    let client = Client::new(url).with_timeout(Duration::from_secs(30));
    let error = client
        .call(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(500));
    assert!(error.excerpt().starts_with("eeee"), "{error}");
}

#[tokio::test]
async fn a_body_that_is_not_utf8_is_a_decode_error_not_replaced_text() {
    let (mut server, client) = server().await;
    // A title holding a Latin-1 byte (0xE9): not UTF-8.
    let mut body = br#"{"id": 1, "userId": 1, "title": "caf"#.to_vec();
    body.push(0xE9);
    body.extend_from_slice(br#"", "completed": false}"#);
    let _get = server
        .mock("GET", "/todos/1")
        .with_header("content-type", "application/json")
        .with_body(body)
        .create_async()
        .await;
    let error = client
        .call(&TodoResource::get(), &params(), None)
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::Decode(_)), "{error:?}");
    assert!(error.is_hard());
    assert!(error.to_string().contains("not valid UTF-8"), "{error}");
}

#[tokio::test]
async fn a_body_that_starts_with_a_byte_order_mark_decodes() {
    let (mut server, client) = server().await;
    // As some servers (and JSON files saved on Windows) send it.
    let body = "\u{FEFF}{\"id\": 1, \"userId\": 1, \"title\": \"café\", \"completed\": false}";
    let _get = server
        .mock("GET", "/todos/1")
        .with_header("content-type", "application/json; charset=utf-8")
        .with_body(body)
        .create_async()
        .await;
    let todo = client
        .call(&TodoResource::get(), &params(), None)
        .await
        .unwrap();
    assert_eq!(todo.title, "café");
}
