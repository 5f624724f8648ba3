//! Live streams into the cache (feature `live`): server-sent events and
//! websockets whose messages write records, deletions or whole results
//! through the controller, so every view that holds a record shows what
//! the server pushed, with no request.
//!
//! A [`Live`] says where a stream is and what its messages mean; a view
//! opens it with `use_stream` (feature `yew`), anything else with
//! [`Controller::open_stream`]. One connection serves every holder of a
//! stream and closes when the last lets go. A dropped connection comes
//! back after a growing wait with jitter, and resumes: server-sent events
//! send `Last-Event-ID`, a websocket sends its [opening
//! message](Live::on_open) with the last id seen. While the network is
//! down, or the page is out of view, the stream stays closed; when both
//! are back it connects again and catches up: every read a view shows
//! that went stale meanwhile refetches.
//!
//! A record a stream sets that the cache did not hold joins no list on
//! its own (the stream cannot tell which lists it belongs in); name the
//! create it stands for with [`Live::new_records_join`], and it joins the
//! cached lists that create's answer would.
//!
//! A stream that closes (its last view unmounted) and opens again
//! resumes from the last id it read, and catches up as after a drop.
//!
//! Each message writes at its own time: the moment it arrived, or the
//! `"at"` it carries (when the change was made, by the server's clock,
//! and never later than its arrival). A record a request fetched after
//! that time stays. With `"at"`, a message the server replays after a
//! reconnect does not undo what a request fetched during the gap, as far
//! as the two clocks agree; without it, a replayed message counts as new.
//!
//! A stream connects with an HTTP client of its own: the
//! [`Client`](crate::http::Client)'s header hook applies (natively; a
//! browser sends no headers of ours with a websocket), its transport does
//! not (a mock client's streams reach the network).
//! [`Controller::reset`] (a log-out) reconnects open streams afresh, from
//! no last id, in the next session's name.
//!
//! A server that refuses a stream with a status no retry changes (a
//! `4xx` other than `408` and `429`, such as `401` when a session
//! expired) stops it: its status is [`StreamStatus::Refused`], listeners
//! hear [`Event::RequestFailed`](crate::Event::RequestFailed) under its
//! key, and it stays closed, through resets too, until the app calls
//! [`Controller::reconnect_streams`] (after a log-in). Natively this
//! holds for both protocols; a browser does not tell why a websocket's
//! handshake failed, so there a refused websocket retries as after a
//! drop.
//!
//! `mod.rs` holds the declaration and the controller's entry points;
//! `message` a message and the standard form; `connection` the two
//! protocols; `run` the life of an open stream.
//!
//! ```no_run
//! use restcache::prelude::*;
//! use restcache::live::Live;
//!
//! #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
//! struct Todo { id: u64, title: String }
//!
//! /// `{"entity": "Todo", "op": "set", "data": {..}}` and
//! /// `{"entity": "Todo", "op": "delete", "pk": 3}`.
//! fn todo_changes() -> Live {
//!     Live::sse("/events").entity::<Todo>()
//! }
//!
//! # async fn run() {
//! let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
//! let hold = ctrl.open_stream(&todo_changes());
//! // ... records pushed by the server show in every read that holds them.
//! drop(hold); // the last holder: the connection closes
//! # }
//! ```

mod connection;
mod message;
mod run;

use std::rc::Rc;
use std::time::Duration;

use futures_util::FutureExt;

use crate::cache::entity::Entity;
use crate::controller::{Controller, Retry};
pub use crate::controller::{StreamHold, StreamStatus};
use crate::http::resolve;
use crate::rest::{Create, Endpoint};
pub use message::Message;
use message::{Entities, Outcome};

/// Reads a message the standard form leaves out.
type OnMessage = Rc<dyn Fn(&Message, &Controller) -> Result<(), String>>;
/// Makes a websocket's opening message from the last id seen.
type OnOpen = Rc<dyn Fn(Option<&str>) -> Option<String>>;
/// Which cached reads a reconnect expires.
type ExpireOnReconnect = Rc<dyn Fn(&str) -> bool>;

/// Which protocol a stream speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    ServerSentEvents,
    WebSocket,
}

