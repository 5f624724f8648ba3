//! Server rendering with failed reads.
//!
//! On a server, Yew renders each component once and streams its output
//! before its children render: a boundary cannot swap its children for
//! its fallback after one of them failed, and a component that cannot
//! render (its read failed) would keep the render waiting forever.
//! [`ServerRender`] therefore renders in passes:
//!
//! 1. The first pass renders and fetches. Without a failed read, its page
//!    is the answer (the common case: one pass).
//! 2. When the render waits on nothing but failed reads, it is stopped and
//!    rendered again from the now warm cache: nothing suspends, so each
//!    boundary gets the same identity (its place among the boundaries
//!    around it) in every later pass, and the failures are noted by the
//!    boundary that catches them.
//! 3. A last pass renders each noted boundary's fallback in place of its
//!    children.
//!
//! Yew tears a render's components down only when the render ends. A
//! pass that is stopped (or dropped half-way) therefore ends first: the
//! pass lets go of its controller, and the components waiting on a read
//! render once more with a stand-in for it (an empty list, `None`, a
//! record's `Default`; the output is thrown away), so that the render
//! ends and everything it made is freed. A component whose read has no
//! stand-in (a record type without `Default`) sleeps for good instead:
//! Yew keeps what it and its parents hold, but no cache, as a provider in
//! a pass reaches its controller through the pass.
//!
//! A provider finds its pass as it is created, while [`ServerRender`]
//! polls the render: the app's component tree stays exactly the app's
//! (so the page hydrates).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::Waker;

use rustc_hash::FxHashMap;
use yew::suspense::{Suspension, SuspensionHandle};

#[cfg(feature = "ssr")]
use crate::controller::Controller;
use crate::http::Error;

/// Where a boundary sits: its place among its parent boundary's child
/// boundaries, down from the root.
pub(crate) type BoundaryId = Rc<[u32]>;

/// A failed read met in a pass: the boundary that catches it, its error,
/// and its key.
pub(crate) type Failed = (BoundaryId, Error, String);

/// What a component in a pass waits on, until someone resumes it.
pub(crate) type Waiting = Rc<Cell<Option<SuspensionHandle>>>;

/// One pass of a server render, shared with the providers, boundaries and
/// hooks it renders.
#[derive(Clone)]
pub(crate) struct ServerPass(Rc<PassShared>);

struct PassShared {
    /// The controller the render renders with, until the pass ends.
    #[cfg(feature = "ssr")]
    controller: RefCell<Option<Controller>>,
    /// The boundaries that show their fallback in this pass.
    fallbacks: RefCell<FxHashMap<BoundaryId, Error>>,
    /// Those of them that rendered (a boundary inside one that shows its
    /// fallback renders not at all).
    shown: RefCell<Vec<BoundaryId>>,
    /// The next place among the boundaries at the root.
    root_children: Cell<u32>,
    /// The failures met in this pass, by the boundary that catches them.
    failed: RefCell<Vec<Failed>>,
    /// What the failed components wait on.
    waiting: RefCell<Vec<Waiting>>,
    /// The controllers of the providers rendered in this pass.
    #[cfg(feature = "ssr")]
    controllers: RefCell<Vec<Controller>>,
    /// Whether the pass ended: its components sleep for good.
    ended: Cell<bool>,
    /// A panic of a component re-rendered outside the render's poll (by a
    /// fetch's task), to raise in the render.
    panic: RefCell<Option<Box<dyn std::any::Any + Send>>>,
    /// Wakes the renderer when a failure is met.
    waker: RefCell<Option<Waker>>,
}

impl PartialEq for ServerPass {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl ServerPass {
    #[cfg(feature = "ssr")]
    pub fn new(controller: Controller, fallbacks: FxHashMap<BoundaryId, Error>) -> Self {
        ServerPass(Rc::new(PassShared {
            controller: RefCell::new(Some(controller)),
            fallbacks: RefCell::new(fallbacks),
            shown: RefCell::default(),
            root_children: Cell::new(0),
            failed: RefCell::default(),
            waiting: RefCell::default(),
            controllers: RefCell::default(),
            ended: Cell::new(false),
            panic: RefCell::default(),
            waker: RefCell::default(),
        }))
    }

