//! The responses a saved cache keeps (feature `persist`): each read's
//! last response, by key, with when it was fetched and whether its
//! result changed after it came; taken back as responses waiting for
//! their first typed read, as a server's handoff is.

use serde::{Deserialize, Serialize};

use super::Controller;
use super::handoff::{Pending, Recorded};
use crate::meta::Timestamp;

/// One read's response, as a saved cache keeps it.
#[derive(Serialize, Deserialize)]
pub(crate) struct SavedResponse {
    key: String,
    #[serde(flatten)]
    response: Recorded,
    /// When its request started, in microseconds since the Unix epoch.
    at: u64,
    /// Its result changed after it came (a record joined or left the
    /// list, or one it holds is gone): shown after a reload, and
    /// refetched at once.
    stale: bool,
}

impl SavedResponse {
    /// When its request started.
    pub fn at(&self) -> u64 {
        self.at
    }
}

impl Controller {
    /// Records each read's response from now on, for a saved cache.
    pub(crate) fn record_responses(&self) {
        self.state_mut().handoff.recording = true;
    }

    /// The last response of every read the store holds a value for, and
    /// the saved ones no read has taken yet.
    pub(crate) fn saved_responses(&self) -> Vec<SavedResponse> {
        let state = self.inner.state.borrow();
        let mut saved: Vec<SavedResponse> = state
            .handoff
            .recorded
            .iter()
            .filter_map(|(key, (response, _, written))| {
                let (version, fetched_at, gone) = state.store.result_state(key)?;
                Some(SavedResponse {
                    key: key.clone(),
                    response: response.clone(),
                    at: fetched_at.as_micros(),
                    stale: version > *written || gone,
                })
            })
            .collect();
        let unread = state
            .handoff
            .pending
            .iter()
            .filter(|(key, _)| !state.handoff.recorded.contains_key(*key))
            .map(|(key, pending)| SavedResponse {
                key: key.clone(),
                response: pending.response.clone(),
                at: pending.arrived.as_micros(),
                stale: pending.stale,
            });
        saved.extend(unread);
        saved.sort_by(|a, b| a.key.cmp(&b.key));
        saved
    }

    /// Takes saved responses back: each waits for its first typed read,
    /// which decodes it with its own endpoint (one that no longer fits is
    /// dropped, and the read fetches).
    /// A response the page's handoff (a server render, newer) brought
    /// for the same key stays; a time past now (a clock set back since)
    /// counts as now.
    pub(crate) fn adopt_saved(&self, saved: Vec<SavedResponse>) {
        let now = self.now();
        let mut state = self.state_mut();
        for entry in saved {
            let pending = Pending {
                response: entry.response,
                arrived: Timestamp::from_micros(entry.at).min(now),
                stale: entry.stale,
            };
            state.handoff.pending.entry(entry.key).or_insert(pending);
        }
    }
}
