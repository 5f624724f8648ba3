//! Derived views: a value computed from what the store holds (records of
//! a type, one record, a cached result), sorted, filtered, counted or
//! grouped by the app, and remembered with what it read, so that it is
//! computed again only after a write to something it read.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;

use crate::cache::entity::Entity;
use crate::cache::memo::Memo;
use crate::cache::schema::Schema;
use crate::cache::store::Store;
use crate::pk::{Pk, PkValue};
use crate::rest::{Effect, Endpoint};

/// A view computed from other reads of the store: every record of a
/// type, one record, a cached result; sorted, filtered, counted, grouped
/// as the app says. It is remembered with what it read: read again with
/// nothing of that written since, it hands out the same `Rc` without
/// computing; after such a write it computes again, and still hands out
/// the same `Rc` when the new value equals the last (so a view that shows
/// it renders only when it changed).
///
/// A query computes from what the cache holds and never fetches: pair it
/// with the reads that bring the data (a list, a page of users). Read it
/// with [`Controller::query`](crate::Controller::query), watch it with
/// [`Controller::subscribe_query`](crate::Controller::subscribe_query) or
/// the Yew hook `use_query`, or over a bare store with
/// [`read`](Self::read). Clones share what is remembered; make one per
/// view (a `thread_local`, a `use_memo`), not one per render.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::Query;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, user_id: u64, completed: bool }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// // "Open todos of user 2, newest first".
/// let open_of_2 = Query::new(|q| {
///     let mut open: Vec<Rc<Todo>> = q.all::<Todo>().into_iter()
///         .filter(|t| t.user_id == 2 && !t.completed)
///         .collect();
///     open.sort_by(|a, b| b.id.cmp(&a.id));
///     open
/// });
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let todo = |id, user_id, completed| Rc::new(Todo { id, user_id, completed });
/// ctrl.set_response(&TodoResource::get_list(), &(), vec![todo(1, 2, false), todo(2, 1, false), todo(3, 2, false)])?;
/// let ids = |v: &[Rc<Todo>]| v.iter().map(|t| t.id).collect::<Vec<_>>();
/// let first = ctrl.query(&open_of_2);
/// assert_eq!(ids(&first), [3, 1]);
///
/// // A write to a todo it does not show: the same value, the same `Rc`.
/// ctrl.set_entity(Todo { id: 2, user_id: 1, completed: true }, ctrl.write_time())?;
/// assert!(Rc::ptr_eq(&first, &ctrl.query(&open_of_2)));
///
/// // Todo 3 done: it leaves the view, with no request.
/// ctrl.set_entity(Todo { id: 3, user_id: 2, completed: true }, ctrl.write_time())?;
/// assert_eq!(ids(&ctrl.query(&open_of_2)), [1]);
/// # Ok::<(), restcache::WriteError>(())
/// ```
pub struct Query<T> {
    compute: Rc<dyn Fn(&mut QueryReader<'_>) -> T>,
    last: Rc<RefCell<Option<Answer<T>>>>,
}

impl<T> Clone for Query<T> {
    fn clone(&self) -> Self {
        Query {
            compute: Rc::clone(&self.compute),
            last: Rc::clone(&self.last),
        }
    }
}

impl<T> PartialEq for Query<T> {
    /// The same query (a clone of it).
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.compute, &other.compute)
    }
}

impl<T> std::fmt::Debug for Query<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query").finish_non_exhaustive()
    }
}

