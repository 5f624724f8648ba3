//! The app's writes. Each shows its result at once (optimistic), sends
//! its request, and when the request fails takes the change back and
//! tells the person why, through the page's notice.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use restcache::http::Error;
use restcache::prelude::*;
use restcache::rest::{Deleted, Effect};
use restcache::{Pk, Timestamp};
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
    static LAST_DRAFT: AtomicU64 = AtomicU64::new(DRAFTS_FROM);
    let last = LAST_DRAFT.load(Ordering::Relaxed);
    let id = draft_id(ctrl.now(), last);
    LAST_DRAFT.store(id, Ordering::Relaxed);
    let draft = Todo {
        id,
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

/// The id of a new draft, after the page's `last` one, made at `now`:
/// numbered by the microsecond, so that drafts a saved queue brings back
/// from an earlier load (or another tab shows) never share an id with
/// this load's, whose count starts again.
///
/// ```
/// use restcache::Timestamp;
/// use restcache_todo_app::actions::draft_id;
/// use restcache_todo_app::api::DRAFTS_FROM;
///
/// let first_load = draft_id(Timestamp::from_millis(1_000), DRAFTS_FROM);
/// let same_moment = draft_id(Timestamp::from_millis(1_000), first_load);
/// assert!(same_moment > first_load);
/// // A reload starts counting again, a moment later.
/// let reloaded = draft_id(Timestamp::from_millis(1_001), DRAFTS_FROM);
/// assert!(reloaded > same_moment);
/// ```
pub fn draft_id(now: Timestamp, last: u64) -> u64 {
    let by_time = DRAFTS_FROM.saturating_add(1 + now.as_micros());
    by_time.max(last.saturating_add(1))
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
