//! What one reading hook keeps between renders: a [`ReadObserver`] (the
//! read, and the policy of when it fetches), subscribed in an effect, and
//! the failure it handed to the boundary.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use futures_util::future::{AbortHandle, Abortable};
use serde::Serialize;
use yew::prelude::*;
use yew::suspense::Suspension;

use super::boundary::{BoundaryContext, Report};
use super::context::CacheContext;
use super::provider::use_cache_context;
use super::server::asleep;
use crate::cache::schema::Schema;
use crate::controller::{Cached, MakePoll, Observe, ReadObserver};
use crate::http::Error;
use crate::rest::{Endpoint, Readable};

/// Whether Yew renders on a server whatever the renderer: natively or on
/// WASI (a browser app is wasm32-unknown-unknown). On wasm32, a server
/// render is told by its renderer: a [`ServerRender`](super::ServerRender)
/// pass.
const NATIVE: bool = cfg!(any(not(target_arch = "wasm32"), target_os = "wasi"));

/// A reading hook's state: the provider's cache, its observer (none in
/// what is left of an ended server render), and the failure reported to
/// the boundary (with what the component waits on meanwhile).
pub(crate) struct Reader<P, S: Schema> {
    pub cache: CacheContext,
    observer: Option<Rc<RefCell<ReadObserver<P, S>>>>,
    failed: Rc<RefCell<Option<Suspension>>>,
    waiters: Rc<Waiters>,
}

/// The tasks that drive a component's fetches while it waits for them,
/// stopped when the component goes or reads something else: a read that
/// no mounted component waits on any more is cancelled.
#[derive(Default)]
struct Waiters(RefCell<Vec<(AbortHandle, Rc<Cell<bool>>)>>);

impl Waiters {
    /// Runs `fetch` (then `after`) until it ends or the component goes.
    fn run(&self, fetch: impl Future<Output = ()> + 'static, after: impl FnOnce() + 'static) {
        let (abort, registration) = AbortHandle::new_pair();
        let done = Rc::new(Cell::new(false));
        let mut waiters = self.0.borrow_mut();
        waiters.retain(|(_, done)| !done.get());
        waiters.push((abort, Rc::clone(&done)));
        yew::platform::spawn_local(async move {
            if Abortable::new(fetch, registration).await.is_ok() {
                done.set(true);
                after();
            }
        });
    }
}

impl Waiters {
    /// Stops every task: the component no longer waits on what they
    /// fetch.
    fn stop(&self) {
        for (abort, _) in self.0.borrow_mut().drain(..) {
            abort.abort();
        }
    }
}

