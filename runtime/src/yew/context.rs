//! What a [`CacheProvider`](super::CacheProvider) shares with the hooks
//! below it: its controller, and the server render pass it renders in.

use std::rc::Rc;

use super::server::ServerPass;
use crate::controller::Controller;
use crate::http::Client;

/// The shared state of one provider; clones share it.
#[derive(Clone)]
pub(crate) struct CacheContext(Rc<Shared>);

enum Shared {
    /// A provider of its own controller (in a browser, or a server render
    /// by Yew's own renderers).
    Owned(Controller),
    /// A provider in a server render pass: the pass holds the controller,
    /// and lets go of it when it ends.
    InPass(ServerPass),
}

impl PartialEq for CacheContext {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl CacheContext {
    pub fn new(controller: Controller) -> Self {
        CacheContext(Rc::new(Shared::Owned(controller)))
    }

    /// A provider in `pass`, with the render's controller.
    pub fn in_pass(pass: ServerPass) -> Self {
        if let Some(controller) = pass.controller() {
            pass.watch(&controller);
        }
        CacheContext(Rc::new(Shared::InPass(pass)))
    }

    /// The server render pass this provider renders in, if any.
    pub fn pass(&self) -> Option<&ServerPass> {
        match &*self.0 {
            Shared::Owned(_) => None,
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
            Shared::Owned(controller) => controller.clone(),
            Shared::InPass(pass) => pass.controller().unwrap_or_else(ended_controller),
        }
    }
}

/// The controller of ended passes, one a thread.
fn ended_controller() -> Controller {
    thread_local! {
        static ENDED: Controller = Controller::new(Client::new("http://ended-server-render.invalid"));
    }
    ENDED.with(Controller::clone)
}
