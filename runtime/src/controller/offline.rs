//! While offline: a mutation made while the network is down (or while
//! earlier ones still wait) keeps its place in a queue, its optimistic
//! value on show, and is sent once the network is back, each after the
//! one before it has its answer; one that finds no server keeps its place
//! and is sent again after a growing wait; a queued mutation whose caller
//! gives up leaves the queue. A read waits for the network too, showing what the
//! cache holds meanwhile.

use std::any::Any;
use std::future::poll_fn;
use std::rc::{Rc, Weak};
use std::task::{Poll, Waker};
use std::time::Duration;

use futures_util::future::select;
use futures_util::pin_mut;

use super::events::Event;
use super::{Controller, Inner, Retry};
use crate::http::Body;

/// The mutations waiting to be sent, by turn. Tickets are issued in
/// order and each joins at the end, so both lists stay sorted by ticket;
/// a queue holds a handful, which plain vectors serve best (and a
/// browser bundle carries no ordered map for them).
#[derive(Default)]
pub(crate) struct OfflineQueue {
    waiting: Vec<u64>,
    /// What each waiting mutation was called with, until its answer
    /// comes (what a saved cache keeps to send it after a reload).
    called: Vec<(u64, QueuedMutation)>,
    issued: u64,
    wakers: Vec<Waker>,
}

impl OfflineQueue {
    /// Forgets what the mutation `ticket` was called with.
    fn forget_call(&mut self, ticket: u64) {
        self.called.retain(|(queued, _)| *queued != ticket);
    }

    /// Takes `ticket` out of the queue; whether it was in it.
    fn leave(&mut self, ticket: u64) -> bool {
        self.forget_call(ticket);
        let place = self.waiting.iter().position(|&waiting| waiting == ticket);
        place.map(|place| self.waiting.remove(place)).is_some()
    }
}

/// A queued mutation as it was called: its endpoint's name (see
/// `Endpoint::replay_name`), its params, body and optimistic value.
#[derive(Clone)]
#[cfg_attr(not(feature = "persist"), allow(dead_code))]
pub(crate) struct QueuedMutation {
    pub endpoint: Option<String>,
    pub params: Rc<dyn Any>,
    pub body: Option<Body>,
    pub optimistic: Option<Rc<dyn Any>>,
}

/// One queued mutation's place; leaving it (sent and answered, or given
/// up) lets the next one go.
pub(super) struct Turn {
    controller: Controller,
    /// The cache key its mutation answers.
    key: String,
    ticket: u64,
    /// The cache's generation when it was queued: a reset ends the wait.
    generation: u64,
}

impl Controller {
    /// A place in the queue for a mutation about to be sent, when it must
    /// wait (the network is down, or earlier mutations still wait), or
    /// when `always`; `called` says what it was called with.
    pub(super) fn queue_mutation(
        &self,
        key: &str,
        always: bool,
        called: impl FnOnce() -> QueuedMutation,
    ) -> Option<Turn> {
        let mut queue = self.inner.offline.borrow_mut();
        if !always && self.is_online() && queue.waiting.is_empty() {
            return None;
        }
        queue.issued += 1;
        let ticket = queue.issued;
        queue.waiting.push(ticket);
        queue.called.push((ticket, called()));
        drop(queue);
        Some(Turn {
            controller: self.clone(),
            key: key.to_owned(),
            ticket,
            generation: self.inner.state.borrow().generation,
        })
    }

    /// After a reset (a log-out): the queued mutations are not saved any
    /// more, and each waiting one ends, unsent.
    pub(super) fn end_queued_mutations(&self) {
        self.inner.offline.borrow_mut().called.clear();
        self.wake_queue();
    }

    /// How many queued mutations are not answered yet.
    #[cfg(feature = "persist")]
    pub(crate) fn queued_call_count(&self) -> usize {
        self.inner.offline.borrow().called.len()
    }

    /// The queued mutations not answered yet, in order.
    #[cfg(feature = "persist")]
    pub(crate) fn queued_calls(&self) -> Vec<QueuedMutation> {
        self.inner
            .offline
            .borrow()
            .called
            .iter()
            .map(|(_, call)| call.clone())
            .collect()
    }

