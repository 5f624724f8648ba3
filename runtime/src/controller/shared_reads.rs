//! Reads another tab answers (feature `tabs`): while another tab of the
//! app fetches a key, a read of that key here waits for its answer
//! instead of sending the same request, and stores it as its own
//! response, as of when the other tab sent its request. A tab that
//! fetches keeps each answer's text until its tabs are told.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::time::Duration;

use futures_util::future::{Either, LocalBoxFuture, select};
use rustc_hash::FxHashMap;

use super::handoff::Recorded;
use super::{Controller, Inner};
use crate::meta::Timestamp;

/// An answer another tab got: the response, and when its request started.
pub(crate) struct SharedAnswer {
    pub response: Recorded,
    pub started: Timestamp,
}

/// What knows which keys the other tabs fetch now (the tab link).
pub(crate) trait ReadsElsewhere {
    /// When another tab fetches `key` now, or is about to: its answer, or
    /// `None` when its request ends with none (failed, cancelled, or the
    /// tab went). With it, whether the request is on its way (not only
    /// about to be).
    fn answer(&self, key: &str) -> Option<(LocalBoxFuture<'static, Option<SharedAnswer>>, bool)>;

    /// A read here stopped waiting for the answer for `key` (too long):
    /// the other tab is not waited for again for it.
    fn gave_up(&self, key: &str);

    /// Whether the other tab said its request for `key` is on its way
    /// (not only about to be).
    fn is_sent(&self, key: &str) -> bool;

    /// Whether a read in another tab waits for this tab's answer for
    /// `key` (so its text is kept for it).
    fn wants(&self, key: &str) -> bool;
}

/// How long a read waits for another tab that is about to fetch its key
/// (it invalidated the key, and a view of its own shows it) to say its
/// request is on its way.
const ABOUT_TO_FETCH: Duration = Duration::from_secs(2);

/// A controller's side of reads shared with other tabs.
#[derive(Default)]
pub(crate) struct SharedReads {
    elsewhere: RefCell<Option<Weak<dyn ReadsElsewhere>>>,
    /// This tab's answers, by key, until its tabs are told.
    answers: RefCell<FxHashMap<String, SharedAnswer>>,
}

impl SharedReads {
    /// Whether another tab waits for this tab's answer for `key`.
    pub fn wanted(&self, key: &str) -> bool {
        self.seat().is_some_and(|elsewhere| elsewhere.wants(key))
    }

    fn seat(&self) -> Option<Rc<dyn ReadsElsewhere>> {
        self.elsewhere.borrow().as_ref()?.upgrade()
    }

    /// Keeps this tab's answer for `key`, for the other tabs.
    pub fn keep(&self, key: &str, response: Recorded, started: Timestamp) {
        self.answers
            .borrow_mut()
            .insert(key.to_owned(), SharedAnswer { response, started });
    }
}

impl Controller {
    /// Reads of this controller ask `elsewhere` before fetching, until
    /// it goes.
    pub(crate) fn share_reads(&self, elsewhere: Weak<dyn ReadsElsewhere>) {
        *self.inner.shared.elsewhere.borrow_mut() = Some(elsewhere);
    }

    /// Takes the answer this tab got for `key`, to hand to its tabs.
    pub(crate) fn take_shared_answer(&self, key: &str) -> Option<SharedAnswer> {
        self.inner.shared.answers.borrow_mut().remove(key)
    }

    /// The keys of the read requests on their way here.
    pub(crate) fn reading(&self) -> Vec<String> {
        let state = self.inner.state.borrow();
        let reading = state.keys.having(|kept| kept.in_flight.is_some());
        reading.cloned().collect()
    }

    /// Whether a view reads `key` again at once when it is invalidated:
    /// one that refetches what goes stale watches it, and the network is
    /// up.
    pub(crate) fn refetches(&self, key: &str) -> bool {
        self.is_online() && self.inner.observers.borrow().refetches(key)
    }

    /// Whether a read request of `key` is on its way here.
    pub(crate) fn is_reading(&self, key: &str) -> bool {
        self.inner.state.borrow().is_fetching(key)
    }
}

/// The answer another tab is getting for `key`, if one is: waited for at
/// most `limit` (a tab that vanished without a word is not waited for
/// longer than a request would be), or a short while when the other tab
/// has not said yet that its request is on its way.
pub(super) async fn answer_elsewhere(
    inner: &Weak<Inner>,
    key: &str,
    limit: Duration,
) -> Option<SharedAnswer> {
    let (mut waiting, sent, elsewhere) = {
        let inner = inner.upgrade()?;
        let elsewhere = inner.shared.seat()?;
        let (waiting, sent) = elsewhere.answer(key)?;
        (waiting, sent, Rc::downgrade(&elsewhere))
    };
    // A tab about to fetch is given a short while to say its request is
    // on its way; once it has, the rest of the request's time.
    let mut wait = if sent {
        limit
    } else {
        limit.min(ABOUT_TO_FETCH)
    };
    let mut waited = Duration::ZERO;
    loop {
        let timer = inner.upgrade()?.clock.sleep(wait);
        match select(waiting, timer).await {
            Either::Left((answer, _)) => return answer,
            Either::Right(((), still)) => waiting = still,
        }
        waited += wait;
        wait = limit.saturating_sub(waited);
        if wait.is_zero() || !elsewhere.upgrade().is_some_and(|e| e.is_sent(key)) {
            break;
        }
    }
    if let Some(elsewhere) = elsewhere.upgrade() {
        elsewhere.gave_up(key);
    }
    None
}
