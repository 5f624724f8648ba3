//! Connections a controller keeps open for its views (live streams): one
//! per stream key however many views want it, opened by the first and
//! closed when the last lets go, with a status views can show. What runs
//! on a connection (the protocol, the messages) is the caller's; here is
//! only the counting, the status, and where each stream stopped.

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
/// assert!(StreamStatus::Refused { status: 401 }.is_down());
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
    /// The server refused the stream with a status no retry changes (a
    /// `4xx` other than `408` and `429`: signed out, no right to it, no
    /// such stream). It waits, closed, until the app asks for its streams
    /// again ([`Controller::reconnect_streams`], after a log-in), or a
    /// view opens it anew once every hold let go.
    Refused {
        /// The status the server answered.
        status: u16,
    },
}

impl StreamStatus {
    /// Whether no connection is up (paused, retrying or refused): what the cache
    /// shows may have fallen behind the server.
    ///
    /// ```
    /// use restcache::live::StreamStatus;
    /// assert!(StreamStatus::Paused.is_down());
    /// assert!(!StreamStatus::Open.is_down());
    /// ```
    pub fn is_down(self) -> bool {
        matches!(
            self,
            StreamStatus::Paused | StreamStatus::Retrying { .. } | StreamStatus::Refused { .. }
        )
    }
}

/// The streams a controller holds open, by key.
#[derive(Default)]
pub(crate) struct Streams {
    open: FxHashMap<String, Opened>,
    /// Where each stream stopped (the last message id it read, if any),
    /// kept after it closes so that opening it again resumes there.
    stopped_at: FxHashMap<String, Option<String>>,
    /// Tells one opening of a stream from the next.
    generation: u64,
    /// How many times the app asked refused streams to connect again.
    reconnects: u64,
}

struct Opened {
    holds: usize,
    generation: u64,
    stop: AbortHandle,
    status: StreamStatus,
}

/// One opening of a stream, as its task knows it: what it writes goes to
/// this opening only (an aborted task that runs once more cannot touch
/// the next one).
#[derive(Clone, Debug)]
pub(crate) struct StreamTicket {
    pub key: String,
    generation: u64,
}

/// Keeps a live stream open while it lives (see
/// [`Controller::open_stream`](crate::Controller::open_stream)): the first
/// hold of a stream opens it, dropping the last closes it.
///
/// ```no_run
/// use restcache::prelude::*;
/// use restcache::live::Live;
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let (a, b) = (ctrl.open_stream(&Live::sse("/events")), ctrl.open_stream(&Live::sse("/events")));
/// drop(a); // still open: `b` holds it
/// drop(b); // closed
/// ```
#[must_use = "dropping the hold closes the stream when no one else holds it"]
pub struct StreamHold {
    controller: Controller,
    key: String,
    generation: u64,
}

impl Streams {
    /// Forgets where each stream stopped (a reset: the next session's
    /// streams start afresh).
    pub(crate) fn forget_positions(&mut self) {
        self.stopped_at.clear();
    }
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
            if opened.generation != self.generation {
                return;
            }
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

/// Forgets the opening its task ran for when the task goes away without
/// being stopped (its runtime ended), so the next hold starts it again.
struct TaskGone {
    controller: Controller,
    ticket: StreamTicket,
}

impl Drop for TaskGone {
    fn drop(&mut self) {
        let Ok(mut streams) = self.controller.inner.streams.try_borrow_mut() else {
            return;
        };
        if streams
            .open
            .get(&self.ticket.key)
            .is_some_and(|opened| opened.generation == self.ticket.generation)
        {
            streams.open.remove(&self.ticket.key);
        }
    }
}

impl Controller {
    /// Holds the stream `key` open: the first hold spawns `run` (which
    /// keeps the connection), later ones only count.
    pub(crate) fn hold_stream(
        &self,
        key: &str,
        run: impl FnOnce(StreamTicket) -> LocalBoxFuture<'static, ()>,
    ) -> StreamHold {
        let (generation, start) = {
            let mut streams = self.inner.streams.borrow_mut();
            if let Some(opened) = streams.open.get_mut(key) {
                opened.holds += 1;
                (opened.generation, None)
            } else {
                streams.generation += 1;
                let generation = streams.generation;
                let (stop, registration) = AbortHandle::new_pair();
                streams.open.insert(
                    key.to_owned(),
                    Opened {
                        holds: 1,
                        generation,
                        stop,
                        status: StreamStatus::Connecting,
                    },
                );
                (generation, Some(registration))
            }
        };
        if let Some(registration) = start {
            let ticket = StreamTicket {
                key: key.to_owned(),
                generation,
            };
            let gone = TaskGone {
                controller: self.clone(),
                ticket: ticket.clone(),
            };
            let task = Abortable::new(run(ticket), registration);
            self.spawn(Box::pin(async move {
                let _gone = gone;
                let _ = task.await;
            }));
        }
        StreamHold {
            controller: self.clone(),
            key: key.to_owned(),
            generation,
        }
    }

