//! A client whose requests are answered in memory, by fixtures and
//! interceptors, and recorded for the test to assert.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use percent_encoding::percent_decode_str;
use serde::de::DeserializeOwned;

use super::fixture::{Fixture, Reply};
use crate::controller::{Controller, Retry, WriteError};
use crate::http::{Client, HeaderMap, Method, Outgoing, Transport, TransportFuture, resolve};
use crate::rest::{Effect, Endpoint, Part};

/// One request a [`MockClient`] was sent: what a test asserts.
///
/// ```
/// use restcache::http::{Client, Method};
/// use restcache::testing::MockClient;
///
/// let mock = MockClient::new();
/// # restcache_demo::block_on(async {
/// let _ = mock.client().request(Method::Delete, "/todos/3", None).await;
/// # });
/// let sent = &mock.requests()[0];
/// assert_eq!((sent.method, sent.path.as_str()), (Method::Delete, "/todos/3"));
/// assert_eq!(sent.url, "http://restcache.test/todos/3");
/// assert_eq!(sent.headers["accept"], "application/json");
/// assert!(sent.body.is_none());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    /// The method.
    pub method: Method,
    /// The absolute URL.
    pub url: String,
    /// The URL without the mock's base address: `/todos?userId=1`.
    pub path: String,
    /// Every header sent.
    pub headers: HeaderMap,
    /// The body's text, if any.
    pub body: Option<String>,
}

impl RecordedRequest {
    /// The body parsed as JSON into `T`, or `None` without a body or when
    /// it does not fit.
    ///
    /// ```
    /// use restcache::http::{HeaderMap, Method};
    /// use restcache::testing::RecordedRequest;
    ///
    /// let request = RecordedRequest {
    ///     method: Method::Patch,
    ///     url: "http://restcache.test/todos/1".into(),
    ///     path: "/todos/1".into(),
    ///     headers: HeaderMap::new(),
    ///     body: Some(r#"{"completed": true}"#.into()),
    /// };
    /// let body: serde_json::Value = request.json().unwrap();
    /// assert_eq!(body["completed"], true);
    /// ```
    pub fn json<T: DeserializeOwned>(&self) -> Option<T> {
        serde_json::from_str(self.body.as_deref()?).ok()
    }