impl Drop for Waiters {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The [`Reader`] of the hook named `hook` (the name a missing provider's
/// panic gives), observing as `options` say. It subscribes in an effect,
/// which Yew runs after the render, in a browser only; the observer then
/// re-reads once, so a change between render and effect re-renders.
///
/// In a server render pass the observer lives for one render only (a
/// server render never subscribes): what a stopped pass leaves of its
/// components holds no controller.
#[hook]
pub(crate) fn use_reader<P, S>(
    hook: &'static str,
    options: Observe,
    make_poll: Option<MakePoll<P, S>>,
) -> Reader<P, S>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
{
    let cache = use_cache_context(hook);
    let kept = use_mut_ref(|| None::<Rc<RefCell<ReadObserver<P, S>>>>);
    // Since when the component waits for an answer: kept by the hook, as a
    // server render pass makes an observer each render.
    let waited = use_memo((), |()| Cell::new(None));
    let controller = (!cache.ended()).then(|| cache.controller());
    let observer = controller.as_ref().map(|controller| match cache.pass() {
        Some(_) => {
            let mut observer = ReadObserver::polling_with(controller, options, make_poll);
            observer.keep_waited_in(&waited);
            Rc::new(RefCell::new(observer))
        }
        None => {
            let mut kept = kept.borrow_mut();
            let observer = kept.get_or_insert_with(|| {
                Rc::new(RefCell::new(ReadObserver::polling_with(
                    controller, options, make_poll,
                )))
            });
            if observer.borrow().controller() != controller {
                *observer.borrow_mut() = ReadObserver::polling_with(controller, options, make_poll);
            }
            Rc::clone(observer)
        }
    });
    let rerender = use_force_update();
    // Keyed by the controller's identity, holding the observer weakly: a
    // server render never runs its effects, and keeps them.
    let id = controller.as_ref().map_or(0, |controller| controller.id());
    use_effect_with(id, {
        let observer = observer.as_ref().map(Rc::downgrade);
        move |_| {
            let alive = move || observer.as_ref().and_then(Weak::upgrade);
            if let Some(observer) = alive() {
                observer
                    .borrow_mut()
                    .subscribe(move || rerender.force_update());
            }
            move || {
                if let Some(observer) = alive() {
                    observer.borrow_mut().unsubscribe();
                }
            }
        }
    });
    let failed = use_mut_ref(|| None);
    let waiters = use_memo((), |()| Waiters::default());
    Reader {
        cache,
        observer,
        failed,
        waiters,
    }
}

/// For a read that never waits (`use_dle`, `use_cache`), `shown` telling
/// whether it renders data: on a server, a read that shows nothing is
/// noted in the handoff; in the browser, `true` when this render must
/// show nothing as the server did (the render that hydrates, though the
/// handoff holds its answer by now: it came to the server after this read
/// rendered there). The next render shows what the cache holds.
#[hook]
pub(crate) fn use_shown_empty_on_server<P, S>(reader: &Reader<P, S>, shown: bool) -> bool
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
{
    let key = reader
        .observer
        .as_ref()
        .and_then(|observer| observer.borrow().key().map(str::to_owned));
    let controller = reader
        .observer
        .as_ref()
        .map(|o| o.borrow().controller().clone());
    let first = use_mut_ref(|| true);
    let rerender = use_force_update();
    let empty = match (&controller, &key) {
        (Some(controller), Some(key)) if reader.on_server() => {
            controller.note_shown_empty(key, !shown);
            false
        }
        (Some(controller), Some(key)) => *first.borrow() && controller.shown_empty_on_server(key),
        _ => false,
    };
    use_effect_with((), move |()| {
        *first.borrow_mut() = false;
        if empty && let (Some(controller), Some(key)) = (controller, key) {
            controller.hydrated_empty(&key);
            rerender.force_update();
        }
    });
    empty
}

impl<P, S> Reader<P, S>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
{
    /// Reads `endpoint` with `params` for this render; `None` params
    /// forget the read and find nothing.
    pub fn read<E: Readable>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: Option<&P>,
    ) -> Option<Cached<S>> {
        let mut observer = self.observer.as_ref()?.borrow_mut();
        let other = match params {
            Some(params) => observer.set(endpoint, params),
            None => {
                observer.clear();
                true
            }
        };
        if other {
            // What it waited on for the last read is left: a request no
            // other component waits on is cancelled.
            *self.failed.borrow_mut() = None;
            self.waiters.stop();
        }
        observer.read()
    }

    /// The key of the read, or (when its params make no URL) the
    /// endpoint's path.
    pub fn key<E: Readable>(&self, endpoint: &Endpoint<P, S, E>) -> String {
        let observer = self.observer.as_ref().map(|observer| observer.borrow());
        match observer.as_ref().and_then(|observer| observer.key()) {
            Some(key) => key.to_owned(),
            None => endpoint.path().map_or("", |path| path.source()).to_owned(),
        }
    }

    /// Whether the read renders on a server: in a server render pass, or
    /// natively.
    fn on_server(&self) -> bool {
        self.cache.pass().is_some() || NATIVE
    }

    /// Whether the read is what is left of a stopped server render: it
    /// never renders anything again.
    pub fn ended(&self) -> bool {
        self.cache.ended()
    }

    /// Fetches the read while the component is mounted (identical reads
    /// share one request).
    pub fn fetch(&self) {
        if let Some(fetch) = self.observer.as_ref().and_then(|o| o.borrow().wait()) {
            self.waiters.run(fetch, || {});
        }
    }

    /// What a component waits on while its read is fetched: resumed once
    /// the response (or the error) is stored.
    pub fn wait(&self) -> Suspension {
        let Some(observer) = &self.observer else {
            return asleep();
        };
        let (suspension, handle) = Suspension::new();
        let Some(fetch) = observer.borrow().wait() else {
            handle.resume();
            return suspension;
        };
        // In a server render pass, the pass resumes it too when it ends
        // first: the component then renders with stand-ins.
        let waiting = Rc::new(Cell::new(Some(handle)));
        let pass = self.cache.pass().cloned();
        if let Some(pass) = &pass {
            pass.waits(Rc::clone(&waiting));
        }
        self.waiters.run(fetch, move || {
            // Resumed by a call, not a drop: a component that cannot
            // render now (a failed read on a server, outside
            // `ServerRender`) panics out of this task, never out of a
            // destructor. In a pass, the panic goes to the render.
            match (waiting.take(), &pass) {
                (Some(handle), Some(pass)) => pass.resume(handle),
                (Some(handle), None) => handle.resume(),
                (None, _) => {}
            }
        });
        suspension
    }

    /// What a component waits on after its read `key` failed with
    /// `error`: the failure goes to the boundary once, and the component
    /// waits until the boundary takes its place.
    pub fn fail(&self, boundary: &BoundaryContext, key: String, error: Error) -> Suspension {
        if let Some(failed) = &*self.failed.borrow()
            && !failed.resumed()
        {
            return failed.clone();
        }
        if self.on_server() {
            return boundary.fail_on_server(error, key);
        }
        let (suspension, waiting) = Suspension::new();
        boundary.report(Report {
            controller: self.cache.controller(),
            key,
            error,
            waiting,
        });
        *self.failed.borrow_mut() = Some(suspension.clone());
        suspension
    }
}
