//! Where a client's requests go: over the network through reqwest (the
//! default), or through any [`Transport`] an app gives (answers from
//! memory in tests, a recorder, a delay, another channel). Whatever the
//! transport, the client keeps its own rules: its time limit, its body
//! limit, what a status means, and the masking of the header values it
//! sent.

use std::future::Future;
use std::pin::Pin;

use reqwest::header::HeaderMap;

use super::{Body, ERROR_BODY_BYTES, Method, reading};

/// A request on its way out, as a [`Transport`] sends it: the URL is
/// absolute, and the headers hold all the client adds (its header hook's,
/// the request's own, `Accept`, and `Content-Type` when there is a body).
///
/// ```
/// use restcache::http::{Client, Incoming, Method, Outgoing};
/// use std::{cell::RefCell, rc::Rc};
///
/// let seen = Rc::new(RefCell::new(None));
/// let keep = Rc::clone(&seen);
/// let client = Client::new("http://api.test").with_transport(move |request: Outgoing| {
///     keep.replace(Some(request));
///     async { Ok(Incoming::new(204, "")) }
/// });
/// # restcache_demo::block_on(async {
/// client.request(Method::Post, "/todos", Some(restcache::http::Body::text("hi"))).await?;
/// # Ok::<(), restcache::http::Error>(()) })?;
/// let request = seen.take().unwrap();
/// assert_eq!(request.url, "http://api.test/todos");
/// assert_eq!(request.headers["content-type"], "text/plain; charset=utf-8");
/// assert_eq!(request.body.unwrap().as_str(), Some("hi"));
/// assert_eq!(request.read_limit, restcache::http::DEFAULT_MAX_BODY);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The method.
    pub method: Method,
    /// The absolute URL.
    pub url: String,
    /// Every header to send.
    pub headers: HeaderMap,
    /// The body, if any.
    pub body: Option<Body>,
    /// How many bytes of a body the client accepts: a transport may stop
    /// reading one byte past it (the client fails a longer successful
    /// body as too large), or fail with [`TransportError::too_large`]
    /// without reading one announced longer; it may read no more than the
    /// first 4 KiB of an error's body (all the client shows of it).
    pub read_limit: usize,
}

/// What came back for an [`Outgoing`] request: any status (the client
/// judges it), the headers, and the body's bytes.
///
/// ```
/// use restcache::http::Incoming;
/// let answer = Incoming::new(200, r#"{"id": 1}"#);
/// assert_eq!(answer.body, br#"{"id": 1}"#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incoming {
    /// The status, any of them.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Vec<u8>,
}

impl Incoming {
    /// An answer with `status` and `body`, and no headers.
    ///
    /// ```
    /// use restcache::http::Incoming;
    /// assert_eq!(Incoming::new(404, "").status, 404);
    /// ```
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Incoming {
            status,
            headers: HeaderMap::new(),
            body: body.into(),
        }
    }
}

/// No answer came (the connection failed, or the transport could not
/// send), or one broke off: the client turns it into a soft network
/// error of its request. With no answer at all, a mutation that waited
/// for the network keeps waiting and is sent again; one whose answer
/// broke off may have been applied, and is not.
///
/// ```
/// use restcache::http::TransportError;
/// assert_eq!(TransportError::new("connection refused").to_string(), "connection refused");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct TransportError(Failure);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Failure {
    Network(String),
    BrokenOff {
        status: u16,
        message: String,
    },
    /// With the status of the answer whose body it was, when one came.
    TooLarge(Option<u16>),
}

impl TransportError {
    /// A failure described by `message` (one line; no secrets in it).
    pub fn new(message: impl Into<String>) -> Self {
        TransportError(Failure::Network(message.into()))
    }

    /// The server answered with `status`, but its body broke off
    /// (`message` says how): the request reached the server, so it may
    /// have done what it asked. The client's error keeps the status.
    ///
    /// ```
    /// use restcache::http::{Client, ErrorKind, Method, Outgoing, TransportError};
    ///
    /// let client = Client::new("http://api.test")
    ///     .with_transport(|_: Outgoing| async { Err(TransportError::broken_off(200, "reset")) });
    /// # restcache_demo::block_on(async {
    /// let failed = client.request(Method::Post, "/todos", None).await.unwrap_err();
    /// assert!(matches!(failed.kind(), ErrorKind::Network(_)));
    /// assert_eq!(failed.status(), Some(200));
    /// # });
    /// ```
    pub fn broken_off(status: u16, message: impl Into<String>) -> Self {
        TransportError(Failure::BrokenOff {
            status,
            message: message.into(),
        })
    }

    /// The status of an answer whose body broke off
    /// ([`broken_off`](Self::broken_off)); `None` when no answer came.
    ///
    /// ```
    /// use restcache::http::TransportError;
    /// assert_eq!(TransportError::broken_off(200, "reset").status(), Some(200));
    /// assert_eq!(TransportError::new("refused").status(), None);
    /// ```
    pub fn status(&self) -> Option<u16> {
        match &self.0 {
            Failure::BrokenOff { status, .. } | Failure::TooLarge(Some(status)) => Some(*status),
            Failure::Network(_) | Failure::TooLarge(None) => None,
        }
    }