    /// When this request is one of `endpoint` (its method, and a path its
    /// path template matches), the params it carries: the template's
    /// placeholders and the query's pairs, by name, as text (a name the
    /// query repeats keeps its first value: see
    /// [`query_all`](Self::query_all)). Of a GraphQL operation, the
    /// request also posts its document, and its variables are params too.
    /// Else `None`.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::{HeaderMap, Method};
    /// use restcache::testing::RecordedRequest;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let request = RecordedRequest {
    ///     method: Method::Get,
    ///     url: "http://restcache.test/todos/7?fields=title".into(),
    ///     path: "/todos/7?fields=title".into(),
    ///     headers: HeaderMap::new(),
    ///     body: None,
    /// };
    /// let params = request.params_of(&TodoResource::get()).unwrap();
    /// assert_eq!(params["id"], "7");
    /// assert_eq!(params["fields"], "title");
    /// assert!(request.params_of(&TodoResource::get_list()).is_none());
    /// assert!(request.params_of(&TodoResource::delete()).is_none());
    /// ```
    pub fn params_of<P, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
    ) -> Option<BTreeMap<String, String>> {
        if self.method != endpoint.method() {
            return None;
        }
        let template = endpoint.path()?;
        let mut rest = match endpoint.url_prefix() {
            Some(prefix) => self.url.strip_prefix(prefix.trim_end_matches('/'))?,
            None => &self.path,
        };
        let mut params = BTreeMap::new();
        let parts = template.parts();
        for (at, part) in parts.iter().enumerate() {
            match part {
                Part::Static(text) => rest = rest.strip_prefix(&**text)?,
                Part::Param(name) => {
                    // A placeholder ends where the text after it begins, or
                    // at the end of its path segment or query value.
                    let end = match parts.get(at + 1) {
                        Some(Part::Static(next)) => rest.find(&**next)?,
                        _ => rest.find(['/', '?', '&', '#']).unwrap_or(rest.len()),
                    };
                    if end == 0 {
                        return None;
                    }
                    params.insert((*name).to_owned(), decoded(&rest[..end]));
                    rest = &rest[end..];
                }
            }
        }
        let query = match rest.chars().next() {
            None => "",
            Some('?' | '&') => &rest[1..],
            Some(_) => return None,
        };
        for (name, value) in pairs(query) {
            params.entry(name).or_insert(value);
        }
        // A GraphQL operation is its document (every one posts to one
        // path), and its params are its variables.
        if let Some(document) = endpoint.graphql_document() {
            let body = serde_json::from_str::<serde_json::Value>(self.body.as_deref()?).ok()?;
            if body.get("query").and_then(|query| query.as_str()) != Some(document) {
                return None;
            }
            let variables = body.get("variables").and_then(|v| v.as_object());
            for (name, value) in variables.into_iter().flatten() {
                let text = match value {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                params.insert(name.clone(), text);
            }
        }
        Some(params)
    }

    /// Every value the query gives the param `name`, in order (a list
    /// param repeats its name: `?tag=a&tag=b`).
    ///
    /// ```
    /// use restcache::http::{HeaderMap, Method};
    /// use restcache::testing::RecordedRequest;
    ///
    /// let request = RecordedRequest {
    ///     method: Method::Get,
    ///     url: "http://restcache.test/todos?tag=a&tag=b%20c".into(),
    ///     path: "/todos?tag=a&tag=b%20c".into(),
    ///     headers: HeaderMap::new(),
    ///     body: None,
    /// };
    /// assert_eq!(request.query_all("tag"), ["a", "b c"]);
    /// assert!(request.query_all("page").is_empty());
    /// ```
    pub fn query_all(&self, name: &str) -> Vec<String> {
        let query = self.path.split_once('?').map_or("", |(_, query)| query);
        pairs(query)
            .filter(|(n, _)| n == name)
            .map(|(_, value)| value)
            .collect()
    }

    /// Whether this request is one of `endpoint` (see
    /// [`params_of`](Self::params_of)).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::HeaderMap;
    /// use restcache::testing::RecordedRequest;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let request = RecordedRequest {
    ///     method: Method::Post,
    ///     url: "http://restcache.test/todos".into(),
    ///     path: "/todos".into(),
    ///     headers: HeaderMap::new(),
    ///     body: Some("{}".into()),
    /// };
    /// assert!(request.is(&TodoResource::create()));
    /// assert!(!request.is(&TodoResource::get_list()));
    /// ```
    pub fn is<P, S, E: Effect>(&self, endpoint: &Endpoint<P, S, E>) -> bool {
        self.params_of(endpoint).is_some()
    }
}

fn decoded(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// The name and value pairs of a query, decoded.
fn pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decoded(name), decoded(value))
        })
}

/// A function of a request that may answer it.
type Interceptor = RefCell<Box<dyn FnMut(&RecordedRequest) -> Option<Reply>>>;

enum Answer {
    Fixture(Fixture),
    Interceptor(Interceptor),
}

struct Shared {
    base_url: String,
    /// Newest first.
    answers: RefCell<Vec<Rc<Answer>>>,
    requests: RefCell<Vec<RecordedRequest>>,
}

