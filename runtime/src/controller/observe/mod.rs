//! Observers: the policy of *when* a read fetches, apart from any UI
//! framework. A [`ReadObserver`] follows one read for one view: it reads
//! it, fetches what must be waited for, and while subscribed it tells the
//! view of changes, revalidates a stale read when it starts watching and
//! when the app comes back into view or online, and polls. A UI adapter
//! (the Yew hooks) only turns its callbacks into re-renders and its
//! waits into suspensions.
//!
//! `registry` indexes the observers by what they watch, so a write
//! re-checks only those of the keys and records it touched; `subscribe`
//! holds the subscriptions and the notification round (batched with
//! [`Controller::batch`]); `background` the fetches nobody awaits;
//! `poll` the polling loops; `signals` focus and network.

mod background;
mod poll;
mod registry;
mod signals;
mod subscribe;

use std::rc::Rc;
use std::time::Duration;

use serde::Serialize;

use crate::cache::schema::Schema;
use crate::controller::{Cached, Controller, Named};
use crate::http::Error;
use crate::rest::{Endpoint, Read, Readable};

pub(crate) use background::{Background, Running, Spawner, default_spawner};
pub(crate) use registry::{Entry, Holds, Look, Observers, Watching};
pub use signals::PageListener;
pub(crate) use signals::SignalWaiters;
pub use subscribe::Subscription;

use poll::PollFetch;
use subscribe::read_check;
pub(crate) use subscribe::{Seen, WaitedSince, waited_for};

/// What a [`ReadObserver`] does while subscribed, beside reading.
///
/// ```
/// use restcache::Observe;
///
/// let options = Observe::new().changes().revalidate();
/// assert!(options.changes && options.revalidate && !options.poll);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Observe {
    /// Tell the view when the read's data or error changes.
    pub changes: bool,
    /// Tell it too when a request for the read starts or ends (a
    /// "refreshing" indicator).
    pub fetching: bool,
    /// Refetch the read when stale: when the observer starts watching it
    /// (on subscribing, and on a change of read), and when the app comes
    /// back into view or online.
    pub revalidate: bool,
    /// Poll the read at its endpoint's `poll_frequency`; several
    /// observers of one read poll it once, at the shortest period.
    pub poll: bool,
}

impl Observe {
    /// Nothing beside reading.
    pub const fn new() -> Self {
        Observe {
            changes: false,
            fetching: false,
            revalidate: false,
            poll: false,
        }
    }

    /// With [`changes`](Self::changes).
    pub const fn changes(self) -> Self {
        Observe {
            changes: true,
            ..self
        }
    }

    /// With [`fetching`](Self::fetching) (and changes).
    pub const fn fetching(self) -> Self {
        Observe {
            changes: true,
            fetching: true,
            ..self
        }
    }

    /// With [`revalidate`](Self::revalidate).
    pub const fn revalidate(self) -> Self {
        Observe {
            revalidate: true,
            ..self
        }
    }

    /// With [`poll`](Self::poll).
    pub const fn poll(self) -> Self {
        Observe { poll: true, ..self }
    }
}

/// The endpoint of the read an observer follows, as the view last gave
/// it: shared with the revalidation and the polls it set up, so that a
/// fetch function that captures what a render had (a token) sends what
/// the latest render had.
type LatestEndpoint<P, S> = Rc<std::cell::RefCell<Endpoint<P, S, Read>>>;

/// The read an observer follows.
struct Current<P, S> {
    endpoint: LatestEndpoint<P, S>,
    params: P,
    /// The pks of the record it names, if the cache may answer it from
    /// that record.
    named: Named,
    /// Its key, or why its params make no URL.
    key: Result<String, Error>,
}

