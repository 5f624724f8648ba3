//! FetchShapes: the older generation's instructions for one kind of
//! request, as a plain value whose functions can be replaced.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cache::schema::Schema;
use crate::controller::{Cached, Controller};
use crate::http::{Body, Client, Error, Method, ResponseFuture};
use crate::rest::{
    Create, DecodeFn, Delete, Effect, Endpoint, KeyArgs, Mutate, Options, Read, Target, decode_json,
};

/// What a shape's response does to the cache, chosen when the shape is
/// made: the older API's counterpart of an endpoint's effect type.
///
/// ```
/// use restcache::legacy::{Resource, ShapeKind};
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// impl Resource for Todo { const URL_ROOT: &'static str = "/todos/"; }
///
/// assert_eq!(Todo::create_shape().kind, ShapeKind::Create);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeKind {
    /// A read: cached under its key, shared with identical reads.
    Read,
    /// A mutation whose response's records are merged.
    Mutate,
    /// A create: its record joins the list under its URL.
    Create,
    /// A delete: its record leaves every list.
    Delete,
}

impl ShapeKind {
    /// The method an error names before a response says more (the fetch
    /// function makes the request, with the method it picks).
    fn method(self) -> Method {
        match self {
            ShapeKind::Read => Method::Get,
            ShapeKind::Create | ShapeKind::Mutate => Method::Post,
            ShapeKind::Delete => Method::Delete,
        }
    }
}

/// The query of a list shape: sent as the query string, sorted by name.
///
/// ```
/// use restcache::legacy::Query;
///
/// let query = Query::from([("month".to_owned(), "6".to_owned())]);
/// assert_eq!(query["month"], "6");
/// ```
pub type Query = BTreeMap<String, String>;

/// The minimal instructions for one kind of request: what its response
/// does to the cache (`kind`), the URL that names it (`get_fetch_key`),
/// how it is made (`fetch`, usually through the shared fetch helper
/// [`Client::fetch`]), how its body becomes its result (`schema`), its
/// expiry settings (`options`), and the record a mutation changes
/// (`target`).
///
/// A shape is a plain value: a custom one takes a base shape and replaces
/// what differs, with struct update syntax (the older API's "spread a base
/// shape"). [`with_schema`](Self::with_schema) changes the result's type.
///
/// ```
/// use restcache::http::{Body, Client, Method, ResponseFuture};
/// use restcache::legacy::{FetchShape, Query, Resource};
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct User { id: u64, name: String }
/// impl Resource for User { const URL_ROOT: &'static str = "/users/"; }
///
/// fn current_user_key(_: &Query) -> String {
///     "/current_user/".to_owned()
/// }
/// fn post_current_user(client: &Client, _: &Query, body: Option<Body>) -> ResponseFuture {
///     client.request(Method::Post, "/current_user/", body)
/// }
/// let current_user = FetchShape {
///     get_fetch_key: current_user_key,
///     fetch: post_current_user,
///     ..User::create_shape()
/// };
/// assert_eq!((current_user.get_fetch_key)(&Query::new()), "/current_user/");
/// ```
pub struct FetchShape<P, S> {
    /// What the response does to the cache: a read is cached under its
    /// key; a mutation's records are merged; a create's record joins the
    /// list under its URL; a delete's record leaves every list.
    pub kind: ShapeKind,
    /// The URL that names the request (absolute, or a path on the
    /// client's base address): its cache key. It takes the same params as
    /// `fetch`.
    pub get_fetch_key: fn(&P) -> String,
    /// Makes the request, with the params and the body: usually the shared
    /// fetch helper, `client.request(Method::Post, url, body)`.
    pub fetch: fn(&Client, &P, Option<Body>) -> ResponseFuture,
    /// How a response body becomes the result (`"null"` for an empty
    /// body).
    pub schema: DecodeFn<P, S>,
    /// Expiry and polling settings.
    pub options: Options,
    /// The record a mutation changes, named from its params (`None` for
    /// reads, lists and creates): when the answer cannot be read (a body
    /// the schema cannot decode, one over the size limit, or no answer in
    /// time), the mutation may have been applied all the same, so this
    /// record is invalidated and its reads fetch it again. The update,
    /// partial update and delete shapes name their record; a shape spread
    /// from one keeps it.
    pub target: Option<Target<P>>,
}

impl<P, S> Clone for FetchShape<P, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P, S> Copy for FetchShape<P, S> {}

/// Two shapes are equal when they make the same request the same way:
/// the same kind, options and target, and the same functions.
///
/// ```
/// use restcache::legacy::Resource;
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// impl Resource for Todo { const URL_ROOT: &'static str = "/todos/"; }
///
/// assert!(Todo::update_shape() == Todo::update_shape());
/// assert!(Todo::update_shape() != Todo::partial_update_shape());
/// ```
impl<P, S> PartialEq for FetchShape<P, S> {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.options == other.options
            && self.target == other.target
            && std::ptr::fn_addr_eq(self.get_fetch_key, other.get_fetch_key)
            && std::ptr::fn_addr_eq(self.fetch, other.fetch)
            && std::ptr::fn_addr_eq(self.schema, other.schema)
    }
}

impl<P, S> fmt::Debug for FetchShape<P, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FetchShape")
            .field("kind", &self.kind)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A schema type, as a value: what [`FetchShape::with_schema`] takes, and