/// What a query's last answer read.
#[derive(Debug, Default)]
pub(crate) struct LastRead {
    /// The entity keys of the types it listed every record of.
    pub tables: Vec<&'static str>,
    /// The keys of the results it read.
    pub results: Vec<String>,
    /// The records it read by pk and found, by entity key.
    pub records: Vec<(&'static str, Pk)>,
}

/// What a query handed out last, and what it read.
struct Answer<T> {
    /// The store's state when the answer was last known to hold.
    state: u64,
    store: u64,
    value: Rc<T>,
    /// The stamps of the records it read.
    mask: u64,
    /// The results it read, with their versions then (`None`: absent).
    results: Vec<(String, Option<u64>)>,
    /// The entity keys of the types it listed every record of.
    tables: Vec<&'static str>,
    /// The records it read by pk and found, by entity key.
    records: Vec<(&'static str, Pk)>,
    /// The store's slot layout when it was computed, and its last write
    /// when the answer was last known to hold.
    layout: u64,
    at: u64,
    /// The base URL its reads by endpoint named their keys with (`None`:
    /// it read nothing by endpoint); another base names other keys.
    endpoint_base: Option<Option<Box<str>>>,
}

impl<T> Answer<T> {
    /// Whether the reads by endpoint it made name the same keys under
    /// `base`.
    fn holds_under(&self, base: Option<&str>) -> bool {
        self.endpoint_base
            .as_ref()
            .is_none_or(|read_with| read_with.as_deref() == base)
    }
}

/// What a query's computation reads the store through: each read is
/// noted, so that the query computes again only after a write to it.
pub struct QueryReader<'a> {
    store: &'a Store,
    memo: &'a mut Memo,
    /// The base URL of the controller's client, for reads by endpoint.
    base: Option<&'a str>,
    mask: u64,
    results: Vec<(String, Option<u64>)>,
    tables: Vec<&'static str>,
    records: Vec<(&'static str, Pk)>,
    /// Whether the computation read by endpoint (its keys name `base`).
    read_by_endpoint: bool,
}

impl QueryReader<'_> {
    /// Every record of `E` the cache holds (an optimistic value where one
    /// shows), nested records joined, in the order the cache first held
    /// them. The query then depends on every record of `E` (one created
    /// later too) and on the records they nest.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct Label { id: u64 }
    ///
    /// let count = Query::new(|q| q.all::<Label>().len());
    /// let mut store = Store::new();
    /// store.set_entity(Label { id: 1 }, Meta::default())?;
    /// assert_eq!(*count.read(&store, &mut Memo::new()), 1);
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn all<E: Entity>(&mut self) -> Vec<Rc<E>> {
        let (every, mask) = self.memo.every::<E>(self.store);
        self.mask |= mask;
        if !self.tables.contains(&E::KEY) {
            self.tables.push(E::KEY);
        }
        every
    }

    /// The record `pk` of `E`, nested records joined, if the cache holds
    /// it.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct User { id: u64, name: String }
    ///
    /// let name = Query::new(|q| q.entity::<User>(7u64).map(|u| u.name.clone()));
    /// let mut store = Store::new();
    /// assert_eq!(*name.read(&store, &mut Memo::new()), None);
    /// store.set_entity(User { id: 7, name: "Ada".into() }, Meta::default())?;
    /// assert_eq!(name.read(&store, &mut Memo::new()).as_deref(), Some("Ada"));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn entity<E: Entity>(&mut self, pk: impl PkValue) -> Option<Rc<E>> {
        let read = self.memo.entity_stamped::<E>(self.store, pk);
        self.mask |= read.mask;
        let found = read.lookup.into_value();
        match found.as_ref().and_then(|record| record.pk_key()) {
            Some(pk) => self.records.push((E::KEY, pk.into_pk())),
            // A record of its type written later may be it.
            None if !self.tables.contains(&E::KEY) => self.tables.push(E::KEY),
            None => {}
        }
        found
    }

    /// The result stored under `key`, if the cache holds it (stale or
    /// not).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let count = Query::new(|q| q.result::<Vec<Rc<Todo>>>("todos").map_or(0, |l| l.len()));
    /// let mut store = Store::new();
    /// store.set("todos", vec![Rc::new(Todo { id: 1 })], Meta::default())?;
    /// assert_eq!(*count.read(&store, &mut Memo::new()), 1);
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn result<S: Schema>(&mut self, key: &str) -> Option<Rc<S>> {
        let version = self.store.result_slot(key).map(|slot| slot.version);
        self.results.push((key.to_owned(), version));
        let found = self.memo.read::<S>(self.store, key).into_value();
        self.mask |= match &found {
            Some(_) => self.memo.result_mask(key).unwrap_or(0),
            // Held but not readable (a record it needs is gone): any
            // record that comes back may make it readable.
            None => u64::MAX,
        };
        found
    }

