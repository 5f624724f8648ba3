//! HTTP: the client and its shared fetch helper, the transport it sends
//! through (reqwest unless told otherwise), methods,
//! request bodies, and the one error type of a request. It knows nothing
//! of endpoints or the cache: `rest` and `controller` build on it.

mod body;
mod error;
mod form;
mod graphql;
mod method;
mod reading;
mod response;
mod transport;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

pub use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};

pub use body::Body;
pub use error::{EXCERPT_CHARS, Error, ErrorKind};
pub use form::Form;
pub use graphql::GraphQlError;
pub(crate) use graphql::split as split_graphql;
pub use method::{Method, Request};
pub use response::Response;
pub use transport::{Incoming, Outgoing, Transport, TransportError, TransportFuture};

pub(crate) use error::Attempt;
use futures_util::future::{Either, select};
pub(crate) use response::Sent;
use transport::Reqwest;

/// What a fetch function returns: a successful response, or the error.
pub type ResponseFuture = Pin<Box<dyn Future<Output = Result<Response, Error>>>>;

/// Adds headers to every request (an auth token, say).
type HeaderHook = Rc<dyn Fn(&mut HeaderMap)>;

/// Makes the HTTP requests of endpoints: a reqwest client, the base
/// address endpoints without their own `url_prefix` use, and an optional
/// hook that adds headers to every request. Cheap to clone (shared).
///
/// No error shows the value of a header the client sent beside its own
/// `Accept` (the hook's, a request's own): an auth token stays out of
/// logs, whatever the server echoes back.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::http::{Client, HeaderValue, header};
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// # let api = restcache_demo::DemoApi::start()?;
/// # let base_url = api.url();
/// # restcache_demo::block_on(async {
/// let client = Client::new(base_url).with_headers(|headers| {
///     headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer secret"));
/// });
/// let todo = client.call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None).await?;
/// assert_eq!(todo.id, 1);
/// # Ok::<(), restcache::http::Error>(()) })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Client {
    transport: Rc<dyn Transport>,
    base_url: Rc<str>,
    headers: Option<HeaderHook>,
    max_body: usize,
    timeout: Duration,
}

/// The longest response body a client reads unless told otherwise: 64 MiB.
pub const DEFAULT_MAX_BODY: usize = 64 * 1024 * 1024;

/// How long a request may take, answer and body, unless its client or its
/// endpoint says otherwise: 30 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

