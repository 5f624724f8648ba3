//! Optimistic values shared between tabs: the records a mutation's
//! optimistic value shows travel as a layer that the other tabs show over
//! their confirmed copies, until the mutation ends or its tab goes.

use super::link::Link;
use super::message::Message;
use crate::controller::{Controller, Event, ForeignLayer};
use crate::records::Record;

/// Tells the other tabs of an optimistic value here shown or ended.
pub(super) fn tell(link: &Link, event: &Event, ctrl: &Controller) {
    match event {
        Event::OptimisticShown { layer, .. } => {
            let records = ctrl.with_store(|store| link.codecs.collect_layer(store, *layer));
            if !records.is_empty() {
                link.announced.borrow_mut().insert(*layer);
                link.post(Message::Optimistic {
                    tab: link.tab,
                    layer: *layer,
                    records,
                });
            }
        }
        Event::OptimisticEnded { layer, .. } if link.announced.borrow_mut().remove(layer) => {
            link.post(Message::Settled {
                tab: link.tab,
                layer: *layer,
            });
        }
        _ => {}
    }
}

/// After a reset (here or in another tab): this tab's optimistic values
/// are gone (their mutations end in a cache that no longer exists), so
/// the other tabs take them away; theirs are gone here with the store.
pub(super) fn forget(link: &Link) {
    let announced: Vec<u64> = link.announced.borrow_mut().drain().collect();
    for layer in announced {
        link.post(Message::Settled {
            tab: link.tab,
            layer,
        });
    }
    link.foreign.borrow_mut().clear();
}

/// Shows tab `tab`'s optimistic value `layer` here.
pub(super) fn heard_shown(
    link: &Link,
    tab: u64,
    layer: u64,
    records: &[Record],
    ctrl: &Controller,
) {
    let shown: Vec<ForeignLayer> = ctrl.batch(|| {
        records
            .iter()
            .filter_map(|record| link.codecs.apply_layer(ctrl, record))
            .collect()
    });
    link.foreign.borrow_mut().insert((tab, layer), shown);
}

/// Takes tab `tab`'s optimistic value `layer` away here.
pub(super) fn heard_settled(link: &Link, tab: u64, layer: u64, ctrl: &Controller) {
    let shown = link.foreign.borrow_mut().remove(&(tab, layer));
    remove(ctrl, shown.into_iter().flatten());
}

/// Tab `tab` went: every optimistic value of it goes here.
pub(super) fn heard_gone(link: &Link, tab: u64, ctrl: &Controller) {
    let shown: Vec<ForeignLayer> = {
        let mut foreign = link.foreign.borrow_mut();
        let gone: Vec<(u64, u64)> = foreign
            .keys()
            .filter(|(of, _)| *of == tab)
            .copied()
            .collect();
        gone.iter()
            .filter_map(|key| foreign.remove(key))
            .flatten()
            .collect()
    };
    remove(ctrl, shown);
}

/// Takes other tabs' optimistic values away here, newest first.
fn remove(ctrl: &Controller, shown: impl IntoIterator<Item = ForeignLayer>) {
    let mut shown: Vec<ForeignLayer> = shown.into_iter().collect();
    ctrl.batch(|| {
        while let Some(layer) = shown.pop() {
            ctrl.remove_foreign_layer(layer);
        }
    });
}
