//! What a [`CacheProvider`](super::CacheProvider) shares with the hooks
//! below it: the controller, the reads components are waiting for, the
//! mounted reads to revalidate, and the pollers.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures_util::future::{AbortHandle, Abortable};
use rustc_hash::FxHashMap;
use serde::Serialize;
use yew::platform::spawn_local;
use yew::suspense::Suspension;

use super::server::ServerPass;
use crate::cache::schema::Schema;
use crate::controller::{Controller, ExpiryStatus};
use crate::rest::{Endpoint, Readable};

/// Whether hooks run on a server: Yew renders natively or on WASI only
/// there (a browser app is wasm32-unknown-unknown). A server render
/// neither subscribes, revalidates nor polls.
pub(crate) const ON_SERVER: bool = cfg!(any(not(target_arch = "wasm32"), target_os = "wasi"));

/// The shared state of one provider; clones share it.
#[derive(Clone)]
pub(crate) struct CacheContext(Rc<Shared>);

struct Shared {
    controller: Controller,
    /// The server render pass this provider renders in, if any.
    pass: Option<ServerPass>,
    /// Reads with components waiting on them, by key: one suspension (and
    /// one request) for every component that reads the key.
    waiting: RefCell<FxHashMap<String, Suspension>>,
    /// What each mounted read does when the page comes back into view:
    /// refetch when stale.
    mounted: RefCell<FxHashMap<u64, Rc<dyn Fn()>>>,
    /// The pollers, by key.
    pollers: RefCell<FxHashMap<String, Poller>>,
    next_id: Cell<u64>,
}

impl PartialEq for CacheContext {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl CacheContext {
    pub fn new(controller: Controller) -> Self {
        let pass = super::server::pass_of(&controller);
        let context = CacheContext(Rc::new(Shared {
            controller,
            pass,
            waiting: RefCell::default(),
            mounted: RefCell::default(),
            pollers: RefCell::default(),
            next_id: Cell::new(0),
        }));
        if let Some(pass) = &context.0.pass {
            pass.watch(&context);
        }
        context
    }

    /// The server render pass this provider renders in, if any.
    pub fn pass(&self) -> Option<&ServerPass> {
        self.0.pass.as_ref()
    }

    pub fn controller(&self) -> &Controller {
        &self.0.controller
    }

    fn next_id(&self) -> u64 {
        let id = self.0.next_id.get() + 1;
        self.0.next_id.set(id);
        id
    }

    /// The suspension of the read `key`: the one its request already has,
    /// else a new one whose request starts now. It resumes once the
    /// response (or the error) is stored.
    pub fn wait_for<P, S, E: Readable>(
        &self,
        key: &str,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Suspension
    where
        P: Serialize + Clone + 'static,
        S: Schema,
    {
        if let Some(waiting) = self.0.waiting.borrow().get(key)
            && !waiting.resumed()
        {
            return waiting.clone();
        }
        let (suspension, handle) = Suspension::new();
        self.0
            .waiting
            .borrow_mut()
            .insert(key.to_owned(), suspension.clone());
        let (context, key, mine) = (self.clone(), key.to_owned(), suspension.clone());
        let (endpoint, params) = (endpoint.clone(), params.clone());
        spawn_local(async move {
            // The response (or the error) is stored before the components
            // resume, and the entry is gone: a component that renders
            // again finds the data, never this resumed suspension.
            let _ = context.0.controller.fetch(&endpoint, &params, None).await;
            let mut waiting = context.0.waiting.borrow_mut();
            if waiting.get(&key) == Some(&mine) {
                waiting.remove(&key);
            }
            drop(waiting);
            // Resumed by a call, not a drop: a component that cannot
            // render now (a failed read on a server, outside
            // `ServerRender`) panics out of this task, never out of a
            // destructor.
            handle.resume();
        });
        suspension
    }

    /// Fetches the read `key` unless its request is on its way, for a
    /// component that does not wait for it.
    pub fn fetch<P, S, E: Readable>(&self, key: &str, endpoint: &Endpoint<P, S, E>, params: &P)
    where
        P: Serialize + Clone + 'static,
        S: Schema,
    {
        drop(self.wait_for(key, endpoint, params));
    }

    /// Fetches the read in the background, as long as it is stale when
    /// the request starts; errors stay beside the data.
    pub fn revalidate<P, S, E: Readable>(&self, endpoint: &Endpoint<P, S, E>, params: &P)
    where
        P: Serialize + Clone + 'static,
        S: Schema,
    {
        if ON_SERVER {
            return;
        }
        let controller = self.0.controller.clone();
        let (endpoint, params) = (endpoint.clone(), params.clone());
        spawn_local(async move {
            if controller.read(&endpoint, &params).status == ExpiryStatus::Stale {
                let _ = controller.fetch(&endpoint, &params, None).await;
            }
        });
    }

    /// Registers a mounted read: [`revalidate_mounted`](Self::revalidate_mounted)
    /// refetches it when stale, until the guard is dropped.
    pub fn mount<P, S, E: Readable>(&self, endpoint: &Endpoint<P, S, E>, params: &P) -> MountGuard
    where
        P: Serialize + Clone + 'static,
        S: Schema,
    {
        let id = self.next_id();
        // Weak: the provider's state holds this closure.
        let context = Rc::downgrade(&self.0);
        let (endpoint, params) = (endpoint.clone(), params.clone());
        let revalidate: Rc<dyn Fn()> = Rc::new(move || {
            if let Some(shared) = context.upgrade() {
                CacheContext(shared).revalidate(&endpoint, &params);
            }
        });
        self.0.mounted.borrow_mut().insert(id, revalidate);
        MountGuard {
            context: Rc::downgrade(&self.0),
            id,
        }
    }

    /// Refetches every mounted read that is stale (the page came back
    /// into view, or the browser back online).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn revalidate_mounted(&self) {
        let all: Vec<Rc<dyn Fn()>> = self.0.mounted.borrow().values().cloned().collect();
        for revalidate in all {
            revalidate();
        }
    }