    /// The controller the render renders with; `None` once the pass ended.
    #[cfg(feature = "ssr")]
    pub fn controller(&self) -> Option<Controller> {
        self.0.controller.borrow().clone()
    }

    /// Whether the pass ended (see [`end`](Self::end)).
    pub fn ended(&self) -> bool {
        self.0.ended.get()
    }

    /// The identity of the next boundary at the root.
    pub fn next_root_boundary(&self) -> BoundaryId {
        let place = self.0.root_children.get();
        self.0.root_children.set(place + 1);
        Rc::from([place].as_slice())
    }

    /// The error whose fallback the boundary `id` shows in this pass.
    pub fn fallback_of(&self, id: &BoundaryId) -> Option<Error> {
        let error = self.0.fallbacks.borrow().get(id).cloned()?;
        let mut shown = self.0.shown.borrow_mut();
        if !shown.contains(id) {
            shown.push(Rc::clone(id));
        }
        Some(error)
    }

    /// Whether the boundary `id` showed its fallback in this pass.
    #[cfg(feature = "ssr")]
    pub fn showed(&self, id: &BoundaryId) -> bool {
        self.0.shown.borrow().contains(id)
    }

    /// Resumes a component whose read the fetch's task ended, outside the
    /// render's poll: a panic of its render is raised in the render, not
    /// lost in the task.
    pub fn resume(&self, handle: SuspensionHandle) {
        let resumed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.resume()));
        if let Err(payload) = resumed {
            self.0.panic.borrow_mut().get_or_insert(payload);
            if let Some(waker) = self.0.waker.borrow_mut().take() {
                waker.wake();
            }
        }
    }

    /// Notes what a component waiting on a fetch waits on: resumed by the
    /// fetch, or by the pass when it ends first (the render stopped or
    /// dropped), whichever comes first.
    pub fn waits(&self, waiting: Waiting) {
        self.0.waiting.borrow_mut().push(waiting);
    }

    /// Notes a provider's controller, to know when no request is on its
    /// way.
    #[cfg(feature = "ssr")]
    pub fn watch(&self, controller: &Controller) {
        let mut controllers = self.0.controllers.borrow_mut();
        if !controllers.contains(controller) {
            controllers.push(controller.clone());
        }
    }

    /// What a component whose read failed waits on: the failure is noted
    /// for the boundary `boundary`, and the render goes on elsewhere. The
    /// component sleeps until the pass ends, and then for good.
    pub fn fail(&self, boundary: &BoundaryId, error: Error, key: String) -> Suspension {
        if self.ended() {
            return asleep();
        }
        self.0
            .failed
            .borrow_mut()
            .push((Rc::clone(boundary), error, key));
        let (suspension, waiting) = Suspension::new();
        self.waits(Rc::new(Cell::new(Some(waiting))));
        if let Some(waker) = self.0.waker.borrow_mut().take() {
            waker.wake();
        }
        suspension
    }

    /// Whether the render waits on failed reads only: a failure was met
    /// and no provider's cache has a request on its way.
    #[cfg(feature = "ssr")]
    fn stuck(&self) -> bool {
        !self.0.failed.borrow().is_empty()
            && self.0.controllers.borrow().iter().all(Controller::is_idle)
    }

    /// Resolves once the render waits on nothing but failed reads, or a
    /// component panicked outside the render's poll.
    #[cfg(feature = "ssr")]
    async fn until_stuck(&self) {
        std::future::poll_fn(|cx| {
            if self.0.failed.borrow().is_empty() && self.0.panic.borrow().is_none() {
                *self.0.waker.borrow_mut() = Some(cx.waker().clone());
                return std::task::Poll::Pending;
            }
            std::task::Poll::Ready(())
        })
        .await;
        // A failure is met: wait for the requests still on their way, and
        // for the renders their answers start.
        let mut settled = 0;
        while settled < 3 && self.0.panic.borrow().is_none() {
            yew::platform::time::sleep(std::time::Duration::from_millis(1)).await;
            settled = if self.stuck() { settled + 1 } else { 0 };
        }
    }

    /// The panic a component raised outside the render's poll, if any.
    #[cfg(feature = "ssr")]
    fn take_panic(&self) -> Option<Box<dyn std::any::Any + Send>> {
        self.0.panic.borrow_mut().take()
    }

    /// Ends the pass: the components waiting on failed reads render
    /// again, with stand-ins for what they read (their output is thrown
    /// away), so that the render can end and Yew tears its components
    /// down; one whose read has no stand-in sleeps for good. The pass lets
    /// go of its controllers and of what it noted. Returns the failures,
    /// by boundary.
    #[cfg(feature = "ssr")]
    fn end(&self) -> Vec<Failed> {
        self.0.ended.set(true);
        ACTIVE.with(|active| active.borrow_mut().retain(|pass| pass != self));
        self.0.controller.borrow_mut().take();
        self.0.controllers.borrow_mut().clear();
        self.0.fallbacks.borrow_mut().clear();
        self.0.waker.borrow_mut().take();
        for waiting in std::mem::take(&mut *self.0.waiting.borrow_mut()) {
            let Some(handle) = waiting.take() else {
                continue; // its fetch ended: resumed already
            };
            // The component renders now, with stand-ins: what it does
            // with them (a panic on an empty list, say) is thrown away
            // with its output.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.resume()));
        }
        std::mem::take(&mut *self.0.failed.borrow_mut())
    }
}

