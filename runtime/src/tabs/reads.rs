//! Reads shared between tabs: a tab that sends a read request says so,
//! and a read of the same key in another tab waits for that answer
//! instead of sending its own; the answer goes only to a tab that wants
//! it, and word that there is none when the request fails or is
//! cancelled, or the tab goes.

use futures_channel::oneshot;
use futures_util::future::LocalBoxFuture;

use super::link::Link;
use super::message::Message;
use crate::controller::{Controller, Event, ReadsElsewhere, Recorded, SharedAnswer};
use crate::meta::Timestamp;

/// The reads here that wait for another tab's answer.
type Waiters = Vec<oneshot::Sender<Option<SharedAnswer>>>;

/// A key another tab fetches.
pub(super) struct Elsewhere {
    tab: u64,
    /// Whether its request is on its way (not only about to be).
    sent: bool,
    waiting: Waiters,
}

/// A read here asks whether another tab fetches its key now.
impl ReadsElsewhere for Link {
    fn answer(&self, key: &str) -> Option<(LocalBoxFuture<'static, Option<SharedAnswer>>, bool)> {
        // This tab fetches it (or claimed it) itself: two tabs never wait
        // for each other.
        if self.fetching.borrow().contains_key(key) {
            return None;
        }
        let mut elsewhere = self.elsewhere.borrow_mut();
        let fetching = elsewhere.get_mut(key)?;
        let (send, answer) = oneshot::channel();
        fetching.waiting.push(send);
        let (tab, sent) = (fetching.tab, fetching.sent);
        drop(elsewhere);
        self.post(Message::Wants {
            tab,
            key: key.to_owned(),
        });
        Some((Box::pin(async move { answer.await.ok().flatten() }), sent))
    }

    fn gave_up(&self, key: &str) {
        let gone = self.elsewhere.borrow_mut().remove(key);
        no_answer(gone.into_iter().flat_map(|fetching| fetching.waiting));
    }

    fn is_sent(&self, key: &str) -> bool {
        self.elsewhere
            .borrow()
            .get(key)
            .is_some_and(|fetching| fetching.sent)
    }

    fn wants(&self, key: &str) -> bool {
        self.fetching.borrow().get(key) == Some(&true)
    }
}

/// After a reset (here or in another tab): no read waits for another
/// tab's answer, and none is owed.
pub(super) fn forget(link: &Link) {
    link.fetching.borrow_mut().clear();
    let waiting = std::mem::take(&mut *link.elsewhere.borrow_mut());
    no_answer(waiting.into_values().flat_map(|fetching| fetching.waiting));
}

/// Tells each of `waiters` that no answer comes from another tab: it
/// fetches for itself.
fn no_answer(waiters: impl IntoIterator<Item = oneshot::Sender<Option<SharedAnswer>>>) {
    for read in waiters {
        let _ = read.send(None);
    }
}

/// Tells the other tabs of a read request starting here, and of one
/// ending with no answer to share.
pub(super) fn tell_request(link: &Link, event: &Event, ctrl: &Controller) {
    match event {
        // Unless this tab itself waits for another's answer.
        Event::RequestStarted { key, .. }
            if ctrl.is_reading(key) && !link.elsewhere.borrow().contains_key(key) =>
        {
            announce(link, key);
        }
        // Unless a later request of the key is on its way (one let go by
        // an invalidation ended): its answer is still to share.
        Event::RequestFailed { key, .. } | Event::RequestCancelled { key }
            if !ctrl.is_reading(key) && link.fetching.borrow_mut().remove(key).is_some() =>
        {
            link.post(Message::FetchEnded {
                tab: link.tab,
                key: key.clone(),
            });
        }
        _ => {}
    }
}

/// Tells the other tabs of every read request on its way here.
pub(super) fn tell_in_flight(link: &Link, ctrl: &Controller) {
    for key in ctrl.reading() {
        announce(link, &key);
    }
}

