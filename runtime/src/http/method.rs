//! HTTP methods, and the request a fetch function makes.

use std::fmt;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::Body;

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `PATCH`
    Patch,
    /// `DELETE`
    Delete,
}

impl Method {
    /// The method as HTTP spells it: `"GET"`.
    ///
    /// ```
    /// use restcache::http::Method;
    /// assert_eq!(Method::Patch.as_str(), "PATCH");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// The method named `name`, in any case.
    ///
    /// ```
    /// use restcache::http::Method;
    /// assert_eq!(Method::from_name("post"), Some(Method::Post));
    /// assert_eq!(Method::from_name("BREW"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Method> {
        [
            Method::Get,
            Method::Post,
            Method::Put,
            Method::Patch,
            Method::Delete,
        ]
        .into_iter()
        .find(|m| m.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One request to make: what an endpoint hands its fetch function, and
/// what [`Client::send`](super::Client::send) sends.
///
/// Its headers go beside the client's own (`Accept`, and those its header
/// hook sets); no error ever shows their values.
///
/// ```
/// use restcache::http::{Body, HeaderName, HeaderValue, Method, Request};
///
/// let request = Request::new(Method::Post, "/current_user/")
///     .with_body(Body::text("hi"))
///     .with_header(HeaderName::from_static("x-trace"), HeaderValue::from_static("42"));
/// assert_eq!(request.method, Method::Post);
/// assert_eq!(request.headers["x-trace"], "42");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The URL: absolute, or a path on the client's base address.
    pub url: String,
    /// The body, if the call has one.
    pub body: Option<Body>,
    /// Headers of this request alone.
    pub headers: HeaderMap,
    /// Whether the answer is bytes (an image, a file), kept as they came
    /// in [`Response::bytes`](super::Response::bytes), rather than text.
    pub binary: bool,
}

impl Request {
    /// A request with `method` to `url`, with no body and no headers of
    /// its own.
    pub fn new(method: Method, url: impl Into<String>) -> Self {
        Request {
            method,
            url: url.into(),
            body: None,
            headers: HeaderMap::new(),
            binary: false,
        }
    }

    /// This request expecting bytes: the answer is kept as it came, in
    /// [`Response::bytes`](super::Response::bytes), and it accepts any
    /// content type (`Accept: */*`) unless it says otherwise.
    ///
    /// ```
    /// use restcache::http::{Method, Request};
    /// assert!(Request::new(Method::Get, "/files/1").expecting_bytes().binary);
    /// ```
    pub fn expecting_bytes(mut self) -> Self {
        self.binary = true;
        self
    }

    /// This request with `body` (or none).
    pub fn with_body(mut self, body: impl Into<Option<Body>>) -> Self {
        self.body = body.into();
        self
    }

    /// This request with the header `name` set to `value`.
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }
}
