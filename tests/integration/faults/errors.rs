//! Bounded, clean error text: whatever the input, every error's `Display`
//! and `Debug` stay under a few KB, on one line, say each fact once, and
//! never show a credential (a `user:password@` in the base URL, a header
//! value the header hook set and the server echoed).

use mockito::Matcher;
use restcache::http::{Client, Error, HeaderValue, header};
use restcache::prelude::*;

use crate::common::mock::{once, server};
use crate::common::{TodoResource, TodoResourceParams};

/// The most an error's text may take.
const BOUND: usize = 4 * 1024;

fn texts(error: &Error) -> [String; 2] {
    [error.to_string(), format!("{error:?}")]
}

fn assert_clean(error: &Error, secrets: &[&str]) {
    for text in texts(error) {
        assert!(
            text.len() <= BOUND,
            "{} bytes: {}…",
            text.len(),
            &text[..200]
        );
        assert!(!text.contains('\n'), "more than one line: {text}");
        for secret in secrets {
            assert!(!text.contains(secret), "shows {secret}: {text}");
        }
    }
}

endpoint!(pub by_name { path: "/todos/by/:name", schema: serde_json::Value });

#[tokio::test]
async fn a_huge_offending_value_and_a_long_url_stay_bounded() {
    let (mut server, client) = server().await;
    let huge = "x".repeat(50 * 1024 * 1024);
    let body = format!(r#"{{"id": 1, "userId": 1, "title": "t", "completed": "{huge}"}}"#);
    let _get = once(server.mock("GET", "/todos/1"), 200, &body).await;
    let error = client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert_clean(&error, &[]);
    let shown = error.to_string();
    assert_eq!(shown.matches("does not fit").count(), 1, "{shown}");

    let long = "n".repeat(20_000);
    let _long = server
        .mock("GET", Matcher::Regex("^/todos/by/.*".into()))
        .with_status(404)
        .with_body("not here\nat all")
        .create_async()
        .await;
    let error = client
        .call(&by_name(), &ByNameParams { name: long }, None)
        .await
        .unwrap_err();
    assert_clean(&error, &[]);
    assert!(error.to_string().contains('…'), "{error}");
}

/// A client at `address` that sends the bearer token `tok-s3cr3t-123`,
/// and `api_key` as `x-api-key`.
fn signed_in(address: String, api_key: Option<&'static str>) -> Client {
    Client::new(address).with_headers(move |headers| {
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer tok-s3cr3t-123"),
        );
        if let Some(key) = api_key {
            headers.insert("x-api-key", HeaderValue::from_static(key));
        }
    })
}

#[tokio::test]
async fn credentials_never_show_in_an_error() {
    let (mut server, _) = server().await;
    let address = server
        .url()
        .replace("http://", "http://ada:hunter2-password@");
    let client = signed_in(address, None);
    // The server echoes the request's headers into its answer.
    let _echo = server
        .mock("GET", "/todos/1")
        .with_status(401)
        .with_body("unauthorized: Bearer tok-s3cr3t-123 (Basic YWRhOmh1bnRlcjItcGFzc3dvcmQ=)")
        .create_async()
        .await;
    let error = client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(401));
    assert_clean(&error, &["hunter2-password", "tok-s3cr3t-123", "ada:"]);

    // No response at all: the network error names the URL, cleaned too.
    let nowhere = Client::new("http://ada:hunter2-password@127.0.0.1:9");
    let error = nowhere
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert!(error.is_soft());
    assert_clean(&error, &["hunter2-password", "ada:"]);
}

#[tokio::test]
async fn a_token_the_server_quotes_without_its_scheme_is_masked_too() {
    let (mut server, _) = server().await;
    let client = signed_in(server.url(), Some("key-9f8e7d6c"));
    // Servers name the token they refuse, not the header it came in.
    let _refused = server
        .mock("GET", "/todos/1")
        .with_status(401)
        .with_body("invalid token tok-s3cr3t-123; key key-9f8e7d6c revoked; scheme Bearer")
        .create_async()
        .await;
    let error = client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert_clean(&error, &["tok-s3cr3t-123", "key-9f8e7d6c"]);
    // The scheme alone names no one: the rest of the message stays.
    assert!(error.to_string().contains("scheme Bearer"), "{error}");
}