/// A live stream: where it is, and what its messages mean to the cache.
/// Cheap to clone; build it where it is used (a function, as endpoints
/// are). A stream is known by its protocol and URL: views that open the
/// same one share its connection, read with the declaration of the one
/// that opened it.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::live::Live;
/// use std::time::Duration;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// let live = Live::websocket("/socket")
///     .entity::<Todo>()
///     .on_open(|last_id| Some(serde_json::json!({ "since": last_id }).to_string()))
///     .retry(Duration::from_millis(200), Duration::from_secs(10));
/// assert_eq!(live.url(&Client::new("http://127.0.0.1:8080")), "http://127.0.0.1:8080/socket");
/// ```
#[derive(Clone)]
pub struct Live {
    protocol: Protocol,
    path: Rc<str>,
    entities: Entities,
    on_message: Option<OnMessage>,
    on_open: Option<OnOpen>,
    retry: Retry,
    pause_when_hidden: bool,
    expire_on_reconnect: Option<ExpireOnReconnect>,
    heartbeat_timeout: Option<Duration>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("protocol", &self.protocol)
            .field("path", &self.path)
            .field("retry", &self.retry)
            .field("pause_when_hidden", &self.pause_when_hidden)
            .field("heartbeat_timeout", &self.heartbeat_timeout)
            .finish_non_exhaustive()
    }
}

/// The wait before the first reconnect (jittered into its upper half),
/// doubled after each failure up to 30 s.
///
/// ```
/// assert_eq!(restcache::live::FIRST_RECONNECT, std::time::Duration::from_millis(500));
/// ```
pub const FIRST_RECONNECT: Duration = Duration::from_millis(500);

impl Live {
    fn new(protocol: Protocol, path: &str) -> Self {
        Live {
            protocol,
            path: path.into(),
            entities: Entities::default(),
            on_message: None,
            on_open: None,
            retry: Retry {
                attempts: u32::MAX,
                first_delay: FIRST_RECONNECT,
                max_delay: Duration::from_secs(30),
            },
            pause_when_hidden: true,
            expire_on_reconnect: None,
            heartbeat_timeout: None,
        }
    }

    /// Server-sent events from `path` (under the client's base URL, or an
    /// absolute URL): a `GET` whose body streams `data:` lines.
    ///
    /// ```
    /// use restcache::live::Live;
    /// use restcache::http::Client;
    /// let live = Live::sse("/events");
    /// assert_eq!(live.url(&Client::new("http://127.0.0.1:8080")), "http://127.0.0.1:8080/events");
    /// ```
    pub fn sse(path: &str) -> Self {
        Live::new(Protocol::ServerSentEvents, path)
    }

    /// A websocket at `path` (an `http` URL, upgraded; `ws://` works too),
    /// whose text messages are read.
    ///
    /// ```
    /// use restcache::live::Live;
    /// use restcache::http::Client;
    /// let live = Live::websocket("ws://127.0.0.1:9000/socket");
    /// assert_eq!(live.url(&Client::new("http://127.0.0.1:8080")), "ws://127.0.0.1:9000/socket");
    /// ```
    pub fn websocket(path: &str) -> Self {
        Live::new(Protocol::WebSocket, path)
    }

