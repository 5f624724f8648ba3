//! Endpoints: one kind of request (method, path template, schema), with
//! the key that names it in the cache.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cache::entity::Entity;
use crate::cache::schema::{Schema, from_json};
use crate::error::{SchemaError, UrlError};
use crate::http::{Attempt, Body, Client, FetchFuture, Method, Request, Response};
use crate::pk::Pk;
use crate::rest::effect::{JoinAt, Kind, Target};
use crate::rest::page::{Pagination, without_param};
use crate::rest::template::PathTemplate;

/// Expiry and polling settings of an endpoint; an expiry of `None` takes
/// the controller's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// How long a response stays fresh (the controller's default: 60 s).
    pub data_expiry: Option<Duration>,
    /// How long an error stays (the controller's default: 1 s).
    pub error_expiry: Option<Duration>,
    /// Whether stale data counts as Invalid (fetch and suspend).
    pub invalid_if_stale: bool,
    /// How often a subscribed read refetches (`use_subscription`,
    /// `use_live`); `None`: never.
    pub poll_frequency: Option<Duration>,
    /// How long a request may take, from its start to the end of its body
    /// (the client's limit when `None`).
    pub timeout: Option<Duration>,
}

/// What a key function gets: the request an endpoint is about to make.
#[derive(Debug)]
pub struct KeyArgs<'a, P> {
    /// The endpoint's method.
    pub method: Method,
    /// The full URL, query included.
    pub url: &'a str,
    /// The params the URL was made from.
    pub params: &'a P,
}

