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
//! Stopping a pass ends each failed component's render by unwinding it
//! (`resume_unwind`, which prints nothing). Yew cannot tear a stopped
//! render down, so what its components hold stays allocated: a page with
//! a failed read costs that much memory, one without costs nothing.
//!
//! A pass is found by the controller it renders with: the app's provider
//! must use the controller given to [`ServerRender`], and the page keeps
//! exactly the app's component tree (so it hydrates).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::Waker;

use rustc_hash::FxHashMap;
use yew::suspense::{Suspension, SuspensionHandle};

use crate::controller::Controller;
use crate::http::Error;

/// Where a boundary sits: its place among its parent boundary's child
/// boundaries, down from the root.
pub(crate) type BoundaryId = Rc<[u32]>;

/// The signal that unwinds a failed component's render when a pass stops.
struct PassStopped;

/// One pass of a server render, shared with the providers, boundaries and
/// hooks it renders.
#[derive(Clone)]
pub(crate) struct ServerPass(Rc<PassShared>);

struct PassShared {
    /// The boundaries that show their fallback in this pass.
    fallbacks: FxHashMap<BoundaryId, Error>,
    /// The next place among the boundaries at the root.
    root_children: Cell<u32>,
    /// The failures met in this pass, by the boundary that catches them.
    failed: RefCell<Vec<(BoundaryId, Error)>>,
    /// What the failed components wait on.
    waiting: RefCell<Vec<SuspensionHandle>>,
    /// The controllers of the providers rendered in this pass.
    controllers: RefCell<Vec<Controller>>,
    stopping: Cell<bool>,
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
    pub fn new(fallbacks: FxHashMap<BoundaryId, Error>) -> Self {
        ServerPass(Rc::new(PassShared {
            fallbacks,
            root_children: Cell::new(0),
            failed: RefCell::default(),
            waiting: RefCell::default(),
            controllers: RefCell::default(),
            stopping: Cell::new(false),
            waker: RefCell::default(),
        }))
    }

    /// The identity of the next boundary at the root.
    pub fn next_root_boundary(&self) -> BoundaryId {
        let place = self.0.root_children.get();
        self.0.root_children.set(place + 1);
        Rc::from([place].as_slice())
    }

    /// The error whose fallback the boundary `id` shows in this pass.
    pub fn fallback_of(&self, id: &BoundaryId) -> Option<Error> {
        self.0.fallbacks.get(id).cloned()
    }

    /// Notes a provider's controller, to know when no request is on its
    /// way.
    pub fn watch(&self, controller: &Controller) {
        let mut controllers = self.0.controllers.borrow_mut();
        if !controllers.contains(controller) {
            controllers.push(controller.clone());
        }
    }

    /// What a component whose read failed waits on: the failure is noted
    /// for the boundary `boundary`, and the render goes on elsewhere. When
    /// the pass stops, the component's render is unwound.
    pub fn fail(&self, boundary: &BoundaryId, error: Error) -> Suspension {
        if self.0.stopping.get() {
            std::panic::resume_unwind(Box::new(PassStopped));
        }
        self.0
            .failed
            .borrow_mut()
            .push((Rc::clone(boundary), error));
        let (suspension, waiting) = Suspension::new();
        self.0.waiting.borrow_mut().push(waiting);
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

    /// Resolves once the render waits on nothing but failed reads.
    #[cfg(feature = "ssr")]
    async fn until_stuck(&self) {
        std::future::poll_fn(|cx| {
            if self.0.failed.borrow().is_empty() {
                *self.0.waker.borrow_mut() = Some(cx.waker().clone());
                return std::task::Poll::Pending;
            }
            std::task::Poll::Ready(())
        })
        .await;
        // A failure is met: wait for the requests still on their way, and
        // for the renders their answers start.
        let mut settled = 0;
        while settled < 3 {
            yew::platform::time::sleep(std::time::Duration::from_millis(1)).await;
            settled = if self.stuck() { settled + 1 } else { 0 };
        }
    }

    /// The failures met so far, by boundary.
    #[cfg(feature = "ssr")]
    fn failures(&self) -> Vec<(BoundaryId, Error)> {
        self.0.failed.borrow().clone()
    }

    /// Stops the pass: each failed component's render is unwound. Returns
    /// the failures, by boundary.
    #[cfg(feature = "ssr")]
    fn stop(&self) -> Vec<(BoundaryId, Error)> {
        self.0.stopping.set(true);
        let waiting = std::mem::take(&mut *self.0.waiting.borrow_mut());
        for handle in waiting {
            // Resuming renders the failed component, whose read unwinds.
            let resumed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                handle.resume();
            }));
            if let Err(payload) = resumed
                && !payload.is::<PassStopped>()
            {
                std::panic::resume_unwind(payload);
            }
        }
        std::mem::take(&mut *self.0.failed.borrow_mut())
    }
}

