//! The embedded demo API: an in-process REST server on 127.0.0.1, seeded
//! with the records of the docs' examples (todos, users, comments, profiles,
//! birthdays, paginated posts) and its custom routes, with real create,
//! update and delete. Examples and tests start one, point a `Client` at
//! [`DemoApi::url`], and stop it by dropping it.
//!
//! It behaves as popular off-the-shelf REST servers do: a list filters by
//! field (`/todos?userId=2`), pages (`?_page=2&_limit=10`, with
//! `X-Total-Count` and a `Link` header), embeds children
//! (`/posts/1?_embed=comments`) and expands parents (`/todos/1?_expand=user`);
//! a create answers `201 Created` with a `Location`; a `PUT` replaces the
//! whole record and a `PATCH` changes the fields it names.
//!
//! It runs on a thread of its own (axum on a one-thread tokio runtime), so
//! it answers whatever runtime the client side uses. Switches for demos
//! and tests: [`DemoApi::set_delay`] holds every answer back,
//! [`DemoApi::hold`] holds every answer until released,
//! [`DemoApi::set_outage`] makes every route answer 503, and
//! [`DemoApi::hits`] counts requests per `METHOD /path`. A test in another
//! process (a browser) reaches the same switches over HTTP: `GET
//! /__demo/hits`, `GET` and `PUT /__demo/switches`, `POST /__demo/reset`. Every
//! route answers CORS requests from any origin. `POST /graphql` answers
//! GraphQL over the same todos and users (see `graphql.rs`).

mod files;
mod graphql;
mod live;
mod query;
mod routes;
mod seed;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

/// The records of one resource, by id.
pub struct Collection {
    pub records: std::collections::BTreeMap<u64, Value>,
    pub next_id: u64,
    /// The wire form carries ids as strings (profiles, birthdays).
    pub string_ids: bool,
}

/// What the server's handlers share with the [`DemoApi`] handle.
#[derive(Default)]
pub struct Shared {
    pub collections: Mutex<HashMap<&'static str, Collection>>,
    pub hits: Mutex<HashMap<String, usize>>,
    pub outage: AtomicBool,
    pub delay_ms: AtomicU64,
    /// While set, every answer waits for [`Shared::released`].
    pub held: AtomicBool,
    pub released: tokio::sync::Notify,
    /// The live streams: what changed, pushed to who listens.
    pub live: live::Hub,
    /// The files uploaded to `POST /files`, by id (from 1).
    pub files: Mutex<Vec<files::StoredFile>>,
}

impl Shared {
    /// Back to the seeded records, with no hits and the switches off.
    pub fn reset(&self) {
        let seeded = seed::seeded();
        let records = std::mem::take(&mut *seeded.collections());
        *self.collections() = records;
        self.hits.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.outage.store(false, Ordering::Relaxed);
        self.delay_ms.store(0, Ordering::Relaxed);
        self.live.reset();
        self.files.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.release();
    }

    /// Lets every held answer go, and the next ones through.
    pub fn release(&self) {
        self.held.store(false, Ordering::SeqCst);
        self.released.notify_waiters();
    }

    /// Waits while answers are held.
    pub async fn until_released(&self) {
        loop {
            // Made before the check: a release in between still wakes it.
            let released = self.released.notified();
            if !self.held.load(Ordering::SeqCst) {
                return;
            }
            released.await;
        }
    }