/// Names a request in the cache: it gets the request an endpoint is about
/// to make and returns its key (by default `METHOD url`).
pub type KeyFn<P> = fn(&KeyArgs<'_, P>) -> String;

/// Makes the request: usually a call
/// of the shared helper [`Client::fetch`].
pub type FetchFn = fn(&Client, Request) -> FetchFuture;

/// Turns a response (its body, and its status and headers when the result
/// needs them: a page's total from `X-Total-Count`, its next page from
/// `Link`) into the endpoint's result.
pub type DecodeFn<P, S> = fn(&Response, &P) -> Result<S, SchemaError>;

/// One kind of request: a method, a path template, the schema of its
/// response and the type of its params. `resource!` and `endpoint!`
/// declare them; the builder methods derive one endpoint from another
/// (the Rust form of "spread a base shape and override").
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let get = TodoResource::get();
/// assert_eq!(get.method(), Method::Get);
/// assert_eq!(
///     get.key("http://127.0.0.1:8080", &TodoResourceParams { id: 1 })?,
///     "GET http://127.0.0.1:8080/todos/1"
/// );
///
/// // The same endpoint, named by its URL alone.
/// let by_url = get.clone().with_key(|req| req.url.to_owned());
/// assert_eq!(by_url.key("http://h", &TodoResourceParams { id: 1 })?, "http://h/todos/1");
/// # Ok::<(), restcache::rest::UrlError>(())
/// ```
pub struct Endpoint<P, S> {
    method: Method,
    path: PathTemplate,
    url_prefix: Option<Cow<'static, str>>,
    kind: Kind,
    options: Options,
    key: KeyFn<P>,
    fetch: FetchFn,
    decode: DecodeFn<P, S>,
    /// Set for an endpoint whose URL and request come from functions of
    /// its params instead of its path template.
    by_params: Option<ByParams<P>>,
    /// The record a mutation changes, named from its params.
    target: Option<Target<P>>,
    /// Where a created record joins the cached lists.
    join_at: JoinAt,
    /// How the endpoint pages, if it does.
    pagination: Option<Pagination>,
    types: PhantomData<fn(&P) -> S>,
}

/// The URL and the request of an endpoint, as functions of its params:
/// the older API's FetchShapes build endpoints this way.
#[cfg_attr(not(feature = "legacy"), allow(dead_code))]
pub(crate) struct ByParams<P> {
    /// The URL: absolute, or a path on the client's base address.
    pub url: fn(&P) -> String,
    /// Makes the request, with the params and the body.
    pub fetch: fn(&Client, &P, Option<Body>) -> FetchFuture,
}

impl<P> Clone for ByParams<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for ByParams<P> {}

impl<P: Serialize, S: Schema + DeserializeOwned> Endpoint<P, S> {
    /// An endpoint with the default key (`METHOD url`), fetch (the shared
    /// helper with this method) and decoding (JSON of `S`); its kind
    /// follows the method.
    pub fn new(method: Method, path: PathTemplate) -> Self {
        Endpoint::decoded_by(method, path, decode_json::<P, S>)
    }
}

impl<P: Serialize, S> Endpoint<P, S> {
    /// An endpoint whose body is turned into its result by `decode` (a
    /// delete, whose result comes from its params, is one).
    pub fn decoded_by(method: Method, path: PathTemplate, decode: DecodeFn<P, S>) -> Self {
        Endpoint {
            method,
            path,
            url_prefix: None,
            kind: Kind::of(method),
            options: Options::default(),
            key: default_key::<P>,
            fetch: default_fetch,
            decode,
            by_params: None,
            target: None,
            join_at: JoinAt::End,
            pagination: None,
            types: PhantomData,
        }
    }

    /// An endpoint whose URL and request are `by_params`' functions of its
    /// params; its key is its URL. `path` names it in errors.
    #[cfg(feature = "legacy")]
    pub(crate) fn by_params(
        kind: Kind,
        path: PathTemplate,
        by_params: ByParams<P>,
        decode: DecodeFn<P, S>,
    ) -> Self {
        let method = match kind {
            Kind::Read => Method::Get,
            Kind::Create | Kind::Mutate => Method::Post,
            Kind::Delete => Method::Delete,
        };
        Endpoint {
            kind,
            key: url_key::<P>,
            by_params: Some(by_params),
            ..Endpoint::decoded_by(method, path, decode)
        }
    }

    /// The HTTP method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The path template.
    pub fn path(&self) -> PathTemplate {
        self.path
    }

    /// The endpoint's own base address, if it has one.
    pub fn url_prefix(&self) -> Option<&str> {
        self.url_prefix.as_deref()
    }

    /// What the response does to the cache.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The expiry settings.
    pub fn options(&self) -> Options {
        self.options
    }

    /// The full URL for `params`: the endpoint's own prefix, else `base`
    /// (the client's base address), then the filled-in path and query.
    pub fn url(&self, base: &str, params: &P) -> Result<String, UrlError> {
        let base = self.url_prefix.as_deref().unwrap_or(base);
        match &self.by_params {
            Some(by_params) => Ok(crate::http::resolve(base, &(by_params.url)(params))),
            None => self.path.url(base, params),
        }
    }

    /// The cache and dedup key for `params`: equal params give equal keys.
    pub fn key(&self, base: &str, params: &P) -> Result<String, UrlError> {
        let url = self.url(base, params)?;
        Ok(self.key_for_url(&url, params))
    }

    /// What an error about a request of this endpoint says when params
    /// made no URL: its method and its path template.
    pub(crate) fn attempt_without_url(&self) -> Attempt<'static> {
        Attempt::new(self.method.as_str(), self.path.source())
    }

    /// [`key`](Self::key) for a caller that already made the URL. A
    /// paginated endpoint's key leaves its page param out: every page of
    /// one list shares the key.
    pub(crate) fn key_for_url(&self, url: &str, params: &P) -> String {
        let without_page;
        let url = match &self.pagination {
            Some(pagination) => {
                without_page = without_param(url, pagination.field);
                without_page.as_str()
            }
            None => url,
        };
        (self.key)(&KeyArgs {
            method: self.method,
            url,
            params,
        })
    }

    /// The request for `params` and `body`, as the fetch function gets it.
    pub fn request(&self, base: &str, params: &P, body: Option<Body>) -> Result<Request, UrlError> {
        Ok(Request {
            method: self.method,
            url: self.url(base, params)?,
            body,
        })
    }

    /// Makes `request` with this endpoint's fetch function.
    pub fn fetch(&self, client: &Client, request: Request) -> FetchFuture {
        (self.fetch)(client, request)
    }

    /// Makes `request`, for `params`: with the endpoint's function of its
    /// params when it has one, else as [`fetch`](Self::fetch).
    pub(crate) fn fetch_for(&self, client: &Client, params: &P, request: Request) -> FetchFuture {
        match &self.by_params {
            Some(by_params) => (by_params.fetch)(client, params, request.body),
            None => self.fetch(client, request),
        }
    }

    /// Decodes a response into the endpoint's result.
    pub fn decode(&self, response: &Response, params: &P) -> Result<S, SchemaError> {
        (self.decode)(response, params)
    }

    /// This endpoint with its own base address (a `url_prefix`).
    pub fn with_url_prefix(mut self, prefix: impl Into<Cow<'static, str>>) -> Self {
        self.url_prefix = Some(prefix.into());
        self
    }

    /// This endpoint with another method; the kind is kept.
    pub fn with_method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// This endpoint with another kind (a `POST` that reads, say).
    pub fn with_kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    /// This endpoint with other expiry settings.
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// This endpoint with another key function.
    pub fn with_key(mut self, key: KeyFn<P>) -> Self {
        self.key = key;
        self
    }

    /// This endpoint with another fetch function.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::{Client, FetchFuture};
    /// use restcache::rest::Request;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64 }
    ///
    /// endpoint!(pub current_user { path: "/current_user/", schema: Rc<User> });
    ///
    /// // Read it, but with a POST, through the shared fetch helper.
    /// fn post(client: &Client, request: Request) -> FetchFuture {
    ///     client.fetch("post", &request.url, request.body)
    /// }
    /// let endpoint = current_user().with_fetch(post);
    /// assert_eq!(endpoint.kind(), restcache::rest::Kind::Read);
    /// ```
    pub fn with_fetch(mut self, fetch: FetchFn) -> Self {
        self.fetch = fetch;
        self
    }

    /// This endpoint, a mutation of the record of `E` whose pk `pk` takes
    /// from the params: when its answer does not decode (the server
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
    pub fn with_target<E: Entity>(mut self, pk: fn(&P) -> Option<Pk>) -> Self {
        self.target = Some(Target { entity: E::KEY, pk });
        self
    }

    /// This endpoint with `target` as the record it changes (or none).
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn with_target_of(mut self, target: Option<Target<P>>) -> Self {
        self.target = target;
        self
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
        let size = self.pagination.and_then(|p| p.size);
        self.pagination = Some(Pagination { field, size });
        self
    }

    /// This paginated endpoint with a page-size param `param`: a created
    /// record judging which cached lists it joins leaves it out, as it
    /// leaves the page param out.
    pub fn with_page_size(mut self, param: &'static str) -> Self {
        if let Some(pagination) = &mut self.pagination {
            pagination.size = Some(param);
        }
        self
    }

    /// How this endpoint pages, if it does.
    pub fn pagination(&self) -> Option<Pagination> {
        self.pagination
    }

    /// This endpoint, a create whose record joins the cached lists at
    /// `at` (see [`JoinAt`]).
    pub fn join_at(mut self, at: JoinAt) -> Self {
        self.join_at = at;
        self
    }

    /// Where a created record joins the cached lists.
    pub fn joins_at(&self) -> JoinAt {
        self.join_at
    }

    /// The record this mutation changes, if declared.
    pub fn target(&self) -> Option<&Target<P>> {
        self.target.as_ref()
    }

    /// This endpoint with another decoding of its body.
    pub fn with_decode(mut self, decode: DecodeFn<P, S>) -> Self {
        self.decode = decode;
        self
    }

    /// This endpoint with another schema, decoded as JSON; everything else
    /// is kept.
    pub fn with_schema<T: Schema + DeserializeOwned>(self) -> Endpoint<P, T> {
        self.with_decoder(decode_json::<P, T>)
    }

    /// This endpoint with another schema, which `decode` builds from the
    /// response (its body, status and headers); everything else is kept.
    ///
    /// A record `from_json` decoded remembers which fields its JSON left
    /// out, and takes them from its stored copy when it is merged: a
    /// decoder that fills such a field itself should build the record
    /// anew rather than change it in place.
    ///
    /// ```
    /// use restcache::http::Response;
    /// use restcache::prelude::*;
    /// use restcache::rest::body_json;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// /// A created todo, and where the server says it lives.
    /// #[derive(Schema, Clone, Debug)]
    /// struct Created { #[schema(nested)] todo: Rc<Todo>, location: Option<String> }
    ///
    /// fn created(response: &Response, _: &()) -> Result<Created, SchemaError> {
    ///     let todo = restcache::from_json(body_json(response))?;
    ///     Ok(Created { todo, location: response.location().map(str::to_owned) })
    /// }
    ///
    /// let create = TodoResource::create().with_decoder(created);
    /// let mut answer = Response::new(201, r#"{"id": 7, "title": "tea"}"#);
    /// answer.headers.insert("location", "/todos/7".parse().unwrap());
    /// let done = create.decode(&answer, &())?;
    /// assert_eq!((done.todo.id, done.location.as_deref()), (7, Some("/todos/7")));
    /// # Ok::<(), SchemaError>(())
    /// ```
    pub fn with_decoder<T>(self, decode: DecodeFn<P, T>) -> Endpoint<P, T> {
        Endpoint {
            method: self.method,
            path: self.path,
            url_prefix: self.url_prefix,
            kind: self.kind,
            options: self.options,
            key: self.key,
            fetch: self.fetch,
            decode,
            by_params: self.by_params,
            target: self.target,
            join_at: self.join_at,
            pagination: self.pagination,
            types: PhantomData,
        }
    }
}

