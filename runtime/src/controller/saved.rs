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
    /// When it arrived, in microseconds since the Unix epoch.
    at: u64,
    /// Its result changed after it came (a record joined or left the
    /// list): shown after a reload, and refetched at once.
    stale: bool,
}

impl SavedResponse {
    /// Its size in a saved text, roughly.
    pub fn weight(&self) -> usize {
        self.key.len() + self.response.weight() + 32
    }

    /// When it arrived.
    pub fn at(&self) -> u64 {
        self.at
    }
}

impl Controller {
    /// Records each read's response from now on, for a saved cache.
    pub(crate) fn record_responses(&self) {
        self.state_mut().handoff.recording = true;
    }

    /// The last response of every read the store holds a value for.
    pub(crate) fn saved_responses(&self) -> Vec<SavedResponse> {
        let state = self.inner.state.borrow();
        let mut saved: Vec<SavedResponse> = state
            .handoff
            .recorded
            .iter()
            .filter_map(|(key, (response, arrived, written))| {
                let (version, holds_value) = state.store.result_state(key)?;
                holds_value.then(|| SavedResponse {
                    key: key.clone(),
                    response: response.clone(),
                    at: arrived.as_micros(),
                    stale: version > *written,
                })
            })
            .collect();
        saved.sort_by(|a, b| a.key.cmp(&b.key));
        saved
    }

    /// Takes saved responses back: each waits for its first typed read,
    /// which decodes it with its own endpoint (one that no longer fits is
    /// dropped, and the read fetches).
    pub(crate) fn adopt_saved(&self, saved: Vec<SavedResponse>) {
        let mut state = self.state_mut();
        for entry in saved {
            let pending = Pending {
                response: entry.response,
                arrived: Timestamp::from_micros(entry.at),
                stale: entry.stale,
            };
            state.handoff.pending.insert(entry.key, pending);
        }
    }
}