    /// Whether no read is being fetched.
    #[cfg(feature = "ssr")]
    pub fn idle(&self) -> bool {
        self.0.waiting.borrow().is_empty() && self.0.controller.in_flight() == 0
    }

    /// Polls the read `key` every `every` while the guard lives; the
    /// shortest period among a key's subscribers wins, and polling stops
    /// when the last one is dropped. A period of zero does not poll.
    pub fn poll<P, S, E: Readable>(
        &self,
        key: &str,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        every: Duration,
    ) -> PollGuard
    where
        P: Serialize + Clone + 'static,
        S: Schema,
    {
        let id = self.next_id();
        let controller = self.0.controller.clone();
        let (endpoint, params) = (endpoint.clone(), params.clone());
        let fetch: Rc<dyn Fn() -> futures_util::future::LocalBoxFuture<'static, ()>> =
            Rc::new(move || {
                let (controller, endpoint, params) =
                    (controller.clone(), endpoint.clone(), params.clone());
                Box::pin(async move {
                    let _ = controller.fetch(&endpoint, &params, None).await;
                })
            });
        let mut pollers = self.0.pollers.borrow_mut();
        let poller = pollers.entry(key.to_owned()).or_insert_with(|| Poller {
            subscribers: Vec::new(),
            fetch,
            running: None,
        });
        poller.subscribers.push((id, every));
        poller.restart();
        PollGuard {
            context: Rc::downgrade(&self.0),
            key: key.to_owned(),
            id,
        }
    }
}

/// Keeps a mounted read registered; dropping it unregisters.
pub(crate) struct MountGuard {
    context: std::rc::Weak<Shared>,
    id: u64,
}

impl Drop for MountGuard {
    fn drop(&mut self) {
        if let Some(shared) = self.context.upgrade() {
            shared.mounted.borrow_mut().remove(&self.id);
        }
    }
}

/// The polling of one key.
struct Poller {
    /// Each subscriber's id and period.
    subscribers: Vec<(u64, Duration)>,
    fetch: Rc<dyn Fn() -> futures_util::future::LocalBoxFuture<'static, ()>>,
    /// The loop that polls, with the period it polls at.
    running: Option<(AbortHandle, Duration)>,
}

impl Poller {
    /// Runs the loop at the shortest period among the subscribers, or
    /// stops it when there are none.
    fn restart(&mut self) {
        let every = self.subscribers.iter().map(|(_, every)| *every).min();
        if self.running.as_ref().map(|(_, at)| *at) == every {
            return;
        }
        if let Some((abort, _)) = self.running.take() {
            abort.abort();
        }
        let Some(every) = every.filter(|every| !every.is_zero()) else {
            return;
        };
        if ON_SERVER {
            return;
        }
        let fetch = Rc::clone(&self.fetch);
        let (abort, registration) = AbortHandle::new_pair();
        let polling = async move {
            loop {
                yew::platform::time::sleep(every).await;
                fetch().await;
            }
        };
        spawn_local(async move {
            let _ = Abortable::new(polling, registration).await;
        });
        self.running = Some((abort, every));
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        if let Some((abort, _)) = self.running.take() {
            abort.abort();
        }
    }
}

/// Keeps a subscriber polling; dropping it unsubscribes.
pub(crate) struct PollGuard {
    context: std::rc::Weak<Shared>,
    key: String,
    id: u64,
}

impl Drop for PollGuard {
    fn drop(&mut self) {
        let Some(shared) = self.context.upgrade() else {
            return;
        };
        let mut pollers = shared.pollers.borrow_mut();
        let Some(poller) = pollers.get_mut(&self.key) else {
            return;
        };
        poller.subscribers.retain(|(id, _)| *id != self.id);
        if poller.subscribers.is_empty() {
            pollers.remove(&self.key);
        } else {
            poller.restart();
        }
    }
}
