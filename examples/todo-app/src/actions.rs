//! The app's writes. Each shows its result at once (optimistic), sends
//! its request, and when the request fails takes the change back and
//! tells the person why, through the page's notice.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use restcache::Pk;
use restcache::http::Error;
use restcache::prelude::*;
use restcache::rest::{Deleted, Effect};
use serde_json::json;
use yew::Callback;

use crate::api::{DRAFTS_FROM, Todo, TodoResource, TodoResourceParams};

/// Where a failed write says what happened.
pub type Notify = Callback<String>;

/// Marks `todo` done (or open again).
pub fn toggle(ctrl: &Controller, todo: &Todo, notify: &Notify) {
    let completed = !todo.completed;
    let guess = Todo {
        completed,
        ..todo.clone()
    };
    let what = if completed {
        format!("mark “{}” done", todo.title)
    } else {
        format!("reopen “{}”", todo.title)
    };
    patch(ctrl, guess, json!({ "completed": completed }), what, notify);
}

/// Gives `todo` a new title.
pub fn rename(ctrl: &Controller, todo: &Todo, title: String, notify: &Notify) {
    let what = format!("rename “{}”", todo.title);
    let body = json!({ "title": title });
    let guess = Todo {
        title,
        ..todo.clone()
    };
    patch(ctrl, guess, body, what, notify);
}

fn patch(ctrl: &Controller, guess: Todo, body: serde_json::Value, what: String, notify: &Notify) {
    let params = TodoResourceParams { id: guess.id };
    let write = Write {
        what,
        notify: notify.clone(),
    };
    write.send(
        ctrl,
        TodoResource::partial_update(),
        params,
        Some(body),
        Rc::new(guess),
    );
}

/// Adds a todo titled `title` to `user_id`'s list; it shows as a draft
/// until the server answers with its id.
pub fn add(ctrl: &Controller, user_id: u64, title: String, notify: &Notify) {
    static NEXT_DRAFT: AtomicU64 = AtomicU64::new(DRAFTS_FROM + 1);
    let draft = Todo {
        id: NEXT_DRAFT.fetch_add(1, Ordering::Relaxed),
        user_id,
        title,
        completed: false,
    };
    let body = json!({ "userId": draft.user_id, "title": draft.title, "completed": false });
    let what = format!("add “{}”", draft.title);
    let write = Write {
        what,
        notify: notify.clone(),
    };
    write.send(ctrl, TodoResource::create(), (), Some(body), Rc::new(draft));
}

/// Deletes `todo`; it leaves every list at once.
pub fn delete(ctrl: &Controller, todo: &Todo, notify: &Notify) {
    let what = format!("delete “{}”", todo.title);
    let gone = Deleted::<Todo>::new(Pk::from(todo.id));
    let params = TodoResourceParams { id: todo.id };
    let write = Write {
        what,
        notify: notify.clone(),
    };
    write.send(ctrl, TodoResource::delete(), params, None, gone);
}

/// One write as the person asked for it: what it does, in their words,
/// and where to say so when it fails.
struct Write {
    what: String,
    notify: Notify,
}

impl Write {
    /// Shows `guess` at once, sends the request with `body`, and tells
    /// the notice when the server refuses (the guess is taken back).
    fn send<P, S, E>(
        self,
        ctrl: &Controller,
        endpoint: Endpoint<P, S, E>,
        params: P,
        body: Option<serde_json::Value>,
        guess: S,
    ) where
        P: Serialize + Clone + 'static,
        S: Schema + 'static,
        E: Effect + 'static,
    {
        let ctrl = ctrl.clone();
        yew::platform::spawn_local(async move {
            let body = body.and_then(|body| Body::json(&body).ok());
            let sent = ctrl.fetch_optimistic(&endpoint, &params, body, guess);
            if let Err(error) = sent.await {
                self.notify.emit(undone(&self.what, &error));
            }
        });
    }
}

/// The notice for a write that failed and was taken back.
pub fn undone(what: &str, error: &Error) -> String {
    format!(
        "Could not {what}: {}. The change was undone.",
        reason(error)
    )
}

/// Why a request failed, in a person's words.
pub fn reason(error: &Error) -> String {
    match error.status() {
        Some(503) => "the API is down (503)".to_owned(),
        Some(404) => "it is not there (404)".to_owned(),
        Some(status) => format!("the API answered {status}"),
        None => "the API could not be reached".to_owned(),
    }
}
