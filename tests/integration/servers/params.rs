//! Params named as the server names them: a filter in camelCase reaches
//! the server as such (a snake_case name would be ignored, and the whole
//! collection would come back).

use std::rc::Rc;

use restcache::http::Client;
use restcache::prelude::*;
use restcache_demo::DemoApi;

use crate::common::{Todo, TodoResource};

endpoint!(pub TodoResource::by_user {
    path: "/todos",
    schema: Vec<Rc<Todo>>,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
});

// The mistake the attributes fix: the Rust name on the wire.
endpoint!(pub by_user_as_rust_names_it { path: "/todos", schema: Vec<Rc<Todo>>, params: { user_id: u64 } });

/// A params type of one's own, with a field the server names `completed`.
#[derive(Clone, Serialize)]
struct Done {
    #[serde(rename = "userId")]
    user: u64,
    #[serde(rename = "completed")]
    done: bool,
}

endpoint!(pub done_by { path: "/todos", schema: Vec<Rc<Todo>>, params: Done });

#[tokio::test]
async fn filters_reach_the_server_under_its_names() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let mine = TodoResourceByUserParams { user_id: 2 };
    let todos = ctrl
        .fetch(&TodoResource::by_user(), &mine, None)
        .await
        .unwrap();
    assert!(
        !todos.is_empty() && todos.iter().all(|t| t.user_id == 2),
        "{todos:?}"
    );

    let wrong = ByUserAsRustNamesItParams { user_id: 2 };
    let all = ctrl
        .fetch(&by_user_as_rust_names_it(), &wrong, None)
        .await
        .unwrap();
    assert_eq!(
        all.len(),
        api.records("todos").len(),
        "the server ignored `user_id`"
    );

    let done = Done {
        user: 1,
        done: true,
    };
    let todos = ctrl.fetch(&done_by(), &done, None).await.unwrap();
    let ids: Vec<u64> = todos.iter().map(|t| t.id).collect();
    assert_eq!(ids, [3], "user 1's one completed todo");
}