impl Client {
    /// A client whose endpoints live under `base_url` (unless they have a
    /// `url_prefix` of their own). A base that is a path (`/api`) names
    /// the page's own origin in a browser.
    ///
    /// ```
    /// use restcache::http::Client;
    /// assert_eq!(Client::new("http://127.0.0.1:8080/").base_url(), "http://127.0.0.1:8080");
    /// ```
    pub fn new(base_url: impl AsRef<str>) -> Self {
        Client {
            transport: Rc::new(Reqwest(reqwest::Client::new())),
            base_url: Rc::from(base_url.as_ref().trim_end_matches('/')),
            headers: None,
            max_body: DEFAULT_MAX_BODY,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// This client with another limit on the body of a response (default
    /// [`DEFAULT_MAX_BODY`]): a longer body is an error
    /// ([`ErrorKind::TooLarge`]), and reading it stops at the limit.
    ///
    /// ```
    /// use restcache::http::Client;
    /// let client = Client::new("http://127.0.0.1:8080").with_max_body(1024 * 1024);
    /// assert_eq!(client.max_body(), 1024 * 1024);
    /// ```
    pub fn with_max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// The limit on the body of a response.
    ///
    /// ```
    /// use restcache::http::{Client, DEFAULT_MAX_BODY};
    /// assert_eq!(Client::new("http://127.0.0.1:8080").max_body(), DEFAULT_MAX_BODY);
    /// ```
    pub fn max_body(&self) -> usize {
        self.max_body
    }

    /// This client with another time limit on a request, from its start
    /// to the end of its body (default [`DEFAULT_TIMEOUT`]); an endpoint
    /// may set its own. A request that takes longer fails with a soft
    /// error ([`ErrorKind::Timeout`]).
    ///
    /// ```
    /// use restcache::http::Client;
    /// use std::time::Duration;
    /// let client = Client::new("http://127.0.0.1:8080").with_timeout(Duration::from_secs(5));
    /// assert_eq!(client.timeout(), Duration::from_secs(5));
    /// ```
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The time limit on a request.
    ///
    /// ```
    /// use restcache::http::{Client, DEFAULT_TIMEOUT};
    /// assert_eq!(Client::new("http://127.0.0.1:8080").timeout(), DEFAULT_TIMEOUT);
    /// ```
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// This client with `hook` run on the headers of every request, once
    /// per request. A request's own headers replace the hook's. A
    /// `Content-Type` from the hook covers JSON bodies only (a flavour of
    /// JSON, `application/vnd.api+json`): text, bytes and multipart forms
    /// are sent with their own type.
    ///
    /// ```
    /// use restcache::http::{Client, HeaderValue, header};
    /// let client = Client::new("http://127.0.0.1:8080").with_headers(|headers| {
    ///     headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer secret"));
    /// });
    /// # let _ = client;
    /// ```
    pub fn with_headers(mut self, hook: impl Fn(&mut HeaderMap) + 'static) -> Self {
        self.headers = Some(Rc::new(hook));
        self
    }

    /// This client over a reqwest client of your own (proxies, TLS
    /// settings).
    ///
    /// ```
    /// use restcache::http::Client;
    /// let client = Client::new("http://127.0.0.1:8080").with_http(reqwest::Client::new());
    /// # let _ = client;
    /// ```
    pub fn with_http(mut self, http: reqwest::Client) -> Self {
        self.transport = Rc::new(Reqwest(http));
        self
    }

    /// This client sending through `transport` instead of the network:
    /// answers from memory, a recorder, a delay (see [`Transport`]). The
    /// client's time limit, body limit, statuses and masking of what it
    /// sent hold whatever the transport.
    ///
    /// ```
    /// use restcache::http::{Client, Incoming, Method, Outgoing};
    ///
    /// let client = Client::new("http://api.test")
    ///     .with_transport(|_: Outgoing| async { Ok(Incoming::new(503, "down")) });
    /// # restcache_demo::block_on(async {
    /// let failed = client.request(Method::Get, "/todos", None).await.unwrap_err();
    /// assert_eq!(failed.to_string(), "GET http://api.test/todos: HTTP 503: down");
    /// # });
    /// ```
    pub fn with_transport(mut self, transport: impl Transport + 'static) -> Self {
        self.transport = Rc::new(transport);
        self
    }

    /// The base address.
    ///
    /// ```
    /// use restcache::http::Client;
    /// assert_eq!(Client::new("http://127.0.0.1:8080").base_url(), "http://127.0.0.1:8080");
    /// ```
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The shared fetch helper, which fetch functions call: one request
    /// with `method` to `url` (absolute, or a path on the base address),
    /// with an optional body. Resolves to a successful response (a 204's
    /// body is empty); any other status, or no response, is an [`Error`].
    ///
    /// ```
    /// use restcache::http::{Client, Method};
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let client = Client::new(api.url());
    /// let response = client.request(Method::Get, "/todos/1", None).await?;
    /// assert_eq!(response.status, 200);
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn request(&self, method: Method, url: &str, body: Option<Body>) -> ResponseFuture {
        self.send(Request::new(method, url).with_body(body))
    }

    /// The headers the client adds to every request (its hook's).
    pub(crate) fn hook_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(hook) = &self.headers {
            hook(&mut headers);
        }
        headers
    }

    /// Sends `request`, with its own headers beside the client's:
    /// [`request`](Self::request) for a fetch function that adds headers.
    /// Within the client's time limit ([`with_timeout`](Self::with_timeout)),
    /// as every request it sends.
    ///
    /// ```
    /// use restcache::http::{Client, HeaderName, HeaderValue, Method, Request};
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let client = Client::new(api.url());
    /// let request = Request::new(Method::Get, "/todos/1")
    ///     .with_header(HeaderName::from_static("x-trace"), HeaderValue::from_static("7"));
    /// assert_eq!(client.send(request).await?.status, 200);
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn send(&self, request: Request) -> ResponseFuture {
        let (method, url, base) = (
            request.method,
            request.url.clone(),
            Rc::clone(&self.base_url),
        );
        let limit = self.timeout;
        let answer = self.send_untimed(request);
        Box::pin(async move { within(limit, method, &base, &url, answer).await })
    }

    /// [`send`](Self::send) with no time limit: an endpoint's call sets
    /// its own, around the whole exchange.
    pub(crate) fn send_untimed(&self, request: Request) -> ResponseFuture {
        let Request {
            method,
            url,
            body,
            headers: own,
            binary,
        } = request;
        let url = resolve(&self.base_url, &url);
        let own_type = own.contains_key(header::CONTENT_TYPE);
        let mut headers = self.hook_headers();
        headers.extend(own);
        let secrets = secrets_of(&headers);
        // A request's own `Accept` (`image/*`) stands.
        let accept = match binary {
            true => "*/*",
            false => "application/json",
        };
        headers
            .entry(header::ACCEPT)
            .or_insert(HeaderValue::from_static(accept));
        if let Some(body) = &body {
            // A request's own type (`application/merge-patch+json`) stands.
            // A hook's is a flavour of JSON (`application/vnd.api+json`):
            // it covers JSON bodies; text, bytes and forms keep their own.
            let hook_type =
                headers.contains_key(header::CONTENT_TYPE) && matches!(body, Body::Json(_));
            if !own_type
                && !hook_type
                && let Ok(content_type) = HeaderValue::from_str(body.content_type())
            {
                headers.insert(header::CONTENT_TYPE, content_type);
            }
        }
        let max_body = self.max_body;
        let answer = self.transport.send(Outgoing {
            method,
            url: url.clone(),
            headers,
            body,
            read_limit: max_body,
        });
        let sent = Rc::new(Sent {
            method,
            url,
            secrets,
        });
        Box::pin(async move {
            let attempt = Attempt::sent(&sent);
            let Incoming {
                status,
                headers,
                mut body,
            } = answer.await.map_err(|e| {
                let kind = match e.is_too_large() {
                    true => ErrorKind::TooLarge { limit: max_body },
                    false => ErrorKind::Network(e.message().to_owned()),
                };
                match e.status() {
                    Some(status) => attempt.answered(status, "", kind),
                    None => attempt.failed(kind),
                }
            })?;
            if !(200..300).contains(&status) {
                let excerpt = &body[..body.len().min(ERROR_BODY_BYTES)];
                let text = String::from_utf8_lossy(excerpt);
                return Err(attempt.answered(status, &text, ErrorKind::Status));
            }
            if body.len() > max_body {
                return Err(attempt.answered(status, "", ErrorKind::TooLarge { limit: max_body }));
            }
            if binary {
                return Ok(Response {
                    status,
                    headers,
                    body: String::new(),
                    bytes: Some(body),
                    sent: Some(Rc::clone(&sent)),
                });
            }
            // A byte-order mark is not part of the text (a browser's
            // `response.json()` drops it too).
            if body.starts_with(&[0xEF, 0xBB, 0xBF]) {
                body.drain(..3);
            }
            match String::from_utf8(body) {
                Ok(text) => Ok(Response {
                    status,
                    headers,
                    body: text,
                    bytes: None,
                    sent: Some(Rc::clone(&sent)),
                }),
                Err(not_utf8) => Err(attempt.answered(
                    status,
                    "",
                    ErrorKind::Decode(crate::error::SchemaError::not_utf8(
                        not_utf8.utf8_error().valid_up_to(),
                    )),
                )),
            }
        })
    }
}

/// How much of an error response's body is read: enough for its excerpt.
pub(crate) const ERROR_BODY_BYTES: usize = 4 * 1024;

/// The values of `headers` (those the client sends beside its own
/// `Accept` and `Content-Type`): what no error may show. A value that
/// names a scheme before its credentials (`Bearer tok-…`, `Basic …`)
/// gives its credentials alone too, as a server that refuses them
/// quotes them.
fn secrets_of(headers: &HeaderMap) -> Vec<String> {
    let values: Vec<&str> = headers
        .values()
        .filter_map(|value| value.to_str().ok())
        .collect();
    let credentials = values.iter().filter_map(|value| credentials_of(value));
    let credentials: Vec<&str> = credentials.collect();
    values
        .into_iter()
        .chain(credentials)
        .map(str::to_owned)
        .collect()
}

/// The credentials of a header value written `<scheme> <credentials>`.
fn credentials_of(value: &str) -> Option<&str> {
    let (scheme, credentials) = value.trim().split_once(' ')?;
    let credentials = credentials.trim();
    let named = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    (named && !credentials.is_empty() && !credentials.contains(' ')).then_some(credentials)
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.base_url)
            .field("headers", &self.headers.as_ref().map(|_| "hook"))
            .finish_non_exhaustive()
    }
}

