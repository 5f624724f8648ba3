//! What tabs say to each other, as JSON on their channel.

use serde::{Deserialize, Serialize};

use crate::controller::Recorded;
use crate::records::Record;

/// A message, with the version of the app that sent it and the cache it
/// comes from.
#[derive(Serialize, Deserialize)]
pub(super) struct Sent {
    pub version: u32,
    /// The sending tab's cache (one number for all its links; 0 from a
    /// version that did not say): a link leaves the messages of another
    /// link of its own cache alone.
    #[serde(default)]
    pub home: u64,
    /// With a reset: when the sending tab made it, in microseconds since
    /// the Unix epoch (a field of its own, so that a tab of an older
    /// version still reads the reset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    pub message: Message,
}

/// What a message says.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Message {
    /// Records written (or dropped: `data` null) since the last message;
    /// `private`: a private endpoint brought them (the tab that hears
    /// them shows them, and leaves them out of its save).
    Records {
        records: Vec<Record>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        private: bool,
    },
    /// A read was invalidated in tab `tab`; `refetching`: a view there
    /// shows it, so that tab reads it again at once (the others wait for
    /// its answer).
    Invalidate {
        key: String,
        #[serde(default)]
        tab: u64,
        #[serde(default)]
        refetching: bool,
        /// When, in microseconds since the Unix epoch (0: unknown).
        #[serde(default)]
        at: u64,
    },
    /// The cache was emptied (a log-out).
    Reset,
    /// An optimistic value on show in tab `tab`: the records it shows.
    Optimistic {
        tab: u64,
        layer: u64,
        records: Vec<Record>,
    },
    /// Tab `tab`'s optimistic value `layer` is no longer on show (its
    /// answer, if any, came in the records before).
    Settled { tab: u64, layer: u64 },
    /// Tab `tab` stops syncing (closed): its optimistic values go, and
    /// reads waiting for its answers fetch for themselves.
    Gone { tab: u64 },
    /// Tab `tab` sent a read request for `key`: a read of it elsewhere
    /// waits for its answer instead of sending the same.
    Fetching { tab: u64, key: String },
    /// A read waits for tab `tab`'s answer for `key`: it is to be sent.
    Wants { tab: u64, key: String },
    /// Tab `tab`'s answer for `key`, and when its request started.
    Fetched {
        tab: u64,
        key: String,
        response: Recorded,
        started: u64,
    },
    /// Tab `tab`'s request for `key` ended with no answer to share.
    FetchEnded { tab: u64, key: String },
}
