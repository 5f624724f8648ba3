//! [`All`]: every record of one entity type the cache holds, as a schema.

use std::any::{Any, TypeId};
use std::ops::Deref;
use std::rc::Rc;

use serde::{Deserialize, Deserializer};

use super::scan::scan_list;
use super::{Schema, SchemaParts};
use crate::cache::denormalize::{Denorm, Denormalizer};
use crate::cache::entity::Entity;
use crate::cache::normalize::Normalizer;
use crate::cache::partial::Presence;
use crate::cache::store::Joined;
use crate::error::SchemaError;
use crate::path::Segment;

/// Every record of an entity type the cache holds, as the schema of a
/// read: the response (a JSON list of records) is stored like any list,
/// but a read of it lists every record of the type the store shows,
/// whichever response or write brought it, in the order the store first
/// held them. A record created or deleted later (by a mutation, another
/// read, a stream) joins or leaves it with no request; the read is
/// memoized like any other, and keeps its identity while it holds the
/// same records. Its endpoint is fetched as any read is: once when the
/// cache has no answer, again once it expires.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::All;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Label { id: u64, name: String }
/// resource!(pub LabelResource { path: "/labels/:id", schema: Label });
/// endpoint!(pub every_label { path: "/labels", schema: All<Label> });
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let first = vec![Rc::new(Label { id: 1, name: "bug".into() })];
/// ctrl.set_response(&every_label(), &(), All::from(first))?;
/// // Another read brings a label: the picker lists it with no request.
/// ctrl.set_response(&LabelResource::get(), &LabelResourceParams { id: 2 }, Rc::new(Label { id: 2, name: "docs".into() }))?;
/// let names: Vec<String> = ctrl.read(&every_label(), &()).data.unwrap().iter().map(|l| l.name.clone()).collect();
/// assert_eq!(names, ["bug", "docs"]);
/// # Ok::<(), restcache::WriteError>(())
/// ```
#[derive(Clone, Debug)]
pub struct All<E>(Vec<Rc<E>>);

impl<E> All<E> {
    /// The records, in the order the store first held them.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::All;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct Label { id: u64 }
    ///
    /// let all = All::from(vec![Rc::new(Label { id: 1 })]);
    /// assert_eq!(all.records().len(), 1);
    /// ```
    pub fn records(&self) -> &[Rc<E>] {
        &self.0
    }
}

impl<E> From<Vec<Rc<E>>> for All<E> {
    fn from(records: Vec<Rc<E>>) -> Self {
        All(records)
    }
}

impl<E> Deref for All<E> {
    type Target = [Rc<E>];

    fn deref(&self) -> &[Rc<E>] {
        &self.0
    }
}

impl<E> PartialEq for All<E> {
    /// The same records (the same `Rc`s), in the same order.
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(&other.0).all(|(a, b)| Rc::ptr_eq(a, b))
    }
}

impl<'de, E: Deserialize<'de>> Deserialize<'de> for All<E> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Rc<E>>::deserialize(deserializer).map(All)
    }
}

impl<E: Entity> Schema for All<E> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }
}

impl<E: Entity> SchemaParts for All<E> {
    const EVERY_OF: Option<&'static str> = Some(E::KEY);

    fn stand_in() -> Option<Self> {
        Some(All(Vec::new()))
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        self.0.normalize(cx)
    }

    /// Every record the store shows now, not the stored list's.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        // Its own references (one a record it was stored with) are not
        // read: the next field's come after them.
        cx.skip(self.0.len());
        let every = All(cx.every::<E>());
        match every == *self {
            true => Denorm::Same,
            false => Denorm::Changed(every),
        }
    }

    fn same_entities(&self, other: &Self) -> bool {
        self == other
    }

    fn same_value(&self, other: &Self) -> bool {
        self == other
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        <Vec<Rc<E>> as SchemaParts>::entity_at(path)
    }

    fn reserve(cx: &mut Normalizer<'_>, len: usize) {
        cx.reserve::<E>(len);
    }

    /// A created record is stored; the read lists it anyway.
    fn join(&self, record: &dyn Any, at_start: bool) -> Option<Joined> {
        let joined = self.0.join(record, at_start)?;
        let list = Rc::downcast::<Vec<Rc<E>>>(joined.list).ok()?;
        Some(Joined {
            list: Rc::new(All(Rc::unwrap_or_clone(list))),
            holds_it: joined.holds_it,
        })
    }

    fn leave(&self, index: usize) -> Option<Self> {
        self.0.leave(index).map(All)
    }

    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error> {
        scan_list::<Rc<E>, D>(deserializer, found)
    }

    const SCANS: bool = <Rc<E> as SchemaParts>::SCANS;

    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        <Rc<E> as SchemaParts>::may_be_partial(seen)
    }
}
