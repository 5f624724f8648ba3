//! Several tabs' offline mutations in one save. Each cache marks the
//! mutations it saves with its own mark, and leases them while it lives:
//! a save keeps the other tabs' mutations as it found them, and a tab
//! that loads sends again only those no live tab holds (unmarked, let go
//! as their tab went, or held by a lease that ran out, as a crashed tab
//! leaves them). In a browser the mark lives in the tab's
//! `sessionStorage`, so the page a reload brings takes back its own.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::meta::Timestamp;

/// How long a tab's lease on its saved mutations holds without being
/// renewed: longer than a hidden tab's throttled timers wait.
pub(super) const LEASE: std::time::Duration = std::time::Duration::from_secs(5 * 60);

/// How often a tab with mutations waiting renews its lease.
#[cfg(target_arch = "wasm32")]
pub(super) const RENEW: std::time::Duration = std::time::Duration::from_secs(60);

/// A tab's hold on the saved mutations marked `owner`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) struct Lease {
    pub owner: u64,
    /// Until when, in microseconds since the Unix epoch.
    pub until: u64,
    /// The tab went (a reload, a closed tab): another load takes them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub released: bool,
}

/// Whether the mutations marked `owner` are free to take: no live tab
/// holds them.
pub(super) fn free(leases: &[Lease], owner: u64, now: Timestamp) -> bool {
    owner == 0
        || leases
            .iter()
            .find(|lease| lease.owner == owner)
            .is_none_or(|lease| lease.released || lease.until < now.as_micros())
}

/// What a save holds of the tabs' queues.
#[derive(Deserialize, Default)]
struct Queues {
    #[serde(default)]
    mutations: Vec<Box<RawValue>>,
    #[serde(default)]
    leases: Vec<Lease>,
}

/// The mark of one saved mutation.
#[derive(Deserialize)]
struct Mark {
    #[serde(default)]
    owner: u64,
}

/// The mutations and leases of the other tabs in the save `text`: all
/// but those marked `own` or one of `taken` (which this cache's queue
/// holds now).
pub(super) fn others(
    text: Option<&str>,
    own: u64,
    taken: &[u64],
) -> (Vec<Box<RawValue>>, Vec<Lease>) {
    let queues = text
        .and_then(|text| serde_json::from_str::<Queues>(text).ok())
        .unwrap_or_default();
    let theirs = |owner: u64| owner != own && !taken.contains(&owner);
    let mutations: Vec<Box<RawValue>> = queues
        .mutations
        .into_iter()
        .filter(|saved| {
            serde_json::from_str::<Mark>(saved.get()).is_ok_and(|mark| theirs(mark.owner))
        })
        .collect();
    let leases = queues
        .leases
        .into_iter()
        .filter(|lease| theirs(lease.owner))
        .collect();
    (mutations, leases)
}

/// The mark this tab's saved mutations carried before, if any, and
/// whether its page went (a reload: the mutations are this page's to
/// take, whatever the save says of its lease, which may not have been
/// written as the page went). A mark whose page did not go is a copy's:
/// a duplicated tab copies the `sessionStorage` of a live one.
#[cfg(target_arch = "wasm32")]
pub(super) fn tab_mark(name: &str) -> Option<(u64, bool)> {
    let storage = web_sys::window()?.session_storage().ok().flatten()?;
    let kept = storage.get_item(&mark_key(name)).ok().flatten()?;
    match kept.strip_suffix(GONE) {
        Some(mark) => Some((mark.parse().ok()?, true)),
        None => Some((kept.parse().ok()?, false)),
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) fn tab_mark(_: &str) -> Option<(u64, bool)> {
    None
}

/// Keeps `owner` as this tab's mark; `went`: its page goes.
#[cfg(target_arch = "wasm32")]
pub(super) fn keep_tab_mark(name: &str, owner: u64, went: bool) {
    if let Some(storage) = web_sys::window().and_then(|w| w.session_storage().ok().flatten()) {
        let suffix = if went { GONE } else { "" };
        let _ = storage.set_item(&mark_key(name), &format!("{owner}{suffix}"));
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) fn keep_tab_mark(_: &str, _: u64, _: bool) {}

/// What follows the mark of a tab whose page went.
#[cfg(target_arch = "wasm32")]
const GONE: &str = ":gone";

#[cfg(target_arch = "wasm32")]
fn mark_key(name: &str) -> String {
    format!("restcache-queue-mark:{name}")
}
