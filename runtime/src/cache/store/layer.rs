//! Optimistic layers: an optimistic write's values shown over the
//! confirmed data until its request ends.
//!
//! A record or result an optimistic write covers keeps its confirmed copy
//! beneath the layers: real responses update that copy by the usual rules
//! (a later-started response wins), while reads see the newest layer.
//! Removing a layer (its request succeeded or failed) shows the layer
//! beneath, or the confirmed copy once no layer is left, so a failed write
//! never brings back anything older than what the server has confirmed.

use std::rc::Rc;

use smallvec::SmallVec;

use super::Store;
use super::results::ResultSlot;
use super::table::Slot;

/// A record under optimistic layers.
pub(crate) struct Layered<E> {
    /// The copy real responses update.
    pub confirmed: Slot<E>,
    /// The layers by write version, oldest first: the last is on show.
    layers: SmallVec<[(u64, Slot<E>); 1]>,
}

impl<E> Clone for Layered<E> {
    fn clone(&self) -> Self {
        Layered {
            confirmed: self.confirmed.clone(),
            layers: self.layers.clone(),
        }
    }
}

impl<E> Layered<E> {
    /// No layer yet over `confirmed`.
    pub fn over(confirmed: Slot<E>) -> Self {
        Layered {
            confirmed,
            layers: SmallVec::new(),
        }
    }

    /// Puts `on_show` on top as the layer `layer` (a write that covers a
    /// record twice keeps its last copy).
    pub fn push(&mut self, layer: u64, on_show: Slot<E>) {
        match self.layers.last_mut() {
            Some((top, slot)) if *top == layer => *slot = on_show,
            _ => self.layers.push((layer, on_show)),
        }
    }

    /// Removes the layer `layer`. When it was on show, returns what shows
    /// now: the layer beneath, or the confirmed copy.
    pub fn remove(&mut self, layer: u64) -> Option<Slot<E>> {
        let at = self.layers.iter().position(|(id, _)| *id == layer)?;
        self.layers.remove(at);
        if at < self.layers.len() {
            return None;
        }
        Some(match self.layers.last() {
            Some((_, slot)) => slot.clone(),
            None => self.confirmed.clone(),
        })
    }

    /// The copy layer `layer` shows, if it covers the record.
    #[cfg(feature = "tabs")]
    pub fn layer(&self, layer: u64) -> Option<&Slot<E>> {
        self.layers
            .iter()
            .find(|(id, _)| *id == layer)
            .map(|(_, slot)| slot)
    }

    /// Calls `f` on the confirmed copy and on every layer's copy.
    pub fn each_slot_mut(&mut self, mut f: impl FnMut(&mut Slot<E>)) {
        f(&mut self.confirmed);
        for (_, slot) in &mut self.layers {
            f(slot);
        }
    }

    /// Whether no layer is left.
    pub fn is_bare(&self) -> bool {
        self.layers.is_empty()
    }

    /// The confirmed copy.
    pub fn into_confirmed(self) -> Slot<E> {
        self.confirmed
    }
}

/// The records of one table under optimistic layers, by slot.
///
/// Which slot is where is a plain vector of numbers, so its code is not
/// repeated for every entity type in a browser bundle (a hash map's is):
/// only the short vector of layered records is of the table's own type.
/// It takes 4 bytes a slot up to the highest layered slot while a layer
/// is on, and nothing once the last one goes.
pub(crate) struct LayeredSlots<E> {
    /// By slot: one more than its place in `entries`; 0 when the slot is
    /// under no layer. Slots past its end are under none.
    places: Vec<u32>,
    /// The layered records, each with its slot, in no order.
    entries: Vec<(u32, Layered<E>)>,
}

impl<E> Default for LayeredSlots<E> {
    fn default() -> Self {
        LayeredSlots {
            places: Vec::new(),
            entries: Vec::new(),
        }
    }
}

impl<E> Clone for LayeredSlots<E> {
    fn clone(&self) -> Self {
        LayeredSlots {
            places: self.places.clone(),
            entries: self.entries.clone(),
        }
    }
}

impl<E> LayeredSlots<E> {
    /// Whether no slot is under a layer.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The place of `slot` in `entries`, if it is layered.
    #[inline]
    fn place(&self, slot: u32) -> Option<usize> {
        let place = *self.places.get(slot as usize)?;
        (place != 0).then(|| place as usize - 1)
    }

    /// The layers over `slot`, if any.
    #[inline]
    pub fn get(&self, slot: u32) -> Option<&Layered<E>> {
        let place = self.place(slot)?;
        Some(&self.entries[place].1)
    }