thread_local! {
    /// The passes being rendered on this thread, by the controller they
    /// render with: a provider over that controller finds its pass here.
    static PASSES: RefCell<Vec<(Controller, ServerPass)>> = const { RefCell::new(Vec::new()) };
}

/// The server render pass that renders with `controller`, if any.
pub(crate) fn pass_of(controller: &Controller) -> Option<ServerPass> {
    PASSES.with(|passes| {
        passes
            .borrow()
            .iter()
            .find(|(c, _)| c == controller)
            .map(|(_, pass)| pass.clone())
    })
}

#[cfg(feature = "ssr")]
pub use render::ServerRender;

#[cfg(feature = "ssr")]
mod render {
    use std::future::Future;
    use std::pin::pin;

    use futures_util::future::{Either, select};
    use yew::{BaseComponent, LocalServerRenderer};

    use super::{BoundaryId, PASSES, ServerPass};
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
    /// must be given that controller (through the app's props), so that
    /// every pass shares one cache and a later pass renders from what the
    /// first one fetched. It needs unwinding panics (the default
    /// `panic = "unwind"`), to stop a pass, and a tokio runtime: it runs
    /// the passes on a `LocalSet` (`run_until`), where the reads' requests
    /// are spawned.
    ///
    /// A pass that is stopped is not torn down by Yew (its renderer has no
    /// way to); what its components hold stays allocated. A page with no
    /// failed read takes one pass and leaves nothing behind.
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
    /// #[derive(Properties, PartialEq, Clone)]
    /// struct Props { ctrl: Controller }
    ///
    /// #[component]
    /// fn App(props: &Props) -> Html {
    ///     let error_fallback = Callback::from(|e: BoundaryError| html! { <p>{ e.error.status() }</p> });
    ///     html! {
    ///         <CacheProvider controller={props.ctrl.clone()}>
    ///             <AsyncBoundary {error_fallback}><Missing /></AsyncBoundary>
    ///         </CacheProvider>
    ///     }
    /// }
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # let base_url = api.url();
    /// let ctrl = Controller::new(Client::new(base_url));
    /// # restcache_demo::block_on(async {
    /// let html = ServerRender::<App>::new(ctrl.clone(), Props { ctrl }).hydratable(false).render().await?;
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
        /// `controller`; hydratable, as Yew's own renderers are.
        pub fn new(controller: Controller, props: COMP::Properties) -> Self {
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
            let local = tokio::task::LocalSet::new();
            local.run_until(self.passes()).await
        }

        async fn passes(self) -> Result<String, Error> {
            let mut fallbacks = rustc_hash::FxHashMap::default();
            let mut first_failure = None;
            for pass_number in 0..MAX_PASSES {
                let pass = ServerPass::new(fallbacks.clone());
                let render = LocalServerRenderer::<COMP>::with_props(self.props.clone())
                    .hydratable(self.hydratable)
                    .render();
                let failed = match self.render_pass(&pass, render).await {
                    Ok(html) => return Ok(html),
                    Err(failed) => failed,
                };
                first_failure = first_failure.or_else(|| failed.first().map(|f| f.1.clone()));
                if !cfg!(panic = "unwind") {
                    break; // no way to stop a pass without unwinding
                }
                // The first pass fetched: its boundaries' places depend on
                // when each answer came, so its failures are found again
                // by a pass from the warm cache.
                if pass_number > 0 {
                    for (boundary, error) in failed {
                        fallbacks.entry(boundary).or_insert(error);
                    }
                }
            }
            Err(first_failure.unwrap_or_else(|| unreachable!("a stopped pass noted a failure")))
        }

        /// Renders one pass with the pass registered for the controller:
        /// its page, or (when it waits on failed reads only) the failures
        /// it met, once stopped.
        async fn render_pass(
            &self,
            pass: &ServerPass,
            render: impl Future<Output = String>,
        ) -> Result<String, Vec<(BoundaryId, Error)>> {
            let registered = (self.controller.clone(), pass.clone());
            PASSES.with(|passes| passes.borrow_mut().push(registered));
            let render = Box::pin(render);
            let stuck = pin!(pass.until_stuck());
            let outcome = match select(render, stuck).await {
                Either::Left((html, _)) => Ok(html),
                Either::Right(((), render)) => {
                    let failed = if cfg!(panic = "unwind") {
                        pass.stop()
                    } else {
                        pass.failures()
                    };
                    drop(render);
                    Err(failed)
                }
            };
            PASSES.with(|passes| passes.borrow_mut().retain(|(_, p)| p != pass));
            outcome
        }
    }
}
