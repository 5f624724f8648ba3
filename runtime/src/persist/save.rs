//! Saving a cache: on change (at most once a throttle), as one text
//! within the storage's budget, with every tab's queue; the queue alone
//! when the storage refuses the whole.

use super::*;

/// Notes a change, and saves it (at most once a throttle); a reset
/// forgets the saved cache.
pub(super) fn changed(saving: &Rc<Saving>, event: &Event, ctrl: &Controller) {
    // A change after the page went: it came back (from the back-forward
    // cache), and holds its queue again.
    if saving.released.replace(false) {
        queue::keep_tab_mark(&saving.persist.name, saving.owner, false);
    }
    match event {
        Event::Reset => {
            saving.dirty.set(false);
            saving.storage.remove(&saving.persist.name);
            return;
        }
        Event::ResponseStored { .. }
        | Event::MutationQueued { .. }
        | Event::MutationDequeued { .. }
        | Event::Record { .. }
        | Event::Invalidated { .. }
        | Event::Expired { .. }
        | Event::RequestFailed { .. } => {}
        _ => return,
    }
    saving.dirty.set(true);
    // The first change after a quiet spell saves at once, and so does a
    // change of the queue of mutations (the user's own changes).
    let now = ctrl.now();
    let quiet = saving.saved_at.get().is_none_or(|at| {
        now.as_micros().saturating_sub(at.as_micros()) >= saving.persist.throttle.as_micros() as u64
    });
    if quiet || ctrl.queued_call_count() != saving.queue_saved.get() {
        save(ctrl, saving);
        renew_later(saving, ctrl);
        return;
    }
    later(saving, ctrl);
}

/// While mutations wait, renews this cache's lease on them before it
/// runs out (in the browser; natively each save renews it).
#[cfg(target_arch = "wasm32")]
pub(super) fn renew_later(saving: &Rc<Saving>, ctrl: &Controller) {
    if ctrl.queued_call_count() == 0 || saving.renewing.replace(true) {
        return;
    }
    let wait = ctrl.sleep(queue::RENEW);
    let (weak, saving) = (ctrl.downgrade(), Rc::downgrade(saving));
    ctrl.spawn(Box::pin(async move {
        wait.await;
        if let (Some(ctrl), Some(saving)) = (weak.upgrade(), saving.upgrade()) {
            saving.renewing.set(false);
            if ctrl.queued_call_count() > 0 && !saving.released.get() {
                save(&ctrl, &saving);
                renew_later(&saving, &ctrl);
            }
        }
    }));
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) fn renew_later(_: &Rc<Saving>, _: &Controller) {}

/// Saves the changes of a busy spell once it ends: a timer in the
/// browser; natively (where a timer needs the app's `LocalSet`) the next
/// change after it, or the link's drop.
#[cfg(target_arch = "wasm32")]
fn later(saving: &Rc<Saving>, ctrl: &Controller) {
    if saving.scheduled.replace(true) {
        return;
    }
    let wait = ctrl.sleep(saving.persist.throttle);
    let (weak, saving) = (ctrl.downgrade(), Rc::downgrade(saving));
    ctrl.spawn(Box::pin(async move {
        wait.await;
        if let (Some(ctrl), Some(saving)) = (weak.upgrade(), saving.upgrade()) {
            saving.scheduled.set(false);
            if saving.dirty.get() {
                save(&ctrl, &saving);
            }
        }
    }));
}

#[cfg(not(target_arch = "wasm32"))]
fn later(_: &Rc<Saving>, _: &Controller) {}