/// A client for tests: it answers each request in memory from
/// [`Fixture`]s and interceptors (the newest that answers wins), and
/// records every request. A request nothing answers fails with a 404
/// whose text names it. Clones share their answers and records.
///
/// Its [`client`](Self::client) is a real [`Client`] over it: time and
/// body limits, statuses and error texts are those of the network.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::testing::{Fixture, MockClient, Reply};
/// use serde_json::json;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// #[serde(default)]
/// struct Todo { id: u64, title: String, completed: bool }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let mock = MockClient::new();
/// mock.answer(Fixture::new(&TodoResource::get_list(), (), json!([{"id": 1, "title": "milk"}])));
/// // The server echoes a partial update over the record it holds.
/// mock.intercept(|request| {
///     let id = request.params_of(&TodoResource::partial_update())?["id"].clone();
///     let mut todo: serde_json::Value = request.json()?;
///     todo["id"] = json!(id.parse::<u64>().ok()?);
///     Some(Reply::json(&todo))
/// });
/// let ctrl = mock.controller();
/// # restcache_demo::block_on(async {
/// let todos = ctrl.fetch(&TodoResource::get_list(), &(), None).await?;
/// assert_eq!(todos[0].title, "milk");
/// let body = Body::json(&json!({"completed": true})).unwrap();
/// ctrl.fetch(&TodoResource::partial_update(), &TodoResourceParams { id: 1 }, Some(body)).await?;
/// assert!(ctrl.read(&TodoResource::get_list(), &()).data.unwrap()[0].completed);
///
/// let missing = ctrl.fetch(&TodoResource::get(), &TodoResourceParams { id: 9 }, None).await.unwrap_err();
/// assert!(missing.to_string().contains("nothing answers GET /todos/9"));
/// # Ok::<(), restcache::http::Error>(()) })?;
/// let sent: Vec<String> = mock.requests().iter().map(|r| format!("{:?} {}", r.method, r.path)).collect();
/// assert_eq!(sent, ["Get /todos", "Patch /todos/1", "Get /todos/9"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct MockClient(Rc<Shared>);

impl MockClient {
    /// The base address of a mock's client, unless told otherwise.
    pub const BASE_URL: &'static str = "http://restcache.test";

    /// A mock with no answers, at [`BASE_URL`](Self::BASE_URL).
    ///
    /// ```
    /// use restcache::testing::MockClient;
    /// assert_eq!(MockClient::new().client().base_url(), "http://restcache.test");
    /// ```
    pub fn new() -> Self {
        MockClient::at(Self::BASE_URL)
    }

    /// A mock with no answers whose client's base address is `base_url`
    /// (for an app that builds URLs of its own).
    ///
    /// ```
    /// use restcache::testing::MockClient;
    /// assert_eq!(MockClient::at("http://api.test/").client().base_url(), "http://api.test");
    /// ```
    pub fn at(base_url: &str) -> Self {
        MockClient(Rc::new(Shared {
            base_url: base_url.trim_end_matches('/').to_owned(),
            answers: RefCell::default(),
            requests: RefCell::default(),
        }))
    }

    /// Answers the request of `fixture` from now on (over any answer
    /// given before for the same request).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::{Fixture, MockClient};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let mock = MockClient::new();
    /// let list = TodoResource::get_list();
    /// mock.answer(Fixture::new(&list, (), [Todo { id: 1, title: "before".into() }]));
    /// mock.answer(Fixture::new(&list, (), [Todo { id: 1, title: "after".into() }]));
    /// let ctrl = mock.controller();
    /// # restcache_demo::block_on(async {
    /// assert_eq!(ctrl.fetch(&list, &(), None).await.unwrap()[0].title, "after");
    /// # });
    /// ```
    pub fn answer(&self, fixture: Fixture) -> &Self {
        self.0
            .answers
            .borrow_mut()
            .insert(0, Rc::new(Answer::Fixture(fixture)));
        self
    }

    /// Asks `interceptor` first from now on: it answers the requests it
    /// returns a [`Reply`] for, and passes on the others (`None`). It may
    /// keep state between requests ("the first call fails, the second
    /// succeeds").
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::{MockClient, Reply};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let mock = MockClient::new();
    /// let mut calls = 0;
    /// mock.intercept(move |request| {
    ///     request.is(&TodoResource::get_list()).then(|| {
    ///         calls += 1;
    ///         match calls {
    ///             1 => Reply::status(503, "busy"),
    ///             _ => Reply::json(&[Todo { id: 1 }]),
    ///         }
    ///     })
    /// });
    /// let ctrl = mock.controller();
    /// # restcache_demo::block_on(async {
    /// assert!(ctrl.fetch(&TodoResource::get_list(), &(), None).await.unwrap_err().is_soft());
    /// assert_eq!(ctrl.fetch(&TodoResource::get_list(), &(), None).await.unwrap().len(), 1);
    /// # });
    /// ```
    pub fn intercept(
        &self,
        interceptor: impl FnMut(&RecordedRequest) -> Option<Reply> + 'static,
    ) -> &Self {
        self.0.answers.borrow_mut().insert(
            0,
            Rc::new(Answer::Interceptor(RefCell::new(Box::new(interceptor)))),
        );
        self
    }

