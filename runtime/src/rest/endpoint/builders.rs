//! Builders: an endpoint made into another (its address, method,
//! effect, options, key, fetch, decoder or schema changed; every other
//! part kept).

use std::borrow::Cow;
use std::marker::PhantomData;
use std::rc::Rc;

use serde::de::DeserializeOwned;

use super::Endpoint;
use crate::cache::schema::Schema;
use crate::http::{Client, Method, Request, ResponseFuture};
use crate::rest::effect::Effect;
use crate::rest::{DecodeFn, KeyFn, Options, decode_json};

impl<P, S, E: Effect> Endpoint<P, S, E> {
    /// This endpoint with its own base address (a `url_prefix`).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let elsewhere = TodoResource::get().with_url_prefix("http://other");
    /// assert_eq!(elsewhere.url("http://h", &TodoResourceParams { id: 1 })?, "http://other/todos/1");
    /// # Ok::<(), restcache::rest::UrlError>(())
    /// ```
    pub fn with_url_prefix(mut self, prefix: impl Into<Cow<'static, str>>) -> Self {
        self.url_prefix = Some(prefix.into());
        self
    }

    /// This endpoint with another method; its effect is kept.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert_eq!(TodoResource::get().with_method(Method::Post).method(), Method::Post);
    /// ```
    pub fn with_method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// This endpoint with another effect: a `POST` that reads, say
    /// (`.with_effect::<Read>()`), or a `GET` with a side effect.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::{Mutate, Read};
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64 }
    /// endpoint!(pub current_user { method: POST, path: "/current_user/", schema: Rc<User> });
    ///
    /// let mutation: Endpoint<(), Rc<User>, Mutate> = current_user();
    /// let read: Endpoint<(), Rc<User>, Read> = mutation.with_effect::<Read>();
    /// # let _ = read;
    /// ```
    pub fn with_effect<E2: Effect>(self) -> Endpoint<P, S, E2> {
        let (decode, update) = (self.decode, self.update.clone());
        // The same params and schema: the updater follows.
        let mut retyped = self.retyped(decode);
        retyped.update = update;
        retyped
    }

    /// This endpoint with other expiry settings.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::Options;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let strict = TodoResource::get().with_options(Options { invalid_if_stale: true, ..Options::default() });
    /// assert!(strict.options().invalid_if_stale);
    /// ```
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// This endpoint with another key function.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let by_url = TodoResource::get().with_key(|args| args.url.to_owned());
    /// assert_eq!(by_url.key("http://h", &TodoResourceParams { id: 1 })?, "http://h/todos/1");
    /// # Ok::<(), restcache::rest::UrlError>(())
    /// ```
    pub fn with_key(mut self, key: KeyFn<P>) -> Self {
        self.key = Some(key);
        self
    }

    /// This endpoint with another fetch function: it gets the client, the
    /// params and the request the endpoint made from them, and makes it
    /// (usually through [`Client::send`] or [`Client::request`], with
    /// another method, URL, body or headers). It may capture what it
    /// needs. The client it is handed keeps the endpoint's own time
    /// limit, when the endpoint sets one.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::{Client, HeaderName, HeaderValue, Request, ResponseFuture};
    /// use restcache::rest::Read;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64 }
    ///
    /// endpoint!(pub current_user { path: "/current_user/", schema: Rc<User> });
    ///
    /// // Read it with a POST that names the tenant in a header.
    /// let tenant = HeaderValue::from_static("acme");
    /// let endpoint = current_user().with_fetch(move |client: &Client, _: &(), request: Request| {
    ///     let request = Request::new(Method::Post, request.url)
    ///         .with_header(HeaderName::from_static("x-tenant"), tenant.clone());
    ///     client.send(request)
    /// });
    /// let _: Endpoint<(), Rc<User>, Read> = endpoint;
    /// ```
    pub fn with_fetch(
        mut self,
        fetch: impl Fn(&Client, &P, Request) -> ResponseFuture + 'static,
    ) -> Self {
        self.fetch = Some(Rc::new(fetch));
        self
    }

    /// This endpoint with another decoding of its body.
    ///
    /// ```
    /// use restcache::http::Response;
    /// use restcache::prelude::*;
    /// use restcache::Decoded;
    /// use restcache::rest::body_json;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// // The server wraps the record: `{"todo": {...}}`.
    /// #[derive(Schema, Clone, Debug, Deserialize)]
    /// struct Wrapped { #[schema(nested)] todo: Rc<Todo> }
    ///
    /// fn unwrap(response: &Response, _: &TodoResourceParams) -> Result<Decoded<Rc<Todo>>, SchemaError> {
    ///     Ok(restcache::from_json::<Wrapped>(body_json(response))?.map(|wrapped| wrapped.todo))
    /// }
    /// let get = TodoResource::get().with_decode(unwrap);
    /// let todo = get.decode(&Response::new(200, r#"{"todo": {"id": 2}}"#), &TodoResourceParams { id: 2 })?;
    /// assert_eq!(todo.id, 2);
    /// # Ok::<(), SchemaError>(())
    /// ```
    pub fn with_decode(mut self, decode: DecodeFn<P, S>) -> Self {
        self.decode = decode;
        self
    }

    /// This endpoint with another schema, decoded as that schema is (as
    /// JSON, or as bytes for a [`Blob`](crate::Blob)); everything else is
    /// kept.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let raw = TodoResource::get().with_schema::<serde_json::Value>();
    /// # let _ = raw;
    /// ```
    pub fn with_schema<T: Schema + DeserializeOwned>(self) -> Endpoint<P, T, E> {
        let mut endpoint = self.with_decoder(decode_json::<P, T>);
        // Bytes or JSON, as the new schema is.
        endpoint.binary = T::BINARY;
        endpoint
    }

    /// This endpoint with another schema, which `decode` builds from the
    /// response (its body, status and headers); everything else is kept.
    ///
    /// ```
    /// use restcache::http::Response;
    /// use restcache::prelude::*;
    /// use restcache::Decoded;
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
    /// fn created(response: &Response, _: &()) -> Result<Decoded<Created>, SchemaError> {
    ///     let location = response.location().map(str::to_owned);
    ///     // The todo's JSON travels with it: a field it left out keeps its cached value.
    ///     Ok(restcache::from_json::<Rc<Todo>>(body_json(response))?.map(|todo| Created { todo, location }))
    /// }
    ///
    /// let create = TodoResource::create().with_decoder(created);
    /// let mut answer = Response::new(201, r#"{"id": 7, "title": "tea"}"#);
    /// answer.headers.insert("location", "/todos/7".parse().unwrap());
    /// let done = create.decode(&answer, &())?;
    /// assert_eq!((done.todo.id, done.location.as_deref()), (7, Some("/todos/7")));
    /// # Ok::<(), SchemaError>(())
    /// ```
    pub fn with_decoder<T>(self, decode: DecodeFn<P, T>) -> Endpoint<P, T, E> {
        self.retyped(decode)
    }
}

impl<P, S, E> Endpoint<P, S, E> {
    /// This endpoint with another schema or effect: `decode` builds the
    /// schema; every other part is kept.
    fn retyped<T, E2>(self, decode: DecodeFn<P, T>) -> Endpoint<P, T, E2> {
        Endpoint {
            method: self.method,
            address: self.address,
            url_prefix: self.url_prefix,
            options: self.options,
            key: self.key,
            fetch: self.fetch,
            graphql: self.graphql,
            decode,
            target: self.target,
            join_at: self.join_at,
            pagination: self.pagination,
            page_size: self.page_size,
            infer: self.infer,
            record_param: self.record_param,
            error_policy: self.error_policy,
            binary: self.binary,
            private: self.private,
            // Typed on the old schema: it cannot follow.
            update: None,
            types: PhantomData,
        }
    }
}
