//! Live changes: every create, update and delete (REST or GraphQL) is
//! pushed to the open streams as a standard message,
//! `{"id": "7", "entity": "Todo", "op": "set", "data": {..}, "at": ms}` or
//! `{"id": "8", "entity": "Todo", "op": "delete", "pk": 3, "at": ms}`.
//!
//! - `GET /events`: server-sent events (`id:` is the message id); a
//!   `Last-Event-ID` header replays what came after it.
//! - `GET /socket`: a websocket. The client's first message subscribes:
//!   `{"since": "7"}` replays what came after message 7, `{"since": null}`
//!   starts from now (as does a client that says nothing for a second).
//!   An id the server never gave (it restarted since) replays everything
//!   it kept.
//! - `GET /__demo/streams`: `{"open": 1, "resumed": 0}`, the connections
//!   open now (a websocket once it subscribed) and how many resumed from
//!   an id.
//! - `POST /__demo/streams/drop`: the server drops every open connection
//!   (they may come back).
//! - `POST /__demo/streams/publish`: pushes the body (a JSON object) as
//!   a message, with an id added.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::extract::ws::{self, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router, routing::get, routing::post};
use futures_util::Stream;
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use super::Shared;

/// A message as pushed: its id and its text.
type Pushed = (u64, String);

/// How many past messages the server keeps to replay.
const HISTORY: usize = 1_000;

/// The messages pushed so far, and the connections that get them.
pub struct Hub {
    history: Mutex<VecDeque<Pushed>>,
    next_id: Mutex<u64>,
    sender: broadcast::Sender<Pushed>,
    /// Bumped to drop every open connection; `u64::MAX` closes for good.
    drop_all: watch::Sender<u64>,
    pub(super) open: AtomicUsize,
    pub(super) resumed: AtomicUsize,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            history: Mutex::default(),
            next_id: Mutex::new(1),
            sender: broadcast::channel(HISTORY).0,
            drop_all: watch::channel(0).0,
            open: AtomicUsize::new(0),
            resumed: AtomicUsize::new(0),
        }
    }
}

