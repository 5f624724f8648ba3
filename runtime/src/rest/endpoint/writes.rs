//! What an endpoint's response changes beside its own result: the record
//! a mutation names, where a created record joins the cached lists, and
//! how a list grows by pages.

use std::rc::Rc;

use super::Endpoint;
use crate::cache::entity::Entity;
use crate::pk::Pk;
use crate::rest::effect::{Effect, JoinAt, Target};
use crate::rest::page::Pagination;
use crate::rest::updates::{UpdateFn, Updates};

impl<P, S, E: Effect> Endpoint<P, S, E> {
    /// This endpoint with an updater: how its answer changes other cached
    /// results beside its own (the reference's `update`): move a record
    /// between two lists, bump a counter, put a created record in a list
    /// the cache cannot match by its query. `update` gets the
    /// [`Updates`] to make, the params and the answer (its records as the
    /// cache holds them), and names each result with an endpoint and
    /// params (see [`Updates::update`]).
    ///
    /// It runs when the answer is stored; with an optimistic value
    /// ([`Controller::fetch_optimistic`](crate::Controller::fetch_optimistic))
    /// it also runs at once on that value, as part of its layer: its
    /// changes show at once and go with the value if the request fails.
    /// A result it changes keeps its fetch time. A read's updater never
    /// runs.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use serde_json::json;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// // Counts a header shows: `{"todos": 5}`.
    /// endpoint!(pub stats { path: "/stats", schema: serde_json::Value });
    ///
    /// // A created todo counts at once, with no refetch of the counts.
    /// let create = TodoResource::create().with_update(|u, _, _: &Rc<Todo>| {
    ///     u.update(&stats(), &(), |stats| stats["todos"] = json!(stats["todos"].as_u64().unwrap_or(0) + 1));
    /// });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// ctrl.set_response(&stats(), &(), json!({"todos": 5}))?;
    /// ctrl.set_response(&create, &(), Rc::new(Todo { id: 6, title: "new".into() }))?; // its answer
    /// assert_eq!(ctrl.read(&stats(), &()).data.unwrap()["todos"], 6);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn with_update(mut self, update: impl Fn(&mut Updates, &P, &S) + 'static) -> Self {
        self.update = Some(Rc::new(update));
        self
    }

    /// Its updater (see [`with_update`](Self::with_update)).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert!(TodoResource::create().updater().is_none());
    /// ```
    pub fn updater(&self) -> Option<&UpdateFn<P, S>> {
        self.update.as_ref()
    }

    /// This endpoint, a mutation of the record of `T` whose pk `pk` takes
    /// from the params: when its answer cannot be read (the server
    /// changed the record; the cache cannot read how), that record is
    /// invalidated, so that no read shows its old copy as fresh.
    /// `resource!` sets it on update, partial update and delete.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64 }
    ///
    /// endpoint!(pub make_manager { method: POST, path: "/users/:id/make_manager", schema: serde_json::Value, params: { id: u64 } });
    ///
    /// let endpoint = make_manager().with_target::<User>(|p| p.id.to_pk());
    /// assert_eq!(endpoint.target().map(|t| t.entity), Some("User"));
    /// ```
    pub fn with_target<T: Entity>(mut self, pk: fn(&P) -> Option<Pk>) -> Self {
        self.target = Some(Target { entity: T::KEY, pk });
        self
    }

    /// This endpoint with `target` as the record it changes (or none).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let blind = TodoResource::update().with_target_of(None);
    /// assert!(blind.target().is_none());
    /// ```
    pub fn with_target_of(mut self, target: Option<Target<P>>) -> Self {
        self.target = target;
        self
    }

    /// The record this mutation changes, if declared.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert_eq!(TodoResource::delete().target().map(|t| t.entity), Some("Todo"));
    /// ```
    pub fn target(&self) -> Option<&Target<P>> {
        self.target.as_ref()
    }

    /// This endpoint, a create whose record joins the cached lists at
    /// `at` (see [`JoinAt`]).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::JoinAt;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert_eq!(TodoResource::create().join_at(JoinAt::Start).joins_at(), JoinAt::Start);
    /// ```
    pub fn join_at(mut self, at: JoinAt) -> Self {
        self.join_at = at;
        self
    }

    /// Where a created record joins the cached lists.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::JoinAt;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert_eq!(TodoResource::create().joins_at(), JoinAt::End);
    /// ```
    pub fn joins_at(&self) -> JoinAt {
        self.join_at
    }

    /// This endpoint, paginated by its query param `field` (its name on
    /// the wire, e.g. `_page` or `cursor`): every page of one list shares
    /// the list's cache key, and
    /// [`Controller::fetch_next_page`](crate::Controller::fetch_next_page)
    /// appends the next page to it.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// endpoint!(pub todos { path: "/todos", schema: Vec<Rc<Todo>>, params: { page: u32, size: u32 } });
    ///
    /// let base = "http://127.0.0.1:8080";
    /// let paged = todos().paginated_by("page").with_page_size("size");
    /// let first = paged.key(base, &TodosParams { page: 1, size: 10 })?;
    /// let third = paged.key(base, &TodosParams { page: 3, size: 10 })?;
    /// assert_eq!(first, "GET http://127.0.0.1:8080/todos?size=10");
    /// assert_eq!(first, third);
    /// # Ok::<(), restcache::rest::UrlError>(())
    /// ```
    pub fn paginated_by(mut self, field: &'static str) -> Self {
        let size = self.page_size;
        self.pagination = Some(Pagination { field, size });
        self
    }

    /// This endpoint with a page-size param `param`: a created record
    /// judging which cached lists it joins leaves it out, as it leaves the
    /// page param out. It counts once the endpoint pages, whether
    /// `paginated_by` comes before or after it.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// endpoint!(pub todos { path: "/todos", schema: Vec<Rc<Todo>>, params: { page: u32, size: u32 } });
    /// let paged = todos().paginated_by("page").with_page_size("size");
    /// assert_eq!(paged.pagination().unwrap().size, Some("size"));
    /// ```
    pub fn with_page_size(mut self, param: &'static str) -> Self {
        self.page_size = Some(param);
        if let Some(pagination) = &mut self.pagination {
            pagination.size = Some(param);
        }
        self
    }

    /// How this endpoint pages, if it does.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert!(TodoResource::get_list().pagination().is_none());
    /// ```
    pub fn pagination(&self) -> Option<Pagination> {
        self.pagination
    }
}
