//! The controller: the engine between endpoints and the store. It fetches,
//! dedupes identical reads, applies mutations, keeps errors beside data,
//! tells subscribers what changed, and answers reads with their expiry
//! status. The Yew hooks sit on it; tests, SSR and command-line tools use
//! it directly.
//!
//! `mod.rs` holds the controller and its public reads and fetches;
//! `state` what it holds behind its handle, and how the handle reaches
//! it; `request` makes requests
//! (shared reads, mutations, optimistic layers); `kept_errors` keeps
//! their errors beside the data; `lists` the lists a
//! create joins; `paging` next pages; `edits` changes by hand
//! (invalidate, expire, reset, set a response or an error); `records`
//! writes one record from outside a request; `events` tells listeners
//! what the controller does; `reads`
//! answers reads from the cache; `expiry`
//! classifies reads; `observe` follows reads for views (who read what,
//! what to fetch when, polls, focus and network); `retention` collects
//! what nothing uses; `offline` queues the mutations made while the
//! network is down; `streams` counts the live streams views hold open;
//! `retry`, `clock` and `builder` the settings (`builder` builds the
//! controller).

mod builder;
mod clock;
mod derived;
mod edits;
mod events;
mod expiry;
mod handoff;
mod kept_errors;
mod lists;
mod mutation;
mod observe;
mod offline;
mod paging;
mod reads;
mod records;
mod request;
mod retention;
mod retry;
#[cfg(feature = "persist")]
mod saved;
#[cfg(feature = "tabs")]
mod shared_reads;
mod state;
#[cfg(feature = "live")]
mod streams;
#[cfg(any(feature = "tabs", all(feature = "persist", target_arch = "wasm32")))]
mod weak;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::LocalBoxFuture;
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::cache::schema::Schema;
use crate::cache::store::Store;
use crate::http::{Body, Client, Error};
use crate::meta::Timestamp;
use crate::rest::effect::Action;
use crate::rest::{Effect, Endpoint, Readable};

pub use builder::ControllerBuilder;
pub use clock::{Clock, ManualClock, SystemClock};
pub use edits::WriteError;
pub use events::{Event, EventListener, RecordChange};
pub use expiry::{Cached, ExpiryStatus};
#[cfg(feature = "hydration")]
pub(crate) use handoff::HandedFallback;
pub(crate) use handoff::Recorded;
pub use handoff::{HANDOFF_SCRIPT_ID, HandoffError, MAX_HANDOFF_BYTES, handoff_script};
#[cfg(feature = "yew")]
pub(crate) use observe::{MakePoll, start_poll};
pub use observe::{Observe, PageListener, ReadObserver, Subscription};
#[cfg(feature = "persist")]
pub(crate) use offline::QueuedMutation;
#[cfg(feature = "tabs")]
pub(crate) use records::ForeignLayer;
pub use retention::{Collected, Retention};
pub use retry::Retry;
#[cfg(feature = "persist")]
pub(crate) use saved::SavedResponse;
#[cfg(feature = "tabs")]
pub(crate) use shared_reads::{ReadsElsewhere, SharedAnswer};
#[cfg(feature = "live")]
pub(crate) use streams::StreamTicket;
#[cfg(feature = "live")]
pub use streams::{StreamHold, StreamStatus};

use expiry::StoredError;
use observe::{Observers, Running, Spawner};
pub(crate) use reads::Named;
use state::InFlight;
pub(crate) use state::State;

/// How long a response stays fresh unless its endpoint says otherwise.
pub const DEFAULT_DATA_EXPIRY: Duration = Duration::from_secs(60);
/// How long an error stays unless its endpoint says otherwise.
pub const DEFAULT_ERROR_EXPIRY: Duration = Duration::from_secs(1);

/// What a controller is built with, beside its client and clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    pub data_expiry: Duration,
    pub error_expiry: Duration,
    pub retry: Retry,
    pub retention: Retention,
    /// Set with the retention's bounds (see [`State::least_used`]).
    pub least_used: Option<retention::LeastUsed>,
    pub share_equal_copies: bool,
}

/// Removes an optimistic layer whose mutation went away while the state
/// was borrowed. A closure the mutation makes, so that an app that never
/// mutates carries none of the code that removes layers.
type DroppedLayer = Box<dyn FnOnce(&Controller, &mut State)>;