#[tokio::test]
async fn a_secret_that_a_cut_would_split_is_masked_before_the_cut() {
    let (mut server, _) = server().await;
    // A long token, as a JWT is.
    let token: String = std::iter::once("eyJ")
        .chain(std::iter::repeat_n("abcdefgh", 50))
        .collect();
    let bearer = format!("Bearer {token}");
    let client = Client::new(server.url()).with_headers(move |headers| {
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&bearer).unwrap(),
        );
    });
    // The excerpt of a body whose secret comes after a long run of
    // spaces, which the excerpt shows as one.
    let spaced = format!("token:{}Bearer {token}", " ".repeat(1020));
    let _refused = server
        .mock("GET", "/todos/1")
        .with_status(401)
        .with_body(spaced)
        .create_async()
        .await;
    // A record quoted by a decode error, the token beside the bad field
    // and longer than the room the quote has.
    let echoed = format!(r#"{{"id": "one", "title": "a todo", "echo": "{token}"}}"#);
    let _echo = server
        .mock("GET", "/todos/2")
        .with_body(echoed)
        .create_async()
        .await;
    let start = &token[..12];
    for id in [1, 2] {
        let error = client
            .call(&TodoResource::get(), &TodoResourceParams { id }, None)
            .await
            .unwrap_err();
        assert_clean(&error, &[start]);
        assert!(error.to_string().contains("•••"), "{error}");
    }
}

#[tokio::test]
async fn a_rotating_token_is_masked_by_the_value_that_was_sent() {
    let (mut server, _) = server().await;
    let calls = std::rc::Rc::new(std::cell::Cell::new(0_u32));
    let counted = std::rc::Rc::clone(&calls);
    // Each request carries a new token; the hook runs once per request.
    let client = Client::new(server.url()).with_headers(move |headers| {
        counted.set(counted.get() + 1);
        let token = format!("Bearer tok-rotating-{}", counted.get());
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&token).unwrap(),
        );
    });
    let _echo = server
        .mock("GET", "/todos/1")
        .with_status(401)
        .with_body_from_request(|request| {
            let sent = request.header("authorization");
            let sent = sent.first().and_then(|v| v.to_str().ok()).unwrap_or("none");
            format!("unauthorized: {sent}").into_bytes()
        })
        .expect(2)
        .create_async()
        .await;
    for round in 1..=2 {
        let error = client
            .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
            .await
            .unwrap_err();
        assert_eq!(calls.get(), round, "the hook ran once for this request");
        assert_clean(&error, &[&format!("tok-rotating-{round}")]);
        assert!(error.to_string().contains("unauthorized"), "{error}");
    }
}

#[tokio::test]
async fn a_header_a_custom_fetch_adds_is_masked_too() {
    use restcache::http::{HeaderName, Request};
    let (mut server, client) = server().await;
    let _echo = server
        .mock("GET", "/todos/1")
        .with_status(403)
        .with_body_from_request(|request| {
            let key = request.header("x-api-key");
            let key = key.first().and_then(|v| v.to_str().ok()).unwrap_or("none");
            format!("forbidden for key {key}").into_bytes()
        })
        .create_async()
        .await;
    let endpoint = TodoResource::get().with_fetch(|client: &Client, _: &_, request: Request| {
        let key = HeaderValue::from_static("key-per-call-9f8e7d");
        client.send(request.with_header(HeaderName::from_static("x-api-key"), key))
    });
    let error = client
        .call(&endpoint, &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(403));
    assert_clean(&error, &["key-per-call-9f8e7d"]);
    assert!(error.to_string().contains("forbidden for key"), "{error}");
}

#[test]
fn an_error_crosses_threads_and_its_copies_say_the_same() {
    // An app may hand a request's error to another thread (`anyhow`, a
    // tokio task); each view that shows it holds a copy.
    fn crosses_threads<T: Send + Sync + 'static>(_: &T) {}
    let error = Error::http_status(Method::Get, "http://h/todos/1", 503, "upstream down");
    crosses_threads(&error);
    let copy = error.clone();
    assert_eq!(copy, error);
    let text = std::thread::spawn(move || copy.to_string()).join().unwrap();
    assert_eq!(text, error.to_string());
    assert_eq!(text, "GET http://h/todos/1: HTTP 503: upstream down");
}
