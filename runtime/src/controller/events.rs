//! What the controller does, told to whoever listens: requests starting,
//! responses stored, failures, invalidations, records written from
//! outside a request, resets. The seat of a logger, a devtools panel, or
//! a rule such as "log out on 401".
//!
//! Listeners run after the write they tell of, outside every borrow of the
//! controller, so they may call it (reset it, invalidate, fetch). Nothing
//! is built for an event when no one listens.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use super::{Controller, Inner};
use crate::http::{Error, Method};
use crate::pk::Pk;

/// Something the controller did. Keys read `METHOD url`, as the cache
/// stores them.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::Event;
/// use std::{cell::RefCell, rc::Rc};
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let heard = Rc::new(RefCell::new(Vec::new()));
/// let log = Rc::clone(&heard);
/// let _listener = ctrl.on_event(move |event, _| log.borrow_mut().push(event.clone()));
/// ctrl.set_response(&TodoResource::get_list(), &(), vec![])?;
/// ctrl.reset();
/// assert_eq!(*heard.borrow(), [
///     Event::ResponseStored { key: "GET http://127.0.0.1:8080/todos".into() },
///     Event::Reset,
/// ]);
/// # Ok::<(), restcache::WriteError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A request is on its way: a read no other read was waiting for, a
    /// mutation (again after each [`MutationUnsent`](Self::MutationUnsent)),
    /// a next page. It ends with [`ResponseStored`](Self::ResponseStored),
    /// [`RequestFailed`](Self::RequestFailed), [`RequestCancelled`](Self::RequestCancelled),
    /// [`MutationUnsent`](Self::MutationUnsent) or a [`Reset`](Self::Reset).
    /// With tabs that agree, a read that another tab's request answers
    /// starts too, though it sends nothing itself.
    RequestStarted {
        /// The cache key it answers.
        key: String,
        /// Its method.
        method: Method,
        /// Its absolute URL.
        url: String,
    },
    /// A mutation waits for the network: it was made while offline, or
    /// behind mutations that were. It is sent when the network is back
    /// (then [`RequestStarted`](Self::RequestStarted)), in order.
    MutationQueued {
        /// The cache key it answers.
        key: String,
    },
    /// A queued mutation left the queue: answered, or given up (its call
    /// dropped) before its answer came. A saved queue drops it too.
    MutationDequeued {
        /// The cache key it answers.
        key: String,
    },
    /// A queued mutation was sent and found no server (no response at
    /// all: the browser says online, but the server cannot be reached).
    /// It stays queued, its optimistic value on show, and is sent again
    /// after a wait that grows with each try, or sooner when the network
    /// or focus changes.
    MutationUnsent {
        /// The cache key it answers.
        key: String,
        /// Why it found no server.
        error: Error,
    },
    /// A mutation's optimistic value is on show: every view of its
    /// records shows it until the mutation ends
    /// ([`OptimisticEnded`](Self::OptimisticEnded) with the same
    /// `layer`) or a [`Reset`](Self::Reset) empties the cache.
    OptimisticShown {
        /// The cache key the mutation answers.
        key: String,
        /// The optimistic value's id, unique within the controller.
        layer: u64,
    },
    /// A mutation's optimistic value is no longer on show: its mutation
    /// was answered (the answer shows instead), failed (the confirmed
    /// data shows again) or was given up.
    OptimisticEnded {
        /// The cache key the mutation answers.
        key: String,
        /// The id [`OptimisticShown`](Self::OptimisticShown) gave.
        layer: u64,
    },
    /// A response (or a value set by hand as one) is stored under `key`.
    ResponseStored {
        /// The cache key.
        key: String,
    },
    /// A request failed (after its retries). An error stored by hand is
    /// [`ErrorStored`](Self::ErrorStored). A live stream the server
    /// refused (feature `live`) fails so too, under the stream's key.
    RequestFailed {
        /// The cache key it answers.
        key: String,
        /// Why.
        error: Error,
    },
    /// A request ended with its answer unused: every component waiting
    /// for a read went away before it came, the cache holds a newer answer
    /// for its key (written after the request started), or the list a
    /// next page was for was fetched again meanwhile.
    RequestCancelled {
        /// The cache key it would have answered.
        key: String,
    },
    /// An error was stored by hand as a read's outcome
    /// ([`Controller::set_error`], a test's error fixture): no request
    /// failed.
    ErrorStored {
        /// The cache key.
        key: String,
        /// The error stored.
        error: Error,
    },
    /// A read was invalidated: its next use fetches.
    Invalidated {
        /// The cache key.
        key: String,
    },
    /// A read's data was marked stale by hand
    /// ([`Controller::expire_all`]): it stays on show while a watched
    /// read fetches it again.
    Expired {
        /// The cache key.
        key: String,
    },
    /// One record was written, deleted or invalidated outside a request
    /// ([`Controller::set_entity`] and its family, or
    /// [`Controller::invalidate_entity`]).
    Record {
        /// Its entity key (`Todo`).
        entity: &'static str,
        /// Its pk.
        pk: Pk,
        /// What happened to it.
        change: RecordChange,
    },
    /// The whole cache was emptied ([`Controller::reset`]). The requests
    /// on their way then end with no event of their own: their answers
    /// are not stored.
    Reset,
    /// A live stream's status changed (feature `live`): it connected,
    /// dropped, paused.
    #[cfg(feature = "live")]
    StreamChanged {
        /// The stream's key: `SSE url` or `WS url` (`Live::key`).
        key: String,
        /// Where it stands now.
        status: super::StreamStatus,
    },
    /// A live stream met a problem (feature `live`): it could not
    /// connect, its connection broke, or a message was not understood
    /// (not the JSON its decoder expects, a record the schema refuses).
    /// The stream goes on: it retries, or reads the next message; one
    /// the server refused waits until the app asks for it again.
    #[cfg(feature = "live")]
    StreamError {
        /// The stream's key: `SSE url` or `WS url` (`Live::key`).
        key: String,
        /// What went wrong.
        message: String,
    },
}