struct Inner {
    client: Client,
    clock: Rc<dyn Clock>,
    spawner: Spawner,
    data_expiry: Duration,
    error_expiry: Duration,
    retry: Retry,
    state: RefCell<State>,
    observers: RefCell<Observers>,
    /// Observers whose subscription went while `observers` was in use.
    dead_observers: RefCell<Vec<(u32, Rc<Cell<bool>>)>>,
    /// The background fetches on their way, by key, each with a number
    /// of its own. A reset, an invalidation or an expiry of a key takes
    /// its fetch out: a later read does not join a fetch from before.
    background: RefCell<FxHashMap<String, (u64, Running)>>,
    /// Whether the app is in view, and the network up, as last told.
    focused: Cell<bool>,
    online: Cell<bool>,
    /// How many [`Controller::batch`] calls are running, and whether a
    /// notification waits for the outermost to end.
    batch_depth: Cell<u32>,
    notify_pending: Cell<bool>,
    /// Optimistic layers whose mutation went away while the state was
    /// borrowed: each removes its layer at the next use of the state, when
    /// the layer belongs to the state's generation.
    dropped_layers: RefCell<Vec<DroppedLayer>>,
    /// Set when a use of the state removed such a layer: subscribers are
    /// told at the end of that use.
    notify_due: Cell<bool>,
    /// How many mutations are on their way.
    mutating: Cell<usize>,
    /// Who listens to what the controller does, and what waits for them.
    events: events::Events,
    offline: RefCell<offline::OfflineQueue>,
    signal_waiters: RefCell<observe::SignalWaiters>,
    #[cfg(feature = "live")]
    streams: RefCell<streams::Streams>,
    #[cfg(feature = "tabs")]
    shared: shared_reads::SharedReads,
}

/// The data layer of an app: a normalized [`Store`], the HTTP [`Client`]
/// its endpoints call, and a [`Clock`]. A cheap handle: clones share one
/// cache.
///
/// - [`read`](Self::read) answers from the cache with an [`ExpiryStatus`]
///   (Invalid: fetch and wait; Stale: show and refetch; Valid: show).
/// - [`fetch`](Self::fetch) makes an endpoint's request and stores the
///   response. Concurrent reads with one key share one request; mutations
///   never do. An update's record shows in every cached result that holds
///   it; a create joins the cached lists of its resource whose filters it
///   matches (`?userId=2` takes a record whose `userId` is 2); a delete leaves
///   every list.
/// - A failed request never loses cached data: the error is kept beside it
///   for the endpoint's error expiry (1 s by default).
/// - Of two requests that touch one record, the one that *started* later
///   wins, whatever order the responses arrive in.
///
/// ```
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// # let api = restcache_demo::DemoApi::start()?;
/// # let base_url = api.url();
/// # restcache_demo::block_on(async {
/// let ctrl = Controller::new(Client::new(base_url));
/// let todos = ctrl.fetch(&TodoResource::get_list(), &(), None).await?;
/// let cached = ctrl.read(&TodoResource::get_list(), &());
/// assert!(std::rc::Rc::ptr_eq(&todos, cached.data.as_ref().unwrap()));
/// assert_eq!(cached.status, ExpiryStatus::Valid);
/// # Ok::<(), restcache::http::Error>(()) })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # One thread
///
/// A controller is single-threaded (`!Send`): its cache is shared through
/// `Rc` and `RefCell`, which keeps reads free of locks. In a browser that
/// is all there is. Under tokio, run it on one thread: a current-thread
/// runtime, or a [`LocalSet`](https://docs.rs/tokio/latest/tokio/task/struct.LocalSet.html)
/// with `spawn_local` for tasks that hold it. A server that renders pages
/// (SSR) makes one controller per request, inside that request's
/// rendering task, and hands it to the render
/// (`restcache::yew::ServerRender`, feature `ssr`, runs the render on such
/// a task).
///
/// ```
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// # let api = restcache_demo::DemoApi::start()?;
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let tasks = tokio::task::LocalSet::new();
/// let ctrl = Controller::new(Client::new(api.url()));
/// let todos = tasks.block_on(&runtime, async {
///     // Tasks that hold the controller are spawned on this thread.
///     let ctrl = ctrl.clone();
///     tokio::task::spawn_local(async move { ctrl.fetch(&TodoResource::get_list(), &(), None).await })
///         .await
///         .expect("the task ran")
/// })?;
/// assert!(!todos.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Controller {
    inner: Rc<Inner>,
}

