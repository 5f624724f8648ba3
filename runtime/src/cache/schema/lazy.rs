//! [`Lazy`]: a link to a record, stored but not read with the record
//! that holds it.

use std::fmt;
use std::rc::Rc;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Schema, SchemaParts};
use crate::cache::denormalize::{Denorm, Denormalizer};
use crate::cache::entity::Entity;
use crate::cache::normalize::Normalizer;
use crate::cache::partial::Presence;
use crate::cache::store::{Lookup, Store};
use crate::error::SchemaError;
use crate::path::Segment;
use crate::pk::{Pk, PkValue};

/// A nested record that is stored but read only when asked: a field of
/// a deep or cyclic graph (a category's parent, a user's manager) that
/// the record holding it does not join in. On the wire it is the record
/// (stored in its table like any nested record) or its bare pk; in the
/// record that holds it, it is the pk alone, so a read of that record
/// walks no further, and a change to the linked record does not change
/// the record that links to it. Read the linked record when needed:
/// [`Controller::resolve`](crate::Controller::resolve) (what the cache
/// holds), or a read of its endpoint by [`id`](Self::id) (answered from
/// the cache when it holds the record).
///
/// A lazily linked record is kept in the cache by the reads that hold it
/// themselves, not by the link. A record that comes with a link is
/// stored as it came: a field it leaves out is not kept from the stored
/// copy.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::Lazy;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// struct User { id: u64, name: String, #[entity(nested)] best_friend: Option<Lazy<User>> }
///
/// let mut store = Store::new();
/// // Ada's best friend is Bob, whose best friend is Ada: a cycle.
/// let text = r#"[{"id": 1, "name": "Ada", "bestFriend": {"id": 2, "name": "Bob", "bestFriend": 1}}]"#;
/// let users = store.set_json::<Vec<Rc<User>>>("users", text, Meta::default())?;
/// let friend = users[0].best_friend.as_ref().unwrap();
/// assert_eq!(friend.id::<u64>(), Some(2));
/// let bob = friend.read(&store).into_value().unwrap();
/// assert_eq!(bob.name, "Bob");
/// let back = bob.best_friend.as_ref().unwrap().read(&store).into_value().unwrap();
/// assert_eq!(back.name, "Ada");
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub struct Lazy<E> {
    pk: Option<Pk>,
    /// The record as it came, until the write stores it.
    record: Option<Rc<E>>,
}

impl<E: Entity> Lazy<E> {
    /// A link to the record `pk` of `E`.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Lazy;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct User { id: u64 }
    ///
    /// assert_eq!(Lazy::<User>::new(7u64).pk(), Some(&Pk::from(7u64)));
    /// ```
    pub fn new(pk: impl PkValue) -> Self {
        Lazy {
            pk: pk.to_pk(),
            record: None,
        }
    }

    /// The linked record's pk.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Lazy;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct User { id: u64 }
    ///
    /// assert_eq!(Lazy::<User>::new("").pk(), None);
    /// ```
    pub fn pk(&self) -> Option<&Pk> {
        self.pk.as_ref()
    }

    /// The linked record's pk as `I` (read from its text: `u64`,
    /// `String`, ...), for the params of a read of it.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Lazy;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct User { id: u64 }
    ///
    /// assert_eq!(Lazy::<User>::new(7u64).id::<u64>(), Some(7));
    /// assert_eq!(Lazy::<User>::new(7u64).id::<String>().as_deref(), Some("7"));
    /// ```
    pub fn id<I: FromStr>(&self) -> Option<I> {
        self.pk.as_ref()?.to_string().parse().ok()
    }

    /// The linked record as `store` holds it now (nested records
    /// joined).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Lazy;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct User { id: u64 }
    ///
    /// let mut store = Store::new();
    /// assert!(matches!(Lazy::<User>::new(7u64).read(&store), Lookup::Absent));
    /// store.set_entity(User { id: 7 }, Meta::default())?;
    /// assert!(Lazy::<User>::new(7u64).read(&store).value().is_some());
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn read(&self, store: &Store) -> Lookup<E> {
        store.get_entity::<E>(self.pk.as_ref())
    }
}

impl<E> Clone for Lazy<E> {
    fn clone(&self) -> Self {
        Lazy {
            pk: self.pk.clone(),
            record: self.record.clone(),
        }
    }
}

impl<E> PartialEq for Lazy<E> {
    /// Links to the same record.
    fn eq(&self, other: &Self) -> bool {
        self.pk == other.pk
    }
}

impl<E> fmt::Debug for Lazy<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Lazy").field(&self.pk).finish()
    }
}

/// The linked record's pk.
impl<E> Serialize for Lazy<E> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.pk.serialize(serializer)
    }
}

/// What the wire holds for a lazy link.
#[derive(Deserialize)]
#[serde(untagged)]
enum Wire<E> {
    Number(u64),
    Signed(i64),
    Text(String),
    Record(E),
}

impl<'de, E: Entity + Deserialize<'de>> Deserialize<'de> for Lazy<E> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Wire::<E>::deserialize(deserializer)? {
            Wire::Number(pk) => Lazy::new(pk),
            Wire::Signed(pk) => Lazy::new(pk),
            Wire::Text(pk) => Lazy::new(pk),
            Wire::Record(record) => Lazy {
                pk: record.pk(),
                record: Some(Rc::new(record)),
            },
        })
    }
}

impl<E: Entity> Schema for Lazy<E> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }
}

impl<E: Entity> SchemaParts for Lazy<E> {
    /// A record that came with the link is stored, and the link keeps its
    /// pk alone.
    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        if let Some(mut record) = self.record.take() {
            cx.detached(|cx| cx.entity(&mut record))?;
        }
        Ok(())
    }

    /// Never joined in: the link stays as it is.
    fn denormalize(&self, _: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        Denorm::Same
    }

    fn same_entities(&self, other: &Self) -> bool {
        self == other
    }

    fn same_value(&self, other: &Self) -> bool {
        self == other
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        <Rc<E> as SchemaParts>::entity_at(path)
    }

    /// A record that came with the link notes the fields it left out, as
    /// any record does; a bare pk notes nothing (a record's pass takes a
    /// value of another shape as one with nothing to note).
    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error> {
        E::scan_record(deserializer, found)
    }

    const SCANS: bool = E::SCANS;

    fn may_be_partial(seen: &mut Vec<std::any::TypeId>) -> bool {
        E::may_be_partial(seen)
    }
}
