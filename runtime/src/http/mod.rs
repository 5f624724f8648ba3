//! HTTP through reqwest: the client and its shared fetch helper, methods,
//! request bodies, and the one error type of a request. It knows nothing
//! of endpoints or the cache: `rest` and `controller` build on it.

mod body;
mod error;
mod method;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

pub use reqwest::header::{self, HeaderMap, HeaderValue};

pub use body::Body;
pub use error::{EXCERPT_CHARS, Error, ErrorKind};
pub use method::{Method, Request};

pub(crate) use error::Attempt;

/// What a fetch function returns: a successful response, or the error.
pub type FetchFuture = Pin<Box<dyn Future<Output = Result<Response, Error>>>>;

/// A successful (2xx) response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The status, 200 to 299.
    pub status: u16,
    /// The body's text; empty for a 204.
    pub body: String,
}

/// Adds headers to every request (an auth token, say).
type HeaderHook = Rc<dyn Fn(&mut HeaderMap)>;

/// Makes the HTTP requests of endpoints: a reqwest client, the base
/// address endpoints without their own `url_prefix` use, and an optional
/// hook that adds headers to every request. Cheap to clone (shared).
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
    http: reqwest::Client,
    base_url: Rc<str>,
    headers: Option<HeaderHook>,
}

impl Client {
    /// A client whose endpoints live under `base_url` (unless they have a
    /// `url_prefix` of their own).
    pub fn new(base_url: impl AsRef<str>) -> Self {
        Client {
            http: reqwest::Client::new(),
            base_url: Rc::from(base_url.as_ref().trim_end_matches('/')),
            headers: None,
        }
    }

    /// This client with `hook` run on the headers of every request.
    pub fn with_headers(mut self, hook: impl Fn(&mut HeaderMap) + 'static) -> Self {
        self.headers = Some(Rc::new(hook));
        self
    }

    /// This client over a reqwest client of your own (timeouts, proxies).
    pub fn with_http(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    /// The base address.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The shared fetch helper, which fetch functions call: a
    /// request with a lowercase method name, a URL (absolute, or a path
    /// on the base address) and an optional body.
    /// Resolves to a successful response (a 204's body is empty); any
    /// other status, or no response, is an [`Error`].
    pub fn fetch(&self, method: &str, url: &str, body: Option<Body>) -> FetchFuture {
        let (method_name, url) = (method.to_owned(), resolve(&self.base_url, url));
        let Some(method) = Method::from_name(method) else {
            let message = format!("`{method}` is not an HTTP method this client makes");
            let attempt = Attempt {
                method: &method_name,
                url: &url,
            };
            let error = attempt.failed(ErrorKind::Request(message));
            return Box::pin(async move { Err(error) });
        };
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        if let Some(hook) = &self.headers {
            hook(&mut headers);
        }
        let mut request = self
            .http
            .request(reqwest_method(method), &url)
            .headers(headers);
        if let Some(body) = body {
            request = request
                .header(header::CONTENT_TYPE, body.content_type())
                .body(match body {
                    Body::Json(text) | Body::Text(text) => text,
                });
        }
        Box::pin(async move {
            let attempt = Attempt {
                method: &method_name,
                url: &url,
            };
            let failed = |e: reqwest::Error| attempt.failed(ErrorKind::Network(cause(&e)));
            let response = request.send().await.map_err(failed)?;
            let status = response.status().as_u16();
            let text = response.text().await.map_err(failed)?;
            if (200..300).contains(&status) {
                Ok(Response { status, body: text })
            } else {
                Err(attempt.answered(status, &text, ErrorKind::Status))
            }
        })
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.base_url)
            .field("headers", &self.headers.as_ref().map(|_| "hook"))
            .finish_non_exhaustive()
    }
}

/// `url` when absolute, else the path `url` on `base`.
///
/// ```
/// use restcache::http::resolve;
/// assert_eq!(resolve("http://h:1", "/todos/1"), "http://h:1/todos/1");
/// assert_eq!(resolve("http://h:1", "https://elsewhere/x"), "https://elsewhere/x");
/// ```
pub fn resolve(base: &str, url: &str) -> String {
    if url.starts_with("http://") || url.starts_with("https://") {
        return url.to_owned();
    }
    let base = base.trim_end_matches('/');
    match url.strip_prefix('/') {
        Some(path) => format!("{base}/{path}"),
        None => format!("{base}/{url}"),
    }
}

fn reqwest_method(method: Method) -> reqwest::Method {
    match method {
        Method::Get => reqwest::Method::GET,
        Method::Post => reqwest::Method::POST,
        Method::Put => reqwest::Method::PUT,
        Method::Patch => reqwest::Method::PATCH,
        Method::Delete => reqwest::Method::DELETE,
    }
}

/// A reqwest error and its causes, one line (no headers: reqwest's
/// messages name the URL and the failure only).
fn cause(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}
