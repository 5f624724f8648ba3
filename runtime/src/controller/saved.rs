//! The responses a saved cache keeps (feature `persist`): each read's
//! last response, by key, with when it was fetched and whether its
//! result changed after it came; taken back as responses waiting for
//! their first typed read, as a server's handoff is.

use serde::{Deserialize, Serialize};

use rustc_hash::FxHashSet;

use super::Controller;
use super::handoff::{Pending, Recorded};
use crate::cache::store::Store;
use crate::cache::store::table::EntityRef;
use crate::meta::Timestamp;
use crate::pk::Pk;
use crate::records::Record;

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
        self.state_mut().handoff.recording = Some(Recorded::of);
    }

    /// Whether a saved cache's mutations are to be sent again: only at
    /// the first restore of this controller (a second link on it finds
    /// them in its queue already).
    pub(crate) fn first_replay(&self) -> bool {
        !std::mem::replace(&mut self.state_mut().handoff.replayed, true)
    }

    /// The mark of this cache's saved offline mutations, once its first
    /// persist link chose it.
    pub(crate) fn queue_owner(&self) -> Option<u64> {
        self.inner.state.borrow().handoff.queue_owner
    }

    /// Marks this cache's saved offline mutations with `owner`.
    pub(crate) fn set_queue_owner(&self, owner: u64) {
        self.state_mut().handoff.queue_owner = Some(owner);
    }

    /// Counts a persist link in (`1`) or out (`-1`); returns how many
    /// the cache has now.
    pub(crate) fn count_persist_link(&self, step: isize) -> usize {
        let links = &mut self.state_mut().handoff.persist_links;
        *links = links.saturating_add_signed(step);
        *links
    }

    /// The last response of every read the store holds a value for, and
    /// the saved ones no read has taken yet.
    pub(crate) fn saved_responses(&self) -> Vec<SavedResponse> {
        let now = self.now();
        let state = self.inner.state.borrow();
        let mut saved: Vec<SavedResponse> = state
            .handoff
            .recorded
            .iter()
            .filter(|(_, (response, ..))| !response.private)
            .filter_map(|(key, (response, _, written))| {
                let standing = state.store.recorded_standing(key, *written, now)?;
                Some(SavedResponse {
                    key: key.clone(),
                    response: response.clone(),
                    at: standing.fetched_at.as_micros(),
                    stale: standing.changed || standing.expired,
                })
            })
            .collect();
        let unread = state
            .handoff
            .pending
            .iter()
            .filter(|(key, pending)| {
                !pending.response.private
                    && !state.handoff.recorded.contains_key(*key)
                    && !pending.outdated(&state.store, key)
            })
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

    /// Drops what a private endpoint brought (see
    /// [`Endpoint::private`](crate::rest::Endpoint::private)): from
    /// `records`, each one a private answer held (at any depth, since the
    /// last reset) or a private read's result holds now;
    /// from `responses`, each one that holds such a record (its body
    /// carries it).
    pub(crate) fn drop_privately_held(
        &self,
        records: &mut Vec<Record>,
        responses: &mut Vec<SavedResponse>,
    ) {
        let state = self.inner.state.borrow();
        let store = &state.store;
        let held = privately_held(&state);
        if held.is_empty() {
            return;
        }
        records.retain(|record| !held_here(store, &held, record));
        responses.retain(|saved| {
            let holds = store.records_reached_from(std::iter::once(saved.key.as_str()));
            holds.is_disjoint(&held)
        });
    }

    /// Splits `records` (as they travel to another tab) into those no
    /// private endpoint brought and those one did, which the other tab
    /// shows but leaves out of its own save.
    #[cfg(feature = "tabs")]
    pub(crate) fn split_private(&self, records: Vec<Record>) -> (Vec<Record>, Vec<Record>) {
        let state = self.inner.state.borrow();
        let held = privately_held(&state);
        if held.is_empty() {
            return (records, Vec::new());
        }
        let store = &state.store;
        records
            .into_iter()
            .partition(|record| !held_here(store, &held, record))
    }

    /// Marks the record `pk` of the entity `key` as a private endpoint's
    /// (one another tab's private read brought): a save leaves it out.
    #[cfg(feature = "tabs")]
    pub(crate) fn mark_private(&self, key: &'static str, pk: Pk) {
        let mut state = self.inner.state.borrow_mut();
        state.handoff.private_records.insert((key, pk));
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
                taken: now,
                stale: entry.stale,
            };
            state.handoff.pending.entry(entry.key).or_insert(pending);
        }
    }
}

/// The records a private endpoint brought: each one a private answer
/// held (at any depth, since the last reset) or a private read's result
/// holds now.
fn privately_held(state: &super::state::State) -> FxHashSet<EntityRef> {
    let (handoff, store) = (&state.handoff, &state.store);
    let recorded = handoff.recorded.iter().map(|(key, (r, ..))| (key, r));
    let pending = handoff.pending.iter().map(|(key, p)| (key, &p.response));
    let private = recorded
        .chain(pending)
        .filter(|(_, response)| response.private)
        .map(|(key, _)| key.as_str());
    let mut held = store.records_reached_from(private);
    let marked = handoff.private_records.iter();
    held.extend(marked.filter_map(|(key, pk)| store.record_ref(key, pk)));
    held
}

/// Whether `record` is one of `held`, in `store`.
fn held_here(store: &Store, held: &FxHashSet<EntityRef>, record: &Record) -> bool {
    let at = Pk::parse(&record.pk).and_then(|pk| store.record_ref(&record.entity, &pk));
    at.is_some_and(|at| held.contains(&at))
}
