//! Fixtures: what an endpoint answers for some params (a value, or an
//! error), and the replies a mock sends.

use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use serde::Serialize;

use crate::cache::schema::Schema;
use crate::controller::{Controller, WriteError};
use crate::http::{Error, HeaderName, HeaderValue, Incoming, Method, Response, TransportError};
use crate::rest::effect::Action;
use crate::rest::{Effect, Endpoint};

/// What a [`MockClient`](super::MockClient) sends back for a request: a
/// status, a body and headers, or no answer at all (a network failure);
/// at once, or after a delay.
///
/// ```
/// use restcache::testing::Reply;
/// use std::time::Duration;
///
/// let found = Reply::json(&serde_json::json!({"id": 1, "title": "milk"}));
/// let missing = Reply::status(404, "no such todo");
/// let slow = Reply::json(&[1, 2, 3]).after(Duration::from_millis(20));
/// let down = Reply::network_error("connection refused");
/// # let _ = (found, missing, slow, down);
/// ```
#[derive(Clone, Debug)]
pub struct Reply {
    pub(super) outcome: Result<Incoming, TransportError>,
    pub(super) delay: Option<Duration>,
}

impl Reply {
    /// A 200 whose body is `value` as JSON.
    ///
    /// Panics when `value` has no JSON form (a map with keys that are not
    /// strings).
    ///
    /// ```
    /// use restcache::testing::Reply;
    /// let reply = Reply::json(&serde_json::json!({"id": 1}));
    /// # let _ = reply;
    /// ```
    pub fn json(value: &impl Serialize) -> Reply {
        let body = serde_json::to_vec(value)
            .unwrap_or_else(|e| panic!("a reply's value has no JSON form: {e}"));
        Reply::status(200, body)
    }

    /// An answer with `status` and `body` (a 4xx or 5xx is the error a
    /// server would give).
    ///
    /// ```
    /// use restcache::testing::Reply;
    /// let conflict = Reply::status(409, r#"{"detail": "changed elsewhere"}"#);
    /// # let _ = conflict;
    /// ```
    pub fn status(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            outcome: Ok(Incoming::new(status, body)),
            delay: None,
        }
    }

    /// No answer: the request fails as when the network is down (a soft
    /// error).
    ///
    /// ```
    /// use restcache::testing::Reply;
    /// let offline = Reply::network_error("connection refused");
    /// # let _ = offline;
    /// ```
    pub fn network_error(message: impl Into<String>) -> Reply {
        Reply {
            outcome: Err(TransportError::new(message)),
            delay: None,
        }
    }

    /// This reply with the header `name: value` (`Link`, `X-Total-Count`,
    /// `Location`...).
    ///
    /// ```
    /// use restcache::testing::Reply;
    /// let page = Reply::json(&[1, 2]).with_header("x-total-count", "40");
    /// # let _ = page;
    /// ```
    ///
    /// Panics when `name` or `value` is not a valid header.
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Ok(incoming) = &mut self.outcome {
            let name = HeaderName::from_bytes(name.as_bytes())
                .unwrap_or_else(|e| panic!("`{name}` is not a header name: {e}"));
            let value = HeaderValue::from_str(value)
                .unwrap_or_else(|e| panic!("`{value}` is not a header value: {e}"));
            incoming.headers.insert(name, value);
        }
        self
    }

    /// This reply sent `delay` after its request (a loading state to see,
    /// two requests to race).
    ///
    /// ```
    /// use restcache::testing::Reply;
    /// use std::time::Duration;
    /// let slow = Reply::status(503, "busy").after(Duration::from_millis(100));
    /// # let _ = slow;
    /// ```
    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = Some(delay);
        self
    }
}

/// Stores a read fixture's answer in a controller, as if fetched.
type Fill = Rc<dyn Fn(&Controller) -> Result<(), WriteError>>;

/// What an endpoint answers for some params: a value (sent as JSON) or an
/// error, optionally after a delay. A [`MockClient`](super::MockClient)
/// answers the request those params make (same method and URL, whatever
/// the body; for a GraphQL operation, the same document and variables
/// too; for an endpoint whose own fetch picks the method, as an older API
/// shape's does, a `POST`, `PUT` or `PATCH` to that URL as well, when no
/// fixture of the method sent answers it); a read's fixture can also fill a controller before the first
/// render ([`MockClient::fill`](super::MockClient::fill)).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::testing::Fixture;
/// use serde_json::json;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let list = Fixture::new(&TodoResource::get_list(), (), json!([{"id": 1, "title": "milk"}]));
/// let missing = Fixture::error(&TodoResource::get(), TodoResourceParams { id: 9 }, 404, "no such todo");
/// assert_eq!(list.path(), "/todos");
/// assert_eq!(missing.path(), "/todos/9");
/// ```
#[derive(Clone)]
pub struct Fixture {
    pub(super) method: Method,
    /// Whether a request that writes by any method (`POST`, `PUT`,
    /// `PATCH`) is this fixture's too: its endpoint's own fetch function
    /// picks which it sends (an older API shape other than a delete, a
    /// read that posts among them). A fixture of the method sent comes
    /// first, then one of a write's endpoint.
    pub(super) any_write: bool,
    /// The URL the params make: a path, or absolute for an endpoint with
    /// a URL prefix of its own.
    pub(super) url: String,
    pub(super) reply: Reply,
    /// The body a request must carry to be this fixture's: a GraphQL
    /// operation's document and variables (every operation shares one
    /// URL).
    pub(super) body: Option<String>,
    fill: Option<Fill>,
}

