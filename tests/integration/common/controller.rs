//! What the controller tests share: a todo list on the wire and a
//! controller on a clock the test moves.

use std::rc::Rc;
use std::time::Duration;

use mockito::{Mock, Server, ServerGuard};
use restcache::http::Client;
use restcache::prelude::*;
use serde_json::json;

use super::mock::once_after;
use super::{Todo, TodoResourceParams};

pub const LIST: &str = r#"[{"id": 1, "userId": 1, "title": "milk", "completed": false},
                       {"id": 2, "userId": 1, "title": "eggs", "completed": false}]"#;

pub fn todo_json(id: u64, title: &str) -> String {
    json!({"id": id, "userId": 1, "title": title, "completed": false}).to_string()
}

pub fn one(id: u64) -> TodoResourceParams {
    TodoResourceParams { id }
}

pub fn titles(list: &[Rc<Todo>]) -> Vec<&str> {
    list.iter().map(|t| t.title.as_str()).collect()
}

/// A mock server, a controller on it that does not retry, and the clock
/// the controller reads.
pub async fn setup() -> (ServerGuard, Controller, ManualClock) {
    let server = Server::new_async().await;
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    // No retry: these tests count the requests an error makes.
    let ctrl = Controller::builder(Client::new(server.url()))
        .clock(clock.clone())
        .retry(restcache::Retry::NONE)
        .build();
    (server, ctrl, clock)
}

/// `GET /todos` answering [`LIST`] after `delay`, exactly once.
pub async fn list_once_after(server: &mut ServerGuard, delay: Duration) -> Mock {
    once_after(server.mock("GET", "/todos"), delay, LIST.into()).await
}
