//! Building a controller with another clock or other default expiries.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures_util::future::LocalBoxFuture;

use super::handoff::Handoff;
use super::observe::{Spawner, default_spawner};
use super::state::Keys;
use super::{
    Clock, Controller, DEFAULT_DATA_EXPIRY, DEFAULT_ERROR_EXPIRY, Inner, Retention, Retry,
    Settings, State, SystemClock, events,
};
use crate::cache::memo::Memo;
use crate::cache::store::Store;
use crate::http::Client;
use crate::meta::Timestamp;

/// Settings of a [`Controller`] before it is built; see
/// [`Controller::builder`].
#[must_use = "call `build` to get the controller"]
pub struct ControllerBuilder {
    client: Client,
    clock: Rc<dyn Clock>,
    spawner: Spawner,
    settings: Settings,
}

impl ControllerBuilder {
    pub(super) fn new(client: Client) -> Self {
        ControllerBuilder {
            client,
            clock: Rc::new(SystemClock),
            spawner: default_spawner(),
            settings: Settings {
                data_expiry: DEFAULT_DATA_EXPIRY,
                error_expiry: DEFAULT_ERROR_EXPIRY,
                retry: Retry::default(),
                retention: Retention::default(),
                least_used: None,
                share_equal_copies: true,
            },
        }
    }

    /// Where "now" comes from (a [`ManualClock`](super::ManualClock) in
    /// tests).
    pub fn clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Rc::new(clock);
        self
    }

    /// How the controller runs the work nobody awaits (a stale read
    /// revalidating for a view, a poll): by default the browser's task
    /// queue in wasm (`wasm_bindgen_futures::spawn_local`) and tokio's
    /// `spawn_local` natively (inside a `LocalSet`).
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080"))
    ///     .spawner(|task| drop(tokio::task::spawn_local(task)))
    ///     .build();
    /// assert!(ctrl.is_idle());
    /// ```
    pub fn spawner(mut self, spawn: impl Fn(LocalBoxFuture<'static, ()>) + 'static) -> Self {
        self.spawner = Rc::new(spawn);
        self
    }

    /// How long responses stay fresh unless their endpoint says
    /// otherwise (default 60 s).
    pub fn data_expiry(mut self, expiry: Duration) -> Self {
        self.settings.data_expiry = expiry;
        self
    }

    /// How long errors stay unless their endpoint says otherwise
    /// (default 1 s).
    pub fn error_expiry(mut self, expiry: Duration) -> Self {
        self.settings.error_expiry = expiry;
        self
    }

    /// How reads retry after a soft error (default [`Retry::default`]:
    /// three times, from 250 ms); [`Retry::NONE`] turns it off. Mutations
    /// never retry.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Retry;
    ///
    /// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080"))
    ///     .retry(Retry::NONE)
    ///     .build();
    /// # let _ = ctrl;
    /// ```
    pub fn retry(mut self, retry: Retry) -> Self {
        self.settings.retry = retry;
        self
    }

    /// Whether a record a response repeats unchanged keeps the stored copy
    /// (default true): every read that nests it, and every view that shows
    /// it, stays as it is. Off, each copy replaces the stored one as it
    /// comes, which makes a response that repeats many records cheaper to
    /// store and every view showing them render again. See
    /// [`Store::share_equal_copies`](crate::Store::share_equal_copies).
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080"))
    ///     .share_equal_copies(false)
    ///     .build();
    /// # let _ = ctrl;
    /// ```
    pub fn share_equal_copies(mut self, share: bool) -> Self {
        self.settings.share_equal_copies = share;
        self
    }

    /// What the cache keeps of what nothing uses, and its bounds (default
    /// [`Retention::default`]: unused results go after 2 minutes or twice
    /// their data expiry; no bounds).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Retention;
    ///
    /// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080"))
    ///     .retention(Retention { max_results: Some(500), max_entities: Some(20_000), ..Retention::default() })
    ///     .build();
    /// # let _ = ctrl;
    /// ```
    pub fn retention(mut self, retention: Retention) -> Self {
        self.settings.retention = retention;
        self.settings.least_used = retention.least_used();
        self
    }

    /// The controller.
    pub fn build(self) -> Controller {
        Controller::from_builder(self.client, self.clock, self.spawner, self.settings)
    }
}

impl std::fmt::Debug for ControllerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerBuilder")
            .field("client", &self.client)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// A controller of what `ControllerBuilder` was given.
    fn from_builder(
        client: Client,
        clock: Rc<dyn Clock>,
        spawner: Spawner,
        settings: Settings,
    ) -> Self {
        let state = State {
            store: Store::sharing(settings.share_equal_copies),
            memo: Memo::new(),
            keys: Keys::default(),
            generation: 0,
            #[cfg(any(feature = "tabs", feature = "persist"))]
            reset_at: Timestamp::from_micros(0),
            serial: 0,
            last_start: Timestamp::default(),
            retention: settings.retention,
            least_used: settings.least_used,
            next_sweep: Timestamp::default(),
            collect_above: (
                settings.retention.max_results.unwrap_or(usize::MAX),
                settings.retention.max_entities.unwrap_or(usize::MAX),
            ),
            touched: Vec::new(),
            handoff: Handoff::default(),
        };
        Controller {
            inner: Rc::new(Inner {
                client,
                clock,
                spawner,
                data_expiry: settings.data_expiry,
                error_expiry: settings.error_expiry,
                retry: settings.retry,
                state: RefCell::new(state),
                observers: RefCell::default(),
                dead_observers: RefCell::default(),
                background: RefCell::default(),
                focused: Cell::new(true),
                online: Cell::new(true),
                batch_depth: Cell::new(0),
                notify_pending: Cell::new(false),
                dropped_layers: RefCell::default(),
                notify_due: Cell::new(false),
                mutating: Cell::new(0),
                events: events::Events::default(),
                offline: RefCell::default(),
                signal_waiters: RefCell::default(),
                #[cfg(feature = "live")]
                streams: RefCell::default(),
                #[cfg(feature = "tabs")]
                shared: super::shared_reads::SharedReads::default(),
            }),
        }
    }
}