/// What happened to a record in an [`Event::Record`].
///
/// ```
/// use restcache::prelude::*;
/// use restcache::{Event, RecordChange};
/// use std::{cell::Cell, rc::Rc};
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let deleted = Rc::new(Cell::new(false));
/// let seen = Rc::clone(&deleted);
/// let _listener = ctrl.on_event(move |event, _| {
///     if let Event::Record { change: RecordChange::Deleted, .. } = event {
///         seen.set(true);
///     }
/// });
/// ctrl.delete_entity::<Todo>(1u64, ctrl.now());
/// assert!(deleted.get());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordChange {
    /// Stored (new, or merged over the stored copy).
    Set,
    /// Gone: lists drop it, direct reads of it fetch.
    Deleted,
    /// Invalid: reads of it fetch.
    Invalidated,
}

type Listener = Rc<dyn Fn(&Event, &Controller)>;

/// The listeners of a controller and the events waiting for them.
#[derive(Default)]
pub(super) struct Events {
    listeners: RefCell<Vec<(u32, Listener)>>,
    waiting: RefCell<VecDeque<Event>>,
    next_id: Cell<u32>,
    telling: Cell<bool>,
}

/// A listener on a controller's events ([`Controller::on_event`]); it
/// stops listening when dropped.
///
/// ```
/// use restcache::prelude::*;
/// use std::{cell::Cell, rc::Rc};
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let heard = Rc::new(Cell::new(0));
/// let count = Rc::clone(&heard);
/// let listener = ctrl.on_event(move |_, _| count.set(count.get() + 1));
/// ctrl.reset();
/// drop(listener);
/// ctrl.reset();
/// assert_eq!(heard.get(), 1);
/// ```
#[must_use = "the listener stops when this is dropped"]
pub struct EventListener {
    inner: Weak<Inner>,
    id: u32,
}

impl Drop for EventListener {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner
                .events
                .listeners
                .borrow_mut()
                .retain(|(id, _)| *id != self.id);
        }
    }
}

impl std::fmt::Debug for EventListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventListener")
            .field("id", &self.id)
            .finish()
    }
}

impl Controller {
    /// Calls `listener` with each [`Event`] from now on, and the
    /// controller (to act on it without holding a clone of it), until the
    /// returned [`EventListener`] is dropped.
    ///
    /// The rule "log out on 401": a request the server refuses for want of
    /// a session empties the cache, so no one's data stays on show.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Event;
    /// use restcache::http::{Incoming, Outgoing};
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let client = Client::new("http://api.test")
    ///     .with_transport(|_: Outgoing| async { Ok(Incoming::new(401, "session expired")) });
    /// let ctrl = Controller::new(client);
    /// let _log_out = ctrl.on_event(|event, ctrl| {
    ///     if let Event::RequestFailed { error, .. } = event
    ///         && error.status() == Some(401)
    ///     {
    ///         ctrl.reset();
    ///     }
    /// });
    /// let mine = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &mine, Rc::new(Todo { id: 1, title: "mine".into() }))?;
    /// # restcache_demo::block_on(async {
    /// let other = TodoResourceParams { id: 2 };
    /// assert!(ctrl.fetch(&TodoResource::get(), &other, None).await.is_err());
    /// # });
    /// assert!(ctrl.read(&TodoResource::get(), &mine).data.is_none());
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn on_event(&self, listener: impl Fn(&Event, &Controller) + 'static) -> EventListener {
        let events = &self.inner.events;
        let id = events.next_id.get();
        events.next_id.set(id.wrapping_add(1));
        events.listeners.borrow_mut().push((id, Rc::new(listener)));
        EventListener {
            inner: Rc::downgrade(&self.inner),
            id,
        }
    }

    /// Tells the listeners the event `make` builds (built only when one
    /// listens): now when the controller's state is free, else once it is.
    pub(super) fn emit(&self, make: impl FnOnce() -> Event) {
        if !self.inner.events.listeners.borrow().is_empty() {
            self.emit_event(make());
        }
    }

    /// [`emit`](Self::emit) once the event is built: one copy in a
    /// build, not one for each place that emits.
    #[inline(never)]
    fn emit_event(&self, event: Event) {
        self.inner.events.waiting.borrow_mut().push_back(event);
        if self.inner.state.try_borrow_mut().is_ok() {
            self.tell_events();
        }
    }

    /// Hands each waiting event to the listeners, in order. A listener's
    /// own calls that emit more wait for this round to reach them.
    pub(super) fn tell_events(&self) {
        let events = &self.inner.events;
        if events.waiting.borrow().is_empty() || events.telling.replace(true) {
            return;
        }
        // Cleared however this ends, a listener's panic included.
        struct Told<'a>(&'a Cell<bool>);
        impl Drop for Told<'_> {
            fn drop(&mut self) {
                self.0.set(false);
            }
        }
        let _told = Told(&events.telling);
        loop {
            let Some(event) = events.waiting.borrow_mut().pop_front() else {
                break;
            };
            let listeners: Vec<Listener> = events
                .listeners
                .borrow()
                .iter()
                .map(|(_, listener)| Rc::clone(listener))
                .collect();
            for listener in listeners {
                listener(&event, self);
            }
        }
    }
}
