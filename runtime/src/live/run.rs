//! The life of an open stream: connect, read messages into the cache,
//! and when the connection drops, try again after a growing, jittered
//! wait, resuming where it stopped. While the network is down (or the
//! page out of view, if the stream pauses then) it stays closed; once
//! back, it connects again and catches up.

use futures_util::future::{Either, select};
use futures_util::pin_mut;

use super::Live;
use super::connection::{ConnectError, Connection, Next, connect};
use crate::controller::{Controller, StreamStatus, StreamTicket};
use crate::http::Error;

/// How one connection ended.
enum Ended {
    /// The server closed it, or it broke; `read` tells whether it worked:
    /// a message came first, or it stayed open a while.
    Dropped { read: bool },
    /// The page went offline or out of view: closed on purpose; `read`
    /// as for a drop.
    Paused { read: bool },
    /// The cache was reset (a log-out): closed, since it was made in the
    /// last session's name.
    Reset,
}

/// Keeps the stream `live` open on `controller` until the task is
/// dropped.
pub(crate) async fn keep_open(controller: Controller, live: Live, ticket: StreamTicket) {
    let url = live.url(controller.client());
    let key = ticket.key.clone();
    // Where an earlier opening of this stream stopped: resume there, and
    // catch up on the next connection.
    let earlier = controller.stream_stopped_at(&key);
    let mut behind = earlier.is_some();
    let mut last_id = earlier.flatten();
    let mut failures: u32 = 0;
    let mut session = controller.resets();
    loop {
        if controller.resets() != session {
            // A reset: the next session connects afresh, from no place.
            session = controller.resets();
            (behind, last_id, failures) = (false, None, 0);
        }
        if !live.may_connect(&controller) {
            controller.set_stream_status(&ticket, StreamStatus::Paused);
            behind = true;
            controller.signals_changed().await;
            continue;
        }
        controller.set_stream_status(&ticket, StreamStatus::Connecting);
        // An ask to connect again made while this attempt is on its way
        // counts against its refusal.
        let asked = controller.stream_reconnects();
        let opened = open(&controller, &live, &url, last_id.as_deref()).await;
        let ended = match opened {
            Ok(_) if !live.may_connect(&controller) => Ended::Paused { read: false },
            Ok(mut connection) => {
                controller.set_stream_status(&ticket, StreamStatus::Open);
                controller.note_stream_position(&key, last_id.as_deref());
                if behind {
                    live.catch_up(&controller);
                }
                behind = true;
                let opened = controller.now();
                let ended = read(
                    &controller,
                    (&live, &ticket, session),
                    &mut connection,
                    &mut last_id,
                )
                .await;
                // Open for as long as the longest wait, a quiet connection
                // worked too (a proxy closes an idle one now and then).
                let lived = controller
                    .now()
                    .as_micros()
                    .saturating_sub(opened.as_micros());
                let long = lived >= live.retry.max_delay.as_micros() as u64;
                match ended {
                    Ended::Dropped { read } => Ended::Dropped { read: read || long },
                    Ended::Paused { read } => Ended::Paused { read: read || long },
                    Ended::Reset => Ended::Reset,
                }
            }
            Err(ConnectError::Refused(error)) => {
                wait_after_refusal(&controller, &ticket, error, asked).await;
                // Asked again, it tries after the first wait a failure
                // takes: a server that refuses again is not asked at once,
                // nor one that failed before the refusal kept waiting.
                (behind, failures) = (true, 0);
                Ended::Dropped { read: false }
            }
            Err(ConnectError::Failed(error)) => {
                controller.stream_error(&ticket, || format!("cannot connect: {error}"));
                // Whatever changed while the server could not be reached
                // is caught up on once it can.
                behind = true;
                Ended::Dropped { read: false }
            }
        };
        match ended {
            Ended::Reset => continue,
            // A connection that worked: a failure after the pause starts
            // the waits over.
            Ended::Paused { read } => {
                if read {
                    failures = 0;
                }
                continue;
            }
            // A connection that worked starts the waits over; one the
            // server accepts and drops at once does not.
            Ended::Dropped { read: true } => failures = 1,
            Ended::Dropped { read: false } => failures = failures.saturating_add(1),
        }
        controller.set_stream_status(&ticket, StreamStatus::Retrying { attempt: failures });
        let seed = controller.now().as_micros() ^ u64::from(failures);
        let wait = controller.sleep(live.retry.delay(failures - 1, seed));
        pin_mut!(wait);
        // Going offline meanwhile pauses at once; any other change of
        // focus or network leaves the wait as it is.
        loop {
            let changed = controller.signals_changed();
            pin_mut!(changed);
            match select(wait.as_mut(), changed).await {
                Either::Left(_) => break,
                Either::Right(_) if !live.may_connect(&controller) => break,
                Either::Right(_) => {}
            }
        }
    }
}