/// A suspension that is never resumed: what a component of an ended pass
/// waits on when its read has no stand-in. Its handle is forgotten, as
/// dropping it would resume it (and render the component again, for good
/// nothing).
pub(crate) fn asleep() -> Suspension {
    let (suspension, handle) = Suspension::new();
    std::mem::forget(handle);
    suspension
}

thread_local! {
    /// The passes whose render is being polled on this thread, innermost
    /// last: a provider created meanwhile renders in the last one.
    static POLLING: RefCell<Vec<ServerPass>> = const { RefCell::new(Vec::new()) };
    /// The passes started on this thread and not ended yet.
    static ACTIVE: RefCell<Vec<ServerPass>> = const { RefCell::new(Vec::new()) };
}

/// The server render pass a provider created now renders in, if any: the
/// one being polled. Natively a render is polled together with the tasks
/// of its reads, which render the components they resume, so a component
/// is always created inside its own render's poll (another request's
/// page, rendered on the same thread meanwhile, is not). In a browser,
/// whose scheduler creates components later on its own, it is the only
/// pass under way.
#[cfg(feature = "ssr")]
pub(crate) fn current_pass() -> Option<ServerPass> {
    if let Some(pass) = POLLING.with(|polling| polling.borrow().last().cloned()) {
        return Some(pass);
    }
    #[cfg(not(target_arch = "wasm32"))]
    return None;
    #[cfg(target_arch = "wasm32")]
    ACTIVE.with(|active| match active.borrow().as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    })
}

#[cfg(feature = "ssr")]
pub use render::ServerRender;

#[cfg(feature = "ssr")]
mod render {
    use std::future::Future;
    use std::pin::{Pin, pin};
    use std::task::{Context, Poll};

    use futures_util::FutureExt;
    use futures_util::future::{Either, select};
    use yew::{BaseComponent, LocalServerRenderer};

    use std::rc::Rc;

    use super::{ACTIVE, BoundaryId, Failed, POLLING, ServerPass};
    use crate::controller::Controller;
    use crate::http::Error;

    /// How many passes a render may take before giving up: each pass after
    /// the second shows at least one more boundary's fallback.
    const MAX_PASSES: usize = 8;