/// Follows one read for one view: what the view shows, when to fetch,
/// and when to tell the view to look again.
///
/// - [`set`](Self::set) says which read (cheap when it is the same one);
///   [`read`](Self::read) answers from the cache; [`wait`](Self::wait)
///   fetches a read the view must wait for (identical reads share one
///   request).
/// - [`subscribe`](Self::subscribe) starts watching, as the
///   [`Observe`] options say: the callback runs when the read changes
///   (and once at once if it changed since the view's last `read`), a
///   stale read revalidates, a polled read polls. A new read given to
///   `set` while subscribed is watched in its place.
/// - Dropping the observer (or [`unsubscribe`](Self::unsubscribe)) stops
///   all of it.
///
/// Background work (revalidation, polls) runs on the controller's
/// spawner: natively, inside a tokio `LocalSet`.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::{Observe, ReadObserver};
/// use std::{cell::Cell, rc::Rc};
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// # let api = restcache_demo::DemoApi::start()?;
/// # restcache_demo::block_on(tokio::task::LocalSet::new().run_until(async {
/// let ctrl = Controller::new(Client::new(api.url()));
/// let mut todo = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
/// todo.set(&TodoResource::get(), &TodoResourceParams { id: 1 });
/// assert!(todo.read().unwrap().data.is_none());
///
/// let renders = Rc::new(Cell::new(0));
/// let rendered = Rc::clone(&renders);
/// todo.subscribe(move || rendered.set(rendered.get() + 1));
/// todo.wait().unwrap().await; // fetched, stored, and the view told
/// assert_eq!(renders.get(), 1);
/// assert_eq!(todo.read().unwrap().data.unwrap().title, "delectus aut autem");
/// # }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ReadObserver<P, S: Schema> {
    controller: Controller,
    options: Observe,
    /// Makes the fetch a poll of the read runs, when it polls. A view
    /// that never polls has none, and its build carries no poll code.
    make_poll: Option<MakePoll<P, S>>,
    current: Option<Current<P, S>>,
    /// What the view last read.
    seen: Option<Seen<S>>,
    /// The view's callback, while subscribed.
    on_change: Option<Rc<dyn Fn()>>,
    subscription: Option<Subscription>,
    /// Since when the view waits for an answer of a read that must not
    /// show stale data: that answer shows, though stale on arrival.
    waited: WaitedSince,
    /// Whether the view shows such an answer now.
    shows_waited: bool,
}

impl<P, S: Schema> std::fmt::Debug for ReadObserver<P, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadObserver")
            .field("options", &self.options)
            .field(
                "key",
                &self.current.as_ref().and_then(|c| c.key.as_deref().ok()),
            )
            .field("subscribed", &self.on_change.is_some())
            .finish_non_exhaustive()
    }
}

impl<P, S> ReadObserver<P, S>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
{
    /// An observer of reads on `controller`, following no read yet.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64 }
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let observer = ReadObserver::<(), Vec<std::rc::Rc<Todo>>>::new(&ctrl, Observe::new());
    /// assert_eq!(observer.key(), None);
    /// ```
    pub fn new(controller: &Controller, options: Observe) -> Self {
        let make_poll = options.poll.then_some(start_poll::<P, S> as MakePoll<P, S>);
        Self::polling_with(controller, options, make_poll)
    }

    /// As [`new`](Self::new), with `make_poll` making a poll's fetch: a
    /// hook that never polls passes `None`, so that its build leaves the
    /// poll code out.
    pub(crate) fn polling_with(
        controller: &Controller,
        options: Observe,
        make_poll: Option<MakePoll<P, S>>,
    ) -> Self {
        ReadObserver {
            controller: controller.clone(),
            options,
            make_poll,
            current: None,
            seen: None,
            on_change: None,
            subscription: None,
            waited: WaitedSince::default(),
            shows_waited: false,
        }
    }

    /// Keeps since when the view waits in `waited` (a hook's state, which
    /// outlives an observer made for one server render).
    #[cfg(feature = "yew")]
    pub(crate) fn keep_waited_in(&mut self, waited: &WaitedSince) {
        self.waited = Rc::clone(waited);
    }

    /// Forgets what the view waited for: another read, or none.
    fn forget_waited(&mut self) {
        self.waited.set(None);
        self.shows_waited = false;
    }

    /// The controller it reads from.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64 }
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let observer = ReadObserver::<(), Vec<std::rc::Rc<Todo>>>::new(&ctrl, Observe::new());
    /// assert_eq!(observer.controller(), &ctrl);
    /// ```
    pub fn controller(&self) -> &Controller {
        &self.controller
    }