/// [`Resource::as_schema`](super::Resource::as_schema) gives.
///
/// ```
/// use restcache::legacy::SchemaOf;
/// let _list = SchemaOf::<Vec<serde_json::Value>>::new();
/// ```
pub struct SchemaOf<S>(PhantomData<fn() -> S>);

impl<S> SchemaOf<S> {
    /// The schema `S`.
    pub fn new() -> Self {
        SchemaOf(PhantomData)
    }
}

impl<S> Default for SchemaOf<S> {
    fn default() -> Self {
        SchemaOf::new()
    }
}

impl<S> Clone for SchemaOf<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for SchemaOf<S> {}

impl<S> fmt::Debug for SchemaOf<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SchemaOf<{}>", std::any::type_name::<S>())
    }
}

impl<P: Serialize, S> FetchShape<P, S> {
    /// This shape with another schema: its body is read as JSON of `T`;
    /// everything else is kept.
    ///
    /// ```
    /// use restcache::legacy::{Resource, SchemaOf};
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Birthday { id: String }
    /// impl Resource for Birthday { const URL_ROOT: &'static str = "/api/birthdays/"; }
    ///
    /// #[derive(Schema, Clone, Debug, Deserialize)]
    /// struct Wrapped { #[schema(nested)] data: Rc<Birthday> }
    ///
    /// let wrapped = Birthday::detail_shape().with_schema(SchemaOf::<Wrapped>::new());
    /// let back = wrapped.with_schema(Birthday::as_schema());
    /// assert_eq!((back.get_fetch_key)(&"1".to_owned()), "/api/birthdays/1");
    /// ```
    pub fn with_schema<T: Schema + DeserializeOwned>(
        self,
        schema: SchemaOf<T>,
    ) -> FetchShape<P, T> {
        let _ = schema;
        FetchShape {
            kind: self.kind,
            get_fetch_key: self.get_fetch_key,
            fetch: self.fetch,
            schema: decode_json::<P, T>,
            options: self.options,
            target: self.target,
        }
    }
}

impl<P: 'static, S> FetchShape<P, S> {
    /// The endpoint that makes this shape's requests, with the effect
    /// `E`: its URL and key are the shape's fetch key, its fetch function
    /// the shape's. The older API runs on it; code moving to the current
    /// API can too (a [`ReadObserver`](crate::ReadObserver), the
    /// controller's reads).
    ///
    /// ```
    /// use restcache::legacy::Resource;
    /// use restcache::prelude::*;
    /// use restcache::rest::Read;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64, name: String }
    /// impl Resource for User { const URL_ROOT: &'static str = "/users/"; }
    ///
    /// let get = User::detail_shape().endpoint::<Read>();
    /// assert_eq!(get.url("http://127.0.0.1:8080", &7)?, "http://127.0.0.1:8080/users/7");
    /// # Ok::<(), restcache::rest::UrlError>(())
    /// ```
    pub fn endpoint<E: Effect>(&self) -> Endpoint<P, S, E> {
        let fetch = self.fetch;
        Endpoint::by_url(self.kind.method(), self.get_fetch_key, self.schema)
            .with_key(url_key::<P>)
            .with_fetch(move |client: &Client, params: &P, request| {
                fetch(client, params, request.body)
            })
            .with_options(self.options)
            .with_target_of(self.target)
            .with_effect::<E>()
    }
}

/// The key of a shape's request: its URL.
fn url_key<P>(args: &KeyArgs<'_, P>) -> String {
    args.url.to_owned()
}

impl<P, S> FetchShape<P, S>
where
    P: Serialize + Clone + 'static,
    S: Schema,
{
    /// Makes this shape's request through `ctrl` and applies its response
    /// to the cache by the shape's kind (a read is cached and shared with
    /// identical reads; an update shows in every view of the record; a
    /// create joins the list under its URL; a delete leaves every list).
    ///
    /// ```
    /// use restcache::legacy::Resource;
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// impl Resource for Todo { const URL_ROOT: &'static str = "/todos/"; }
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// let todo = Todo::detail_shape().call(&ctrl, &1, None).await?;
    /// assert_eq!(todo.id, 1);
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn call(
        &self,
        ctrl: &Controller,
        params: &P,
        body: Option<Body>,
    ) -> Result<S::Handle, Error> {
        match self.kind {
            ShapeKind::Read => ctrl.fetch(&self.endpoint::<Read>(), params, body).await,
            ShapeKind::Mutate => ctrl.fetch(&self.endpoint::<Mutate>(), params, body).await,
            ShapeKind::Create => ctrl.fetch(&self.endpoint::<Create>(), params, body).await,
            ShapeKind::Delete => ctrl.fetch(&self.endpoint::<Delete>(), params, body).await,
        }
    }

    /// What `ctrl`'s cache holds for this shape's read with `params`, as
    /// [`Controller::read`] answers for an endpoint. Never fetches.
    ///
    /// ```
    /// use restcache::legacy::Resource;
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// impl Resource for Todo { const URL_ROOT: &'static str = "/todos/"; }
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(Todo::detail_shape().read(&ctrl, &1).status, ExpiryStatus::Invalid);
    /// ```
    pub fn read(&self, ctrl: &Controller, params: &P) -> Cached<S> {
        ctrl.read(&self.endpoint::<Read>(), params)
    }
}
