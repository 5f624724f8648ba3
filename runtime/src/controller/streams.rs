//! Connections a controller keeps open for its views (live streams): one
//! per stream key however many views want it, opened by the first and
//! closed when the last lets go, with a status views can show. What runs
//! on a connection (the protocol, the messages) is the caller's; here is
//! only the counting, the status, and a wake-up when the page's signals
//! change (a stream pauses while offline or out of view).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_util::future::{AbortHandle, Abortable, LocalBoxFuture};
use rustc_hash::FxHashMap;

use super::Controller;
use super::events::Event;

/// Where a live stream stands.
///
/// ```
/// use restcache::live::StreamStatus;
/// assert_ne!(StreamStatus::Open, StreamStatus::Connecting);
/// assert!(StreamStatus::Retrying { attempt: 2 }.is_down());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamStatus {
    /// Connecting (the first time, or again after a pause).
    Connecting,
    /// Connected: messages arrive as the server sends them.
    Open,
    /// Closed for now because the network is down or the page is out of
    /// view; it connects again, and catches up, when both are back.
    Paused,
    /// The connection failed or dropped; it tries again after a wait that
    /// grows with each failed `attempt` (1 for the first).
    Retrying {
        /// Failed connects in a row (a dropped connection counts as one).
        attempt: u32,
    },
}

impl StreamStatus {
    /// Whether no connection is up (paused or retrying): what the cache
    /// shows may have fallen behind the server.
    ///
    /// ```
    /// use restcache::live::StreamStatus;
    /// assert!(StreamStatus::Paused.is_down());
    /// assert!(!StreamStatus::Open.is_down());
    /// ```
    pub fn is_down(self) -> bool {
        matches!(self, StreamStatus::Paused | StreamStatus::Retrying { .. })
    }
}

/// The streams a controller holds open, by key.
#[derive(Default)]
pub(crate) struct Streams {
    open: FxHashMap<String, Opened>,
    /// Bumped on every change of focus or network.
    signal_changes: u64,
    waiting: Vec<Waker>,
}

struct Opened {
    holds: usize,
    stop: AbortHandle,
    status: StreamStatus,
}

/// Keeps a live stream open while it lives (see
/// [`Controller::open_stream`](crate::Controller::open_stream)): the first
/// hold of a stream opens it, dropping the last closes it.
#[must_use = "dropping the hold closes the stream when no one else holds it"]
pub struct StreamHold {
    controller: Controller,
    key: String,
}

impl std::fmt::Debug for StreamHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamHold")
            .field("key", &self.key)
            .finish()
    }
}

impl Drop for StreamHold {
    fn drop(&mut self) {
        let stopped = {
            let mut streams = self.controller.inner.streams.borrow_mut();
            let Some(opened) = streams.open.get_mut(&self.key) else {
                return;
            };
            opened.holds -= 1;
            if opened.holds > 0 {
                return;
            }
            streams.open.remove(&self.key)
        };
        if let Some(opened) = stopped {
            // The task ends at its next poll, closing its connection.
            opened.stop.abort();
        }
    }
}

impl Controller {
    /// Holds the stream `key` open: the first hold spawns `run` (which
    /// keeps the connection), later ones only count.
    pub(crate) fn hold_stream(
        &self,
        key: &str,
        run: impl FnOnce() -> LocalBoxFuture<'static, ()>,
    ) -> StreamHold {
        let start = {
            let mut streams = self.inner.streams.borrow_mut();
            if let Some(opened) = streams.open.get_mut(key) {
                opened.holds += 1;
                None
            } else {
                let (stop, registration) = AbortHandle::new_pair();
                streams.open.insert(
                    key.to_owned(),
                    Opened {
                        holds: 1,
                        stop,
                        status: StreamStatus::Connecting,
                    },
                );
                Some(registration)
            }
        };
        if let Some(registration) = start {
            let task = Abortable::new(run(), registration);
            self.spawn(Box::pin(async move {
                let _ = task.await;
            }));
        }
        StreamHold {
            controller: self.clone(),
            key: key.to_owned(),
        }
    }

    /// Where the stream `key` stands, or `None` when no one holds it open.
    pub(crate) fn stream_status_of(&self, key: &str) -> Option<StreamStatus> {
        let streams = self.inner.streams.borrow();
        streams.open.get(key).map(|opened| opened.status)
    }

    /// Notes the stream's new status and tells listeners
    /// ([`Event::StreamChanged`]) when it changed.
    pub(crate) fn set_stream_status(&self, key: &str, status: StreamStatus) {
        let changed = {
            let mut streams = self.inner.streams.borrow_mut();
            match streams.open.get_mut(key) {
                Some(opened) if opened.status != status => {
                    opened.status = status;
                    true
                }
                _ => false,
            }
        };
        if changed {
            self.emit(|| Event::StreamChanged {
                key: key.to_owned(),
                status,
            });
        }
    }

    /// Tells listeners of a problem of the stream `key`
    /// ([`Event::StreamError`]).
    pub(crate) fn stream_error(&self, key: &str, message: impl FnOnce() -> String) {
        self.emit(|| Event::StreamError {
            key: key.to_owned(),
            message: message(),
        });
    }

    /// Wakes whoever waits on [`signals_changed`](Self::signals_changed).
    pub(crate) fn wake_stream_signals(&self) {
        let mut streams = self.inner.streams.borrow_mut();
        streams.signal_changes += 1;
        for waker in streams.waiting.drain(..) {
            waker.wake();
        }
    }

    /// Resolves at the next change of focus or network.
    pub(crate) fn signals_changed(&self) -> SignalsChanged {
        SignalsChanged {
            controller: self.clone(),
            seen: self.inner.streams.borrow().signal_changes,
        }
    }

    /// Waits `duration` on the controller's clock.
    pub(crate) fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        self.inner.clock.sleep(duration)
    }
}

/// See [`Controller::signals_changed`].
pub(crate) struct SignalsChanged {
    controller: Controller,
    seen: u64,
}

impl Future for SignalsChanged {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut streams = self.controller.inner.streams.borrow_mut();
        if streams.signal_changes != self.seen {
            return Poll::Ready(());
        }
        if !streams.waiting.iter().any(|w| w.will_wake(cx.waker())) {
            streams.waiting.push(cx.waker().clone());
        }
        Poll::Pending
    }
}
