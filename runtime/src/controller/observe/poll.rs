//! Polling: one loop per polled key, at the shortest period among the
//! observers that poll it, on the controller's clock.

use std::rc::{Rc, Weak};
use std::time::Duration;

use futures_util::future::{AbortHandle, Abortable, LocalBoxFuture};

use crate::controller::{Controller, Inner};

/// Makes one poll's request.
pub(crate) type PollFetch = Rc<dyn Fn(Controller) -> LocalBoxFuture<'static, ()>>;

/// The polling of one key.
pub(crate) struct Poller {
    /// Each polling observer's id and period.
    periods: Vec<(u32, Duration)>,
    fetch: PollFetch,
    /// The loop that polls, with its period.
    running: Option<(AbortHandle, Duration)>,
}

impl Poller {
    pub fn new(fetch: PollFetch) -> Self {
        Poller {
            periods: Vec::new(),
            fetch,
            running: None,
        }
    }

    /// The observer `id` polls every `every`.
    pub fn join(&mut self, id: u32, every: Duration, controller: &Controller) {
        self.periods.push((id, every));
        self.restart(controller);
    }

    /// The observer `id` stops polling.
    pub fn leave(&mut self, id: u32) {
        self.periods.retain(|(other, _)| *other != id);
        if self.periods.is_empty()
            && let Some((abort, _)) = self.running.take()
        {
            abort.abort();
        }
    }

    /// Whether no observer polls the key any longer.
    pub fn is_idle(&self) -> bool {
        self.periods.is_empty()
    }

    /// Runs the loop at the shortest period, unless it runs at it already.
    /// A zero period does not poll.
    fn restart(&mut self, controller: &Controller) {
        let every = self.periods.iter().map(|(_, every)| *every).min();
        if self.running.as_ref().map(|(_, at)| *at) == every {
            return;
        }
        if let Some((abort, _)) = self.running.take() {
            abort.abort();
        }
        let Some(every) = every.filter(|every| !every.is_zero()) else {
            return;
        };
        let (abort, registration) = AbortHandle::new_pair();
        let polling = poll_loop(
            Rc::downgrade(&controller.inner),
            Rc::clone(&self.fetch),
            every,
        );
        controller.spawn(Box::pin(async move {
            let _ = Abortable::new(polling, registration).await;
        }));
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

/// Waits `every` on the controller's clock, then polls; again, until
/// aborted or the controller is gone. It holds the controller only while
/// a request is on its way.
async fn poll_loop(inner: Weak<Inner>, fetch: PollFetch, every: Duration) {
    loop {
        let Some(sleep) = inner.upgrade().map(|inner| inner.clock.sleep(every)) else {
            return;
        };
        sleep.await;
        let Some(inner) = inner.upgrade() else {
            return;
        };
        fetch(Controller { inner }).await;
    }
}
