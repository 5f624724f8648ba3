//! Polling: one loop per polled key, at the shortest period among the
//! observers that poll it, on the controller's clock. A poll comes a
//! period after the key's last fetch (whoever made it), not after the
//! observer mounted; none is made while the app is out of view or
//! offline.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;

use futures_util::future::{AbortHandle, Abortable, LocalBoxFuture};

use serde::Serialize;

use crate::cache::schema::Schema;
use crate::controller::{Controller, Inner};
use crate::meta::Timestamp;
use crate::rest::{Endpoint, Readable};

/// Makes one poll's request.
pub(crate) type PollFetch = Rc<dyn Fn(Controller) -> LocalBoxFuture<'static, ()>>;

/// The polling of one key.
pub(crate) struct Poller {
    /// Each polling observer's id, period and request, in the order they
    /// joined.
    periods: Vec<(u32, Duration, PollFetch)>,
    /// The request the loop makes: that of the observer that joined last
    /// among those still polling (its fetch function sends what its
    /// view's latest render captured, a token say).
    fetch: Rc<RefCell<PollFetch>>,
    /// The loop that polls, with its period (which it reads before each
    /// wait: a slower one takes effect at the loop's next wait).
    running: Option<(AbortHandle, Rc<Cell<Duration>>)>,
}

impl Poller {
    pub fn new(fetch: PollFetch) -> Self {
        Poller {
            periods: Vec::new(),
            fetch: Rc::new(RefCell::new(fetch)),
            running: None,
        }
    }

    /// The observer `id` polls the key `key` every `every`, with `fetch`.
    pub fn join(
        &mut self,
        id: u32,
        key: &str,
        every: Duration,
        fetch: PollFetch,
        controller: &Controller,
    ) {
        *self.fetch.borrow_mut() = Rc::clone(&fetch);
        self.periods.push((id, every, fetch));
        self.restart(key, controller);
    }

    /// The observer `id` stops polling: the loop goes on at the shortest
    /// period left, with the request of the last observer left, or stops
    /// with the last observer.
    pub fn leave(&mut self, id: u32) {
        self.periods.retain(|(other, _, _)| *other != id);
        if let Some((_, _, fetch)) = self.periods.last() {
            *self.fetch.borrow_mut() = Rc::clone(fetch);
        }
        match self.shortest() {
            Some(every) => {
                if let Some((_, period)) = &self.running {
                    period.set(every);
                }
            }
            None => {
                if let Some((abort, _)) = self.running.take() {
                    abort.abort();
                }
            }
        }
    }

    /// The shortest period of the observers that poll, zero aside (a
    /// zero period does not poll).
    fn shortest(&self) -> Option<Duration> {
        let periods = self.periods.iter().map(|(_, every, _)| *every);
        periods.filter(|every| !every.is_zero()).min()
    }

    /// Whether no observer polls the key any longer.
    pub fn is_idle(&self) -> bool {
        self.periods.is_empty()
    }

    /// Runs the loop at the shortest period, unless it runs at it already.
    fn restart(&mut self, key: &str, controller: &Controller) {
        let every = self.shortest();
        if self.running.as_ref().map(|(_, period)| period.get()) == every {
            return;
        }
        if let Some((abort, _)) = self.running.take() {
            abort.abort();
        }
        let Some(every) = every else {
            return;
        };
        let (abort, registration) = AbortHandle::new_pair();
        let period = Rc::new(Cell::new(every));
        let polling = poll_loop(
            Rc::downgrade(&controller.inner),
            key.to_owned(),
            Rc::clone(&self.fetch),
            Rc::clone(&period),
        );
        controller.spawn(Box::pin(async move {
            let _ = Abortable::new(polling, registration).await;
        }));
        self.running = Some((abort, period));
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        if let Some((abort, _)) = self.running.take() {
            abort.abort();
        }
    }
}

/// Polls `key` once `period` has passed since its last fetch, on the
/// controller's clock; again, until aborted or the controller is gone.
/// While the app is out of view or offline it waits a period at a time.
/// It holds the controller only while a request is on its way.
async fn poll_loop(
    inner: Weak<Inner>,
    key: String,
    fetch: Rc<RefCell<PollFetch>>,
    period: Rc<Cell<Duration>>,
) {
    // This loop's own last poll: a poll whose answer was not stored (a
    // reset on its way) still counts, so that polls never run back to
    // back.
    let mut polled: Option<Timestamp> = None;
    let last = |controller: &Controller, polled: Option<Timestamp>| {
        controller.last_fetched(&key).max(polled)
    };
    loop {
        let Some(controller) = inner.upgrade().map(|inner| Controller { inner }) else {
            return;
        };
        let every = period.get();
        let away = !controller.is_focused() || !controller.is_online();
        let wait = match last(&controller, polled) {
            Some(at) if !away => every.saturating_sub(elapsed(&controller, at)),
            _ => every,
        };
        if wait.is_zero() {
            polled = Some(controller.now());
            let request = Rc::clone(&fetch.borrow());
            request(controller).await;
            continue;
        }
        let sleep = controller.inner.clock.sleep(wait);
        drop(controller);
        sleep.await;
        let Some(controller) = inner.upgrade().map(|inner| Controller { inner }) else {
            return;
        };
        let due = controller.is_focused()
            && controller.is_online()
            && last(&controller, polled).is_none_or(|at| elapsed(&controller, at) >= period.get());
        if due {
            polled = Some(controller.now());
            let request = Rc::clone(&fetch.borrow());
            request(controller).await;
        }
    }
}

/// The time since `at` on the controller's clock.
fn elapsed(controller: &Controller, at: Timestamp) -> Duration {
    Duration::from_micros(controller.now().as_micros().saturating_sub(at.as_micros()))
}

impl Controller {
    /// When the read `key` was last fetched: the start of its last
    /// stored response or error.
    pub(crate) fn last_fetched(&self, key: &str) -> Option<Timestamp> {
        let state = self.inner.state.borrow();
        let data = state.store.result_meta(key).map(|meta| meta.fetched_at);
        let error = state.error(key).map(|stored| stored.meta.fetched_at);
        data.max(error)
    }

    /// A poll's request of the read: as [`fetch`](Self::fetch), and its
    /// error, if any, stays beside the data on show.
    pub(crate) async fn fetch_polled<P, S, E>(&self, endpoint: &Endpoint<P, S, E>, params: &P)
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Readable,
    {
        if let Ok(located) = self.locate(endpoint, params) {
            let _ = self.fetch_read(endpoint, params, None, located, true).await;
        }
    }
}
