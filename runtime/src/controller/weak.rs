//! A controller held weakly: by what may outlive its last handle (a
//! browser listener, a channel between tabs, a timer).

use std::rc::{Rc, Weak};

use super::{Controller, Inner};

/// A controller held weakly.
#[derive(Clone)]
pub(crate) struct WeakController(Weak<Inner>);

impl WeakController {
    /// The controller, if a handle of it is still alive.
    pub(crate) fn upgrade(&self) -> Option<Controller> {
        self.0.upgrade().map(|inner| Controller { inner })
    }
}

impl Controller {
    /// This controller, held weakly.
    pub(crate) fn downgrade(&self) -> WeakController {
        WeakController(Rc::downgrade(&self.inner))
    }
}
