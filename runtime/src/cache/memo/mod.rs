//! Memoized reads: a read with nothing changed hands out the same `Rc`.
//! `entries.rs` holds what a memo remembers; the reads that consult and
//! fill it walk in `cache/denormalize/`.

pub(crate) mod entries;

use crate::cache::denormalize::Reader;
use crate::cache::entity::Entity;
use crate::cache::schema::Schema;
use crate::cache::store::table::EntityRef;
use crate::cache::store::{Lookup, Store};
use crate::pk::{Pk, PkKey, PkValue};
use entries::{ItemStamps, MemoState};

/// A record read through a memo ([`Memo::entity_stamped`]).
pub(crate) struct EntityRead<E> {
    pub lookup: Lookup<E>,
    /// The stamps of every record the read touched.
    pub mask: u64,
    /// The record's slot, when it has one (found or invalid).
    pub slot: Option<EntityRef>,
}

/// Remembers the values reads handed out, so that a read whose inputs did
/// not change returns the *same* `Rc` in O(1), and a read after a change
/// rebuilds only what changed: values that hold a changed record are new,
/// every other value keeps its identity.
///
/// A memo belongs to the store it reads: used with another store, it starts
/// over.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Default, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// let mut store = Store::new();
/// store.set_json::<Vec<Rc<Todo>>>("todos", r#"[{"id":1,"title":"a"},{"id":2,"title":"b"}]"#, Meta::default())?;
/// let mut memo = Memo::new();
/// let first = memo.read::<Vec<Rc<Todo>>>(&store, "todos").into_value().unwrap();
/// let again = memo.read::<Vec<Rc<Todo>>>(&store, "todos").into_value().unwrap();
/// assert!(Rc::ptr_eq(&first, &again));
///
/// store.set_entity(Todo { id: 2, title: "B".into() }, Meta::default())?;
/// let after = memo.read::<Vec<Rc<Todo>>>(&store, "todos").into_value().unwrap();
/// assert_eq!(after[1].title, "B");
/// assert!(Rc::ptr_eq(&first[0], &after[0])); // todo 1 did not change
/// # Ok::<(), restcache::SchemaError>(())
/// ```
#[derive(Default)]
pub struct Memo {
    store: u64,
    /// The store's slot layout the entries were made with.
    layout: u64,
    state: MemoState,
}

impl Memo {
    /// An empty memo.
    pub fn new() -> Self {
        Memo::default()
    }

    /// Reads the result under `key`, as [`Store::read`] does, remembering.
    pub fn read<S: Schema>(&mut self, store: &Store, key: &str) -> Lookup<S> {
        Reader::new(store, Some(self.state_for(store))).result::<S>(key)
    }

    /// Reads the record `pk` as the value of the read `key`, whose result
    /// the store does not hold (a record schema only; `Absent` for
    /// others), remembering.
    pub(crate) fn read_named<S: Schema>(&mut self, store: &Store, key: &str, pk: &Pk) -> Lookup<S> {
        Reader::new(store, Some(self.state_for(store))).named::<S>(key, pk)
    }

    /// Reads one record, as [`Store::get_entity`] does, remembering.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct User { id: u64 }
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Post { id: u64, #[entity(nested)] author: Rc<User> }
    ///
    /// let mut store = Store::new();
    /// store.set_entity(Post { id: 1, author: Rc::new(User { id: 9 }) }, Meta::default())?;
    /// let mut memo = Memo::new();
    /// let a = memo.entity::<Post>(&store, 1u64).into_value().unwrap();
    /// let b = memo.entity::<Post>(&store, 1u64).into_value().unwrap();
    /// assert!(Rc::ptr_eq(&a, &b));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    #[inline]
    pub fn entity<E: Entity>(&mut self, store: &Store, pk: impl PkValue) -> Lookup<E> {
        self.entity_stamped::<E>(store, pk).lookup
    }

    /// [`entity`](Self::entity), with the stamps of every record the read
    /// touched (the read holds while [`Store::unchanged_since`] them) and
    /// the record's slot.
    #[inline]
    pub(crate) fn entity_stamped<E: Entity>(
        &mut self,
        store: &Store,
        pk: impl PkValue,
    ) -> EntityRead<E> {
        let key = pk.pk_key();
        let mut reader = Reader::new(store, Some(self.state_for(store)));
        let (lookup, slot) = reader.entity_by_pk::<E>(key.as_ref().map(PkKey::as_ref));
        EntityRead {
            lookup,
            mask: reader.mask(),
            slot,
        }
    }

    /// Every record of `E` the store shows, remembering, with the stamps
    /// of the records it read (see [`All`](crate::All)).
    pub(crate) fn every<E: Entity>(&mut self, store: &Store) -> (Vec<std::rc::Rc<E>>, u64) {
        let mut reader = Reader::new(store, Some(self.state_for(store)));
        let every = reader.every::<E>();
        (every, reader.mask())
    }

    /// The stamps of every record the last read of `key` depended on.
    pub(crate) fn result_mask(&self, key: &str) -> Option<u64> {
        self.state.results.get(key).map(|entry| entry.mask)
    }

    /// Forgets the last value read under `key` (the result went).
    pub(crate) fn forget(&mut self, key: &str) {
        self.state.results.remove(key);
    }

    /// Gives back the room of the results' entries when most of it went.
    pub(crate) fn shrink_if_sparse(&mut self) {
        crate::sparse::Sparse::shrink_if_sparse(&mut self.state.results);
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.state = MemoState::default();
    }

    #[inline]
    fn state_for(&mut self, store: &Store) -> &mut MemoState {
        if self.store != store.id() {
            self.start_over(store);
        } else if self.layout != store.layout() {
            self.renumbered(store);
        }
        &mut self.state
    }

    /// The store dropped records and renumbered its slots: what was kept
    /// by slot number is void. Results are kept by key and stay, but the
    /// stamps they depend on are those of the old slots: each is walked
    /// again at its next read after a write (and keeps its identity when
    /// it holds the same records).
    #[cold]
    fn renumbered(&mut self, store: &Store) {
        self.layout = store.layout();
        self.state.entities.clear();
        for entry in self.state.results.values_mut() {
            entry.mask = u64::MAX;
            entry.items = ItemStamps::default();
        }
    }

    #[cold]
    fn start_over(&mut self, store: &Store) {
        self.store = store.id();
        self.layout = store.layout();
        self.state = MemoState::default();
    }
}