/// After the server refused the stream: tells of it (the stream's status,
/// a stream error, and a failed request, which an app's log-out rule may
/// act on), then waits until the app asks for its streams again
/// ([`Controller::reconnect_streams`]) after `asked` asks, the count
/// when the refused attempt began. Neither a wait nor a reset tries
/// it again: the server would refuse it again, and a log-out rule would
/// reset the cache at each refusal.
async fn wait_after_refusal(
    controller: &Controller,
    ticket: &StreamTicket,
    error: Error,
    asked: u64,
) {
    controller.stream_refused(ticket, error);
    while controller.stream_reconnects() == asked {
        controller.signals_changed().await;
    }
}

/// Connects and sends the opening message, within the client's time
/// limit.
async fn open(
    controller: &Controller,
    live: &Live,
    url: &str,
    last_id: Option<&str>,
) -> Result<Connection, ConnectError> {
    let connecting = async {
        let mut connection = connect(controller, live.protocol, url, last_id).await?;
        // Server-sent events send nothing: they resume by `Last-Event-ID`.
        let sends = live.protocol == super::Protocol::WebSocket;
        let opening = live.on_open.as_ref().filter(|_| sends);
        if let Some(opening) = opening.and_then(|make| make(last_id)) {
            connection.send(opening).await?;
        }
        Ok(connection)
    };
    let limit = controller.client().timeout();
    let timer = controller.sleep(limit);
    pin_mut!(connecting);
    match select(connecting, timer).await {
        Either::Left((connected, _)) => connected,
        Either::Right(_) => {
            let limit = crate::text::duration(limit);
            Err(ConnectError::Failed(format!("no answer within {limit}")))
        }
    }
}

/// Reads messages into the cache until the connection ends or the stream
/// must pause.
async fn read(
    controller: &Controller,
    (live, ticket, session): (&Live, &StreamTicket, u64),
    connection: &mut Connection,
    last_id: &mut Option<String>,
) -> Ended {
    let mut read = false;
    // The last sign of life: how many the connection had given, and when
    // the count was last seen to move.
    let mut sign = (connection.heard(), controller.now());
    loop {
        // Checked each time: a change may have come with a message. A
        // reset wakes it too.
        if controller.resets() != session {
            return Ended::Reset;
        }
        if !live.may_connect(controller) {
            return Ended::Paused { read };
        }
        if connection.heard() != sign.0 {
            sign = (connection.heard(), controller.now());
        }
        let quiet = controller
            .now()
            .as_micros()
            .saturating_sub(sign.1.as_micros());
        let left = live
            .heartbeat_timeout
            .map(|limit| limit.saturating_sub(std::time::Duration::from_micros(quiet)));
        let woke = {
            let next = connection.next(controller);
            let changed = controller.signals_changed();
            let silence = silence(controller, left);
            pin_mut!(next, changed, silence);
            match select(select(next, changed), silence).await {
                Either::Left((Either::Left((next, _)), _)) => Woke::Next(next),
                Either::Left((Either::Right(_), _)) => Woke::Signals,
                Either::Right(_) => Woke::Silence,
            }
        };
        match woke {
            Woke::Silence if connection.heard() == sign.0 => {
                let limit = live.heartbeat_timeout.map(crate::text::duration);
                let limit = limit.unwrap_or_default();
                controller.stream_error(ticket, || format!("no sign of life for {limit}"));
                return Ended::Dropped { read };
            }
            // A comment, a ping: alive (the next wait counts from now).
            Woke::Silence => {}
            // A message that comes after a reset is the last session's.
            Woke::Next(Some(Next::Message(_))) if controller.resets() != session => {
                return Ended::Reset;
            }
            Woke::Next(Some(Next::Message(message))) => {
                if let Some(id) = message.id() {
                    *last_id = Some(id.to_owned());
                    controller.note_stream_position(&ticket.key, Some(id));
                }
                // Only a message taken says the connection works: one a
                // server refuses with (and closes) keeps the waits growing.
                match live.apply(controller, &message) {
                    Ok(()) => read = true,
                    Err(reason) => controller.stream_error(ticket, || reason),
                }
            }
            Woke::Next(Some(Next::Rejected(problem))) => {
                controller.stream_error(ticket, || problem);
            }
            Woke::Next(Some(Next::Broken(error))) => {
                controller.stream_error(ticket, || error);
                return Ended::Dropped { read };
            }
            Woke::Next(None) => return Ended::Dropped { read },
            Woke::Signals => {}
        }
    }
}

/// What woke the reading of a connection.
enum Woke {
    /// What came off the connection.
    Next(Option<Next>),
    /// A change of focus or network, or a reset.
    Signals,
    /// The heartbeat timeout passed since the last sign of life known.
    Silence,
}

/// Resolves after `left` on the controller's clock; never without it.
async fn silence(controller: &Controller, left: Option<std::time::Duration>) {
    match left {
        Some(left) => controller.sleep(left).await,
        None => std::future::pending().await,
    }
}
