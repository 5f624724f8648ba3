//! Derived views through the controller: a [`Query`] read over its
//! store, and watched.

use std::cell::RefCell;
use std::rc::Rc;

use super::observe::{Entry, Holds, Look, Watching};
use super::{Controller, State, Subscription};
use crate::cache::derived::Query;

impl Controller {
    /// The value of `query` over this controller's cache: the last value
    /// while nothing it read was written since (see [`Query`]). It never
    /// fetches. Its computation reads through the reader it gets, and
    /// must not call the controller.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, completed: bool }
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let open = Query::new(|q| q.all::<Todo>().iter().filter(|t| !t.completed).count());
    /// ctrl.set_entity(Todo { id: 1, completed: false }, ctrl.write_time())?;
    /// assert_eq!(*ctrl.query(&open), 1);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn query<T: PartialEq + 'static>(&self, query: &Query<T>) -> Rc<T> {
        let base = self.client().base_url().to_owned();
        self.look_through_memo(|store, memo| query.read_with(store, memo, Some(&base)))
    }

    /// Calls `on_change` whenever the value of `query` changes (a new
    /// value, not equal to the last): a write to something it read that
    /// changes what it computes.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Query;
    /// use std::{cell::Cell, rc::Rc};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, completed: bool }
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let open = Query::new(|q| q.all::<Todo>().iter().filter(|t| !t.completed).count());
    /// let calls = Rc::new(Cell::new(0));
    /// let seen = Rc::clone(&calls);
    /// let _subscription = ctrl.subscribe_query(&open, move || seen.set(seen.get() + 1));
    /// ctrl.set_entity(Todo { id: 1, completed: false }, ctrl.write_time())?;
    /// assert_eq!(calls.get(), 1);
    /// ctrl.set_entity(Todo { id: 1, completed: false }, ctrl.write_time())?;
    /// assert_eq!(calls.get(), 1, "the same count");
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn subscribe_query<T: PartialEq + 'static>(
        &self,
        query: &Query<T>,
        on_change: impl Fn() + 'static,
    ) -> Subscription {
        let base = self.client().base_url().to_owned();
        // What it read last stays while it is watched (the records it
        // lists, the results it reads).
        self.query(query);
        let read = Rc::new(RefCell::new(query.read_last()));
        let holds = Holds::Derived(Rc::clone(&read));
        let (query, mut last) = (query.clone(), None::<Rc<T>>);
        let check = Box::new(move |state: &mut State, _| {
            let State { store, memo, .. } = state;
            let value = query.read_with(store, memo, Some(&base));
            *read.borrow_mut() = query.read_last();
            let changed = last.as_ref().is_none_or(|last| !Rc::ptr_eq(last, &value));
            last = Some(value);
            Look {
                changed,
                watching: Watching::Any,
                expires_at: None,
            }
        });
        let entry = Entry::new(None, holds, check, Rc::new(on_change));
        self.add_observer(entry).0
    }
}
