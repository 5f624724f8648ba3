//! The standard schemas: one record (`Rc<E>`), lists, optional values,
//! maps by string, and values that hold no entities.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::rc::Rc;

use serde::de::Deserializer;

use super::scan::{scan_list, scan_map, scan_option};
use super::{Schema, SchemaParts};
use crate::cache::denormalize::{Denorm, Denormalizer, Reader};
use crate::cache::entity::{Entity, EntityParts};
use crate::cache::filter::FieldText;
use crate::cache::normalize::Normalizer;
use crate::cache::partial::Presence;
use crate::cache::store::Joined;
use crate::cache::store::Lookup;
use crate::error::SchemaError;
use crate::path::Segment;
use crate::pk::Pk;

impl<E: Entity> Schema for Rc<E> {
    type Handle = Rc<E>;

    fn into_handle(value: Rc<Self>) -> Rc<E> {
        Rc::unwrap_or_clone(value)
    }
}

impl<E: Entity> SchemaParts for Rc<E> {
    const IS_RECORD: bool = true;
    const FLAT: bool = !<E as EntityParts>::HAS_NESTED;
    const RECORD: Option<(&'static str, &'static str)> = Some((E::KEY, E::PK_FIELD));

    fn stand_in() -> Option<Self> {
        E::stand_in().map(Rc::new)
    }

    fn read_record(reader: &mut Reader<'_>, pk: &Pk) -> Option<Lookup<Self>> {
        Some(match reader.entity_by_pk::<E>(Some(pk.as_ref())).0 {
            Lookup::Found(record, meta) => Lookup::Found(Rc::new(record), meta),
            Lookup::Invalid => Lookup::Invalid,
            Lookup::Absent => Lookup::Absent,
        })
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        cx.entity(self)
    }

    fn normalize_list(items: &mut [Self], cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        cx.entities(items)
    }

    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        cx.entity::<E>(self)
    }

    fn denormalize_list(items: &[Self], cx: &mut Denormalizer<'_, '_>) -> Denorm<Vec<Self>> {
        cx.entities::<E>(items)
    }

    fn denormalize_at(&self, index: usize, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        cx.entity_at::<E>(index, self)
    }

    fn same_entities(&self, other: &Self) -> bool {
        Rc::ptr_eq(self, other)
    }

    fn same_value(&self, other: &Self) -> bool {
        Rc::ptr_eq(self, other)
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        E::nested_entity_at(path).or(Some(E::KEY))
    }

    fn reserve(cx: &mut Normalizer<'_>, len: usize) {
        cx.reserve::<E>(len);
    }

    fn field_text(&self, field: &str) -> FieldText {
        E::field_text(self, field)
    }

    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error> {
        E::scan_record(deserializer, found)
    }

    const SCANS: bool = E::SCANS;

    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        E::may_be_partial(seen)
    }
}

impl<S: Schema> Schema for Vec<S> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }
}

impl<S: Schema> SchemaParts for Vec<S> {
    const LIST_OF_RECORDS: bool = S::IS_RECORD;
    const FLAT: bool = S::FLAT;

    fn stand_in() -> Option<Self> {
        Some(Vec::new())
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        S::reserve(cx, self.len());
        S::normalize_list(self, cx)
    }

    /// Items whose entity is gone (deleted, invalidated) are dropped.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        S::denormalize_list(self, cx)
    }

    fn same_entities(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same_entities(b))
    }

    fn same_value(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same_value(b))
    }

    fn patch(
        &self,
        previous: &Self,
        changed: &[usize],
        cx: &mut Denormalizer<'_, '_>,
    ) -> Option<Option<Self>> {
        if !S::IS_RECORD || previous.len() != self.len() {
            return None;
        }
        let mut patched: Option<Vec<S>> = None;
        for &index in changed {
            let held = self.get(index)?;
            let current = match held.denormalize_at(index, cx) {
                Denorm::Same => held.clone(),
                Denorm::Changed(current) => current,
                Denorm::Missing => return None,
            };
            if !current.same_entities(&previous[index]) {
                patched.get_or_insert_with(|| previous.clone())[index] = current;
            }
        }
        Some(patched)
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        match path.split_first() {
            Some((Segment::Index(_), rest)) => S::entity_at(rest),
            _ => None,
        }
    }

    /// A record of the list's item type joins at its start or end.
    fn join(&self, record: &dyn Any, at_start: bool) -> Option<Joined> {
        let record = record.downcast_ref::<S>()?;
        let mut longer = Vec::with_capacity(self.len() + 1);
        if at_start {
            longer.push(record.clone());
        }
        longer.extend(self.iter().cloned());
        if !at_start {
            longer.push(record.clone());
        }
        Some(Joined {
            list: Rc::new(longer),
            holds_it: true,
        })
    }

    /// A list of records lets the item at `index` go.
    fn leave(&self, index: usize) -> Option<Self> {
        if !S::IS_RECORD || index >= self.len() {
            return None;
        }
        let mut shorter = self.clone();
        shorter.remove(index);
        Some(shorter)
    }

    fn extend_page(&self, next: &Self, keep: &[bool]) -> Option<Self> {
        let mut both = Vec::with_capacity(self.len() + next.len());
        both.extend_from_slice(self);
        let kept = next.iter().enumerate();
        both.extend(
            kept.filter(|(i, _)| keep.get(*i).copied().unwrap_or(true))
                .map(|(_, item)| item.clone()),
        );
        Some(both)
    }

    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error> {
        scan_list::<S, D>(deserializer, found)
    }

    const SCANS: bool = S::SCANS;

    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        S::may_be_partial(seen)
    }
}