    /// Follows `endpoint` with `params`; returns whether that is another
    /// read than the one followed (the same endpoint's keys and equal
    /// params are the same read). While subscribed, the new read is
    /// watched in place of the old one; the same read given other options
    /// (`poll_frequency`, the expiries) is watched as they now say.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64 }
    /// # resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let mut observer = ReadObserver::new(&ctrl, Observe::new());
    /// assert!(observer.set(&TodoResource::get(), &TodoResourceParams { id: 1 }));
    /// assert!(!observer.set(&TodoResource::get(), &TodoResourceParams { id: 1 }));
    /// assert_eq!(observer.key(), Some("GET http://127.0.0.1:8080/todos/1"));
    /// ```
    pub fn set<E: Readable>(&mut self, endpoint: &Endpoint<P, S, E>, params: &P) -> bool {
        if let Some(current) = &mut self.current
            && current.params == *params
            && current.endpoint.borrow().keys_like(endpoint)
        {
            // The same read, through the endpoint as this render made it.
            let options_changed = current.endpoint.borrow().options() != endpoint.options();
            *current.endpoint.borrow_mut() = endpoint.clone().with_effect();
            // Other options (a poll switched on or off, another expiry):
            // watched as they now say.
            if options_changed && self.on_change.is_some() {
                self.attach();
            }
            return false;
        }
        // Another read than the one waited for (a first read leaves what
        // a hook kept of the same read's last render).
        if self.current.is_some() {
            self.forget_waited();
        }
        self.current = Some(Current {
            endpoint: Rc::new(std::cell::RefCell::new(endpoint.clone().with_effect())),
            params: params.clone(),
            named: endpoint.named_pks(params),
            key: self.controller.key(endpoint, params),
        });
        self.seen = None;
        if self.on_change.is_some() {
            self.attach();
        }
        true
    }

    /// Follows no read: nothing to read, watch or poll.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64 }
    /// # resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let mut observer = ReadObserver::new(&ctrl, Observe::new());
    /// observer.set(&TodoResource::get(), &TodoResourceParams { id: 1 });
    /// observer.clear();
    /// assert!(observer.read().is_none());
    /// ```
    pub fn clear(&mut self) {
        self.current = None;
        self.seen = None;
        self.forget_waited();
        self.subscription = None;
    }

    /// The key of the read followed; `None` without one, or when its
    /// params make no URL.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64 }
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let observer = ReadObserver::<(), Vec<std::rc::Rc<Todo>>>::new(&ctrl, Observe::new());
    /// assert_eq!(observer.key(), None);
    /// ```
    pub fn key(&self) -> Option<&str> {
        self.current.as_ref()?.key.as_deref().ok()
    }

    /// What the cache holds for the read, as [`Controller::read`] answers
    /// (params that make no URL give that error); `None` without a read.
    /// The observer remembers what it handed out: a change between this
    /// read and [`subscribe`](Self::subscribe) is reported at once.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64 }
    /// # resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let mut observer = ReadObserver::new(&ctrl, Observe::new());
    /// observer.set(&TodoResource::get(), &TodoResourceParams { id: 1 });
    /// assert_eq!(observer.read().unwrap().status, ExpiryStatus::Invalid);
    /// ```
    pub fn read(&mut self) -> Option<Cached<S>> {
        let current = self.current.as_ref()?;
        let key = match &current.key {
            Ok(key) => key,
            Err(error) => {
                return Some(Cached {
                    status: crate::controller::ExpiryStatus::Valid,
                    error: Some(error.clone()),
                    ..Cached::absent()
                });
            }
        };
        let named = &current.named;
        let endpoint = current.endpoint.borrow();
        let (cached, seen) = self.controller.read_key_seen(
            &endpoint,
            &current.params,
            key,
            &|| named.clone(),
            Some(&self.waited),
        );
        // An answer fresh when shown goes once stale, as any other.
        if cached.data.is_some() && cached.status == crate::controller::ExpiryStatus::Valid {
            self.waited.set(None);
        }
        self.shows_waited = endpoint.options().invalid_if_stale
            && cached.status == crate::controller::ExpiryStatus::Stale;
        drop(endpoint);
        self.seen = Some(seen);
        Some(cached)
    }

