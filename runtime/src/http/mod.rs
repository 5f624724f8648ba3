//! HTTP through reqwest: the shared fetch helper, request bodies, and the
//! one error type of a request.

mod error;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

pub use reqwest::header::{self, HeaderMap, HeaderValue};
use serde::Serialize;

pub use error::{EXCERPT_CHARS, Error, ErrorKind};

use crate::rest::{Endpoint, Method, Request};

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

/// A request body: JSON (sent as `application/json`) or text (sent as
/// `text/plain`).
///
/// ```
/// use restcache::http::Body;
/// use serde_json::json;
///
/// let body = Body::json(&json!({"title": "milk"}))?;
/// assert_eq!(body.content_type(), "application/json");
/// assert_eq!(body.as_str(), r#"{"title":"milk"}"#);
/// assert_eq!(Body::text("hi").content_type(), "text/plain; charset=utf-8");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Serialized JSON.
    Json(String),
    /// Plain text.
    Text(String),
}

impl Body {
    /// `value` serialized as JSON.
    pub fn json(value: &impl Serialize) -> Result<Body, serde_json::Error> {
        serde_json::to_string(value).map(Body::Json)
    }

    /// A plain text body.
    pub fn text(text: impl Into<String>) -> Body {
        Body::Text(text.into())
    }

    /// The `Content-Type` the body is sent with.
    pub fn content_type(&self) -> &'static str {
        match self {
            Body::Json(_) => "application/json",
            Body::Text(_) => "text/plain; charset=utf-8",
        }
    }

    /// The body's text.
    pub fn as_str(&self) -> &str {
        match self {
            Body::Json(text) | Body::Text(text) => text,
        }
    }
}

impl From<serde_json::Value> for Body {
    fn from(value: serde_json::Value) -> Self {
        Body::Json(value.to_string())
    }
}

/// Adds headers to every request (an auth token, say).
type HeaderHook = Rc<dyn Fn(&mut HeaderMap)>;

/// Makes the HTTP requests of endpoints: a reqwest client, the base
/// address endpoints without their own `url_prefix` use, and an optional
/// hook that adds headers to every request. Cheap to clone (shared).
///
/// ```no_run
/// use restcache::prelude::*;
/// use restcache::http::{Client, HeaderValue, header};
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// # async fn run() -> Result<(), restcache::http::Error> {
/// let client = Client::new("http://127.0.0.1:8080").with_headers(|headers| {
///     headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer secret"));
/// });
/// let todo = client.call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None).await?;
/// println!("{}", todo.title);
/// # Ok(()) }
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

    /// The shared fetch helper (contract, custom endpoints rule 3): a
    /// request with a lowercase method name, a URL and an optional body.
    /// Resolves to a successful response (a 204's body is empty); any
    /// other status, or no response, is an [`Error`].
    pub fn fetch(&self, method: &str, url: &str, body: Option<Body>) -> FetchFuture {
        let (method_name, url) = (method.to_owned(), url.to_owned());
        let Some(method) = Method::from_name(method) else {
            let message = format!("`{method}` is not an HTTP method this client makes");
            let error = Error::new(&method_name, &url, None, "", ErrorKind::Request(message));
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
            let failed = |e: reqwest::Error| {
                Error::new(&method_name, &url, None, "", ErrorKind::Network(cause(&e)))
            };
            let response = request.send().await.map_err(failed)?;
            let status = response.status().as_u16();
            let text = response.text().await.map_err(failed)?;
            if (200..300).contains(&status) {
                Ok(Response { status, body: text })
            } else {
                Err(Error::http_status(&method_name, &url, status, &text))
            }
        })
    }

    /// Makes `endpoint`'s request for `params` (and `body`) and decodes
    /// the response into its schema. An empty body decodes as JSON `null`,
    /// so an endpoint whose schema allows nothing (a delete, an RPC that
    /// answers 204) accepts it and one that needs a record says so.
    pub async fn call<P: Serialize, S>(
        &self,
        endpoint: &Endpoint<P, S>,
        params: &P,
        body: Option<Body>,
    ) -> Result<S, Error> {
        let request = endpoint
            .request(&self.base_url, params, body)
            .map_err(|e| {
                let method = endpoint.method().as_str();
                let path = endpoint.path().source();
                Error::new(method, path, None, "", ErrorKind::Url(e))
            })?;
        self.send(endpoint, params, request).await
    }

    /// [`call`](Self::call) for a caller that already made the request.
    pub(crate) async fn send<P: Serialize, S>(
        &self,
        endpoint: &Endpoint<P, S>,
        params: &P,
        request: Request,
    ) -> Result<S, Error> {
        let method = endpoint.method().as_str();
        let url = request.url.clone();
        let response = endpoint.fetch(self, request).await?;
        let text = response.body.as_str();
        let json = if text.trim().is_empty() { "null" } else { text };
        endpoint.decode(json, params).map_err(|e| {
            Error::new(
                method,
                &url,
                Some(response.status),
                text,
                ErrorKind::Decode(e),
            )
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
