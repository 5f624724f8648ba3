//! Endpoints: one kind of request (method, address, schema, effect), with
//! the key that names it in the cache and the hooks that make and decode
//! its request. How its reads are answered beside the request is in
//! `reads.rs`; what its response changes beside its result, in
//! `writes.rs`; how an endpoint is made into another, in `builders.rs`.

mod builders;
mod graphql;
mod reads;
mod writes;

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cache::schema::{Decoded, Schema};
use crate::error::{SchemaError, UrlError};
use crate::http::{Attempt, Body, Client, GraphQlError, Method, Request, Response, ResponseFuture};
use crate::rest::effect::{Effect, JoinAt, Read, Target};
use crate::rest::page::{Pagination, without_param};
use crate::rest::template::PathTemplate;
use crate::rest::updates::UpdateFn;
use crate::rest::{
    DecodeFn, ErrorPolicy, ErrorPolicyFn, FetchFn, KeyArgs, KeyFn, Options, decode_json,
    default_key,
};

/// Where an endpoint's requests go.
enum Address<P> {
    /// A path template filled in with the params.
    Path(PathTemplate),
    /// A URL (absolute, or a path on the base address) from the params.
    Url(fn(&P) -> String),
}

impl<P> Clone for Address<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Address<P> {}

impl<P> PartialEq for Address<P> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Address::Path(a), Address::Path(b)) => a == b,
            (Address::Url(a), Address::Url(b)) => std::ptr::fn_addr_eq(*a, *b),
            _ => false,
        }
    }
}

/// One kind of request: a method, where it goes (a path template, or a
/// URL computed from the params), the schema of its response, the type of
/// its params, and what its response does to the cache (`E`, an
/// [`Effect`]: a [`Read`] unless said otherwise). `resource!` and
/// `endpoint!` declare them; the builder methods derive one endpoint from
/// another (the Rust form of "spread a base shape and override").
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
pub struct Endpoint<P, S, E = Read> {
    method: Method,
    address: Address<P>,
    url_prefix: Option<Cow<'static, str>>,
    options: Options,
    /// `None`: the default key (the method and the URL, with a read's
    /// body when it is sent with one).
    key: Option<KeyFn<P>>,
    /// `None`: the client's shared helper, as the endpoint made the request.
    fetch: Option<FetchFn<P>>,
    /// A GraphQL operation: its params are its variables, sent in the
    /// body with its document.
    graphql: Option<GraphQl<P>>,
    decode: DecodeFn<P, S>,
    /// The record a mutation changes, named from its params.
    target: Option<Target<P>>,
    /// Where a created record joins the cached lists.
    join_at: JoinAt,
    /// How the endpoint pages, if it does.
    pagination: Option<Pagination>,
    /// The page-size param, named whether or not `pagination` is set
    /// yet: `with_page_size` may come before `paginated_by`.
    page_size: Option<&'static str>,
    /// Whether a read of a record the cache holds (its pk among the
    /// params) is answered from that record.
    infer: bool,
    /// The param that holds the record's pk, when the endpoint names it
    /// (a resource's detail: its path's last placeholder); else the param
    /// named as the entity's pk field.
    record_param: Option<&'static str>,
    error_policy: ErrorPolicyFn,
    /// Whether its answer is bytes (a [`Blob`](crate::Blob)), not JSON.
    binary: bool,
    /// Whether its answers stay out of a saved cache.
    private: bool,
    /// How a mutation changes other cached results.
    update: Option<UpdateFn<P, S>>,
    types: Types<P, S, E>,
}

/// A GraphQL operation: its document, how its params become the JSON of
/// its variables, and the work only GraphQL needs (reached through
/// [`graphql::Ops`], so that an app with no GraphQL endpoint carries none
/// of it).
pub(crate) struct GraphQl<P> {
    pub document: &'static str,
    pub variables: fn(&P) -> String,
    pub ops: &'static graphql::Ops,
}

impl<P> Clone for GraphQl<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for GraphQl<P> {}

impl<P> PartialEq for GraphQl<P> {
    fn eq(&self, other: &Self) -> bool {
        self.document == other.document && std::ptr::fn_addr_eq(self.variables, other.variables)
    }
}