impl<P, S> Clone for Endpoint<P, S> {
    fn clone(&self) -> Self {
        Endpoint {
            method: self.method,
            path: self.path,
            url_prefix: self.url_prefix.clone(),
            kind: self.kind,
            options: self.options,
            key: self.key,
            fetch: self.fetch,
            decode: self.decode,
            by_params: self.by_params,
            target: self.target,
            join_at: self.join_at,
            pagination: self.pagination,
            types: PhantomData,
        }
    }
}

impl<P, S> fmt::Debug for Endpoint<P, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("method", &self.method)
            .field("path", &self.path.source())
            .field("url_prefix", &self.url_prefix)
            .field("kind", &self.kind)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The default key: `METHOD url`, e.g. `GET http://127.0.0.1:8080/todos/1`.
pub fn default_key<P>(args: &KeyArgs<'_, P>) -> String {
    format!("{} {}", args.method, args.url)
}

/// The key of an endpoint named by its URL alone.
#[cfg(feature = "legacy")]
fn url_key<P>(args: &KeyArgs<'_, P>) -> String {
    args.url.to_owned()
}

/// The default fetch: the shared helper with the endpoint's method.
pub fn default_fetch(client: &Client, request: Request) -> FetchFuture {
    client.fetch(request.method.lowercase(), &request.url, request.body)
}

/// The default decoding: the body as JSON of `S` (an empty body as
/// `null`).
pub fn decode_json<P, S: Schema + DeserializeOwned>(
    response: &Response,
    _params: &P,
) -> Result<S, SchemaError> {
    from_json(body_json(response))
}

/// The body of `response` as JSON text: `null` when it is empty (a 204).
///
/// ```
/// use restcache::http::Response;
/// use restcache::rest::body_json;
/// assert_eq!(body_json(&Response::new(204, "")), "null");
/// assert_eq!(body_json(&Response::new(200, "[1]")), "[1]");
/// ```
pub fn body_json(response: &Response) -> &str {
    let text = response.body.as_str();
    if text.trim().is_empty() { "null" } else { text }
}