/// Tells the other tabs this one fetches `key` now. (Claimed already, when
/// this tab invalidated it, a read elsewhere may want the answer by now.)
fn announce(link: &Link, key: &str) {
    link.fetching
        .borrow_mut()
        .entry(key.to_owned())
        .or_insert(false);
    link.post(Message::Fetching {
        tab: link.tab,
        key: key.to_owned(),
    });
}

/// Hands this tab's answer for `key` to the tabs that wait for it.
pub(super) fn tell_answer(link: &Link, key: &str, ctrl: &Controller) {
    let answer = ctrl.take_shared_answer(key);
    // Stored while its read is still on its way (a value set by hand, a
    // page added): not that read's answer.
    if ctrl.is_reading(key) {
        return;
    }
    let Some(wanted) = link.fetching.borrow_mut().remove(key) else {
        return;
    };
    link.post(match answer.filter(|_| wanted) {
        Some(answer) => Message::Fetched {
            tab: link.tab,
            key: key.to_owned(),
            response: answer.response,
            started: answer.started.as_micros(),
        },
        None => Message::FetchEnded {
            tab: link.tab,
            key: key.to_owned(),
        },
    });
}

/// Tab `tab` fetches `key` (`sent`), or is about to: a read of it here
/// waits for that.
pub(super) fn heard_fetching(link: &Link, tab: u64, key: String, sent: bool) {
    let mut elsewhere = link.elsewhere.borrow_mut();
    let fetching = elsewhere.entry(key).or_insert_with(|| Elsewhere {
        tab,
        sent,
        waiting: Vec::new(),
    });
    if fetching.tab == tab {
        fetching.sent |= sent;
    }
}

/// This tab invalidated `key`: whether a view here reads it again at once,
/// and if so, the other tabs wait for that answer.
pub(super) fn claim_refetch(link: &Link, key: &str, ctrl: &Controller) -> bool {
    let refetching = ctrl.refetches(key) && !link.elsewhere.borrow().contains_key(key);
    if refetching {
        link.fetching
            .borrow_mut()
            .entry(key.to_owned())
            .or_insert(false);
    }
    refetching
}

/// A read elsewhere wants this tab's answer for `key`.
pub(super) fn heard_wants(link: &Link, tab: u64, key: &str) {
    if tab == link.tab
        && let Some(wanted) = link.fetching.borrow_mut().get_mut(key)
    {
        *wanted = true;
    }
}

/// Tab `tab`'s answer for `key` (`None`: there is none): the reads here
/// that waited have it.
pub(super) fn heard_answer(
    link: &Link,
    tab: u64,
    key: &str,
    answer: Option<(Recorded, u64)>,
    ctrl: &Controller,
) {
    // An answer to a request sent before this cache's last reset (the
    // other tab had not heard of it yet) is no answer: the reads fetch.
    let answer = answer
        .map(|(response, started)| (response, Timestamp::from_micros(started).min(ctrl.now())))
        .filter(|(_, started)| !ctrl.stood_before_reset(*started));
    for read in stop_waiting(link, tab, key) {
        let answer = answer.as_ref().map(|(response, started)| SharedAnswer {
            response: response.clone(),
            started: *started,
        });
        let _ = read.send(answer);
    }
}

/// Tab `tab` went: the reads here that waited for it fetch for themselves.
pub(super) fn heard_gone(link: &Link, tab: u64) {
    let keys: Vec<String> = link
        .elsewhere
        .borrow()
        .iter()
        .filter(|(_, fetching)| fetching.tab == tab)
        .map(|(key, _)| key.clone())
        .collect();
    for key in keys {
        no_answer(stop_waiting(link, tab, &key));
    }
}

/// Tab `tab` no longer fetches `key`: the reads that waited for it.
fn stop_waiting(link: &Link, tab: u64, key: &str) -> Waiters {
    let mut elsewhere = link.elsewhere.borrow_mut();
    match elsewhere.get(key) {
        Some(fetching) if fetching.tab == tab => elsewhere
            .remove(key)
            .map(|fetching| fetching.waiting)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