    /// The collections; a handler that panicked cannot poison them for
    /// the rest of the run.
    pub fn collections(&self) -> MutexGuard<'_, HashMap<&'static str, Collection>> {
        self.collections.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A running demo API on 127.0.0.1; dropping it stops the server.
///
/// It holds the records of the docs' examples (todos, users, comments,
/// profiles with string ids, birthdays, paginated posts) and behaves as
/// popular off-the-shelf REST servers do: lists filter by field
/// (`/todos?userId=2`), page (`?_page=2&_limit=10`, with `X-Total-Count`
/// and a `Link` header), embed and expand; a create answers
/// `201 Created`; a `PUT` replaces, a `PATCH` merges.
///
/// For a browser app:
///
/// - Every route answers CORS requests from any origin, so a page served
///   from elsewhere (a `trunk serve`, a server-rendered page) may call it.
/// - [`DemoApi::start_on`] listens on a port of your choosing, so the
///   app's `base_url` stays the same from run to run
///   (`cargo run -p restcache-demo --bin demo-api -- --port 3000`).
/// - The switches and counters are routes too, for a page or a test in
///   another process: `GET /__demo/hits` (requests per `METHOD /path`),
///   `PUT /__demo/switches` with `{"outage": true}` (every route answers
///   503) or `{"delayMs": 300}` (`GET` says how they are set), `POST /__demo/reset` (the seeded records
///   back, counters at 0). They are never counted nor switched.
///
/// ```
/// use restcache_demo::DemoApi;
///
/// let api = DemoApi::start()?;
/// api.set_outage(true);
/// assert_eq!(api.hits("GET /todos"), 0);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct DemoApi {
    url: String,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl DemoApi {
    /// Starts a server on a free port of 127.0.0.1, seeded afresh.
    pub fn start() -> std::io::Result<DemoApi> {
        DemoApi::start_on(0)
    }

    /// Starts a server on `port` of 127.0.0.1 (`0`: a free one), seeded
    /// afresh; an error when the port is taken.
    ///
    /// ```
    /// use restcache_demo::DemoApi;
    ///
    /// let first = DemoApi::start()?;
    /// let port: u16 = first.url().rsplit(':').next().unwrap().parse().unwrap();
    /// assert!(DemoApi::start_on(port).is_err(), "taken");
    /// drop(first);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn start_on(port: u16) -> std::io::Result<DemoApi> {
        let shared = Arc::new(seed::seeded());
        let listener = std::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))?;
        listener.set_nonblocking(true)?;
        let url = format!("http://{}", listener.local_addr()?);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (shutdown, stop) = oneshot::channel::<()>();
        let app = routes::router(Arc::clone(&shared));
        let thread = std::thread::Builder::new()
            .name("demo-api".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    let stopped = async {
                        let _ = stop.await;
                    };
                    let _ = axum::serve(listener, app)
                        .with_graceful_shutdown(stopped)
                        .await;
                });
            })?;
        Ok(DemoApi {
            url,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The base URL, e.g. `http://127.0.0.1:40123`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How many requests `METHOD /path` (query left out) has answered.
    pub fn hits(&self, route: &str) -> usize {
        let hits = self.shared.hits.lock().unwrap_or_else(|e| e.into_inner());
        hits.get(route).copied().unwrap_or(0)
    }

    /// While on, every route answers `503 Service Unavailable`.
    pub fn set_outage(&self, on: bool) {
        self.shared.outage.store(on, Ordering::Relaxed);
    }

    /// Whether the outage is on (set here or through `PUT /__demo/switches`).
    ///
    /// ```
    /// let api = restcache_demo::DemoApi::start()?;
    /// api.set_outage(true);
    /// assert!(api.outage());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn outage(&self) -> bool {
        self.shared.outage.load(Ordering::Relaxed)
    }

    /// Holds every answer back by `delay`.
    pub fn set_delay(&self, delay: Duration) {
        let millis = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.shared.delay_ms.store(millis, Ordering::Relaxed);
    }

    /// Holds every answer (requests are counted as they arrive) until the
    /// returned guard is dropped: a test sees which requests are on the
    /// server at once.
    pub fn hold(&self) -> Held<'_> {
        self.shared.held.store(true, Ordering::SeqCst);
        Held(&self.shared)
    }

    /// How many stream connections (`/events`, `/socket`) are open now.
    pub fn streams_open(&self) -> usize {
        self.shared.live.open.load(Ordering::SeqCst)
    }

    /// How many stream connections resumed from a message id.
    pub fn streams_resumed(&self) -> usize {
        self.shared.live.resumed.load(Ordering::Relaxed)
    }

    /// Drops every open stream connection (clients may come back).
    pub fn drop_streams(&self) {
        self.shared.live.drop_connections();
    }

    /// Pushes `message` (a JSON object) to every open stream.
    pub fn publish(&self, message: Value) {
        self.shared.live.publish(message);
    }

    /// The records of `collection` as the server holds them now.
    pub fn records(&self, collection: &str) -> Vec<Value> {
        let collections = self.shared.collections();
        collections
            .get(collection)
            .map(|c| c.records.values().cloned().collect())
            .unwrap_or_default()
    }
}

/// Answers are held while this lives; see [`DemoApi::hold`].
pub struct Held<'a>(&'a Shared);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.release();
    }
}

impl Drop for DemoApi {
    fn drop(&mut self) {
        // Graceful shutdown waits for open streams: end them first.
        self.shared.live.close();
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
