//! Entity queries: one record's read, kept between renders and answered
//! without a lookup while nothing it depends on was written.

use std::fmt;
use std::rc::Rc;

use crate::cache::entity::Entity;
use crate::cache::memo::Memo;
use crate::cache::store::table::EntityRef;
use crate::cache::store::{Lookup, Store};
use crate::meta::Meta;
use crate::pk::{Pk, PkValue};

/// A read of one record by pk that remembers its last answer.
///
/// [`Memo::entity`] finds the record by its pk on every call. A view that
/// shows the same record render after render (a hook) keeps an
/// `EntityQuery` instead. While the store was not written,
/// [`read`](Self::read) hands out the same `Rc` after one comparison. After
/// a write to other tables only (not the record's, nor those of its nested
/// entities), it does so after checking those tables' stamps, with no
/// hashing. After a write to one of them it reads through its own
/// [`Memo`], so the record keeps its identity unless the record, or an
/// entity nested in it, changed.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Default, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// let mut store = Store::new();
/// store.set_json::<Vec<Rc<Todo>>>("todos", r#"[{"id":1,"title":"milk"},{"id":2,"title":"eggs"}]"#, Meta::default())?;
///
/// let mut todo = EntityQuery::<Todo>::new(1u64);
/// let first = todo.read(&store).into_value().unwrap();
/// assert!(Rc::ptr_eq(&first, &todo.read(&store).into_value().unwrap()));
///
/// // Another todo changed: this one keeps its identity.
/// store.set_entity(Todo { id: 2, title: "ham".into() }, Meta::default())?;
/// assert!(Rc::ptr_eq(&first, &todo.read(&store).into_value().unwrap()));
///
/// // This one changed: the read shows it.
/// store.set_entity(Todo { id: 1, title: "oat milk".into() }, Meta::default())?;
/// assert_eq!(todo.read(&store).into_value().unwrap().title, "oat milk");
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub struct EntityQuery<E> {
    pk: Option<Pk>,
    memo: Memo,
    last: Option<Answer<E>>,
}

/// What a query handed out last, and what it depends on.
struct Answer<E> {
    /// The store's state when the answer was last known to hold.
    state: u64,
    /// The store it was read from, its slot layout then, and the slot
    /// of the record.
    store: u64,
    layout: u64,
    slot: EntityRef,
    value: Rc<E>,
    meta: Meta,
    /// Stamps of the tables the value depends on.
    mask: u64,
    /// The store's last write when the answer was last known to hold.
    at: u64,
}

impl<E: Entity> EntityQuery<E> {
    /// A query for the record whose pk is `pk`. A value that names no pk
    /// (`None`, `""`) makes a query whose reads are always
    /// [`Lookup::Absent`].
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// assert_eq!(EntityQuery::<Todo>::new("5").pk(), Some(&Pk::from(5u64)));
    /// assert!(matches!(EntityQuery::<Todo>::new("").read(&Store::new()), Lookup::Absent));
    /// ```
    pub fn new(pk: impl PkValue) -> Self {
        EntityQuery {
            pk: pk.to_pk(),
            memo: Memo::new(),
            last: None,
        }
    }

    /// The pk of the record this query reads.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Profile { id: String }
    ///
    /// assert_eq!(EntityQuery::<Profile>::new("ada").pk().unwrap().to_string(), "ada");
    /// ```
    pub fn pk(&self) -> Option<&Pk> {
        self.pk.as_ref()
    }

    /// The record, as [`Store::get_entity`] reads it: nested entities
    /// joined, the same `Rc` as the last read while nothing it holds
    /// changed, `Invalid` once it was invalidated or deleted.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// let mut query = EntityQuery::<Todo>::new(3u64);
    /// assert!(matches!(query.read(&store), Lookup::Absent));
    /// store.set_entity(Todo { id: 3 }, Meta::default())?;
    /// assert_eq!(query.read(&store).into_value().unwrap().id, 3);
    /// store.invalidate_entity::<Todo>(3u64, Timestamp::from_millis(1));
    /// assert!(matches!(query.read(&store), Lookup::Invalid));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    #[inline]
    pub fn read(&mut self, store: &Store) -> Lookup<E> {
        if let Some(last) = &self.last
            && last.state == store.state()
        {
            return Lookup::Found(Rc::clone(&last.value), last.meta);
        }
        self.read_after_write(store)
    }

    /// [`read`](Self::read) once the store changed: the last answer still
    /// holds unless a table it depends on was written or slots moved. Its
    /// meta is read again from the record's slot: a copy written again
    /// equal keeps the record but moves its fetch time.
    fn read_after_write(&mut self, store: &Store) -> Lookup<E> {
        if let Some(last) = &mut self.last
            && last.store == store.id()
            && last.layout == store.layout()
            && store.unchanged_since(last.mask, last.at)
            && let Some(meta) = store.meta_at::<E>(last.slot)
        {
            last.state = store.state();
            last.at = store.last_write();
            last.meta = meta;
            return Lookup::Found(Rc::clone(&last.value), meta);
        }
        self.read_again(store)
    }

    /// [`read`](Self::read) after a write the last answer may depend on.
    fn read_again(&mut self, store: &Store) -> Lookup<E> {
        let read = self.memo.entity_stamped::<E>(store, self.pk.as_ref());
        self.last = match (&read.lookup, read.slot) {
            (Lookup::Found(value, meta), Some(slot)) => Some(Answer {
                state: store.state(),
                store: store.id(),
                layout: store.layout(),
                slot,
                value: Rc::clone(value),
                meta: *meta,
                mask: read.mask,
                at: store.last_write(),
            }),
            _ => None,
        };
        read.lookup
    }
}

impl<E> fmt::Debug for EntityQuery<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntityQuery")
            .field("entity", &std::any::type_name::<E>())
            .field("pk", &self.pk)
            .field("answered", &self.last.is_some())
            .finish()
    }
}