    /// Where the stream `key` stands, or `None` when no one holds it open.
    pub(crate) fn stream_status_of(&self, key: &str) -> Option<StreamStatus> {
        let streams = self.inner.streams.borrow();
        streams.open.get(key).map(|opened| opened.status)
    }

    /// Notes the stream's new status and tells listeners
    /// ([`Event::StreamChanged`]) when it changed.
    pub(crate) fn set_stream_status(&self, ticket: &StreamTicket, status: StreamStatus) {
        let changed = {
            let mut streams = self.inner.streams.borrow_mut();
            match streams.open.get_mut(&ticket.key) {
                Some(opened)
                    if opened.generation == ticket.generation && opened.status != status =>
                {
                    opened.status = status;
                    true
                }
                _ => false,
            }
        };
        if changed {
            self.emit(|| Event::StreamChanged {
                key: ticket.key.clone(),
                status,
            });
        }
    }

    /// Tells listeners of a problem of the stream `key`
    /// ([`Event::StreamError`]).
    pub(crate) fn stream_error(&self, ticket: &StreamTicket, message: impl FnOnce() -> String) {
        self.emit(|| Event::StreamError {
            key: ticket.key.clone(),
            message: message(),
        });
    }

    /// A refusal of the stream: its status, a stream error, and a failed
    /// request ([`Event::RequestFailed`], under the stream's key).
    pub(crate) fn stream_refused(&self, ticket: &StreamTicket, error: crate::http::Error) {
        let status = StreamStatus::Refused {
            status: error.status().unwrap_or_default(),
        };
        self.set_stream_status(ticket, status);
        self.stream_error(ticket, || format!("refused: {error}"));
        self.emit(|| Event::RequestFailed {
            key: ticket.key.clone(),
            error,
        });
    }

    /// How many times the app asked refused streams to connect again.
    pub(crate) fn stream_reconnects(&self) -> u64 {
        self.inner.streams.borrow().reconnects
    }

    /// Asks refused streams to connect again.
    pub(crate) fn ask_streams_again(&self) {
        self.inner.streams.borrow_mut().reconnects += 1;
        self.wake_signal_waiters();
    }

    /// Where the stream `key` stopped last time, if it ran before: the
    /// last message id it read (`None` when it read none with an id).
    pub(crate) fn stream_stopped_at(&self, key: &str) -> Option<Option<String>> {
        self.inner.streams.borrow().stopped_at.get(key).cloned()
    }

    /// Notes how far the stream `key` has read.
    pub(crate) fn note_stream_position(&self, key: &str, last_id: Option<&str>) {
        let mut streams = self.inner.streams.borrow_mut();
        match streams.stopped_at.get_mut(key) {
            Some(at) if at.as_deref() == last_id => {}
            Some(at) => *at = last_id.map(str::to_owned),
            None => {
                streams
                    .stopped_at
                    .insert(key.to_owned(), last_id.map(str::to_owned));
            }
        }
    }
}