impl Fixture {
    /// `endpoint` with `params` answers `value` as JSON (in the shape the
    /// server sends, which the endpoint decodes; a GraphQL operation's
    /// `data`, which the fixture wraps as the server does).
    ///
    /// Panics when the params make no URL.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::Fixture;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let todo = Fixture::new(&TodoResource::get(), TodoResourceParams { id: 1 }, Todo { id: 1, title: "milk".into() });
    /// assert_eq!(todo.path(), "/todos/1");
    /// ```
    pub fn new<P, S, E>(endpoint: &Endpoint<P, S, E>, params: P, value: impl Serialize) -> Fixture
    where
        P: Serialize + 'static,
        S: Schema,
        E: Effect,
    {
        let value = serde_json::to_value(&value)
            .unwrap_or_else(|e| panic!("a fixture's value has no JSON form: {e}"));
        // A GraphQL operation's server answers its value as `data`.
        let reply = match endpoint.graphql_document() {
            Some(_) => Reply::json(&serde_json::json!({ "data": &value })),
            None => Reply::json(&value),
        };
        let mut fixture = Fixture::answering(endpoint, &params, reply);
        if E::ACTION == Action::Read {
            let endpoint = endpoint.clone();
            let text = value.to_string();
            fixture.fill = Some(Rc::new(move |controller: &Controller| {
                let response = Response::new(200, text.clone());
                let value = endpoint
                    .decode(&response, &params)
                    .map_err(WriteError::Schema)?;
                controller.set_decoded(&endpoint, &params, value).map(drop)
            }));
        }
        fixture
    }

    /// `endpoint` with `params` fails with `status` and `body`, as a
    /// server's error.
    ///
    /// Panics when the params make no URL.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::Fixture;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let gone = Fixture::error(&TodoResource::delete(), TodoResourceParams { id: 4 }, 404, "gone");
    /// assert_eq!((gone.method(), gone.path()), (Method::Delete, "/todos/4"));
    /// ```
    pub fn error<P, S, E>(
        endpoint: &Endpoint<P, S, E>,
        params: P,
        status: u16,
        body: impl Into<String>,
    ) -> Fixture
    where
        P: Serialize + 'static,
        S: 'static,
        E: Effect,
    {
        let body = body.into();
        let mut fixture =
            Fixture::answering(endpoint, &params, Reply::status(status, body.clone()));
        if E::ACTION == Action::Read {
            let endpoint = endpoint.clone();
            fixture.fill = Some(Rc::new(move |controller: &Controller| {
                let base = controller.client().base_url();
                let url = endpoint.url(base, &params).map_err(WriteError::Url)?;
                let error = Error::http_status(endpoint.method(), &url, status, &body);
                controller.set_error_of(&endpoint, &params, error);
                Ok(())
            }));
        }
        fixture
    }

    /// `endpoint` with `params` answers `reply`: a reply with headers, a
    /// network failure. It fills no controller.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::{Fixture, Reply};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let down = Fixture::reply(&TodoResource::get_list(), (), Reply::network_error("offline"));
    /// # let _ = down;
    /// ```
    ///
    /// Panics when the params make no URL.
    pub fn reply<P: Serialize, S, E: Effect>(
        endpoint: &Endpoint<P, S, E>,
        params: P,
        reply: Reply,
    ) -> Fixture {
        Fixture::answering(endpoint, &params, reply)
    }

    fn answering<P: Serialize, S, E: Effect>(
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        reply: Reply,
    ) -> Fixture {
        let url = endpoint
            .url("", params)
            .unwrap_or_else(|e| panic!("a fixture's params make no URL: {e}"));
        Fixture {
            method: endpoint.method(),
            any_write: endpoint.has_own_fetch() && endpoint.method() != Method::Delete,
            url,
            reply,
            body: endpoint
                .graphql_body(params)
                .map(|body| String::from_utf8_lossy(body.as_bytes()).into_owned()),
            fill: None,
        }
    }

    /// This fixture answering `delay` after its request.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::Fixture;
    /// use std::time::Duration;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let slow = Fixture::new(&TodoResource::get_list(), (), [Todo { id: 1 }])
    ///     .after(Duration::from_millis(50));
    /// # let _ = slow;
    /// ```
    pub fn after(mut self, delay: Duration) -> Fixture {
        self.reply.delay = Some(delay);
        self
    }

    /// The request's method.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::Fixture;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let created = Fixture::new(&TodoResource::create(), (), Todo { id: 3 });
    /// assert_eq!(created.method(), Method::Post);
    /// ```
    pub fn method(&self) -> Method {
        self.method
    }

    /// The path (and query) the params make; absolute for an endpoint
    /// with a URL prefix of its own.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::Fixture;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// endpoint!(pub todos_of { path: "/users/:user/todos", schema: Vec<std::rc::Rc<Todo>>, params: { user: u64, done: bool } });
    ///
    /// let fixture = Fixture::new(&todos_of(), TodosOfParams { user: 2, done: true }, [Todo { id: 1 }]);
    /// assert_eq!(fixture.path(), "/users/2/todos?done=true");
    /// ```
    pub fn path(&self) -> &str {
        &self.url
    }

    /// Stores this fixture's answer in `controller` as if fetched now,
    /// when it is a read's value or error; else does nothing.
    pub(super) fn fill(&self, controller: &Controller) -> Result<(), WriteError> {
        match &self.fill {
            Some(fill) => fill(controller),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for Fixture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fixture")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("reply", &self.reply)
            .finish_non_exhaustive()
    }
}