/// `work`, unless `limit` passes first: then a timeout naming the request
/// (`method`, and `url` on `base`).
pub(crate) async fn within<T>(
    limit: std::time::Duration,
    method: Method,
    base: &str,
    url: &str,
    work: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    let work = std::pin::pin!(work);
    match select(work, futures_timer::Delay::new(limit)).await {
        Either::Left((outcome, _)) => outcome,
        Either::Right(((), _)) => {
            Err(Attempt::new(method, &resolve(base, url)).failed(ErrorKind::Timeout(limit)))
        }
    }
}

/// `url` when absolute, else the path `url` on `base`; a query of the
/// base (an API key) goes after the path's own. Under a base that is a
/// path (`/api`), a URL made under it already stays as it is.
///
/// ```
/// use restcache::http::resolve;
/// assert_eq!(resolve("/api", "/api/todos/1"), "/api/todos/1");
/// assert_eq!(resolve("http://h:1", "/todos/1"), "http://h:1/todos/1");
/// assert_eq!(resolve("http://h:1", "https://elsewhere/x"), "https://elsewhere/x");
/// assert_eq!(resolve("http://h:1/api?key=K", "/todos?done=1"), "http://h:1/api/todos?done=1&key=K");
/// ```
pub fn resolve(base: &str, url: &str) -> String {
    if url.starts_with("http://") || url.starts_with("https://") || under_path_base(base, url) {
        return url.to_owned();
    }
    let (base, base_query) = base.split_once('?').unwrap_or((base, ""));
    let base = base.trim_end_matches('/');
    let path = url.strip_prefix('/').unwrap_or(url);
    match (base_query, path.contains('?')) {
        ("", _) => format!("{base}/{path}"),
        (query, true) => format!("{base}/{path}&{query}"),
        (query, false) => format!("{base}/{path}?{query}"),
    }
}