    /// The answer's body is longer than the request's
    /// [`read_limit`](Outgoing::read_limit) (announced so, or read past
    /// it): the client fails the request as too large, a hard error.
    ///
    /// ```
    /// use restcache::http::{Client, ErrorKind, Method, Outgoing, TransportError};
    ///
    /// let client = Client::new("http://api.test")
    ///     .with_transport(|_: Outgoing| async { Err(TransportError::too_large()) });
    /// # restcache_demo::block_on(async {
    /// let failed = client.request(Method::Get, "/export", None).await.unwrap_err();
    /// assert!(matches!(failed.kind(), ErrorKind::TooLarge { .. }));
    /// # });
    /// ```
    pub fn too_large() -> Self {
        TransportError(Failure::TooLarge(None))
    }

    /// [`too_large`](Self::too_large) for an answer of `status`, which
    /// the client's error keeps.
    ///
    /// ```
    /// use restcache::http::TransportError;
    /// let error = TransportError::too_large_answer(200);
    /// assert!(error.is_too_large());
    /// assert_eq!(error.status(), Some(200));
    /// ```
    pub fn too_large_answer(status: u16) -> Self {
        TransportError(Failure::TooLarge(Some(status)))
    }

    /// Whether the body was too long ([`too_large`](Self::too_large)).
    ///
    /// ```
    /// use restcache::http::TransportError;
    /// assert!(TransportError::too_large().is_too_large());
    /// assert!(!TransportError::new("reset").is_too_large());
    /// ```
    pub fn is_too_large(&self) -> bool {
        matches!(self.0, Failure::TooLarge(_))
    }

    /// What went wrong.
    ///
    /// ```
    /// use restcache::http::TransportError;
    /// assert_eq!(TransportError::new("reset").message(), "reset");
    /// ```
    pub fn message(&self) -> &str {
        match &self.0 {
            Failure::Network(message) | Failure::BrokenOff { message, .. } => message,
            Failure::TooLarge(_) => "the body is longer than the limit",
        }
    }
}

/// What a transport returns: the answer, or why none came.
///
/// ```
/// use restcache::http::{Incoming, TransportFuture};
/// let answer: TransportFuture = Box::pin(async { Ok(Incoming::new(200, "[]")) });
/// # let _ = answer;
/// ```
pub type TransportFuture = Pin<Box<dyn Future<Output = Result<Incoming, TransportError>>>>;

/// Sends a client's requests. A closure `Fn(Outgoing) -> impl Future<Output
/// = Result<Incoming, TransportError>>` is one.
///
/// ```
/// use restcache::http::{Client, Incoming, Method, Outgoing, TransportError};
///
/// let client = Client::new("http://api.test").with_transport(|request: Outgoing| async move {
///     match request.url.as_str() {
///         "http://api.test/todos/1" => Ok(Incoming::new(200, r#"{"id": 1}"#)),
///         _ => Err(TransportError::new("unknown host")),
///     }
/// });
/// # restcache_demo::block_on(async {
/// let response = client.request(Method::Get, "/todos/1", None).await?;
/// assert_eq!(response.body, r#"{"id": 1}"#);
/// let failed = client.request(Method::Get, "/users", None).await.unwrap_err();
/// assert!(failed.is_soft());
/// # Ok::<(), restcache::http::Error>(()) })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Transport {
    /// Sends `request` and resolves to what came back.
    fn send(&self, request: Outgoing) -> TransportFuture;
}

impl<F, Fut> Transport for F
where
    F: Fn(Outgoing) -> Fut,
    Fut: Future<Output = Result<Incoming, TransportError>> + 'static,
{
    fn send(&self, request: Outgoing) -> TransportFuture {
        Box::pin(self(request))
    }
}

/// The network, through a reqwest client.
pub(crate) struct Reqwest(pub reqwest::Client);

impl Transport for Reqwest {
    fn send(&self, request: Outgoing) -> TransportFuture {
        let Outgoing {
            method,
            url,
            headers,
            body,
            read_limit,
        } = request;
        let mut sending = self
            .0
            .request(reqwest_method(method), on_this_page(&url).as_ref())
            .headers(headers);
        if let Some(body) = body {
            sending = sending.body(body.into_bytes());
        }
        Box::pin(async move {
            let failed = |e| TransportError::new(cause(e));
            let response = sending.send().await.map_err(failed)?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let body = if (200..300).contains(&status) {
                reading::bytes(response, read_limit)
                    .await
                    .map_err(|e| match e {
                        reading::ReadError::TooLarge => TransportError::too_large_answer(status),
                        reading::ReadError::Network(e) => {
                            TransportError::broken_off(status, cause(e))
                        }
                    })?
            } else {
                // The status says what went wrong: a body that breaks off
                // leaves the excerpt short, not the error unsaid.
                reading::first(response, ERROR_BODY_BYTES).await
            };
            Ok(Incoming {
                status,
                headers,
                body,
            })
        })
    }
}

/// A URL that is a path (`/api/todos/1`, under a base that is one) on
/// the page's own origin, in a browser; anything else as it is.
#[cfg(target_arch = "wasm32")]
fn on_this_page(url: &str) -> std::borrow::Cow<'_, str> {
    match super::is_path(url) {
        true => super::page_origin().map_or(url.into(), |origin| format!("{origin}{url}").into()),
        false => url.into(),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn on_this_page(url: &str) -> std::borrow::Cow<'_, str> {
    url.into()
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

/// A reqwest error and its causes, one line, without the URL (the error
/// names it already) and without headers.
fn cause(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}