/// The JSON of `params`; params that have none are `null`.
fn json_of<P: Serialize>(params: &P) -> String {
    serde_json::to_string(params).unwrap_or_else(|_| "null".to_owned())
}

/// The types an endpoint is about: its params in, its schema and effect
/// out (as a function type: the endpoint holds no value of them).
type Types<P, S, E> = PhantomData<fn(&P) -> (S, E)>;

impl<P: Serialize, S: Schema + DeserializeOwned> Endpoint<P, S> {
    /// A read of `path` with `method`, with the default key (`METHOD
    /// url`), fetch (the client's shared helper) and decoding (JSON of
    /// `S`). [`with_effect`](Self::with_effect) makes it a mutation.
    ///
    /// ```
    /// use restcache::http::Method;
    /// use restcache::rest::{Endpoint, Part, PathTemplate};
    ///
    /// const TODOS: PathTemplate = PathTemplate::new("/todos", &[Part::Static("/todos")]);
    /// let todos = Endpoint::<(), serde_json::Value>::new(Method::Get, TODOS);
    /// assert_eq!(todos.url("http://h", &()).unwrap(), "http://h/todos");
    /// ```
    pub fn new(method: Method, path: PathTemplate) -> Self {
        let mut endpoint = Endpoint::decoded_by(method, path, decode_json::<P, S>);
        endpoint.binary = S::BINARY;
        endpoint
    }
}

impl<P, S> Endpoint<P, S> {
    /// A read of `path` with `method` whose response `decode` turns into
    /// its result (a delete's result comes from its params, say).
    ///
    /// ```
    /// use restcache::http::{Method, Response};
    /// use restcache::rest::{Endpoint, Part, PathTemplate};
    /// use restcache::{Decoded, SchemaError};
    ///
    /// fn status(response: &Response, _: &()) -> Result<Decoded<serde_json::Value>, SchemaError> {
    ///     Ok(serde_json::json!(response.status).into())
    /// }
    /// const PING: PathTemplate = PathTemplate::new("/ping", &[Part::Static("/ping")]);
    /// let ping = Endpoint::decoded_by(Method::Get, PING, status);
    /// assert_eq!(*ping.decode(&Response::new(204, ""), &())?, serde_json::json!(204));
    /// # Ok::<(), SchemaError>(())
    /// ```
    pub fn decoded_by(method: Method, path: PathTemplate, decode: DecodeFn<P, S>) -> Self {
        Endpoint::at(method, Address::Path(path), decode)
    }

    /// A read whose URL `url` makes from its params (absolute, or a path
    /// on the client's base address) instead of a path template, and
    /// whose response `decode` turns into its result.
    ///
    /// ```
    /// use restcache::http::Method;
    /// use restcache::rest::{Endpoint, decode_json};
    ///
    /// fn url(id: &u64) -> String { format!("/todos/{id}") }
    /// let todo = Endpoint::<u64, serde_json::Value>::by_url(Method::Get, url, decode_json);
    /// assert_eq!(todo.url("http://h", &7).unwrap(), "http://h/todos/7");
    /// assert!(todo.path().is_none());
    /// ```
    pub fn by_url(method: Method, url: fn(&P) -> String, decode: DecodeFn<P, S>) -> Self {
        Endpoint::at(method, Address::Url(url), decode)
    }

    fn at(method: Method, address: Address<P>, decode: DecodeFn<P, S>) -> Self {
        Endpoint {
            method,
            address,
            url_prefix: None,
            options: Options::default(),
            key: None,
            fetch: None,
            graphql: None,
            decode,
            target: None,
            join_at: JoinAt::End,
            pagination: None,
            page_size: None,
            infer: true,
            record_param: None,
            error_policy: ErrorPolicy::by_kind,
            binary: false,
            private: false,
            update: None,
            types: PhantomData,
        }
    }
}

impl<P, S, E: Effect> Endpoint<P, S, E> {
    /// The HTTP method.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert_eq!(TodoResource::partial_update().method(), Method::Patch);
    /// ```
    pub fn method(&self) -> Method {
        self.method
    }

    /// The path template, unless the URL is a function of the params
    /// ([`by_url`](Endpoint::by_url)).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert_eq!(TodoResource::get().path().unwrap().source(), "/todos/:id");
    /// ```
    pub fn path(&self) -> Option<PathTemplate> {
        match self.address {
            Address::Path(path) => Some(path),
            Address::Url(_) => None,
        }
    }