/// Whether `url` stands under `base` already, when `base` is a path
/// (`/api`, an API on the page's own origin): an endpoint's URL
/// (`/api/todos/1`) is made under its base, and is not put under it again.
fn under_path_base(base: &str, url: &str) -> bool {
    let base = base.split_once('?').map_or(base, |(path, _)| path);
    is_path(base)
        && url
            .strip_prefix(base.trim_end_matches('/'))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?']))
}

/// Whether `url` is a path on the page's own origin (`/api`), not a
/// URL of its own nor one relative to its scheme (`//host/api`).
pub(crate) fn is_path(url: &str) -> bool {
    url.starts_with('/') && !url.starts_with("//")
}

/// The origin of the page the app runs in (`https://app.example`), in a
/// browser; `None` elsewhere, or for an opaque origin (`file://`).
pub(crate) fn page_origin() -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        let origin = web_sys::window()?.location().origin().ok()?;
        (origin != "null").then_some(origin)
    }
    #[cfg(not(target_arch = "wasm32"))]
    None
}

/// The origin of the absolute URL `url` (`https://api.example:8080`),
/// and the rest of it.
pub(crate) fn split_origin(url: &str) -> (&str, &str) {
    let host = url.find("://").map_or(0, |scheme| scheme + 3);
    let end = url[host..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| host + at);
    url.split_at(end)
}

/// Where `target`, a link in the response to `base` (a `Link` header's
/// target), leads, as links are read on the web: an absolute URL as it
/// is; `//host/…` on `base`'s scheme; `/path` on its origin; `?query`
/// on its path; any other path beside its last segment.
pub(crate) fn resolve_link(base: &str, target: &str) -> String {
    let scheme = target.split_once("://").map(|(scheme, _)| scheme);
    let absolute = scheme.is_some_and(|scheme| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if absolute {
        return target.to_owned();
    }
    let (origin, rest) = split_origin(base);
    if let Some(elsewhere) = target.strip_prefix("//") {
        // On a base that is a path, the page's scheme: it stays as it is.
        return match base.find("://") {
            Some(end) => format!("{}{elsewhere}", &base[..end + 3]),
            None => target.to_owned(),
        };
    }
    let path = rest.split(['?', '#']).next().unwrap_or("");
    if target.starts_with('/') {
        format!("{origin}{target}")
    } else if target.starts_with('?') {
        format!("{origin}{path}{target}")
    } else {
        let dir = path.rfind('/').map_or("/", |slash| &path[..=slash]);
        format!("{origin}{dir}{target}")
    }
}