    /// Renders a Yew app on a server, with failed reads shown by their
    /// error boundaries (Yew's own server renderers wait forever on a
    /// component whose read failed).
    ///
    /// It renders with `controller`: the app's [`CacheProvider`](crate::yew::CacheProvider)
    /// takes it from the render (its own `controller` or `base_url` is for
    /// the browser), so that every pass shares one cache and a later pass
    /// renders from what the first one fetched. Give the controller to
    /// `ServerRender`, not through the app's props: a page keeps nothing
    /// once its render ends or is dropped (a stopped pass's components
    /// render once more with stand-ins, so that Yew tears them down), but
    /// a read with no stand-in (a record type without `Default`) keeps its
    /// components, and props holding the controller would keep its cache
    /// and its client's connections with them.
    ///
    /// Natively it needs a tokio runtime: it runs the passes on a
    /// `LocalSet` (`run_until`), where the reads' requests are spawned. On
    /// `wasm32` (an edge runtime) they run on the page's event loop.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::yew::{use_suspense, AsyncBoundary, BoundaryError, CacheProvider, ServerRender};
    /// use yew::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// #[component]
    /// fn Missing() -> HtmlResult {
    ///     let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 999 })?;
    ///     Ok(html! { <p>{ &todo.title }</p> })
    /// }
    ///
    /// #[component]
    /// fn App() -> Html {
    ///     let error_fallback = Callback::from(|e: BoundaryError| html! { <p>{ e.error.status() }</p> });
    ///     html! {
    ///         // In the browser, the provider builds its controller from
    ///         // `base_url`; on the server, it takes the render's.
    ///         <CacheProvider base_url="/api">
    ///             <AsyncBoundary {error_fallback}><Missing /></AsyncBoundary>
    ///         </CacheProvider>
    ///     }
    /// }
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # let base_url = api.url();
    /// let ctrl = Controller::new(Client::new(base_url));
    /// # restcache_demo::block_on(async {
    /// let html = ServerRender::<App>::new(ctrl, ()).hydratable(false).render().await?;
    /// assert_eq!(html, "<p>404</p>");
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub struct ServerRender<COMP: BaseComponent> {
        controller: Controller,
        props: COMP::Properties,
        hydratable: bool,
    }

    impl<COMP> ServerRender<COMP>
    where
        COMP: BaseComponent,
        COMP::Properties: Clone,
    {
        /// A render of `COMP` with `props`, whose provider uses
        /// `controller`; hydratable, as Yew's own renderers are. The
        /// controller records its reads' responses, for
        /// [`Controller::export_handoff`] after the render.
        pub fn new(controller: Controller, props: COMP::Properties) -> Self {
            controller.record_for_handoff();
            ServerRender {
                controller,
                props,
                hydratable: true,
            }
        }

        /// Whether the page carries what Yew needs to hydrate it (default:
        /// yes).
        pub fn hydratable(mut self, hydratable: bool) -> Self {
            self.hydratable = hydratable;
            self
        }

        /// The page. A render that waits on failed reads shows their
        /// boundaries' fallbacks; one whose failures no boundary can show
        /// (a fallback that fails in turn, pass after pass) gives the
        /// first failure's error.
        pub async fn render(self) -> Result<String, Error> {
            let current = Rc::new(std::cell::RefCell::new(None));
            #[cfg(not(target_arch = "wasm32"))]
            {
                // The reads' tasks run inside the render's poll, with its
                // pass current: a component they resume renders in it.
                let local = tokio::task::LocalSet::new();
                let mut passes = pin!(local.run_until(self.passes(Rc::clone(&current))));
                std::future::poll_fn(|cx| {
                    let pass: Option<ServerPass> = current.borrow().clone();
                    match pass {
                        Some(pass) => polled_in(&pass, passes.as_mut(), cx),
                        None => passes.as_mut().poll(cx),
                    }
                })
                .await
            }
            #[cfg(target_arch = "wasm32")]
            {
                self.passes(current).await
            }
        }

        /// Renders pass after pass, each one `current` while it renders.
        async fn passes(
            self,
            current: Rc<std::cell::RefCell<Option<ServerPass>>>,
        ) -> Result<String, Error> {
            let mut fallbacks = rustc_hash::FxHashMap::default();
            let mut first_failure = None;
            let mut keys: rustc_hash::FxHashMap<BoundaryId, Vec<String>> = Default::default();
            for pass_number in 0..MAX_PASSES {
                let pass = ServerPass::new(self.controller.clone(), fallbacks.clone());
                // What the reads that never wait showed is this pass's.
                self.controller.forget_shown_empty();
                *current.borrow_mut() = Some(pass.clone());
                let render = LocalServerRenderer::<COMP>::with_props(self.props.clone())
                    .hydratable(self.hydratable)
                    .render();
                let failed = match render_pass(pass.clone(), render).await {
                    Ok(html) => {
                        // What the page shows in place of failed reads,
                        // for the browser to show again as it hydrates
                        // (not a failure inside a boundary that shows its
                        // own fallback: the page does not show it).
                        let on_page = fallbacks.into_iter().filter(|(id, _)| pass.showed(id));
                        let shown = on_page.map(|(boundary, error)| {
                            let keys = keys.remove(&boundary).unwrap_or_default();
                            (boundary.to_vec(), error, keys)
                        });
                        self.controller.hand_over_fallbacks(shown.collect());
                        return Ok(html);
                    }
                    Err(failed) => failed,
                };
                first_failure = first_failure.or_else(|| failed.first().map(|f| f.1.clone()));
                // The first pass fetched: its boundaries' places depend on
                // when each answer came, so its failures are found again
                // by a pass from the warm cache.
                if pass_number > 0 {
                    for (boundary, error, key) in failed {
                        let boundary_keys: &mut Vec<String> =
                            keys.entry(Rc::clone(&boundary)).or_default();
                        if !boundary_keys.contains(&key) {
                            boundary_keys.push(key);
                        }
                        fallbacks.entry(boundary).or_insert(error);
                    }
                }
            }
            Err(first_failure.unwrap_or_else(|| unreachable!("a stopped pass noted a failure")))
        }
    }

