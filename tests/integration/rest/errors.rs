//! Request errors: typed by status, refusal and bad body, soft or hard,
//! and never showing the request's headers.

use restcache::http::{Client, ErrorKind, HeaderValue, Method, header};

use crate::common::mock::{once, server};
use crate::common::{TodoResource, TodoResourceParams};

#[tokio::test]
async fn a_header_hook_runs_on_every_request_and_errors_never_show_headers() {
    let server_and_client = server().await;
    let mut server = server_and_client.0;
    let client = Client::new(server.url()).with_headers(|headers| {
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cr3t-token"),
        );
    });
    let get = server
        .mock("GET", "/todos/1")
        .match_header("authorization", "Bearer s3cr3t-token")
        .with_status(403)
        .with_body("forbidden")
        .expect(1)
        .create_async()
        .await;
    let err = client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    get.assert_async().await;
    assert_eq!(err.status(), Some(403));
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("s3cr3t"), "{shown}");
}

#[tokio::test]
async fn statuses_refusals_and_bad_bodies_are_typed_errors() {
    let (mut server, client) = server().await;
    let get = TodoResource::get();
    let one = TodoResourceParams { id: 1 };

    for (status, hard) in [(400, true), (404, true), (500, false)] {
        let mock = server
            .mock("GET", "/todos/1")
            .with_status(status)
            .with_body(format!("{{\"detail\": \"status {status}\"}}"))
            .expect(1)
            .create_async()
            .await;
        let err = client.call(&get, &one, None).await.unwrap_err();
        mock.assert_async().await;
        mock.remove_async().await;
        assert_eq!(err.status(), Some(status as u16));
        assert_eq!(err.method(), Method::Get);
        assert_eq!(err.url(), format!("{}/todos/1", server.url()));
        assert_eq!(err.is_hard(), hard, "{status}");
        assert!(err.excerpt().contains(&format!("status {status}")));
        assert!(err.to_string().contains(&format!("HTTP {status}")), "{err}");
    }

    // HTML where JSON is expected: a hard decode error with an excerpt.
    let html = format!("<!doctype html><title>502</title>{}", "x".repeat(2000));
    let mock = server
        .mock("GET", "/todos/1")
        .with_status(200)
        .with_header("content-type", "text/html")
        .with_body(&html)
        .expect(1)
        .create_async()
        .await;
    let err = client.call(&get, &one, None).await.unwrap_err();
    mock.assert_async().await;
    mock.remove_async().await;
    assert!(matches!(err.kind(), ErrorKind::Decode(_)), "{err}");
    assert!(err.is_hard());
    assert!(err.excerpt().starts_with("<!doctype html>"));
    assert!(err.excerpt().chars().count() <= restcache::http::EXCERPT_CHARS + 1);

    // JSON of the wrong shape names the field.
    let mock = once(
        server.mock("GET", "/todos/1"),
        200,
        r#"{"id": 1, "completed": "yes"}"#,
    )
    .await;
    let err = client.call(&get, &one, None).await.unwrap_err();
    mock.assert_async().await;
    mock.remove_async().await;
    match err.kind() {
        ErrorKind::Decode(schema) => assert_eq!(schema.path().unwrap().to_string(), "completed"),
        other => panic!("{other:?}"),
    }

    // An empty body where a record is expected.
    let mock = server
        .mock("GET", "/todos/1")
        .with_status(204)
        .expect(1)
        .create_async()
        .await;
    let err = client.call(&get, &one, None).await.unwrap_err();
    mock.assert_async().await;
    assert!(matches!(err.kind(), ErrorKind::Decode(_)), "{err}");

    // Nobody listening: a soft network error.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let nowhere = Client::new(format!("http://127.0.0.1:{port}"));
    let err = nowhere.call(&get, &one, None).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Network(_)), "{err}");
    assert!(err.is_soft());
    assert_eq!(err.status(), None);
}