/// Two handles are equal when they share one cache.
impl PartialEq for Controller {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

#[cfg(any(feature = "yew", feature = "tabs"))]
impl Controller {
    /// Tells this cache from every other one alive (two handles of one
    /// cache have the same id): a key that holds no handle.
    pub(crate) fn id(&self) -> usize {
        Rc::as_ptr(&self.inner) as usize
    }
}

impl Controller {
    /// A number no other tab (or process) makes, in practice: the time, a
    /// random number in a browser (the process natively), and a count.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub(crate) fn fresh_id(&self) -> u64 {
        thread_local! {
            static MADE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        }
        let count = MADE.with(|made| {
            made.set(made.get() + 1);
            made.get()
        });
        #[cfg(target_arch = "wasm32")]
        let salt = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
        #[cfg(not(target_arch = "wasm32"))]
        let salt = u64::from(std::process::id()) << 32;
        (self.now().as_micros() ^ salt ^ count.rotate_right(16)).max(1)
    }
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("client", &self.inner.client)
            .field("data_expiry", &self.inner.data_expiry)
            .field("error_expiry", &self.inner.error_expiry)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// A controller over `client`, on the wall clock, with the default
    /// expiries (60 s for data, 1 s for errors).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.client().base_url(), "http://127.0.0.1:8080");
    /// ```
    pub fn new(client: Client) -> Self {
        Controller::builder(client).build()
    }

    /// A controller with another clock or other default expiries.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::at(Timestamp::from_millis(0));
    /// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080"))
    ///     .clock(clock.clone())
    ///     .data_expiry(Duration::from_secs(5))
    ///     .build();
    /// clock.advance(Duration::from_secs(1));
    /// assert_eq!(ctrl.now(), Timestamp::from_millis(1_000));
    /// ```
    pub fn builder(client: Client) -> ControllerBuilder {
        ControllerBuilder::new(client)
    }

    /// The HTTP client.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.client().base_url(), "http://127.0.0.1:8080");
    /// ```
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The controller's time now: its clock's (the system's, or a
    /// [`ManualClock`] given to the builder).
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let clock = ManualClock::at(Timestamp::from_millis(5_000));
    /// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080"))
    ///     .clock(clock.clone())
    ///     .build();
    /// assert_eq!(ctrl.now(), Timestamp::from_millis(5_000));
    /// ```
    pub fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    /// Runs `f` on the store (to inspect it: counts, metas, keys). `f`
    /// must not call back into this controller: the store is borrowed
    /// while it runs.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.with_store(|store| store.result_count()), 0);
    /// ```
    pub fn with_store<R>(&self, f: impl FnOnce(&Store) -> R) -> R {
        f(&self.inner.state.borrow().store)
    }

    /// How many read requests are on their way (identical reads share
    /// one).
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.in_flight(), 0);
    /// ```
    pub fn in_flight(&self) -> usize {
        let state = self.inner.state.borrow();
        state
            .keys
            .values()
            .map(|kept| kept.requests().count())
            .sum()
    }

    /// How many subscriptions are live (one per subscribed
    /// [`ReadObserver`], hence per mounted reading hook, and one per
    /// [`subscribe`](Self::subscribe) not yet dropped).
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let subscription = ctrl.subscribe(&TodoResource::get_list(), &(), || {});
    /// assert_eq!(ctrl.subscriber_count(), 1);
    /// drop(subscription);
    /// assert_eq!(ctrl.subscriber_count(), 0);
    /// ```
    pub fn subscriber_count(&self) -> usize {
        self.inner.observers.borrow().len()
    }

    /// What the cache holds for `endpoint` with `params`, classified
    /// against the clock. Never fetches. Params that make no URL give a
    /// `Valid` answer holding that (hard) error.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// assert_eq!(ctrl.read(&TodoResource::get(), &params).status, ExpiryStatus::Invalid);
    /// ctrl.set_response(&TodoResource::get(), &params, std::rc::Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// assert_eq!(ctrl.read(&TodoResource::get(), &params).status, ExpiryStatus::Valid);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn read<P, S, E>(&self, endpoint: &Endpoint<P, S, E>, params: &P) -> Cached<S>
    where
        P: Serialize,
        S: Schema,
        E: Readable,
    {
        match self.key(endpoint, params) {
            Ok(key) => self.read_key(endpoint, params, &key, &|| endpoint.named_pks(params)),
            Err(error) => Cached {
                status: ExpiryStatus::Valid,
                error: Some(error),
                ..Cached::absent()
            },
        }
    }

