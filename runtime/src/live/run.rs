//! The life of an open stream: connect, read messages into the cache,
//! and when the connection drops, try again after a growing, jittered
//! wait, resuming where it stopped. While the network is down (or the
//! page out of view, if the stream pauses then) it stays closed; once
//! back, it connects again and catches up.

use futures_util::future::{Either, select};
use futures_util::pin_mut;

use super::Live;
use super::connection::{Connection, connect};
use crate::controller::{Controller, StreamStatus};

/// How one connection ended.
enum Ended {
    /// The server closed it, or it broke.
    Dropped,
    /// The page went offline or out of view: closed on purpose.
    Paused,
}

/// Keeps the stream `live` open on `controller` under `key` until the
/// task is dropped.
pub(crate) async fn keep_open(controller: Controller, live: Live, key: String) {
    let url = live.url(controller.client());
    let mut last_id: Option<String> = None;
    let mut failures: u32 = 0;
    // Whether a connection was up before: the next one catches up.
    let mut was_open = false;
    loop {
        if !live.may_connect(&controller) {
            controller.set_stream_status(&key, StreamStatus::Paused);
            controller.signals_changed().await;
            continue;
        }
        controller.set_stream_status(&key, StreamStatus::Connecting);
        let ended = match open(&controller, &live, &url, last_id.as_deref()).await {
            Ok(mut connection) => {
                failures = 0;
                controller.set_stream_status(&key, StreamStatus::Open);
                if was_open {
                    live.catch_up(&controller);
                }
                was_open = true;
                read(&controller, &live, &key, &mut connection, &mut last_id).await
            }
            Err(error) => {
                controller.stream_error(&key, || format!("cannot connect: {error}"));
                Ended::Dropped
            }
        };
        if let Ended::Dropped = ended {
            failures = failures.saturating_add(1);
            controller.set_stream_status(&key, StreamStatus::Retrying { attempt: failures });
            let seed = controller.now().as_micros() ^ u64::from(failures);
            let wait = controller.sleep(live.retry.delay(failures - 1, seed));
            // Going offline meanwhile pauses at once; coming back does
            // not cut the wait short.
            let changed = controller.signals_changed();
            pin_mut!(changed);
            if let Either::Right(_) = select(wait, changed).await
                && !live.may_connect(&controller)
            {
                continue;
            }
        }
    }
}

/// Connects and sends the opening message, within the client's time
/// limit.
async fn open(
    controller: &Controller,
    live: &Live,
    url: &str,
    last_id: Option<&str>,
) -> Result<Connection, String> {
    let connecting = async {
        let mut connection = connect(controller, live.protocol, url, last_id).await?;
        if let Some(opening) = live.on_open.as_ref().and_then(|make| make(last_id)) {
            connection.send(opening).await?;
        }
        Ok(connection)
    };
    let limit = controller.client().timeout();
    let timer = controller.sleep(limit);
    pin_mut!(connecting);
    match select(connecting, timer).await {
        Either::Left((connected, _)) => connected,
        Either::Right(_) => Err(format!("no answer within {limit:?}")),
    }
}

/// Reads messages into the cache until the connection ends or the stream
/// must pause.
async fn read(
    controller: &Controller,
    live: &Live,
    key: &str,
    connection: &mut Connection,
    last_id: &mut Option<String>,
) -> Ended {
    loop {
        let next = connection.next(controller);
        let changed = controller.signals_changed();
        pin_mut!(next, changed);
        match select(next, changed).await {
            Either::Left((Some(Ok(message)), _)) => {
                if let Some(id) = message.id() {
                    *last_id = Some(id.to_owned());
                }
                if let Err(reason) = live.apply(controller, &message) {
                    controller.stream_error(key, || reason);
                }
            }
            Either::Left((Some(Err(error)), _)) => {
                controller.stream_error(key, || error);
                return Ended::Dropped;
            }
            Either::Left((None, _)) => return Ended::Dropped,
            Either::Right(_) => {
                if !live.may_connect(controller) {
                    return Ended::Paused;
                }
            }
        }
    }
}
