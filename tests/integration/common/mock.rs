//! Mock-server helpers every HTTP test shares: a mockito server on
//! 127.0.0.1 with a client pointed at it, and mocks that answer JSON once,
//! after a delay, or only to an expected request body.

use std::time::Duration;

use mockito::{Matcher, Mock, Server, ServerGuard};
use restcache::http::Client;

/// A mock server and a client whose base address is it.
pub async fn server() -> (ServerGuard, Client) {
    let server = Server::new_async().await;
    let client = Client::new(server.url());
    (server, client)
}

/// `mock` answering `body` as JSON with `status` (not created yet).
pub fn json_response(mock: Mock, status: usize, body: &str) -> Mock {
    mock.with_status(status)
        .with_header("content-type", "application/json")
        .with_body(body)
}

/// `mock` answering `body` with `status`, exactly once.
pub async fn once(mock: Mock, status: usize, body: &str) -> Mock {
    json_response(mock, status, body)
        .expect(1)
        .create_async()
        .await
}

/// `mock` answering `body` after `delay` (not created yet).
pub fn slowly(mock: Mock, delay: Duration, body: impl Into<String>) -> Mock {
    let body = body.into();
    mock.with_header("content-type", "application/json")
        .with_chunked_body(move |w| {
            std::thread::sleep(delay);
            std::io::Write::write_all(w, body.as_bytes())
        })
}

/// `mock` answering `body` after `delay`, exactly once.
pub async fn once_after(mock: Mock, delay: Duration, body: String) -> Mock {
    slowly(mock, delay, body).expect(1).create_async().await
}

/// `mock`, expected once, with `body` as its JSON request body.
pub async fn once_sent(mock: Mock, body: &serde_json::Value) -> Mock {
    mock.match_header("content-type", "application/json")
        .match_body(Matcher::Json(body.clone()))
        .expect(1)
        .create_async()
        .await
}
