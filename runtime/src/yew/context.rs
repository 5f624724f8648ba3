//! What a [`CacheProvider`](super::CacheProvider) shares with the hooks
//! below it: its controller, and the server render pass it renders in.

use std::rc::Rc;

use super::server::ServerPass;
use crate::controller::Controller;

/// The shared state of one provider; clones share it.
#[derive(Clone)]
pub(crate) struct CacheContext(Rc<Shared>);

struct Shared {
    controller: Controller,
    /// The server render pass this provider renders in, if any.
    pass: Option<ServerPass>,
}

impl PartialEq for CacheContext {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl CacheContext {
    pub fn new(controller: Controller) -> Self {
        let pass = super::server::pass_of(&controller);
        if let Some(pass) = &pass {
            pass.watch(&controller);
        }
        CacheContext(Rc::new(Shared { controller, pass }))
    }

    /// The server render pass this provider renders in, if any.
    pub fn pass(&self) -> Option<&ServerPass> {
        self.0.pass.as_ref()
    }

    pub fn controller(&self) -> &Controller {
        &self.0.controller
    }
}