    /// The layers over `slot`, if any, to change.
    #[inline]
    pub fn get_mut(&mut self, slot: u32) -> Option<&mut Layered<E>> {
        let place = self.place(slot)?;
        Some(&mut self.entries[place].1)
    }

    /// The layers over `slot`, made by `over` when it has none yet.
    pub fn get_or_insert_with(
        &mut self,
        slot: u32,
        over: impl FnOnce() -> Layered<E>,
    ) -> &mut Layered<E> {
        let place = match self.place(slot) {
            Some(place) => place,
            None => {
                if self.places.len() <= slot as usize {
                    self.places.resize(slot as usize + 1, 0);
                }
                self.entries.push((slot, over()));
                self.places[slot as usize] = self.entries.len() as u32;
                self.entries.len() - 1
            }
        };
        &mut self.entries[place].1
    }

    /// Takes the layers over `slot` out, if any.
    pub fn remove(&mut self, slot: u32) -> Option<Layered<E>> {
        let place = self.place(slot)?;
        self.places[slot as usize] = 0;
        let (_, removed) = self.entries.swap_remove(place);
        if let Some((moved, _)) = self.entries.get(place) {
            self.places[*moved as usize] = place as u32 + 1;
        }
        if self.entries.is_empty() {
            self.places = Vec::new();
        }
        Some(removed)
    }

    /// Every layered record.
    #[cfg(any(test, feature = "tabs"))]
    pub fn values(&self) -> impl Iterator<Item = &Layered<E>> {
        self.entries.iter().map(|(_, layered)| layered)
    }

    /// Every layered record, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Layered<E>> {
        self.entries.iter_mut().map(|(_, layered)| layered)
    }
}

/// How a layer changes a result: from the result beneath, the one shown.
pub(crate) type ResultEdit = Rc<dyn Fn(&ResultSlot) -> ResultSlot>;

/// A result under optimistic layers.
#[derive(Clone)]
pub(crate) struct LayeredResult {
    /// The result real responses update.
    pub confirmed: ResultSlot,
    /// The layers by write version, oldest first, each applied over the
    /// ones before it.
    layers: Vec<(u64, ResultEdit)>,
}

impl LayeredResult {
    /// What shows: every layer applied over the confirmed result, as of
    /// the write `version`.
    fn on_show(&self, version: u64) -> ResultSlot {
        let mut shown = self
            .layers
            .iter()
            .fold(self.confirmed.clone(), |beneath, (_, edit)| edit(&beneath));
        shown.version = version;
        shown
    }
}

/// An optimistic write kept as a layer: what it covers, so that it can be
/// removed when its request ends.
pub(crate) struct Layer {
    /// The write's version.
    id: u64,
    /// The slots it covers, by table.
    tables: Vec<(u32, Vec<u32>)>,
    /// The results it covers.
    results: Vec<String>,
    /// Layers written with it (a mutation's updates of other results),
    /// removed with it.
    with: Vec<Layer>,
}

impl Layer {
    pub(crate) fn new(id: u64) -> Self {
        Layer {
            id,
            tables: Vec::new(),
            results: Vec::new(),
            with: Vec::new(),
        }
    }

    /// The write that made it: its id among the store's layers.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// `other` goes with this layer: removed when it is.
    pub(crate) fn absorb(&mut self, other: Layer) {
        self.with.push(other);
    }

    pub(crate) fn covers(&mut self, table: u32, slots: Vec<u32>) {
        if !slots.is_empty() {
            self.tables.push((table, slots));
        }
    }
}

impl Store {
    /// Removes `layer`: every record and result it covers shows the layer
    /// beneath, or its confirmed copy.
    pub(crate) fn remove_layer(&mut self, layer: Layer) {
        let now = self.tick();
        for (table, slots) in &layer.tables {
            if self
                .tables
                .any_mut(*table)
                .remove_layer(layer.id, slots, now)
            {
                for &slot in slots {
                    self.tables.changed(*table, slot, now);
                }
            }
        }
        for key in &layer.results {
            let Some(under) = self.result_layers.get_mut(key) else {
                continue;
            };
            under.layers.retain(|(id, _)| *id != layer.id);
            let shown = if under.layers.is_empty() {
                let mut confirmed = self.result_layers.remove(key).map(|u| u.confirmed);
                if let Some(slot) = &mut confirmed {
                    slot.version = now;
                }
                confirmed
            } else {
                Some(under.on_show(now))
            };
            if let Some(shown) = shown {
                self.results.insert(key.clone(), shown);
                self.log_result(key);
            }
        }
        for other in layer.with {
            self.remove_layer(other);
        }
    }

