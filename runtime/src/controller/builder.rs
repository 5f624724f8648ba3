//! Building a controller with another clock or other default expiries.

use std::rc::Rc;
use std::time::Duration;

use super::{Clock, Controller, DEFAULT_DATA_EXPIRY, DEFAULT_ERROR_EXPIRY, SystemClock};
use crate::http::Client;

/// Settings of a [`Controller`] before it is built; see
/// [`Controller::builder`].
#[must_use = "call `build` to get the controller"]
pub struct ControllerBuilder {
    client: Client,
    clock: Rc<dyn Clock>,
    data_expiry: Duration,
    error_expiry: Duration,
}

impl ControllerBuilder {
    pub(super) fn new(client: Client) -> Self {
        ControllerBuilder {
            client,
            clock: Rc::new(SystemClock),
            data_expiry: DEFAULT_DATA_EXPIRY,
            error_expiry: DEFAULT_ERROR_EXPIRY,
        }
    }

    /// Where "now" comes from (a [`ManualClock`](super::ManualClock) in
    /// tests).
    pub fn clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Rc::new(clock);
        self
    }

    /// How long responses stay fresh unless their endpoint says
    /// otherwise (default 60 s).
    pub fn data_expiry(mut self, expiry: Duration) -> Self {
        self.data_expiry = expiry;
        self
    }

    /// How long errors stay unless their endpoint says otherwise
    /// (default 1 s).
    pub fn error_expiry(mut self, expiry: Duration) -> Self {
        self.error_expiry = expiry;
        self
    }

    /// The controller.
    pub fn build(self) -> Controller {
        Controller::from_builder(self.client, self.clock, self.data_expiry, self.error_expiry)
    }
}

impl std::fmt::Debug for ControllerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerBuilder")
            .field("client", &self.client)
            .field("data_expiry", &self.data_expiry)
            .field("error_expiry", &self.error_expiry)
            .finish_non_exhaustive()
    }
}