    /// A [`Client`] whose requests this mock answers.
    ///
    /// ```
    /// use restcache::http::Method;
    /// use restcache::testing::MockClient;
    ///
    /// let mock = MockClient::new();
    /// # restcache_demo::block_on(async {
    /// let failed = mock.client().request(Method::Get, "/health", None).await.unwrap_err();
    /// assert_eq!(failed.status(), Some(404)); // nothing answers it
    /// # });
    /// ```
    pub fn client(&self) -> Client {
        Client::new(&self.0.base_url).with_transport(self.clone())
    }

    /// A controller over [`client`](Self::client) that does not retry
    /// (a test sees each failure at once), with an empty cache.
    ///
    /// ```
    /// use restcache::testing::MockClient;
    /// let ctrl = MockClient::new().controller();
    /// assert_eq!(ctrl.client().base_url(), "http://restcache.test");
    /// assert!(ctrl.is_idle());
    /// ```
    pub fn controller(&self) -> Controller {
        Controller::builder(self.client())
            .retry(Retry::NONE)
            .build()
    }

    /// [`controller`](Self::controller), its cache filled from the read
    /// fixtures first ([`fill`](Self::fill)): the first render shows
    /// their data with no request.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::{Fixture, MockClient};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let mock = MockClient::new();
    /// mock.answer(Fixture::new(&TodoResource::get_list(), (), [Todo { id: 1, title: "milk".into() }]));
    /// let ctrl = mock.filled_controller()?;
    /// let cached = ctrl.read(&TodoResource::get_list(), &());
    /// assert_eq!(cached.status, ExpiryStatus::Valid);
    /// assert_eq!(cached.data.unwrap()[0].title, "milk");
    /// assert!(mock.requests().is_empty());
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn filled_controller(&self) -> Result<Controller, WriteError> {
        let controller = self.controller();
        self.fill(&controller)?;
        Ok(controller)
    }

    /// Stores the answer of every read fixture in `controller` as if
    /// fetched now (values as data, errors as errors), oldest fixture
    /// first. Mutations' fixtures and interceptors store nothing.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::testing::{Fixture, MockClient};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let mock = MockClient::new();
    /// mock.answer(Fixture::error(&TodoResource::get(), TodoResourceParams { id: 5 }, 403, "not yours"));
    /// let ctrl = Controller::new(mock.client()); // a controller of the test's own
    /// mock.fill(&ctrl)?;
    /// let cached = ctrl.read(&TodoResource::get(), &TodoResourceParams { id: 5 });
    /// assert_eq!(cached.error.unwrap().status(), Some(403));
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn fill(&self, controller: &Controller) -> Result<(), WriteError> {
        let answers = self.0.answers.borrow().clone();
        for answer in answers.iter().rev() {
            if let Answer::Fixture(fixture) = &**answer {
                fixture.fill(controller)?;
            }
        }
        Ok(())
    }