    /// Renders one pass, its pass current while the render is polled: its
    /// page, or (when it waits on failed reads only) the failures it met.
    /// The pass ends with it, also when this future is dropped half-way.
    async fn render_pass<F: Future<Output = String>>(
        pass: ServerPass,
        render: F,
    ) -> Result<String, Vec<Failed>> {
        ACTIVE.with(|active| active.borrow_mut().push(pass.clone()));
        let mut in_pass = InPass {
            pass: pass.clone(),
            render: Box::pin(render),
            finished: None,
        };
        let stuck = pin!(pass.until_stuck());
        let rendering = std::future::poll_fn(|cx| in_pass.poll_render(cx));
        let stopped = matches!(select(pin!(rendering), stuck).await, Either::Right(((), _)));
        if let Some(payload) = pass.take_panic() {
            std::panic::resume_unwind(payload);
        }
        if !stopped {
            let html = in_pass.finished.as_mut().map(std::mem::take);
            return Ok(html.unwrap_or_default());
        }
        let failed = pass.end();
        // The failed components rendered with stand-ins: the render ends
        // at once (a browser's scheduler renders a little later), and Yew
        // tears it down. One that does not end waits on a read with no
        // stand-in; it is dropped.
        for _ in 0..3 {
            if let Some(html) = in_pass.render.as_mut().now_or_never() {
                in_pass.finished = Some(html);
                break;
            }
            yew::platform::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        Err(failed)
    }

    /// A pass and its render. Dropped before the render ended (the page
    /// abandoned), it ends the pass: the components waiting on reads
    /// render with stand-ins, and the render is given a chance to end, so
    /// that Yew tears its components down.
    struct InPass<F: Future<Output = String>> {
        pass: ServerPass,
        render: Pin<Box<F>>,
        /// The page, once the render ended (it is never polled again).
        finished: Option<String>,
    }

    impl<F: Future<Output = String>> InPass<F> {
        fn poll_render(&mut self, cx: &mut Context<'_>) -> Poll<()> {
            let html = std::task::ready!(polled_in(&self.pass, self.render.as_mut(), cx));
            self.finished = Some(html);
            Poll::Ready(())
        }
    }

    impl<F: Future<Output = String>> Drop for InPass<F> {
        fn drop(&mut self) {
            if self.pass.ended() {
                return;
            }
            self.pass.end();
            if self.finished.is_none() && !std::thread::panicking() {
                let render = self.render.as_mut();
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    render.now_or_never()
                }));
            }
        }
    }

    /// Polls `render` with `pass` current: a provider created meanwhile
    /// renders in it.
    fn polled_in<T>(
        pass: &ServerPass,
        render: Pin<&mut impl Future<Output = T>>,
        cx: &mut Context<'_>,
    ) -> Poll<T> {
        /// Takes the pass off the stack, also when the poll panics.
        struct Current;
        impl Drop for Current {
            fn drop(&mut self) {
                POLLING.with(|polling| polling.borrow_mut().pop());
            }
        }
        POLLING.with(|polling| polling.borrow_mut().push(pass.clone()));
        let _current = Current;
        render.poll(cx)
    }
}
