//! What a [`CacheProvider`](super::CacheProvider) shares with the hooks
//! below it: its controller, and the server render pass it renders in.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rustc_hash::FxHashMap;

use yew::prelude::*;

use super::boundary::BoundaryContext;
use super::server::{BoundaryId, ServerPass};
use crate::controller::Controller;
#[cfg(feature = "hydration")]
use crate::controller::HandedFallback;
#[cfg(feature = "ssr")]
use crate::http::Client;
use crate::http::Error;

/// What a provider and the boundaries hand down to the hooks below them,
/// as one context: the nearest provider's cache and the nearest boundary.
/// Each fills in its own part and passes the other on, so that an app
/// carries the code of one context provider, not two.
#[derive(Clone, Default, PartialEq)]
pub(crate) struct Scope {
    pub cache: Option<CacheContext>,
    pub boundary: Option<BoundaryContext>,
}

/// The scope of the component: empty above every provider and boundary.
#[hook]
pub(crate) fn use_scope() -> Scope {
    use_context::<Scope>().unwrap_or_default()
}

/// The shared state of one provider; clones share it.
#[derive(Clone)]
pub(crate) struct CacheContext(Rc<Shared>);

enum Shared {
    /// A provider of its own controller (in a browser, or a server render
    /// by Yew's own renderers), with the fallbacks a server showed when
    /// its page hydrates.
    Owned(Controller, Option<Rc<Hydrating>>),
    /// A provider in a server render pass: the pass holds the controller,
    /// and lets go of it when it ends. Only a server render makes a pass:
    /// a build without `ssr` carries none of this.
    #[cfg(feature = "ssr")]
    InPass(ServerPass),
}

