//! Reading a saved cache back: its records and responses into the
//! controller, and the offline mutations no live tab holds sent again.

use super::*;

/// Reads the saved cache back into `ctrl`; returns what it took, the
/// mark of `ctrl`'s saved mutations, and the marks whose mutations it
/// took.
pub(super) fn restore(
    ctrl: &Controller,
    persist: &Persist,
    storage: &dyn CacheStorage,
) -> (Restored, u64, Vec<u64>) {
    // Only a controller's first link sends saved mutations: a later one
    // (its component mounted again) finds them in the queue already.
    let replay = ctrl.first_replay();
    let text = storage.load(&persist.name);
    let (owner, reloaded) = match ctrl.queue_owner() {
        Some(owner) => (owner, false),
        None => {
            // The mark of the page a reload replaced (or the back-forward
            // cache put away) is this page's. Any other it finds is a
            // live tab's, copied with its `sessionStorage` (a duplicated
            // tab): this tab takes one of its own.
            let (owner, reloaded) = match queue::tab_mark(&persist.name) {
                Some((mark, true)) => (mark, true),
                _ => (ctrl.fresh_id(), false),
            };
            queue::keep_tab_mark(&persist.name, owner, false);
            ctrl.set_queue_owner(owner);
            (owner, reloaded)
        }
    };
    let mine = reloaded.then_some(owner);
    let (restored, taken) = restore_text(ctrl, persist, storage, text, replay, mine);
    (restored, owner, taken)
}

/// Reads the save `text` back into `ctrl`, sending again (with `replay`)
/// the mutations no live tab holds, and those marked `mine` (the page a
/// reload replaced); returns what it took and the marks of the mutations
/// it sent again.
fn restore_text(
    ctrl: &Controller,
    persist: &Persist,
    storage: &dyn CacheStorage,
    text: Option<String>,
    replay: bool,
    mine: Option<u64>,
) -> (Restored, Vec<u64>) {
    let Some(text) = text else {
        return (Restored::default(), Vec::new());
    };
    let saved = match serde_json::from_str::<Saved>(&text) {
        Ok(saved) if saved.restcache_saved == FORMAT => saved,
        _ => {
            storage.remove(&persist.name);
            let restored = Restored {
                discarded: true,
                ..Restored::default()
            };
            return (restored, Vec::new());
        }
    };
    let mut restored = Restored::default();
    let current = saved.version == persist.version;
    if current {
        restored.responses = saved.responses.len();
        // The responses first: the records (and deletion marks) they may
        // meet when read are kept while they wait.
        ctrl.adopt_saved(saved.responses);
        ctrl.batch(|| {
            for record in &saved.records {
                match (persist.codecs.apply(ctrl, record), record.data.is_some()) {
                    (true, true) => restored.records += 1,
                    (true, false) => {} // gone as of its time: nothing to show
                    (false, _) => restored.dropped_records += 1,
                }
            }
        });
    } else {
        // Another schema version's records and responses go, but its
        // queued mutations are the user's own changes: each is called
        // again if its endpoint still reads it (the next save keeps it).
        // Those a live tab holds stay, and go out with its queue.
        restored.discarded = true;
    }
    let mut taken = Vec::new();
    let (mutations, leases) = (saved.mutations, &saved.leases);
    let others_left = replay_free(
        ctrl,
        persist,
        (mutations, leases, mine),
        replay,
        &mut restored,
        &mut taken,
    );
    if !current && !others_left && replay {
        storage.remove(&persist.name);
    }
    (restored, taken)
}

/// Sends again (with `replay`) the saved mutations that no live tab
/// holds by the save's leases, or that are marked `mine`, noting their
/// marks in `taken`; returns whether mutations of live tabs are left
/// among them.
fn replay_free(
    ctrl: &Controller,
    persist: &Persist,
    (mutations, leases, mine): (Vec<SavedMutation>, &[queue::Lease], Option<u64>),
    replay: bool,
    restored: &mut Restored,
    taken: &mut Vec<u64>,
) -> bool {
    let now = ctrl.now();
    let (free, held): (Vec<_>, Vec<_>) = mutations.into_iter().partition(|mutation| {
        Some(mutation.owner) == mine || queue::free(leases, mutation.owner, now)
    });
    if replay {
        for mutation in &free {
            if !taken.contains(&mutation.owner) {
                taken.push(mutation.owner);
            }
        }
        (restored.mutations, restored.dropped_mutations) = persist.replay(ctrl, free);
    }
    !held.is_empty()
}
