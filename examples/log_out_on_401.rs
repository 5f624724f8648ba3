//! The rule "log out on 401", as a listener on the controller's events:
//! while the session holds, the app reads the signed-in user's todos;
//! once the server refuses a request for want of a session, the listener
//! empties the cache, so nothing of the user's stays on show, and the app
//! can send them to the sign-in page. The server here is
//! `restcache::testing`'s mock client, so the run needs no network.
//!
//!     cargo run --example log_out_on_401

use std::cell::Cell;
use std::rc::Rc;

use restcache::Event;
use restcache::prelude::*;
use restcache::testing::{MockClient, Reply};
use serde_json::json;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Todo {
    id: u64,
    title: String,
}

resource!(TodoResource {
    path: "/todos/:id",
    schema: Todo
});

fn main() {
    // The server: todos while the session holds, 401 after it expired.
    let session = Rc::new(Cell::new(true));
    let mock = MockClient::new();
    let open = Rc::clone(&session);
    mock.intercept(move |request| {
        if !open.get() {
            return Some(Reply::status(401, r#"{"detail": "session expired"}"#));
        }
        request
            .is(&TodoResource::get_list())
            .then(|| Reply::json(&json!([{"id": 1, "title": "milk"}, {"id": 2, "title": "eggs"}])))
    });

    let ctrl = mock.controller();
    let signed_out = Rc::new(Cell::new(false));
    let sign_in_page = Rc::clone(&signed_out);
    let _log_out = ctrl.on_event(move |event, ctrl| {
        if let Event::RequestFailed { key, error } = event
            && error.status() == Some(401)
        {
            println!("{key} answered 401: logging out");
            ctrl.reset();
            sign_in_page.set(true);
        }
    });

    restcache_demo::block_on(async {
        let todos = ctrl.fetch(&TodoResource::get_list(), &(), None).await;
        let titles: Vec<String> = todos.unwrap().iter().map(|t| t.title.clone()).collect();
        println!("signed in, the cache shows {titles:?}");

        session.set(false);
        let refused = ctrl
            .fetch(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
            .await;
        println!("the next request fails: {}", refused.unwrap_err());
    });

    let cached = ctrl.read(&TodoResource::get_list(), &());
    println!(
        "after the log-out the cache shows {:?}; sign-in page: {}",
        cached.data.as_ref().map(|todos| todos.len()),
        signed_out.get()
    );
    assert!(cached.data.is_none() && signed_out.get());
}