    /// Makes `endpoint`'s request for `params` (and `body`) and stores the
    /// response; resolves to the result as the cache now shows it.
    ///
    /// - A read ([`Read`](crate::rest::Read)) is stored under its key (with
    ///   `body`, a key of that body's, unless the endpoint has a key
    ///   function of its own: a `POST` search sent with another query is
    ///   another read). While one is on its
    ///   way, every other read of the same key waits for it instead of
    ///   making its own request. A failure is kept beside the cached data
    ///   for the error expiry; the data stays.
    /// - A mutation is never shared. Its response's records are merged into
    ///   the store (every result that holds them shows the change); a
    ///   create's record joins the cached `GET` lists of the same URL whose
    ///   query params its fields match (one it cannot judge goes stale); a
    ///   delete's record becomes Invalid and leaves every list.
    /// - A response to a request that started before a [`reset`](Self::reset)
    ///   is handed back but not stored.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let list = ctrl.fetch(&TodoResource::get_list(), &(), None).await?;
    ///
    /// let body = Body::json(&serde_json::json!({"title": "renamed"})).unwrap();
    /// let todo = ctrl.fetch(&TodoResource::partial_update(), &TodoResourceParams { id: 1 }, Some(body)).await?;
    /// assert_eq!(todo.title, "renamed");
    /// // The cached list shows the change, with no refetch.
    /// let cached = ctrl.read(&TodoResource::get_list(), &());
    /// assert_eq!(cached.data.unwrap()[0].title, "renamed");
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn fetch<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        body: Option<Body>,
    ) -> Result<S::Handle, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Effect,
    {
        let (key, url) = self.locate(endpoint, params)?;
        // Each kind's request is boxed apart, so a read's code carries no
        // mutation's future (nor a mutation's a read's): with both in one
        // state machine, every read linked the mutation path's drop glue.
        let fetched: LocalBoxFuture<'_, Result<Rc<S>, Error>> = match E::ACTION {
            Action::Read => {
                // A body is part of what is asked (a search's query): two
                // bodies, two reads; an endpoint's own key function
                // names its reads as it says.
                let key = match &body {
                    Some(body) if !endpoint.has_own_key() => request::key_with_body(key, body),
                    _ => key,
                };
                self.fetch_read(endpoint, params, body, (key, url), false)
                    .boxed_local()
            }
            Action::Mutate | Action::Create | Action::Delete => {
                let started = self.start_mutation(endpoint, params, &key, &url, None)?;
                self.finish_mutation(endpoint, params, body, key, url, started, None)
                    .boxed_local()
            }
        };
        fetched.await.map(S::into_handle)
    }

    /// A mutation whose expected result `optimistic` is applied at once,
    /// when this is called (every view of its records shows it), then
    /// replaced by the real response when the returned future is awaited,
    /// or taken back if the request fails.
    ///
    /// The optimistic value is a layer over the confirmed data: responses
    /// that land while it shows update the data beneath it, later
    /// optimistic writes go on top of it, and when its request ends the
    /// layer goes and what lies beneath shows (an earlier write still
    /// under way, or the newest confirmed copy). A failed write never
    /// brings back a copy older than one the server has sent since.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Todo { id: u64, user_id: u64, title: String, completed: bool }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let params = TodoResourceParams { id: 1 };
    /// let todo = ctrl.fetch(&TodoResource::get(), &params, None).await?;
    ///
    /// let done = Todo { completed: true, ..(*todo).clone() };
    /// let body = Body::json(&done).unwrap();
    /// let update = TodoResource::update();
    /// let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(done));
    /// // Shown at once, before the server answers.
    /// assert!(ctrl.read(&TodoResource::get(), &params).data.unwrap().completed);
    /// request.await?;
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fetch_optimistic<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        body: Option<Body>,
        optimistic: S,
    ) -> impl Future<Output = Result<S::Handle, Error>>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Effect,
    {
        let started = self.locate(endpoint, params).and_then(|(key, url)| {
            let started = self.start_mutation(endpoint, params, &key, &url, Some(optimistic))?;
            Ok((key, url, started))
        });
        async move {
            let (key, url, started) = started?;
            self.finish_mutation(endpoint, params, body, key, url, started, None)
                .await
                .map(S::into_handle)
        }
    }

    /// The read's data, fetched only when the cache has no fresh copy:
    /// the cached data when it is Valid; otherwise (Invalid, Stale) a
    /// [`fetch`](Self::fetch). A read whose last request failed, while the
    /// error has not expired, gives the error unless it is soft and data
    /// is cached.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// # answered_at_once(async {
    /// let todo = ctrl.ensure(&TodoResource::get(), &params).await?; // fresh: no request
    /// assert_eq!(todo.title, "a");
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # fn answered_at_once<F: std::future::Future>(f: F) -> F::Output {
    /// #     futures_util::FutureExt::now_or_never(f).expect("answered from the cache")
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn ensure<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Result<S::Handle, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Readable,
    {
        let cached = self.read(endpoint, params);
        if cached.status == ExpiryStatus::Valid
            && let Some(settled) = cached.settled()
        {
            return settled;
        }
        self.fetch(endpoint, params, None).await
    }
}