    /// Fetches the read for a view that waits for it, unless a fetch of
    /// its key is on its way (then it joins that one); resolves once the
    /// response (or the error) is stored. `None` without a read whose
    /// params make a URL. The fetch runs while someone awaits it: once
    /// every view waiting on it dropped its future before the answer (the
    /// views went), the request is cancelled
    /// ([`Event::RequestCancelled`](crate::Event::RequestCancelled)),
    /// unless a background revalidation of the key holds it.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64, title: String }
    /// # resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(tokio::task::LocalSet::new().run_until(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let mut observer = ReadObserver::new(&ctrl, Observe::new());
    /// observer.set(&TodoResource::get(), &TodoResourceParams { id: 1 });
    /// observer.wait().unwrap().await;
    /// assert_eq!(observer.read().unwrap().status, ExpiryStatus::Valid);
    /// # }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wait(&self) -> Option<Background> {
        let current = self.current.as_ref()?;
        let key = current.key.as_ref().ok()?;
        self.waited.set(Some(self.controller.now()));
        Some(
            self.controller
                .fetch_while_awaited(&current.endpoint.borrow(), &current.params, key),
        )
    }

    /// Starts watching the read (and any read given to [`set`](Self::set)
    /// after), as the observer's [`Observe`] options say. `on_change`
    /// runs when the read changes; it runs once at once when the read
    /// changed since the last [`read`](Self::read) (a response that
    /// landed between a view's render and its subscription).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # use std::{cell::Cell, rc::Rc};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64, title: String }
    /// # resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// let mut observer = ReadObserver::new(&ctrl, Observe::new().changes());
    /// observer.set(&TodoResource::get(), &params);
    /// observer.read(); // what the view shows: nothing yet
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    ///
    /// let told = Rc::new(Cell::new(0));
    /// let seen = Rc::clone(&told);
    /// observer.subscribe(move || seen.set(seen.get() + 1));
    /// assert_eq!(told.get(), 1, "the response landed after the view read");
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn subscribe(&mut self, on_change: impl Fn() + 'static) {
        self.on_change = Some(Rc::new(on_change));
        self.attach();
    }

    /// Stops watching: no callback, revalidation or polling.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::{Observe, ReadObserver};
    /// # #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// # struct Todo { id: u64 }
    /// # resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let mut observer = ReadObserver::new(&ctrl, Observe::new().changes());
    /// observer.set(&TodoResource::get_list(), &());
    /// observer.subscribe(|| {});
    /// assert_eq!(ctrl.subscriber_count(), 1);
    /// observer.unsubscribe();
    /// assert_eq!(ctrl.subscriber_count(), 0);
    /// ```
    pub fn unsubscribe(&mut self) {
        self.on_change = None;
        self.subscription = None;
    }

    /// Registers the current read with the controller, in place of the
    /// last one.
    fn attach(&mut self) {
        self.subscription = None;
        let (Some(current), Some(on_change)) = (&self.current, &self.on_change) else {
            return;
        };
        let Ok(key) = &current.key else {
            return;
        };
        let options = self.options;
        let (latest, params) = (Rc::clone(&current.endpoint), current.params.clone());
        let endpoint_options = latest.borrow().options();
        let revalidate = options.revalidate.then(|| {
            let (latest, params) = (Rc::clone(&latest), params.clone());
            Rc::new(move |ctrl: &Controller| ctrl.revalidate(&latest.borrow(), &params)) as _
        });
        let make_poll = self.make_poll.filter(|_| options.poll);
        let poll = endpoint_options
            .poll_frequency
            .filter(|_| make_poll.is_some());
        let on_change = if options.changes {
            Rc::clone(on_change)
        } else {
            Rc::new(|| {})
        };
        // Without a read by the view, the first look reports nothing.
        let report = self.seen.is_some();
        let check = read_check::<S>(
            key.clone(),
            current.named.clone(),
            options.fetching,
            (
                endpoint_options.invalid_if_stale,
                Some(Rc::clone(&self.waited)),
            ),
            self.seen.take(),
        );
        let holds = registry::Holds::of_read::<S>(Some(key), &current.named);
        let entry = Entry {
            revalidate,
            poll,
            ..Entry::new(Some(key.clone()), holds, check, on_change)
        };
        let (subscription, changed) = self.controller.add_observer(entry);
        if let (Some(make_poll), Some(every)) = (make_poll, poll) {
            make_poll(
                &self.controller,
                subscription.id,
                key,
                every,
                &latest,
                &params,
            );
        }
        self.subscription = Some(subscription);
        // An answer the view waited for, stale on arrival, is not fetched
        // again for showing it.
        if options.revalidate && !self.shows_waited {
            self.controller.revalidate(&latest.borrow(), &params);
        }
        if let (Some(changed), true) = (changed, report) {
            changed();
        }
    }
}

/// Starts the observer `id` polling `key`, its read of `endpoint` for
/// `params`, every period.
pub(crate) type MakePoll<P, S> = fn(&Controller, u32, &str, Duration, &LatestEndpoint<P, S>, &P);

/// Starts the observer `id` polling `key`, its read of `endpoint` for
/// `params`, every `every`.
pub(crate) fn start_poll<P, S>(
    controller: &Controller,
    id: u32,
    key: &str,
    every: Duration,
    endpoint: &LatestEndpoint<P, S>,
    params: &P,
) where
    P: Serialize + Clone + 'static,
    S: Schema,
{
    let (latest, params) = (Rc::clone(endpoint), params.clone());
    let fetch: PollFetch = Rc::new(move |ctrl: Controller| {
        let (endpoint, params) = (latest.borrow().clone(), params.clone());
        Box::pin(async move { ctrl.fetch_polled(&endpoint, &params).await })
    });
    controller.join_poll(id, key, every, fetch);
}