    /// How many mutations wait for the network (made while it was down,
    /// and not sent yet): what a "will be saved when you are back online"
    /// notice counts.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.queued_mutations(), 0);
    /// ```
    pub fn queued_mutations(&self) -> usize {
        self.inner.offline.borrow().waiting.len()
    }

    /// Wakes the queued mutations to look at the network and their turn.
    pub(super) fn wake_queue(&self) {
        let wakers = std::mem::take(&mut self.inner.offline.borrow_mut().wakers);
        for waker in wakers {
            waker.wake();
        }
    }
}

/// Waits until the network is up (or the controller is gone); whether it
/// had to wait.
pub(super) async fn until_online(inner: &Weak<Inner>) -> bool {
    let mut waited = false;
    loop {
        let Some(inner) = inner.upgrade() else {
            return waited;
        };
        let ctrl = Controller { inner };
        if ctrl.is_online() {
            return waited;
        }
        waited = true;
        let changed = ctrl.signals_changed();
        drop(ctrl);
        changed.await;
    }
}

impl Turn {
    /// Its mutation has its answer: a saved cache no longer keeps it
    /// (its place stays until the answer is stored).
    pub fn answered(&self) {
        if let Ok(mut queue) = self.controller.inner.offline.try_borrow_mut() {
            queue.forget_call(self.ticket);
        }
    }

    /// Whether the cache was reset since it was queued.
    pub fn reset_since(&self) -> bool {
        self.controller
            .inner
            .state
            .try_borrow()
            .is_ok_and(|state| state.generation != self.generation)
    }

    /// Resolves once the network is up and every earlier mutation has
    /// left the queue, or the cache was reset.
    pub async fn wait(&self) {
        self.wait_until(|turn, queue| {
            turn.controller.is_online() && queue.waiting.first() == Some(&turn.ticket)
        })
        .await;
    }

    /// Resolves once the cache was reset.
    async fn until_reset(&self) {
        self.wait_until(|_, _| false).await;
    }

    /// Resolves once `ready` holds, or the cache was reset; looked at
    /// again each time the queue wakes.
    async fn wait_until(&self, ready: impl Fn(&Turn, &OfflineQueue) -> bool) {
        poll_fn(|cx| {
            if self.reset_since() {
                return Poll::Ready(());
            }
            let mut queue = self.controller.inner.offline.borrow_mut();
            if ready(self, &queue) {
                return Poll::Ready(());
            }
            if !queue.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                queue.wakers.push(cx.waker().clone());
            }
            Poll::Pending
        })
        .await;
    }
}

/// The waits before a queued mutation that found no server is sent
/// again: from about a second, at most half a minute apart.
const SEND_AGAIN: Retry = Retry {
    attempts: u32::MAX,
    first_delay: Duration::from_secs(1),
    max_delay: Duration::from_secs(30),
};

impl Turn {
    /// Waits before its mutation, which found no server on try number
    /// `unsent`, is sent again: a wait that grows with each try
    /// (jittered), cut short by a change of network or focus; then its
    /// turn, as [`wait`](Self::wait) does; a reset ends it at once.
    pub async fn wait_to_send_again(&self, unsent: u32) {
        let ctrl = &self.controller;
        let seed = ctrl.now().as_micros() ^ u64::from(unsent) ^ self.ticket;
        let wait = ctrl
            .inner
            .clock
            .sleep(SEND_AGAIN.delay(unsent.saturating_sub(1), seed));
        let changed = ctrl.signals_changed();
        let reset = self.until_reset();
        pin_mut!(changed, reset);
        select(select(wait, changed), reset).await;
        self.wait().await;
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let left = match self.controller.inner.offline.try_borrow_mut() {
            Ok(mut queue) => queue.leave(self.ticket),
            Err(_) => false,
        };
        if left {
            self.controller.wake_queue();
            let key = std::mem::take(&mut self.key);
            self.controller.emit(|| Event::MutationDequeued { key });
        }
    }
}
