//! Focus and network as signals: whoever knows tells the controller
//! (the browser listener below, a test, a native app's window events),
//! and the observers that revalidate refetch their stale reads when the
//! page comes back into view or the network comes back.

use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::registry::Revalidate;
use crate::controller::{Controller, Inner};

/// Who waits for the next change of focus or network (a live stream that
/// pauses, a read that waits for the network).
#[derive(Default)]
pub(crate) struct SignalWaiters {
    /// Bumped on every change.
    changes: u64,
    next_waiter: u64,
    waiting: Vec<(u64, Waker)>,
}

/// Which signal changed.
#[derive(Clone, Copy)]
pub(crate) enum Signal {
    Focus,
    Online,
}

impl Controller {
    /// Tells the controller whether the app is in view (a browser tab
    /// visible, a window focused). When it comes back into view, every
    /// observed read that revalidates (what `use_suspense`, `use_dle` and
    /// `use_prefetch` read) refetches if it is stale. In a browser the
    /// [`PageListener`] calls this; elsewhere the app does.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert!(ctrl.is_focused());
    /// ctrl.set_focused(false);
    /// assert!(!ctrl.is_focused());
    /// ```
    pub fn set_focused(&self, focused: bool) {
        let was = self.signal(Signal::Focus, focused);
        if focused && !was {
            self.revalidate_observed();
        }
    }

    /// Whether the app is in view, as last told (yes until told).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// assert!(Controller::new(Client::new("http://127.0.0.1:8080")).is_focused());
    /// ```
    pub fn is_focused(&self) -> bool {
        self.inner.focused.get()
    }

    /// Tells the controller whether the network is up. While it is down,
    /// reads wait for it (what the cache holds stays on show) and
    /// mutations wait in a queue (their optimistic values on show); when
    /// it comes back they are sent, the mutations in order, and every
    /// observed read that revalidates refetches if it is stale (as on
    /// focus).
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// ctrl.set_online(false);
    /// assert!(!ctrl.is_online());
    /// ```
    pub fn set_online(&self, online: bool) {
        let was = self.signal(Signal::Online, online);
        if online && !was {
            self.revalidate_observed();
        }
    }

    /// Whether the network is up, as last told (yes until told).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// assert!(Controller::new(Client::new("http://127.0.0.1:8080")).is_online());
    /// ```
    pub fn is_online(&self) -> bool {
        self.inner.online.get()
    }

    /// Notes a signal's new value; returns the one before.
    fn signal(&self, signal: Signal, on: bool) -> bool {
        let cell = match signal {
            Signal::Focus => &self.inner.focused,
            Signal::Online => &self.inner.online,
        };
        let was = cell.replace(on);
        if was != on {
            self.wake_signal_waiters();
            self.wake_queue();
        }
        was
    }

    /// Wakes whoever waits on [`signals_changed`](Self::signals_changed).
    pub(crate) fn wake_signal_waiters(&self) {
        let waiting = {
            let mut waiters = self.inner.signal_waiters.borrow_mut();
            waiters.changes += 1;
            std::mem::take(&mut waiters.waiting)
        };
        // Outside the borrow: a waker may poll at once.
        for (_, waker) in waiting {
            waker.wake();
        }
    }

    /// Resolves at the next change of focus or network (or once the
    /// controller is gone: it holds it weakly).
    pub(crate) fn signals_changed(&self) -> SignalsChanged {
        let mut waiters = self.inner.signal_waiters.borrow_mut();
        waiters.next_waiter += 1;
        SignalsChanged {
            inner: Rc::downgrade(&self.inner),
            seen: waiters.changes,
            id: waiters.next_waiter,
        }
    }

    /// Refetches every observed read that revalidates and is stale.
    pub(crate) fn revalidate_observed(&self) {
        let all: Vec<Revalidate> = self
            .inner
            .observers
            .borrow()
            .entries()
            .filter_map(|entry| entry.revalidate.clone())
            .collect();
        for revalidate in all {
            revalidate(self);
        }
    }

    /// Listens to the browser for the controller's signals (a page
    /// shown or hidden, the network lost or back) until the returned
    /// listener is dropped, starting from what the browser says now (a
    /// page loaded offline starts offline). `online` says whether the
    /// network back refetches every stale read views show; the network
    /// is followed either way (offline, changes wait in the queue and
    /// reads wait), and without that round the reads whose expiry came
    /// while offline fetch when it is back. `focus` says whether the page
    /// shown again refetches every stale read; only then is the page's
    /// visibility followed (a page out of view pauses its polls and
    /// defers its reads' expiries to its return). Two rounds are at least
    /// `throttle` apart, so a burst of events makes one. Outside a browser
    /// there is nothing to listen to, and the listener does nothing.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::time::Duration;
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let listener = ctrl.listen_to_page(true, true, Duration::from_secs(1));
    /// drop(listener); // stops listening
    /// ```
    pub fn listen_to_page(&self, focus: bool, online: bool, throttle: Duration) -> PageListener {
        PageListener {
            _listeners: listen(self, focus, online, throttle),
        }
    }
}

/// See [`Controller::signals_changed`].
pub(crate) struct SignalsChanged {
    inner: Weak<Inner>,
    seen: u64,
    id: u64,
}