/// Saves `ctrl`'s cache now, within the size limit: each record and
/// response is written to JSON once, and the oldest responses, then the
/// oldest records, are left out until the text fits.
pub(super) fn save(ctrl: &Controller, saving: &Saving) {
    let persist = &saving.persist;
    // Records gone (deleted) stay too, with when: a saved response not
    // read yet that holds one does not bring it back after a reload.
    let mut records: Vec<Record> = ctrl.with_store(|store| persist.codecs.collect(store, 0));
    let mut responses = ctrl.saved_responses();
    ctrl.drop_privately_held(&mut records, &mut responses);
    // Newest last, so that the oldest go first when over the limit.
    responses.sort_by_key(SavedResponse::at);
    records.sort_by_key(|record| record.at);
    let own = persist.saved_mutations(ctrl, saving.owner);
    saving.queue_saved.set(ctrl.queued_call_count());
    let (Some(records), Some(responses), Some(own_json)) =
        (as_json(&records), as_json(&responses), as_json(&own))
    else {
        return;
    };
    // The other tabs' queues, as the save holds them, stay in it.
    let stored = saving.storage.load(&persist.name);
    let (mut mutations, mut leases) =
        queue::others(stored.as_deref(), saving.owner, &saving.taken.borrow());
    if !own.is_empty() {
        let until = ctrl.now().as_micros() + queue::LEASE.as_micros() as u64;
        leases.push(queue::Lease {
            owner: saving.owner,
            until,
            released: saving.released.get(),
        });
    }
    mutations.extend(own_json);
    // Mutations are the user's own changes: kept whatever the limit.
    let for_mutations: usize = mutations.iter().map(|m| m.get().len() + 1).sum();
    let budget = persist.max_bytes.saturating_sub(for_mutations);
    let (records, responses) = within(budget, records, responses);
    saving.dirty.set(false);
    saving.saved_at.set(Some(ctrl.now()));
    let keep_whatever_the_size = !mutations.is_empty();
    let saved: Saved<_, _, _> = Saved {
        restcache_saved: FORMAT,
        version: persist.version,
        records,
        responses,
        mutations,
        leases,
    };
    match serde_json::to_string(&saved) {
        Ok(text) if text.len() <= persist.max_bytes || keep_whatever_the_size => {
            let refused = saving.storage.save(&persist.name, &text).err();
            if refused.is_none() {
                saving.taken.borrow_mut().clear();
            }
            if refused.is_some() {
                // Still to save, once the throttle allows (or as the link
                // goes). Meanwhile the saved queue is brought up to date
                // where the storage takes it: a mutation answered since
                // would be sent again after a reload.
                saving.dirty.set(true);
                save_queue_alone(saving, saved);
            }
            *saving.last_error.borrow_mut() = refused;
        }
        _ => saving.storage.remove(&persist.name),
    }
}

/// After the storage refused `saved`: saves its mutations alone (the
/// records and responses are a cache, the queue is the user's own
/// changes); failing that, removes the older save when no mutation is
/// left to keep.
fn save_queue_alone(saving: &Saving, saved: Saved<Box<RawValue>, Box<RawValue>, Box<RawValue>>) {
    let persist = &saving.persist;
    let queue_alone = Saved {
        records: Vec::new(),
        responses: Vec::new(),
        ..saved
    };
    let written = serde_json::to_string(&queue_alone)
        .ok()
        .is_some_and(|text| saving.storage.save(&persist.name, &text).is_ok());
    if !written && queue_alone.mutations.is_empty() {
        saving.storage.remove(&persist.name);
    }
}

/// Each item as its JSON.
fn as_json<T: Serialize>(items: &[T]) -> Option<Vec<Box<RawValue>>> {
    items
        .iter()
        .map(|item| serde_json::value::to_raw_value(item).ok())
        .collect()
}

/// The newest records and responses whose JSON, with the text around it,
/// fits in `budget` bytes: the oldest responses go first, then the oldest
/// records.
fn within(
    budget: usize,
    mut records: Vec<Box<RawValue>>,
    mut responses: Vec<Box<RawValue>>,
) -> (Vec<Box<RawValue>>, Vec<Box<RawValue>>) {
    // The object around them, with room for the version numbers.
    const FRAME: usize =
        r#"{"restcache_saved":4294967295,"version":4294967295,"records":[],"responses":[],"mutations":[]}"#
            .len();
    // Each item and the comma after it.
    let size = |item: &RawValue| item.get().len() + 1;
    let mut total = FRAME
        + records.iter().map(|item| size(item)).sum::<usize>()
        + responses.iter().map(|item| size(item)).sum::<usize>();
    for items in [&mut responses, &mut records] {
        let mut dropped = 0;
        while total > budget && dropped < items.len() {
            total -= size(&items[dropped]);
            dropped += 1;
        }
        items.drain(..dropped);
    }
    (records, responses)
}
