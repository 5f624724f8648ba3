//! Deletions: a schema whose storing invalidates a record.

use std::fmt;
use std::marker::PhantomData;
use std::rc::Rc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::cache::denormalize::{Denorm, Denormalizer};
use crate::cache::entity::Entity;
use crate::cache::normalize::Normalizer;
use crate::cache::schema::{Schema, SchemaParts};
use crate::error::SchemaError;
use crate::path::Segment;
use crate::pk::Pk;

/// The result of a delete: which record is gone. Built from the params
/// (the body of a delete is often empty).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::Deleted;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
///
/// let gone = Deleted::<Todo>::new(Pk::from(3u64));
/// assert_eq!(gone.pk, Pk::from(3u64));
/// ```
pub struct Deleted<E> {
    /// The pk of the deleted record.
    pub pk: Pk,
    entity: PhantomData<fn() -> E>,
}

impl<E> Deleted<E> {
    /// The deletion of the record `pk`.
    pub fn new(pk: Pk) -> Self {
        Deleted {
            pk,
            entity: PhantomData,
        }
    }
}

impl<E> Clone for Deleted<E> {
    fn clone(&self) -> Self {
        Deleted::new(self.pk.clone())
    }
}

impl<E> fmt::Debug for Deleted<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Deleted({:?})", self.pk)
    }
}

/// Storing a deletion invalidates the record: direct reads of it are
/// Invalid and every list drops it on its next read. A response that
/// started before the delete does not bring it back.
impl<E: Entity> Schema for Deleted<E> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }
}

impl<E: Entity> SchemaParts for Deleted<E> {
    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        cx.invalidate::<E>(&self.pk)
    }

    fn denormalize(&self, _: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        Denorm::Same
    }

    fn same_entities(&self, _: &Self) -> bool {
        true
    }

    fn same_value(&self, other: &Self) -> bool {
        self.pk == other.pk
    }

    fn entity_at(_: &[Segment]) -> Option<&'static str> {
        Some(E::KEY)
    }
}

/// A deletion is written as the string form of its record's pk (`"3"`),
/// as a saved cache keeps a delete made offline until it is sent.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::Deleted;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
///
/// let gone = Deleted::<Todo>::new(Pk::from(3u64));
/// let text = serde_json::to_string(&gone)?;
/// assert_eq!(text, r#""3""#);
/// assert_eq!(serde_json::from_str::<Deleted<Todo>>(&text)?, gone);
/// assert!(serde_json::from_str::<Deleted<Todo>>(r#""""#).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
impl<E> Serialize for Deleted<E> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.pk)
    }
}

impl<'de, E> Deserialize<'de> for Deleted<E> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Pk::parse(&text)
            .map(Deleted::new)
            .ok_or_else(|| serde::de::Error::custom("a deleted record's pk is empty"))
    }
}

impl<E> PartialEq for Deleted<E> {
    fn eq(&self, other: &Self) -> bool {
        self.pk == other.pk
    }
}
