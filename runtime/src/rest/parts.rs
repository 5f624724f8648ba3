//! What an endpoint is made of besides its address: its settings, and
//! the functions that name, make and decode its requests, with their
//! defaults.

use std::rc::Rc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use crate::cache::schema::{Decoded, Schema, from_json};
use crate::error::SchemaError;
use crate::http::{Client, Method, Request, Response, ResponseFuture};

/// Expiry and polling settings of an endpoint; an expiry of `None` takes
/// the controller's.
///
/// ```
/// use restcache::rest::Options;
/// use std::time::Duration;
///
/// let options = Options { data_expiry: Some(Duration::from_secs(30)), ..Options::default() };
/// assert!(!options.invalid_if_stale);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// How long a response stays fresh (the controller's default: 60 s).
    pub data_expiry: Option<Duration>,
    /// How long an error stays (the controller's default: 1 s).
    pub error_expiry: Option<Duration>,
    /// Whether stale data counts as Invalid (fetch and suspend). A view
    /// that waited shows what came after it began to wait even when it
    /// is stale by the time the view renders (a `data_expiry` of zero,
    /// or shorter than that moment), until it reads an answer still
    /// fresh: it would otherwise wait for another answer forever. A view
    /// that did not wait shows nothing stale.
    pub invalid_if_stale: bool,
    /// How often a polled read refetches (`use_poll`, `use_live`); `None`:
    /// never.
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

/// Makes an endpoint's request: it gets the client, the params, and the
/// request the endpoint made from them (method, URL, body), and usually
/// calls the shared helper [`Client::send`] with it, changed or not.
pub type FetchFn<P> = Rc<dyn Fn(&Client, &P, Request) -> ResponseFuture>;

/// Turns a response (its body, and its status and headers when the result
/// needs them: a page's total from `X-Total-Count`, its next page from
/// `Link`) into the endpoint's result. A decoder that reads records from
/// JSON with [`from_json`](crate::from_json) hands its [`Decoded`] on, so
/// that a field the JSON left out keeps its cached value.
pub type DecodeFn<P, S> = fn(&Response, &P) -> Result<Decoded<S>, SchemaError>;

/// The default key: `METHOD url`, e.g. `GET http://127.0.0.1:8080/todos/1`.
///
/// ```
/// use restcache::http::Method;
/// use restcache::rest::{KeyArgs, default_key};
/// let args = KeyArgs { method: Method::Get, url: "http://h/todos", params: &() };
/// assert_eq!(default_key(&args), "GET http://h/todos");
/// ```
pub fn default_key<P>(args: &KeyArgs<'_, P>) -> String {
    format!("{} {}", args.method, args.url)
}

/// The default decoding: the body as JSON of `S` (an empty body as
/// `null`).
///
/// ```
/// use restcache::http::Response;
/// use restcache::rest::decode_json;
/// let value = decode_json::<(), serde_json::Value>(&Response::new(200, "[1, 2]"), &())?;
/// assert_eq!(*value, serde_json::json!([1, 2]));
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub fn decode_json<P, S: Schema + DeserializeOwned>(
    response: &Response,
    _params: &P,
) -> Result<Decoded<S>, SchemaError> {
    if S::BINARY
        && let Some(bytes) = &response.bytes
        && let Some(value) = S::from_bytes(bytes.clone(), response.header("content-type"))
    {
        return Ok(Decoded::from(value));
    }
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