    /// Reads standard messages about `E`:
    /// `{"entity": "Todo", "op": "set", "data": {..}}` stores the record
    /// (merged as a response's copy would be; a message that leaves
    /// fields out of a record the cache does not hold is left for the
    /// next fetch, as nothing fills them), and
    /// `{"entity": "Todo", "op": "delete", "pk": 3}` deletes it from every
    /// read. An optional `"at"` (milliseconds since the Unix epoch, by
    /// the server's clock) says when the change was made; it counts no
    /// later than the message's arrival, and without it the message
    /// counts from its arrival. Messages about entities the stream was
    /// not told of are left alone (or go to the
    /// [`on_message`](Self::on_message) handler).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::live::{Live, Message};
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// ctrl.set_response(&TodoResource::get_list(), &(), vec![Rc::new(Todo { id: 1, title: "milk".into() })])?;
    /// let live = Live::sse("/events").entity::<Todo>();
    /// let pushed = r#"{"entity": "Todo", "op": "set", "data": {"id": 1, "title": "oat milk"}}"#;
    /// live.apply(&ctrl, &Message::new(pushed, ctrl.write_time()))?;
    /// assert_eq!(ctrl.read(&TodoResource::get_list(), &()).data.unwrap()[0].title, "oat milk");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn entity<E: Entity + serde::de::DeserializeOwned>(mut self) -> Self {
        self.entities.add::<E>();
        self
    }

    /// Reads with `handle` every message the standard form does not cover
    /// (not a standard message, or one about an entity the stream was not
    /// told of): a whole result
    /// ([`Controller::set_response`]), an invalidation, another wire
    /// format. Write at [`Message::received`] (or the time the message
    /// carries). An error is reported as an
    /// [`Event::StreamError`](crate::Event::StreamError); the stream goes on.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::live::{Live, Message};
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// // The server pushes the whole list.
    /// let live = Live::sse("/todo-list").on_message(|message, ctrl| {
    ///     let todos: Vec<Rc<Todo>> = serde_json::from_str(message.data()).map_err(|e| e.to_string())?;
    ///     ctrl.set_response(&TodoResource::get_list(), &(), todos).map(drop).map_err(|e| e.to_string())
    /// });
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// live.apply(&ctrl, &Message::new(r#"[{"id": 4, "title": "tea"}]"#, ctrl.write_time()))?;
    /// assert_eq!(ctrl.read(&TodoResource::get_list(), &()).data.unwrap()[0].title, "tea");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn on_message(
        mut self,
        handle: impl Fn(&Message, &Controller) -> Result<(), String> + 'static,
    ) -> Self {
        self.on_message = Some(Rc::new(handle));
        self
    }

    /// The message a websocket sends as each connection opens, made from
    /// the id of the last message read (`None` at first): how it
    /// subscribes, and how it resumes after a drop. `None` sends nothing.
    /// A stream of server-sent events sends nothing (it resumes by the
    /// `Last-Event-ID` header): it leaves this out.
    ///
    /// ```
    /// use restcache::live::Live;
    /// let live = Live::websocket("/socket")
    ///     .on_open(|last_id| Some(format!(r#"{{"subscribe": "todos", "since": {last_id:?}}}"#)));
    /// # let _ = live;
    /// ```
    pub fn on_open(mut self, opening: impl Fn(Option<&str>) -> Option<String> + 'static) -> Self {
        self.on_open = Some(Rc::new(opening));
        self
    }

    /// How long to wait before reconnecting: `first` after a drop,
    /// doubled after each failed attempt, at most `max`, each wait
    /// jittered into its upper half so that many clients do not come
    /// back at once (default: [`FIRST_RECONNECT`], at most 30 s). A
    /// connection that worked (a message came, or it stayed open for
    /// `max` or longer, as a quiet one a proxy closes now and then) starts
    /// the waits over.
    ///
    /// ```
    /// use restcache::live::Live;
    /// use std::time::Duration;
    /// let live = Live::sse("/events").retry(Duration::from_millis(100), Duration::from_secs(5));
    /// # let _ = live;
    /// ```
    pub fn retry(mut self, first: Duration, max: Duration) -> Self {
        self.retry.first_delay = first;
        self.retry.max_delay = max.max(first);
        self
    }

    /// Whether the stream closes while the page is out of view (default:
    /// yes; it always closes while the network is down). It catches up
    /// when it opens again.
    ///
    /// ```
    /// use restcache::live::Live;
    /// let live = Live::sse("/chat").pause_when_hidden(false);
    /// # let _ = live;
    /// ```
    pub fn pause_when_hidden(mut self, pause: bool) -> Self {
        self.pause_when_hidden = pause;
        self
    }

    /// Reads standard messages about `E` (as [`entity`](Self::entity)
    /// does), and places each record they set that the cache did not
    /// hold (one created elsewhere) in the cached lists the answer of
    /// `create` with `params(&record)` would join: under the create's
    /// URL, those whose filters its fields match, at the start or end as
    /// the create says, as of the message's time; with no request, no
    /// event of a create's answer, and no updater. A paged list goes
    /// stale instead (the record may be one of a page not loaded, not a
    /// new one), and a record deleted here since the message's time joins
    /// nothing. A record the cache held already (this app's own create,
    /// whose answer came first) joins nothing again; one whose message
    /// comes before this app's own create's answer shows beside its
    /// optimistic stand-in until that answer lands. Call it once for
    /// each create a record stands for (the whole collection's, a
    /// user's own).
    ///
    /// A record the cache held already in any form joins nothing, though
    /// it is new to a list (one first seen nested in another read).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::live::{Live, Message};
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// ctrl.set_response(&TodoResource::get_list(), &(), vec![Rc::new(Todo { id: 1, title: "milk".into() })])?;
    /// let live = Live::sse("/events").new_records_join(&TodoResource::create(), |_: &Todo| ());
    /// let pushed = r#"{"entity": "Todo", "op": "set", "data": {"id": 2, "title": "eggs"}}"#;
    /// live.apply(&ctrl, &Message::new(pushed, ctrl.write_time()))?;
    /// assert_eq!(ctrl.read(&TodoResource::get_list(), &()).data.unwrap().len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new_records_join<P, E>(
        mut self,
        create: &Endpoint<P, Rc<E>, Create>,
        params: impl Fn(&E) -> P + 'static,
    ) -> Self
    where
        P: serde::Serialize + 'static,
        E: Entity + serde::de::DeserializeOwned,
    {
        let create = create.clone();
        let join: message::Join = Rc::new(move |controller, record, at| {
            let record = record
                .downcast::<E>()
                .map_err(|_| format!("a record of another type than {}", E::KEY))?;
            let Some(pk) = record.pk() else {
                return Ok(());
            };
            controller
                .join_pushed((&create, &params(&record)), &pk, at)
                .map_err(|e| e.to_string())
        });
        self.entities.add_joining::<E>(join);
        self
    }

    /// Counts a connection that has given no sign of life for `limit` as
    /// dropped, and connects again (resuming where it stopped). A
    /// connection can die without a word (a phone that changed networks,
    /// a proxy that let it go quietly) and would otherwise show `Open`
    /// for good, the cache falling behind. Everything the server sends
    /// counts: messages, SSE comments (`: ping`), and websocket pings
    /// natively (a browser answers those itself, unseen). Set it
    /// above the server's heartbeat interval. The silence is checked
    /// every `limit`, so a dead connection is noticed within twice
    /// `limit`. Without it (the default), a connection is trusted until
    /// it closes.
    ///
    /// ```
    /// use restcache::live::Live;
    /// use std::time::Duration;
    /// // The server sends `: ping` every 15 seconds.
    /// let live = Live::sse("/events").heartbeat_timeout(Duration::from_secs(45));
    /// # let _ = live;
    /// ```
    pub fn heartbeat_timeout(mut self, limit: Duration) -> Self {
        self.heartbeat_timeout = Some(limit);
        self
    }

    /// For a server that cannot resume: on each reconnect, the cached
    /// reads whose key `matches` (keys read `METHOD url`) expire, so what
    /// a view shows of them refetches. Without it, a reconnect refetches
    /// only what went stale by its age.
    ///
    /// ```
    /// use restcache::live::Live;
    /// let live = Live::websocket("/socket").expire_on_reconnect(|key| key.contains("/todos"));
    /// # let _ = live;
    /// ```
    pub fn expire_on_reconnect(mut self, matches: impl Fn(&str) -> bool + 'static) -> Self {
        self.expire_on_reconnect = Some(Rc::new(matches));
        self
    }

    /// The stream's absolute URL under `client`.
    ///
    /// ```
    /// use restcache::live::Live;
    /// use restcache::http::Client;
    /// assert_eq!(Live::sse("events").url(&Client::new("http://127.0.0.1:8080/")), "http://127.0.0.1:8080/events");
    /// ```
    pub fn url(&self, client: &crate::http::Client) -> String {
        match self.path.contains("://") {
            true => self.path.to_string(),
            false => resolve(client.base_url(), &self.path),
        }
    }

    /// The key the controller knows the stream by under `client`: its
    /// protocol and URL (what [`Event::StreamChanged`](crate::Event::StreamChanged)
    /// names).
    ///
    /// ```
    /// use restcache::live::Live;
    /// use restcache::http::Client;
    /// let client = Client::new("http://127.0.0.1:8080");
    /// assert_eq!(Live::sse("/events").key(&client), "SSE http://127.0.0.1:8080/events");
    /// assert_eq!(Live::websocket("/socket").key(&client), "WS http://127.0.0.1:8080/socket");
    /// ```
    pub fn key(&self, client: &crate::http::Client) -> String {
        let scheme = match self.protocol {
            Protocol::ServerSentEvents => "SSE",
            Protocol::WebSocket => "WS",
        };
        format!("{scheme} {}", self.url(client))
    }

    /// Writes one message into the cache as the stream would: standard
    /// messages about its entities, then the [`on_message`](Self::on_message)
    /// handler for every other message. For tests, and for messages that
    /// come some other way.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::live::{Live, Message};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let live = Live::sse("/events").entity::<Todo>();
    /// let wrong = Message::new(r#"{"entity": "Todo", "op": "set", "data": {"id": "one"}}"#, ctrl.write_time());
    /// assert!(live.apply(&ctrl, &wrong).is_err());
    /// ```
    pub fn apply(&self, controller: &Controller, message: &Message) -> Result<(), String> {
        let standard = match self.entities.is_empty() {
            true => Outcome::OtherEntity,
            false => self.entities.apply(controller, message),
        };
        match (standard, &self.on_message) {
            (Outcome::Applied, _) | (Outcome::OtherEntity, None) => Ok(()),
            (Outcome::Failed(error), _) | (Outcome::NotStandard(error), None) => Err(error),
            // Not a standard message about this stream's entities: the
            // handler's.
            (Outcome::NotStandard(_) | Outcome::OtherEntity, Some(handle)) => {
                handle(message, controller)
            }
        }
    }

    /// Whether the stream may be connected now.
    fn may_connect(&self, controller: &Controller) -> bool {
        controller.is_online() && (controller.is_focused() || !self.pause_when_hidden)
    }

    /// After a reconnect: expires what the stream says it cannot resume,
    /// and refetches every read a view shows that went stale.
    fn catch_up(&self, controller: &Controller) {
        if let Some(matches) = &self.expire_on_reconnect {
            controller.expire_all(|key| matches(key));
        }
        controller.revalidate_observed();
    }
}