    /// Every request sent so far, in order.
    ///
    /// ```
    /// use restcache::http::Method;
    /// use restcache::testing::MockClient;
    ///
    /// let mock = MockClient::new();
    /// # restcache_demo::block_on(async {
    /// let _ = mock.client().request(Method::Get, "/a", None).await;
    /// let _ = mock.client().request(Method::Get, "/b", None).await;
    /// # });
    /// let paths: Vec<String> = mock.requests().into_iter().map(|r| r.path).collect();
    /// assert_eq!(paths, ["/a", "/b"]);
    /// ```
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.0.requests.borrow().clone()
    }

    /// How many requests with `method` went to `path` (with its query,
    /// as [`RecordedRequest::path`]).
    ///
    /// ```
    /// use restcache::http::Method;
    /// use restcache::testing::MockClient;
    /// assert_eq!(MockClient::new().count(Method::Get, "/todos"), 0);
    /// ```
    pub fn count(&self, method: Method, path: &str) -> usize {
        let requests = self.0.requests.borrow();
        requests
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .count()
    }

    /// The reply for `request`: the newest answer that gives one. The
    /// answers are looked at free of the mock, so an interceptor may give
    /// it new answers; one asked again while it runs (a request it sends
    /// itself) passes.
    fn reply(&self, request: &RecordedRequest) -> Reply {
        let answers = self.0.answers.borrow().clone();
        // A fixture that takes any write (an endpoint with a fetch of its
        // own) answers only when none of the method sent does; one of a
        // write's endpoint before one of a read's (a read that posts).
        let mut any_write: Option<(bool, Reply)> = None;
        for answer in &answers {
            match &**answer {
                Answer::Fixture(fixture) => {
                    let writes = [Method::Post, Method::Put, Method::Patch];
                    let fits = same_url(&resolve(&self.0.base_url, &fixture.url), &request.url)
                        && fixture
                            .body
                            .as_ref()
                            .is_none_or(|body| same_body(body, request.body.as_deref()));
                    if fits && fixture.method == request.method {
                        return fixture.reply.clone();
                    }
                    if fits && fixture.any_write && writes.contains(&request.method) {
                        let of_a_write = fixture.method == Method::Post;
                        if any_write
                            .as_ref()
                            .is_none_or(|(best, _)| of_a_write && !best)
                        {
                            any_write = Some((of_a_write, fixture.reply.clone()));
                        }
                    }
                }
                Answer::Interceptor(intercept) => {
                    // Newer than this interceptor: the fixture answers.
                    if let Some((_, reply)) = any_write {
                        return reply;
                    }
                    let Ok(mut intercept) = intercept.try_borrow_mut() else {
                        continue;
                    };
                    if let Some(reply) = intercept(request) {
                        return reply;
                    }
                }
            }
        }
        if let Some((_, reply)) = any_write {
            return reply;
        }
        Reply::status(
            404,
            format!(
                "restcache::testing: nothing answers {} {}: give the mock a Fixture or an interceptor for it",
                request.method, request.path
            ),
        )
    }
}

impl Default for MockClient {
    fn default() -> Self {
        MockClient::new()
    }
}

impl Transport for MockClient {
    fn send(&self, request: Outgoing) -> TransportFuture {
        let path = request
            .url
            .strip_prefix(&self.0.base_url)
            .unwrap_or(&request.url)
            .to_owned();
        let recorded = RecordedRequest {
            method: request.method,
            url: request.url,
            path,
            headers: request.headers,
            body: request
                .body
                .map(|body| String::from_utf8_lossy(body.as_bytes()).into_owned()),
        };
        let reply = self.reply(&recorded);
        self.0.requests.borrow_mut().push(recorded);
        Box::pin(async move {
            if let Some(delay) = reply.delay {
                futures_timer::Delay::new(delay).await;
            }
            reply.outcome
        })
    }
}

impl fmt::Debug for MockClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MockClient")
            .field("base_url", &self.0.base_url)
            .field("answers", &self.0.answers.borrow().len())
            .field("requests", &self.0.requests.borrow().len())
            .finish()
    }
}

/// Whether two URLs name one resource, as a server reads them: the same
/// text, or the same path with the same query pairs in another order (a
/// next page's param comes last).
fn same_url(fixture: &str, request: &str) -> bool {
    if fixture == request {
        return true;
    }
    let (Some((path, query)), Some((other_path, other_query))) =
        (fixture.split_once('?'), request.split_once('?'))
    else {
        return false;
    };
    let sorted = |query| {
        let mut pairs: Vec<(String, String)> = pairs(query).collect();
        pairs.sort();
        pairs
    };
    path == other_path && sorted(query) == sorted(other_query)
}

/// Whether a request's body is the one a fixture names: the same text,
/// or the same JSON (a map's keys in any order: GraphQL variables kept
/// in a `HashMap`).
fn same_body(fixture: &str, request: Option<&str>) -> bool {
    let Some(request) = request else {
        return false;
    };
    fixture == request
        || matches!(
            (
                serde_json::from_str::<serde_json::Value>(fixture),
                serde_json::from_str::<serde_json::Value>(request),
            ),
            (Ok(a), Ok(b)) if a == b
        )
}