    /// The endpoint's own base address, if it has one.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo, url_prefix: "http://api" });
    /// assert_eq!(TodoResource::get().url_prefix(), Some("http://api"));
    /// ```
    pub fn url_prefix(&self) -> Option<&str> {
        self.url_prefix.as_deref()
    }

    /// The expiry settings.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::time::Duration;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo, data_expiry: Duration::from_secs(5) });
    /// assert_eq!(TodoResource::get().options().data_expiry, Some(Duration::from_secs(5)));
    /// ```
    pub fn options(&self) -> Options {
        self.options
    }

    /// The full URL for `params`: the endpoint's own prefix, else `base`
    /// (the client's base address), then the filled-in path and query.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let url = TodoResource::get().url("http://h", &TodoResourceParams { id: 3 })?;
    /// assert_eq!(url, "http://h/todos/3");
    /// # Ok::<(), restcache::rest::UrlError>(())
    /// ```
    pub fn url(&self, base: &str, params: &P) -> Result<String, UrlError>
    where
        P: Serialize,
    {
        let base = self.url_prefix.as_deref().unwrap_or(base);
        match self.address {
            // A GraphQL operation's params are its variables, not the URL's.
            Address::Path(path) if self.graphql.is_some() => path.url(base, &()),
            Address::Path(path) => path.url(base, params),
            Address::Url(url) => Ok(crate::http::resolve(base, &url(params))),
        }
    }

    /// The cache and dedup key for `params`: equal params give equal keys.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let key = TodoResource::get().key("http://h", &TodoResourceParams { id: 3 })?;
    /// assert_eq!(key, "GET http://h/todos/3");
    /// # Ok::<(), restcache::rest::UrlError>(())
    /// ```
    pub fn key(&self, base: &str, params: &P) -> Result<String, UrlError>
    where
        P: Serialize,
    {
        let url = self.url(base, params)?;
        Ok(self.key_for_url(&url, params))
    }