impl Controller {
    /// Opens `live` until the returned hold is dropped: the first holder
    /// of a stream connects, later ones share its connection, and the
    /// last one to let go closes it. The connection runs on the
    /// controller's spawner (natively, a tokio `LocalSet`).
    ///
    /// ```no_run
    /// use restcache::prelude::*;
    /// use restcache::live::{Live, StreamStatus};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let live = Live::sse("/events").entity::<Todo>();
    /// let hold = ctrl.open_stream(&live);
    /// assert_eq!(ctrl.stream_status(&live), Some(StreamStatus::Connecting));
    /// drop(hold);
    /// assert_eq!(ctrl.stream_status(&live), None);
    /// ```
    pub fn open_stream(&self, live: &Live) -> StreamHold {
        let key = live.key(self.client());
        self.hold_stream(&key, |ticket| {
            run::keep_open(self.clone(), live.clone(), ticket).boxed_local()
        })
    }

    /// Connects again every stream the server refused
    /// ([`StreamStatus::Refused`]): the app calls it once the user can
    /// have them again (after a log-in). A refused stream waits for it,
    /// through resets too, since a log-out rule would otherwise reset the
    /// cache at each refusal.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Event;
    /// use restcache::live::{Live, StreamStatus};
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// // A log-out rule: a stream refused as signed out ends the session.
    /// let _rule = ctrl.on_event(|event, ctrl| {
    ///     if let Event::RequestFailed { error, .. } = event && error.status() == Some(401) {
    ///         ctrl.reset();
    ///     }
    /// });
    /// // Once the user signed in again:
    /// ctrl.reconnect_streams();
    /// ```
    pub fn reconnect_streams(&self) {
        self.ask_streams_again();
    }

    /// Where the stream `live` stands, or `None` when no one holds it
    /// open.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::live::Live;
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.stream_status(&Live::sse("/events")), None);
    /// ```
    pub fn stream_status(&self, live: &Live) -> Option<StreamStatus> {
        self.stream_status_of(&live.key(self.client()))
    }
}
