//! Custom updaters: how a mutation changes other cached results beside
//! its own (moves a record between two lists, bumps a counter).

use std::rc::Rc;

use serde::Serialize;

use crate::cache::schema::{Decoded, Schema};
use crate::cache::store::{Layer, Store};
use crate::error::SchemaError;
use crate::meta::Timestamp;
use crate::rest::{Endpoint, Readable};

/// How a mutation changes the cached results it names, given its params
/// and its answer (see [`Endpoint::with_update`]).
pub type UpdateFn<P, S> = Rc<dyn Fn(&mut Updates, &P, &S)>;

/// One change to one cached result: in `store`, as a layer or not, for
/// a mutation that started at the given time.
type Edit = Box<dyn FnOnce(&mut Store, bool, Timestamp) -> Result<Option<Layer>, SchemaError>>;

/// The changes a mutation's updater makes to other cached results: each
/// one edits the value a read holds (its records as they were when it
/// was stored; an optimistic value's updates see what shows, the
/// answer's what the server confirmed), and is written back as that
/// read's result, keeping its fetch time, so it expires as it would
/// have. A read the cache does not hold (or holds no value of) is left
/// alone: its next fetch brings the server's answer; so is one fetched
/// after the mutation started, which has the change already.
pub struct Updates {
    base: String,
    edits: Vec<Edit>,
}

impl Updates {
    pub(crate) fn new(base: &str) -> Self {
        Updates {
            base: base.to_owned(),
            edits: Vec::new(),
        }
    }

    /// Edits the value the cache holds for `endpoint` with `params`, if
    /// it holds one: a list to push to or remove from, an envelope whose
    /// count to bump.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// // Lists the cache cannot match a todo to: "starred" is no field.
    /// endpoint!(pub starred { path: "/todos\\?starred=1", schema: Vec<Rc<Todo>> });
    /// endpoint!(pub archived { path: "/todos\\?archived=1", schema: Vec<Rc<Todo>> });
    ///
    /// // Archiving a todo moves it from one to the other.
    /// let archive = TodoResource::partial_update().with_update(|u, _params, todo: &Rc<Todo>| {
    ///     let (moved, id) = (Rc::clone(todo), todo.id);
    ///     u.update(&starred(), &(), move |list| list.retain(|t| t.id != id));
    ///     u.update(&archived(), &(), move |list| list.push(moved));
    /// });
    /// # let _ = archive;
    /// ```
    pub fn update<P, S, E>(
        &mut self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        edit: impl FnOnce(&mut S) + 'static,
    ) where
        P: Serialize,
        S: Schema,
        E: Readable,
    {
        let Ok(key) = endpoint.key(&self.base, params) else {
            return;
        };
        self.edits
            .push(Box::new(move |store: &mut Store, layered, started| {
                let slot = match layered {
                    true => store.result_slot(&key),
                    false => store.confirmed_result(&key),
                };
                let Some(slot) = slot.filter(|slot| slot.meta.fetched_at <= started) else {
                    return Ok(None);
                };
                let Some(value) = slot.value.as_ref().and_then(|v| v.downcast_ref::<S>()) else {
                    return Ok(None);
                };
                let (mut value, meta) = (value.clone(), slot.meta);
                edit(&mut value);
                let written = store.write(Some(&key), Decoded::from(value), meta, layered)?;
                if !layered {
                    // As of the mutation: a read that started before it
                    // would undo the edit.
                    store.date_result(&key, started);
                }
                Ok(written.layer)
            }));
    }

    /// Applies the edits to `store`, each as a layer when `layered` (an
    /// optimistic value's updates): the layers, to go with the
    /// mutation's own. An edit that does not fit its result's schema
    /// leaves it as it was.
    pub(crate) fn apply(self, store: &mut Store, layered: bool, started: Timestamp) -> Vec<Layer> {
        self.edits
            .into_iter()
            .filter_map(|edit| edit(store, layered, started).ok().flatten())
            .collect()
    }
}