    /// Applies `edit` to the result under `key` as a layer of `layer`;
    /// a key the store does not hold is left alone.
    pub(super) fn layer_result(&mut self, key: &str, layer: &mut Layer, edit: ResultEdit) {
        let version = self.tick();
        let Some(shown) = self.results.get(key) else {
            return;
        };
        let under = self
            .result_layers
            .entry(key.to_owned())
            .or_insert_with(|| LayeredResult {
                confirmed: shown.clone(),
                layers: Vec::new(),
            });
        under.layers.push((layer.id, edit));
        let shown = under.on_show(version);
        self.results.insert(key.to_owned(), shown);
        self.log_result(key);
        layer.results.push(key.to_owned());
    }

    /// Stores `slot` as the confirmed result under `key`: what shows is it,
    /// with the layers over it if any.
    pub(super) fn put_result(&mut self, key: &str, slot: ResultSlot) {
        let shown = match self.result_layers.get_mut(key) {
            Some(under) => {
                let version = slot.version;
                under.confirmed = slot;
                under.on_show(version)
            }
            None => slot,
        };
        match self.results.get_mut(key) {
            Some(existing) => *existing = shown,
            None => drop(self.results.insert(key.to_owned(), shown)),
        }
        self.log_result(key);
    }

    /// The confirmed result under `key`: beneath its layers, if any.
    pub(crate) fn confirmed_result(&self, key: &str) -> Option<&ResultSlot> {
        match self.result_layers.get(key) {
            Some(under) => Some(&under.confirmed),
            None => self.results.get(key),
        }
    }
}

#[cfg(test)]
mod tests {
    //! How optimistic layers stack over one record: only the top one
    //! shows, removing one beneath changes nothing on show, and removing
    //! the last reveals the confirmed copy.

    use std::rc::Rc;

    use super::super::table::Slot;
    use super::{Layered, LayeredSlots};

    fn slot(text: &str) -> Slot<String> {
        Slot {
            record: Some(Rc::new(text.to_owned())),
            refs: Default::default(),
            origin: 0,
        }
    }

    fn text(slot: Option<Slot<String>>) -> Option<String> {
        slot.and_then(|s| s.record.as_deref().cloned())
    }

    #[test]
    fn only_removing_the_top_layer_changes_what_shows() {
        let mut layered = Layered::over(slot("confirmed"));
        layered.push(1, slot("first"));
        layered.push(2, slot("second"));
        assert_eq!(text(layered.remove(1)), None, "layer 2 still shows");
        assert_eq!(text(layered.remove(2)).as_deref(), Some("confirmed"));
        assert!(layered.is_bare());
        assert_eq!(layered.remove(3).map(|_| ()), None, "an unknown layer");
    }

    #[test]
    fn the_top_layer_gone_reveals_the_one_beneath() {
        let mut layered = Layered::over(slot("confirmed"));
        layered.push(1, slot("first"));
        layered.push(2, slot("second"));
        assert_eq!(text(layered.remove(2)).as_deref(), Some("first"));
        assert!(!layered.is_bare());
    }

    #[test]
    fn a_write_that_covers_a_record_twice_keeps_its_last_copy() {
        let mut layered = Layered::over(slot("confirmed"));
        layered.push(1, slot("draft"));
        layered.push(1, slot("final"));
        assert_eq!(text(layered.remove(1)).as_deref(), Some("confirmed"));
        assert!(layered.is_bare(), "one layer, not two");
    }

    #[test]
    fn a_table_finds_each_layered_slot_after_others_are_removed() {
        let confirmed = |slot: u32| format!("confirmed {slot}");
        let slot_of = |slot: u32| self::slot(&confirmed(slot));
        let mut slots = LayeredSlots::default();
        for slot in [7, 3, 12, 5] {
            slots
                .get_or_insert_with(slot, || Layered::over(slot_of(slot)))
                .push(1, self::slot("layer"));
        }
        // A second write over slot 3 adds a layer to the same record.
        slots
            .get_or_insert_with(3, || unreachable!("slot 3 is layered"))
            .push(2, self::slot("layer 2"));
        let removed = slots.remove(7).map(Layered::into_confirmed);
        assert_eq!(text(removed).as_deref(), Some("confirmed 7"));
        assert!(slots.remove(7).is_none(), "slot 7 is gone");
        for slot in [3, 12, 5] {
            let under = slots.get(slot).expect("still layered");
            assert_eq!(text(Some(under.confirmed.clone())), Some(confirmed(slot)));
        }
        assert_eq!(
            text(slots.get_mut(3).unwrap().remove(2)).as_deref(),
            Some("layer")
        );
        for slot in [12, 3, 5] {
            assert!(slots.remove(slot).is_some(), "slot {slot}");
        }
        assert!(slots.is_empty() && slots.get(12).is_none());
    }
}