impl PartialEq for CacheContext {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A build without `hydration` cannot hydrate a page a server rendered:
/// a page that holds a handoff, or a controller that took one with
/// fallbacks a server showed, says so in the console, since the page
/// would fetch what the server sent and show what it did not.
#[cfg(not(feature = "hydration"))]
fn warn_without_hydration(controller: &Controller) {
    #[cfg(target_arch = "wasm32")]
    if Controller::page_holds_handoff() || controller.holds_handed_fallbacks() {
        web_sys::console::warn_1(
            &"restcache: this page was rendered by a server, and this build cannot hydrate \
              it: turn on restcache's `hydration` feature in the browser build"
                .into(),
        );
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = controller;
}

impl CacheContext {
    /// A provider of `controller`. When the controller took a server's
    /// handoff, the boundaries that showed their fallback on the server
    /// show it again as the page hydrates (with the `hydration` feature).
    pub fn new(controller: Controller) -> Self {
        #[cfg(feature = "hydration")]
        let hydrating = Hydrating::taken_above(&controller).or_else(|| {
            let handed = controller.take_handed_fallbacks();
            (!handed.is_empty()).then(|| Rc::new(Hydrating::new(handed)))
        });
        #[cfg(not(feature = "hydration"))]
        let hydrating = {
            warn_without_hydration(&controller);
            None
        };
        CacheContext(Rc::new(Shared::Owned(controller, hydrating)))
    }

    /// The fallbacks a server showed, while the page hydrates: never, in
    /// a build without `hydration` (so its boundaries carry none of the
    /// code that shows them).
    pub fn hydrating(&self) -> Option<&Rc<Hydrating>> {
        if cfg!(not(feature = "hydration")) {
            return None;
        }
        match &*self.0 {
            Shared::Owned(_, hydrating) => hydrating.as_ref(),
            #[cfg(feature = "ssr")]
            Shared::InPass(_) => None,
        }
    }

    /// A provider in `pass`, with the render's controller.
    #[cfg(feature = "ssr")]
    pub fn in_pass(pass: ServerPass) -> Self {
        if let Some(controller) = pass.controller() {
            pass.watch(&controller);
        }
        CacheContext(Rc::new(Shared::InPass(pass)))
    }

    /// The server render pass this provider renders in, if any.
    pub fn pass(&self) -> Option<&ServerPass> {
        match &*self.0 {
            Shared::Owned(..) => None,
            #[cfg(feature = "ssr")]
            Shared::InPass(pass) => Some(pass),
        }
    }

    /// Whether this provider rendered in a server pass that ended: what
    /// is left of it never renders again, and holds no controller.
    pub fn ended(&self) -> bool {
        self.pass().is_some_and(ServerPass::ended)
    }

    /// The provider's controller. After its server pass ended, a
    /// controller with nothing cached that no request ever reaches (what
    /// is left of a stopped page renders nothing more).
    pub fn controller(&self) -> Controller {
        match &*self.0 {
            Shared::Owned(controller, _) => controller.clone(),
            #[cfg(feature = "ssr")]
            Shared::InPass(pass) => pass.controller().unwrap_or_else(ended_controller),
        }
    }
}

/// The controller of ended passes, one a thread.
#[cfg(feature = "ssr")]
fn ended_controller() -> Controller {
    thread_local! {
        static ENDED: Controller = Controller::new(Client::new("http://ended-server-render.invalid"));
    }
    ENDED.with(Controller::clone)
}

/// What the boundaries above every provider took from the controller
/// that imported a server's handoff: its fallbacks, as they hydrate.
pub(crate) struct TakenAbove {
    pub controller: Controller,
    pub hydrating: Rc<Hydrating>,
}

#[cfg(feature = "hydration")]
thread_local! {
    /// What the boundaries above every provider took, while one of them
    /// lives.
    static TAKEN_ABOVE: RefCell<std::rc::Weak<TakenAbove>> = const { RefCell::new(std::rc::Weak::new()) };
}

/// A fallback a server showed: its error, and its failed reads' keys.
pub(crate) type Shown = (Error, Vec<String>);

/// The boundaries that showed their fallback in a server's render of the
/// page being hydrated, by where they sit: each shows it again in its
/// first render, so that the page the browser renders is the server's.
pub(crate) struct Hydrating {
    fallbacks: RefCell<FxHashMap<Vec<u32>, Shown>>,
    /// The next place among the boundaries at the root.
    root_children: Cell<u32>,
}

impl Hydrating {
    #[cfg(feature = "hydration")]
    fn new(handed: Vec<HandedFallback>) -> Self {
        let fallbacks = handed
            .into_iter()
            .map(|(boundary, error, keys)| (boundary, (error, keys)))
            .collect();
        Hydrating {
            fallbacks: RefCell::new(fallbacks),
            root_children: Cell::new(0),
        }
    }

    /// For a boundary above every provider, in a browser: the fallbacks
    /// the controller that took the page's handoff holds, with that
    /// controller. Every boundary at the root shares them (the server
    /// numbered them all with one count), and so does that controller's
    /// provider, below.
    #[cfg(feature = "hydration")]
    pub fn above_providers() -> Option<Rc<TakenAbove>> {
        if let Some(taken) = TAKEN_ABOVE.with(|above| above.borrow().upgrade()) {
            return Some(taken);
        }
        let controller = Controller::holding_handed_fallbacks()?;
        let hydrating = Rc::new(Hydrating::new(controller.take_handed_fallbacks()));
        let taken = Rc::new(TakenAbove {
            controller,
            hydrating,
        });
        TAKEN_ABOVE.with(|above| *above.borrow_mut() = Rc::downgrade(&taken));
        Some(taken)
    }

    /// The fallbacks the boundaries above the provider of `controller`
    /// took for it, if any.
    #[cfg(feature = "hydration")]
    fn taken_above(controller: &Controller) -> Option<Rc<Hydrating>> {
        let taken = TAKEN_ABOVE.with(|above| above.borrow().upgrade())?;
        (taken.controller == *controller).then(|| Rc::clone(&taken.hydrating))
    }

    /// The identity of the next boundary at the root (as a server render
    /// pass numbers them).
    pub fn next_root_boundary(&self) -> BoundaryId {
        let place = self.root_children.get();
        self.root_children.set(place + 1);
        Rc::from([place].as_slice())
    }

    /// The fallback the boundary `id` showed on the server: its error and
    /// its failed reads' keys. Taken once.
    pub fn take(&self, id: &BoundaryId) -> Option<Shown> {
        self.fallbacks.borrow_mut().remove(&id[..])
    }
}