impl<S: Schema> Schema for Option<S> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }
}

impl<S: Schema> SchemaParts for Option<S> {
    fn stand_in() -> Option<Self> {
        Some(None)
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        match self {
            Some(value) => value.normalize(cx),
            None => Ok(()),
        }
    }

    /// A value whose entity is gone becomes `None`.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        match self.as_ref().map(|value| value.denormalize(cx)) {
            None | Some(Denorm::Same) => Denorm::Same,
            Some(Denorm::Changed(value)) => Denorm::Changed(Some(value)),
            Some(Denorm::Missing) => Denorm::Changed(None),
        }
    }

    fn same_entities(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.same_entities(b),
            (None, None) => true,
            _ => false,
        }
    }

    fn same_value(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.same_value(b),
            (None, None) => true,
            _ => false,
        }
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        S::entity_at(path)
    }

    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error> {
        scan_option::<S, D>(deserializer, found)
    }

    const SCANS: bool = S::SCANS;

    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        S::may_be_partial(seen)
    }
}

impl<S: Schema, H: BuildHasher + Default + Clone + 'static> Schema for HashMap<String, S, H> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }
}

/// Entries are visited in key order, so a map and its rebuilt copy line up
/// with the entity references recorded when it was stored.
impl<S: Schema, H: BuildHasher + Default + Clone + 'static> SchemaParts for HashMap<String, S, H> {
    fn stand_in() -> Option<Self> {
        Some(HashMap::default())
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        let mut entries: Vec<(&String, &mut S)> = self.iter_mut().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (key, value) in entries {
            value
                .normalize(cx)
                .map_err(|e| e.within(Segment::Key(Cow::Owned(key.clone()))))?;
        }
        Ok(())
    }

    /// Entries whose entity is gone are dropped.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        let mut keys: Vec<&String> = self.keys().collect();
        keys.sort_unstable();
        let mut changed = false;
        let mut outcomes = Vec::with_capacity(keys.len());
        for key in keys {
            let outcome = self[key].denormalize(cx);
            changed |= !matches!(outcome, Denorm::Same);
            outcomes.push((key, outcome));
        }
        if !changed {
            return Denorm::Same;
        }
        let mut rebuilt = HashMap::with_capacity_and_hasher(outcomes.len(), H::default());
        for (key, outcome) in outcomes {
            match outcome {
                Denorm::Same => drop(rebuilt.insert(key.clone(), self[key].clone())),
                Denorm::Changed(value) => drop(rebuilt.insert(key.clone(), value)),
                Denorm::Missing => {}
            }
        }
        Denorm::Changed(rebuilt)
    }

    fn same_entities(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, a)| other.get(key).is_some_and(|b| a.same_entities(b)))
    }

    fn same_value(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, a)| other.get(key).is_some_and(|b| a.same_value(b)))
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        match path.split_first() {
            Some((Segment::Key(_), rest)) => S::entity_at(rest),
            _ => None,
        }
    }

    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error> {
        scan_map::<S, D>(deserializer, found)
    }

    const SCANS: bool = S::SCANS;

    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        S::may_be_partial(seen)
    }
}

/// Schemas that hold no entities: kept in the cache as they came (with
/// more of the schema's items after a `;`).
macro_rules! plain_schema {
    ($ty:ty; $($items:item)*) => {
        plain_schema!(@impl $ty; $($items)*);
    };
    ($($ty:ty),* $(,)?) => {$(
        plain_schema!(@impl $ty;);
    )*};
    (@impl $ty:ty; $($items:item)*) => {
        impl Schema for $ty {
            type Handle = Rc<Self>;

            fn into_handle(value: Rc<Self>) -> Rc<Self> {
                value
            }
        }

        impl SchemaParts for $ty {
            fn normalize(&mut self, _: &mut Normalizer<'_>) -> Result<(), SchemaError> {
                Ok(())
            }

            fn denormalize(&self, _: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
                Denorm::Same
            }

            fn same_entities(&self, _: &Self) -> bool {
                true
            }

            fn same_value(&self, other: &Self) -> bool {
                self == other
            }

            fn entity_at(_: &[Segment]) -> Option<&'static str> {
                None
            }

            $($items)*
        }
    };
}

// The results of RPCs and other endpoints that answer with no records:
// nothing (`()`, for an empty body) or any JSON. Scalars stay out, so that
// marking a plain field `nested` remains a compile error.
plain_schema!((), serde_json::Value);

// Bytes: kept as they came, with no records; read from the answer's
// bytes, not its text.
plain_schema!(crate::blob::Blob;
    const BINARY: bool = true;

    fn from_bytes(bytes: Vec<u8>, content_type: Option<&str>) -> Option<Self> {
        Some(crate::blob::Blob::new(bytes, content_type))
    }
);