impl Future for SignalsChanged {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Some(inner) = self.inner.upgrade() else {
            return Poll::Ready(());
        };
        let mut waiters = inner.signal_waiters.borrow_mut();
        if waiters.changes != self.seen {
            return Poll::Ready(());
        }
        let id = self.id;
        match waiters.waiting.iter_mut().find(|(waiter, _)| *waiter == id) {
            Some((_, waker)) => waker.clone_from(cx.waker()),
            None => waiters.waiting.push((id, cx.waker().clone())),
        }
        Poll::Pending
    }
}

/// A waiter that goes away leaves no waker behind.
impl Drop for SignalsChanged {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade()
            && let Ok(mut waiters) = inner.signal_waiters.try_borrow_mut()
        {
            let id = self.id;
            waiters.waiting.retain(|(waiter, _)| *waiter != id);
        }
    }
}

/// The browser listeners of [`Controller::listen_to_page`]; dropping it
/// removes them.
#[must_use = "dropping the listener stops listening at once"]
pub struct PageListener {
    _listeners: Vec<Rc<dyn std::any::Any>>,
}

impl std::fmt::Debug for PageListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageListener").finish_non_exhaustive()
    }
}

/// What the page's listeners share: the controller they tell (weakly:
/// the listeners may outlive its last handle), which signals revalidate
/// when they come back, and when a signal last made it revalidate.
#[cfg(target_arch = "wasm32")]
struct Teller {
    inner: std::rc::Weak<super::super::Inner>,
    /// Whether the page shown again, and the network back, revalidate.
    revalidates: [bool; 2],
    last: std::cell::Cell<Option<web_time::Instant>>,
    throttle: Duration,
}

#[cfg(target_arch = "wasm32")]
impl Teller {
    /// Tells the controller that `signal` is now `on`; a page shown (or
    /// back online) revalidates what views show, when that signal
    /// revalidates, at most once a `throttle`.
    fn tell(&self, signal: Signal, on: bool) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let controller = Controller { inner };
        controller.signal(signal, on);
        // The browser tells of a change only: a page shown was hidden.
        let now = web_time::Instant::now();
        if !on {
            return;
        }
        if !self.revalidates[signal as usize] {
            // Back online with no revalidation: the reads whose expiry
            // came while offline fetch now, as they would have then.
            controller.revalidate_due();
        } else if self
            .last
            .get()
            .is_none_or(|at| now.duration_since(at) >= self.throttle)
        {
            self.last.set(Some(now));
            controller.revalidate_observed();
        }
    }

    /// Tells the controller what the browser says now, where it differs
    /// from what the controller was last told (a page loaded offline, or
    /// in a tab in the background, hears no event saying so).
    fn tell_current(&self, signal: Signal, on: bool) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let known = match signal {
            Signal::Focus => inner.focused.get(),
            Signal::Online => inner.online.get(),
        };
        if known != on {
            self.tell(signal, on);
        }
    }
}

/// Follows the network whatever revalidates (a page offline queues its
/// mutations and holds its reads), and the page's visibility when its
/// return revalidates (a page out of view then pauses its polls and live
/// streams, and its reads' expiries wait for its return).
#[cfg(target_arch = "wasm32")]
fn listen(
    controller: &Controller,
    focus: bool,
    online: bool,
    throttle: Duration,
) -> Vec<Rc<dyn std::any::Any>> {
    use gloo_events::EventListener;
    use wasm_bindgen::JsCast;

    let teller = Rc::new(Teller {
        inner: Rc::downgrade(&controller.inner),
        revalidates: [focus, online],
        last: std::cell::Cell::new(None),
        throttle,
    });
    let Some(window) = web_sys::window() else {
        return Vec::new();
    };
    let document = window.document();
    let visible = {
        let document = document.clone();
        move || document.as_ref().is_none_or(|d| !d.hidden())
    };
    let on_line = window.navigator().on_line();
    // One listener type for every event: it tells `fixed` where the event
    // itself says which way the signal went, and the page's visibility
    // when the event comes otherwise.
    let listen_to =
        |target: &web_sys::EventTarget, event: &'static str, signal, fixed: Option<bool>| {
            let teller = Rc::clone(&teller);
            let visible = visible.clone();
            Rc::new(EventListener::new(target, event, move |_| {
                teller.tell(signal, fixed.unwrap_or_else(&visible))
            })) as Rc<dyn std::any::Any>
        };
    teller.tell_current(Signal::Online, on_line);
    let mut listeners = Vec::new();
    if focus {
        teller.tell_current(Signal::Focus, visible());
    }
    if focus && let Some(document) = document {
        let target = document.unchecked_into();
        listeners.push(listen_to(&target, "visibilitychange", Signal::Focus, None));
    }
    listeners.push(listen_to(&window, "online", Signal::Online, Some(true)));
    listeners.push(listen_to(&window, "offline", Signal::Online, Some(false)));
    listeners
}

#[cfg(not(target_arch = "wasm32"))]
fn listen(_: &Controller, _: bool, _: bool, _: Duration) -> Vec<Rc<dyn std::any::Any>> {
    Vec::new()
}