/// The entity key the demo's records are read as: `todos` → `Todo`.
fn entity_of(collection: &str) -> String {
    let singular = collection.strip_suffix('s').unwrap_or(collection);
    let mut chars = singular.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Now, in milliseconds since the Unix epoch, with a fraction.
fn now_millis() -> f64 {
    chrono::Utc::now().timestamp_micros() as f64 / 1_000.0
}

impl Hub {
    /// Pushes `message` (a JSON object) to every open stream, with the
    /// next id added.
    pub fn publish(&self, mut message: Value) {
        // One lock orders ids, history and sends alike.
        let mut next_id = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
        let id = *next_id;
        *next_id += 1;
        if let Value::Object(fields) = &mut message {
            fields.insert("id".into(), json!(id.to_string()));
        }
        let text = message.to_string();
        let mut history = self.history.lock().unwrap_or_else(|e| e.into_inner());
        if history.len() == HISTORY {
            history.pop_front();
        }
        history.push_back((id, text.clone()));
        let _ = self.sender.send((id, text));
    }

    /// `record` of `collection` was created or changed.
    pub fn changed(&self, collection: &str, record: &Value) {
        self.publish(json!({
            "entity": entity_of(collection),
            "op": "set",
            "data": record,
            "at": now_millis(),
        }));
    }

    /// Record `id` of `collection` was deleted.
    pub fn removed(&self, collection: &str, id: Value) {
        self.publish(json!({
            "entity": entity_of(collection),
            "op": "delete",
            "pk": id,
            "at": now_millis(),
        }));
    }

    /// What came after `since` (everything kept, if it is older than the
    /// history), and a receiver of what comes next, taken together so
    /// that nothing falls in between.
    /// An id this server never gave (it restarted since) counts as 0:
    /// everything kept is replayed. Returns the backlog, the receiver,
    /// and the id the backlog starts after.
    fn since(&self, since: Option<u64>) -> (Vec<Pushed>, broadcast::Receiver<Pushed>, u64) {
        let next_id = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
        let receiver = self.sender.subscribe();
        let Some(after) = since else {
            return (Vec::new(), receiver, *next_id - 1);
        };
        self.resumed.fetch_add(1, Ordering::Relaxed);
        let after = if after >= *next_id { 0 } else { after };
        let history = self.history.lock().unwrap_or_else(|e| e.into_inner());
        let backlog = history
            .iter()
            .filter(|(id, _)| *id > after)
            .cloned()
            .collect();
        (backlog, receiver, after)
    }

    /// Drops every open connection.
    pub fn drop_connections(&self) {
        self.drop_all
            .send_modify(|generation| *generation = generation.saturating_add(1));
    }

    /// Drops every open connection and refuses new ones (the server is
    /// stopping: its graceful shutdown waits for open connections).
    pub fn close(&self) {
        self.drop_all.send_replace(u64::MAX);
    }

    /// Back to no history and no counts (the open connections stay).
    pub fn reset(&self) {
        self.history
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.resumed.store(0, Ordering::Relaxed);
    }
}

/// Counts an open connection while it lives.
struct Open(Arc<Shared>);

impl Open {
    fn new(shared: &Arc<Shared>) -> Self {
        shared.live.open.fetch_add(1, Ordering::SeqCst);
        Open(Arc::clone(shared))
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.live.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The stream routes, and their switches under `/__demo/streams`.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/events", get(events))
        .route("/socket", get(socket))
        .route("/__demo/streams", get(streams_now))
        .route("/__demo/streams/drop", post(drop_streams))
        .route("/__demo/streams/publish", post(publish))
}

/// Resolves when the hub drops every connection.
async fn dropped(mut drop_all: watch::Receiver<u64>) {
    if *drop_all.borrow_and_update() == u64::MAX {
        return;
    }
    let _ = drop_all.changed().await;
}

/// The next message after `after`, from the backlog or the channel;
/// `None` when the stream must end (dropped, or the channel gone).
async fn next_message(
    backlog: &mut std::vec::IntoIter<Pushed>,
    receiver: &mut broadcast::Receiver<Pushed>,
    after: &mut u64,
) -> Option<Pushed> {
    if let Some(message) = backlog.next() {
        *after = message.0;
        return Some(message);
    }
    loop {
        match receiver.recv().await {
            // Already sent from the backlog.
            Ok((id, _)) if id <= *after => continue,
            Ok(message) => {
                *after = message.0;
                return Some(message);
            }
            // A client too slow to keep up is dropped; it resumes.
            Err(_) => return None,
        }
    }
}

/// `GET /events`: server-sent events, resumed from `Last-Event-ID`.
async fn events(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let since = headers
        .get("last-event-id")
        .and_then(|id| id.to_str().ok())
        .and_then(|id| id.parse().ok());
    let (backlog, receiver, after) = shared.live.since(since);
    let drop_all = shared.live.drop_all.subscribe();
    let state = (
        Open::new(&shared),
        backlog.into_iter(),
        receiver,
        after,
        Box::pin(dropped(drop_all)),
    );
    let stream = futures_util::stream::unfold(state, |mut state| async move {
        let (_, backlog, receiver, after, dropped) = &mut state;
        let message = tokio::select! {
            message = next_message(backlog, receiver, after) => message?,
            () = dropped.as_mut() => return None,
        };
        let event = Event::default().id(message.0.to_string()).data(message.1);
        Some((Ok(event), state))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// `GET /socket`: a websocket; its first message subscribes.
async fn socket(State(shared): State<Arc<Shared>>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| serve_socket(shared, socket))
}

/// The `since` of the client's first text message; a client that sends
/// none within a second starts from now.
async fn subscription(socket: &mut WebSocket) -> Result<Option<u64>, ()> {
    let first_text = async {
        loop {
            match socket.recv().await {
                Some(Ok(ws::Message::Text(text))) => return Ok(text),
                Some(Ok(ws::Message::Close(_))) | None | Some(Err(_)) => return Err(()),
                Some(Ok(_)) => {}
            }
        }
    };
    let Ok(text) = tokio::time::timeout(std::time::Duration::from_secs(1), first_text).await else {
        return Ok(None);
    };
    let since = serde_json::from_str::<Value>(&text?)
        .ok()
        .and_then(|subscribe| subscribe.get("since").cloned())
        .and_then(|since| match since {
            Value::String(id) => id.parse().ok(),
            other => other.as_u64(),
        });
    Ok(since)
}

async fn serve_socket(shared: Arc<Shared>, mut socket: WebSocket) {
    let mut dropped = Box::pin(dropped(shared.live.drop_all.subscribe()));
    let since = tokio::select! {
        since = subscription(&mut socket) => match since {
            Ok(since) => since,
            Err(()) => return,
        },
        () = dropped.as_mut() => return,
    };
    // Counted once subscribed: a test that sees it open may push.
    let _open = Open::new(&shared);
    let (backlog, mut receiver, after) = shared.live.since(since);
    let (mut backlog, mut after) = (backlog.into_iter(), after);
    loop {
        tokio::select! {
            message = next_message(&mut backlog, &mut receiver, &mut after) => {
                let Some((_, text)) = message else { return };
                if socket.send(ws::Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            incoming = socket.recv() => match incoming {
                Some(Ok(ws::Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
            () = dropped.as_mut() => return,
        }
    }
}

/// `GET /__demo/streams`: `{"open": n, "resumed": n}`.
async fn streams_now(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(json!({
        "open": shared.live.open.load(Ordering::SeqCst),
        "resumed": shared.live.resumed.load(Ordering::Relaxed),
    }))
}

/// `POST /__demo/streams/drop`: drops every open connection.
async fn drop_streams(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.live.drop_connections();
    StatusCode::NO_CONTENT
}

/// `POST /__demo/streams/publish`: pushes the body as a message.
async fn publish(State(shared): State<Arc<Shared>>, Json(message): Json<Value>) -> Response {
    if !message.is_object() {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            "the body must be a JSON object",
        )
            .into_response();
    }
    shared.live.publish(message);
    StatusCode::NO_CONTENT.into_response()
}