    /// The result the cache holds for `endpoint` with `params` (stale or
    /// not); `None` when it holds none (a read of one record answered
    /// from that record, with no result of its own, is one: read it with
    /// [`entity`](Self::entity)), or when the query is read over a bare
    /// store (which knows no base URL).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, completed: bool }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let done = Query::new(|q| {
    ///     q.read(&TodoResource::get_list(), &()).map_or(0, |l| l.iter().filter(|t| t.completed).count())
    /// });
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// ctrl.set_response(&TodoResource::get_list(), &(), vec![Rc::new(Todo { id: 1, completed: true })])?;
    /// assert_eq!(*ctrl.query(&done), 1);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn read<P: Serialize, S: Schema, E: Effect>(
        &mut self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Option<S::Handle> {
        self.read_by_endpoint = true;
        let key = endpoint.key(self.base?, params).ok()?;
        self.result::<S>(&key).map(S::into_handle)
    }
}

impl<T: PartialEq + 'static> Query<T> {
    /// A query that computes its value with `compute`, reading the store
    /// through the [`QueryReader`] it gets.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct Todo { id: u64, completed: bool }
    ///
    /// let open = Query::new(|q| q.all::<Todo>().iter().filter(|t| !t.completed).count());
    /// assert_eq!(*open.read(&Store::new(), &mut Memo::new()), 0);
    /// ```
    pub fn new(compute: impl Fn(&mut QueryReader<'_>) -> T + 'static) -> Self {
        Query {
            compute: Rc::new(compute),
            last: Rc::default(),
        }
    }

    /// The query's value over `store`, remembered in `memo` and in the
    /// query: the last value while nothing it read was written since.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let ids = Query::new(|q| q.all::<Todo>().iter().map(|t| t.id).collect::<Vec<_>>());
    /// let (mut store, mut memo) = (Store::new(), Memo::new());
    /// store.set_entity(Todo { id: 1 }, Meta::default())?;
    /// let first = ids.read(&store, &mut memo);
    /// assert!(Rc::ptr_eq(&first, &ids.read(&store, &mut memo)));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn read(&self, store: &Store, memo: &mut Memo) -> Rc<T> {
        self.read_with(store, memo, None)
    }

    /// What its last answer read: what a watched query keeps from
    /// collection.
    pub(crate) fn read_last(&self) -> LastRead {
        match &*self.last.borrow() {
            Some(answer) => LastRead {
                tables: answer.tables.clone(),
                results: answer.results.iter().map(|(key, _)| key.clone()).collect(),
                records: answer.records.clone(),
            },
            None => LastRead::default(),
        }
    }

    /// [`read`](Self::read), with the base URL that reads by endpoint
    /// name their keys with.
    pub(crate) fn read_with(&self, store: &Store, memo: &mut Memo, base: Option<&str>) -> Rc<T> {
        let mut last = self.last.borrow_mut();
        if let Some(answer) = last.as_ref()
            && answer.state == store.state()
            && answer.holds_under(base)
        {
            return Rc::clone(&answer.value);
        }
        if let Some(answer) = last.as_mut()
            && answer.store == store.id()
            && answer.holds_under(base)
            && answer.layout == store.layout()
            && store.unchanged_since(answer.mask, answer.at)
            && answer
                .tables
                .iter()
                .all(|key| store.tables().table_unchanged_since(key, answer.at))
            && answer
                .results
                .iter()
                .all(|(key, version)| store.result_slot(key).map(|slot| slot.version) == *version)
        {
            answer.state = store.state();
            answer.at = store.last_write();
            return Rc::clone(&answer.value);
        }
        let mut reader = QueryReader {
            store,
            memo,
            base,
            mask: 0,
            results: Vec::new(),
            tables: Vec::new(),
            records: Vec::new(),
            read_by_endpoint: false,
        };
        let computed = (self.compute)(&mut reader);
        let value = match last.take() {
            Some(previous) if *previous.value == computed => previous.value,
            _ => Rc::new(computed),
        };
        *last = Some(Answer {
            state: store.state(),
            store: store.id(),
            value: Rc::clone(&value),
            mask: reader.mask,
            results: reader.results,
            tables: reader.tables,
            records: reader.records,
            layout: store.layout(),
            at: store.last_write(),
            endpoint_base: reader.read_by_endpoint.then(|| base.map(Box::from)),
        });
        value
    }
}