    /// What an error about a request of this endpoint says when params
    /// made no URL: its method and its path template.
    pub(crate) fn attempt_without_url(&self) -> Attempt<'static> {
        let path = match self.address {
            Address::Path(path) => path.source(),
            Address::Url(_) => "(a URL from the params)",
        };
        Attempt::new(self.method, path)
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
        let key = self.key.unwrap_or(default_key::<P>)(&KeyArgs {
            method: self.method,
            url,
            params,
        });
        match &self.graphql {
            // One request per operation and variables.
            Some(graphql) => {
                (graphql.ops.key)(&key, graphql.document, &(graphql.variables)(params))
            }
            None => key,
        }
    }

    /// Whether its key is its own function's ([`with_key`](Self::with_key)),
    /// which names a read whatever body it is sent with.
    pub(crate) fn has_own_key(&self) -> bool {
        self.key.is_some()
    }

    /// Whether it makes its requests with a fetch function of its own
    /// (which picks the method it sends, as an older API shape's does).
    #[cfg(feature = "testing")]
    pub(crate) fn has_own_fetch(&self) -> bool {
        self.fetch.is_some()
    }

    /// Whether `other` names its requests as this endpoint does: the same
    /// method, address, prefix, key function and page param, so that equal
    /// params give equal keys. (A view asks, render after render, whether
    /// it must make its key again.)
    pub(crate) fn keys_like<S2, E2>(&self, other: &Endpoint<P, S2, E2>) -> bool {
        self.method == other.method
            && self.address == other.address
            && self.url_prefix == other.url_prefix
            && match (self.key, other.key) {
                (Some(mine), Some(theirs)) => std::ptr::fn_addr_eq(mine, theirs),
                (mine, theirs) => mine.is_none() && theirs.is_none(),
            }
            && self.pagination.map(|p| p.field) == other.pagination.map(|p| p.field)
            && self.graphql == other.graphql
    }

    /// The request for `params` and `body`, as the fetch function gets it.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let request = TodoResource::delete().request("http://h", &TodoResourceParams { id: 3 }, None)?;
    /// assert_eq!((request.method, request.url.as_str()), (Method::Delete, "http://h/todos/3"));
    /// # Ok::<(), restcache::rest::UrlError>(())
    /// ```
    pub fn request(&self, base: &str, params: &P, body: Option<Body>) -> Result<Request, UrlError>
    where
        P: Serialize,
    {
        Ok(Request::new(self.method, self.url(base, params)?).with_body(body))
    }

    /// The body a GraphQL operation sends for `params`; `None` for an
    /// endpoint that is no GraphQL operation.
    #[cfg(feature = "testing")]
    pub(crate) fn graphql_body(&self, params: &P) -> Option<Body> {
        self.graphql
            .map(|graphql| (graphql.ops.body)(graphql.document, &(graphql.variables)(params)))
    }

    /// The data of a GraphQL answer's body, or its errors; `None` for an
    /// endpoint that is no GraphQL operation.
    pub(crate) fn graphql_data(&self, body: &str) -> Option<Result<String, Vec<GraphQlError>>> {
        self.graphql.map(|graphql| (graphql.ops.split)(body))
    }

    /// Makes `request` for `params` with the endpoint's fetch function
    /// (the client's shared helper unless one was given).
    pub(crate) fn send(&self, client: &Client, params: &P, mut request: Request) -> ResponseFuture {
        if self.binary {
            request.binary = true;
        }
        if let (Some(graphql), None) = (&self.graphql, &request.body) {
            request.body = Some((graphql.ops.body)(
                graphql.document,
                &(graphql.variables)(params),
            ));
        }
        match (&self.fetch, self.options().timeout) {
            // The endpoint's own limit holds the requests its fetch
            // function sends, not the client's.
            (Some(fetch), Some(limit)) if limit != client.timeout() => {
                fetch(&client.clone().with_timeout(limit), params, request)
            }
            (Some(fetch), _) => fetch(client, params, request),
            // The call's own time limit holds the whole exchange.
            (None, _) => client.send_untimed(request),
        }
    }

    /// Decodes a response into the endpoint's result.
    ///
    /// ```
    /// use restcache::http::Response;
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let todo = TodoResource::get().decode(&Response::new(200, r#"{"id": 3}"#), &TodoResourceParams { id: 3 })?;
    /// assert_eq!(todo.id, 3);
    /// # Ok::<(), SchemaError>(())
    /// ```
    pub fn decode(&self, response: &Response, params: &P) -> Result<Decoded<S>, SchemaError> {
        (self.decode)(response, params)
    }
}

impl<P, S, E> Endpoint<P, S, E> {
    /// What names the endpoint across loads of an app, for a mutation
    /// saved to be sent after a reload: its method, URL prefix and path
    /// (and a GraphQL operation's document); `None` for one whose URL is
    /// made by a function.
    pub(crate) fn replay_name(&self) -> Option<String> {
        let Address::Path(path) = self.address else {
            return None;
        };
        let prefix = self.url_prefix.as_deref().unwrap_or("");
        let mut name = format!("{} {prefix}{}", self.method, path.source());
        if let Some(graphql) = &self.graphql {
            name.push(' ');
            name.push_str(graphql.document);
        }
        Some(name)
    }
}

impl<P, S, E> Clone for Endpoint<P, S, E> {
    fn clone(&self) -> Self {
        Endpoint {
            method: self.method,
            address: self.address,
            url_prefix: self.url_prefix.clone(),
            options: self.options,
            key: self.key,
            fetch: self.fetch.clone(),
            graphql: self.graphql,
            decode: self.decode,
            target: self.target,
            join_at: self.join_at,
            pagination: self.pagination,
            page_size: self.page_size,
            infer: self.infer,
            record_param: self.record_param,
            error_policy: self.error_policy,
            binary: self.binary,
            private: self.private,
            update: self.update.clone(),
            types: PhantomData,
        }
    }
}

impl<P, S, E: Effect> fmt::Debug for Endpoint<P, S, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("Endpoint");
        debug.field("method", &self.method);
        match self.address {
            Address::Path(path) => debug.field("path", &path.source()),
            Address::Url(_) => debug.field("url", &"(from the params)"),
        };
        debug
            .field("effect", &E::NAME)
            .field("url_prefix", &self.url_prefix)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}
