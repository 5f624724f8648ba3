//! A client over a transport of the app's own: it sees each request as
//! it goes out, and the client keeps its rules (time and body limits,
//! statuses, masking of what it sent) whatever answers.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use restcache::http::{
    Client, ErrorKind, HeaderValue, Incoming, Method, Outgoing, TransportError, header,
};
use restcache::rest::Options;

use crate::common::{TodoResource, TodoResourceParams};

/// A client whose transport answers every request with `answer` and keeps
/// what it was sent.
fn answering(answer: Incoming) -> (Client, Rc<RefCell<Vec<Outgoing>>>) {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&sent);
    let client = Client::new("http://api.test/").with_transport(move |request: Outgoing| {
        seen.borrow_mut().push(request);
        let answer = answer.clone();
        async move { Ok(answer) }
    });
    (client, sent)
}

#[tokio::test]
async fn a_transport_sees_the_whole_request_and_its_answer_is_decoded() {
    let (client, sent) = answering(Incoming::new(200, r#"{"id": 1, "title": "milk"}"#));
    let client = client.with_headers(|headers| {
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer t"));
    });
    let body = restcache::http::Body::json(&serde_json::json!({"title": "milk"})).unwrap();
    let todo = client
        .call(
            &TodoResource::update(),
            &TodoResourceParams { id: 1 },
            Some(body),
        )
        .await
        .unwrap();
    assert_eq!((todo.id, todo.title.as_str()), (1, "milk"));
    let sent = sent.borrow();
    assert_eq!(sent.len(), 1);
    let request = &sent[0];
    assert_eq!(request.method, Method::Put);
    assert_eq!(request.url, "http://api.test/todos/1");
    assert_eq!(
        request.body.as_ref().unwrap().as_str(),
        Some(r#"{"title":"milk"}"#)
    );
    assert_eq!(request.headers["authorization"], "Bearer t");
    assert_eq!(request.headers["accept"], "application/json");
    assert_eq!(request.headers["content-type"], "application/json");
}

#[tokio::test]
async fn statuses_from_a_transport_are_judged_as_from_the_network() {
    let get = TodoResource::get();
    let params = TodoResourceParams { id: 1 };
    let (client, _) = answering(Incoming::new(404, "no such todo"));
    let missing = client.call(&get, &params, None).await.unwrap_err();
    assert!(missing.is_hard());
    assert_eq!(
        missing.to_string(),
        "GET http://api.test/todos/1: HTTP 404: no such todo"
    );
    let (client, _) = answering(Incoming::new(503, "down"));
    assert!(
        client
            .call(&get, &params, None)
            .await
            .unwrap_err()
            .is_soft()
    );
    let refused = Client::new("http://api.test")
        .with_transport(|_: Outgoing| async { Err(TransportError::new("connection refused")) });
    let failed = refused.call(&get, &params, None).await.unwrap_err();
    assert!(failed.is_soft());
    assert!(
        matches!(failed.kind(), ErrorKind::Network(message) if message == "connection refused"),
        "{failed:?}"
    );
}

#[tokio::test]
async fn a_transport_body_past_the_limit_fails_and_an_echoed_secret_is_masked() {
    let get = TodoResource::get();
    let params = TodoResourceParams { id: 1 };
    let (client, _) = answering(Incoming::new(200, vec![b' '; 2048]));
    let failed = client
        .with_max_body(1024)
        .call(&get, &params, None)
        .await
        .unwrap_err();
    assert!(
        matches!(failed.kind(), ErrorKind::TooLarge { limit: 1024 }),
        "{failed:?}"
    );

    let (client, _) = answering(Incoming::new(401, "bad token: Bearer s3cr3t"));
    let client = client.with_headers(|headers| {
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cr3t"),
        );
    });
    let failed = client.call(&get, &params, None).await.unwrap_err();
    let shown = format!("{failed} {failed:?}");
    assert!(!shown.contains("s3cr3t"), "{shown}");
    assert_eq!(failed.status(), Some(401));
}

#[tokio::test]
async fn a_transport_that_never_answers_meets_the_time_limit() {
    let silent = Client::new("http://api.test")
        .with_transport(|_: Outgoing| std::future::pending::<Result<Incoming, TransportError>>());
    let get = TodoResource::get().with_options(Options {
        timeout: Some(Duration::from_millis(20)),
        ..Options::default()
    });
    let failed = silent
        .call(&get, &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert!(matches!(failed.kind(), ErrorKind::Timeout(_)), "{failed:?}");
    assert!(failed.is_soft());
}

#[tokio::test]
async fn a_request_of_its_own_meets_the_clients_time_limit() {
    let silent = Client::new("http://api.test")
        .with_timeout(Duration::from_millis(20))
        .with_transport(|_: Outgoing| std::future::pending::<Result<Incoming, TransportError>>());
    let waited = tokio::time::timeout(
        Duration::from_secs(5),
        silent.request(Method::Get, "/todos/1", None),
    )
    .await;
    let failed = waited.expect("the client's limit ends it").unwrap_err();
    assert!(matches!(failed.kind(), ErrorKind::Timeout(_)), "{failed:?}");
    assert!(
        failed.to_string().contains("http://api.test/todos/1"),
        "{failed}"
    );
}

#[tokio::test]
async fn a_requests_own_content_type_is_sent_as_it_is() {
    let (client, sent) = answering(Incoming::new(200, "{}"));
    let body = restcache::http::Body::json(&serde_json::json!({"title": "x"})).unwrap();
    let request = restcache::http::Request::new(Method::Patch, "/todos/1")
        .with_header(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/merge-patch+json"),
        )
        .with_body(Some(body));
    client.send(request).await.unwrap();
    let sent = sent.borrow();
    let types: Vec<_> = sent[0]
        .headers
        .get_all(header::CONTENT_TYPE)
        .iter()
        .collect();
    assert_eq!(types, ["application/merge-patch+json"]);
}

#[tokio::test]
async fn a_hooks_content_type_covers_json_bodies_only() {
    let (client, sent) = answering(Incoming::new(200, "{}"));
    let client = client.with_headers(|headers| {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/vnd.api+json"),
        );
    });
    let bodies = [
        restcache::http::Body::json(&serde_json::json!({"title": "x"})).unwrap(),
        restcache::http::Body::text("x"),
        restcache::http::Body::bytes("image/png", vec![137, 80]),
    ];
    for body in bodies {
        let request = restcache::http::Request::new(Method::Post, "/uploads").with_body(Some(body));
        client.send(request).await.unwrap();
    }
    let sent = sent.borrow();
    let types: Vec<_> = sent
        .iter()
        .map(|request| {
            request.headers[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        types,
        [
            "application/vnd.api+json",
            "text/plain; charset=utf-8",
            "image/png"
        ],
        "a JSON body takes the hook's flavour of JSON; other bodies keep their own type"
    );
}

/// A server on 127.0.0.1 that answers one request with `head` and the
/// first bytes of a body it announced longer, then hangs up.
async fn breaking_off(head: &'static str, part: &'static str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0; 4096];
        let _ = socket.read(&mut request).await;
        let answer = format!("{head}\r\nContent-Length: 1000\r\n\r\n{part}");
        socket.write_all(answer.as_bytes()).await.unwrap();
        socket.shutdown().await.unwrap();
    });
    url
}

#[tokio::test]
async fn an_error_whose_body_breaks_off_keeps_its_status() {
    let url = breaking_off("HTTP/1.1 401 Unauthorized", "session expi").await;
    let failed = Client::new(url)
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert_eq!(failed.status(), Some(401), "{failed:?}");
    assert!(failed.is_hard());
    assert!(
        failed.to_string().ends_with("HTTP 401: session expi"),
        "{failed}"
    );
}

#[tokio::test]
async fn a_base_that_is_a_path_puts_an_endpoints_url_under_it_once() {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&sent);
    let client = Client::new("/api").with_transport(move |request: Outgoing| {
        seen.borrow_mut().push(request.url.clone());
        async { Ok(Incoming::new(200, r#"{"id": 1, "title": "milk"}"#)) }
    });
    client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap();
    client.request(Method::Get, "/users", None).await.unwrap();
    assert_eq!(*sent.borrow(), ["/api/todos/1", "/api/users"]);
}
