//! The one error of a request: what was asked, what came back, and
//! whether cached data may still be shown.

use std::fmt;
use std::sync::Arc;

use super::Method;
use super::response::Sent;
use crate::error::{SchemaError, UrlError};
use crate::text;

/// The longest body excerpt an error keeps, in characters.
pub const EXCERPT_CHARS: usize = 256;

/// Why a request failed: its method and URL, the status and a bounded
/// excerpt of the body when a response came, and what went wrong. It never
/// holds the request's headers (auth tokens stay out of logs), and masks
/// their values wherever the response quotes them.
///
/// Errors are *soft* (a 5xx status, no response at all, no answer in
/// time) or *hard* (a 4xx status, a body that does not decode, params
/// that make no URL, a mistake in a declaration): a cache keeps showing
/// data it has through a soft error and hands a hard one to the nearest
/// error boundary.
///
/// Its text is whole on its own (what a boundary shows a person: method,
/// URL, status, what went wrong, the excerpt), on one line and bounded;
/// [`source`](std::error::Error::source) gives the typed cause beneath it
/// (a [`SchemaError`], a [`UrlError`]) to code that walks error chains.
///
/// ```
/// use restcache::http::{Error, ErrorKind, Method};
///
/// let err = Error::http_status(Method::Get, "http://127.0.0.1:8080/todos/1", 503, "upstream down");
/// assert!(err.is_soft());
/// assert_eq!(err.status(), Some(503));
/// assert_eq!(err.to_string(), "GET http://127.0.0.1:8080/todos/1: HTTP 503: upstream down");
/// assert!(Error::http_status(Method::Get, "http://h/x", 404, "").is_hard());
/// ```
#[derive(Clone, PartialEq)]
pub struct Error(Arc<Details>);

/// The longest URL an error shows, in characters (its start and end kept).
const URL_CHARS: usize = 300;

/// The longest message (of a network failure, a panic) an error keeps, in
/// characters.
const MESSAGE_CHARS: usize = 300;

/// The request an error is about: its method and URL, and the values (of
/// the headers sent with it) that its text must never show.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Attempt<'a> {
    pub method: Method,
    pub url: &'a str,
    pub secrets: &'a [String],
}

impl<'a> Attempt<'a> {
    /// An attempt at `method` `url`, with no secret to hide.
    pub fn new(method: Method, url: &'a str) -> Self {
        Attempt {
            method,
            url,
            secrets: &[],
        }
    }

    /// The request as it was sent.
    pub fn sent(sent: &'a Sent) -> Self {
        Attempt {
            method: sent.method,
            url: &sent.url,
            secrets: &sent.secrets,
        }
    }

    /// The request failed with no response to show: `kind`.
    pub fn failed(self, kind: ErrorKind) -> Error {
        self.error(None, "", kind)
    }

    /// The response (`status`, `body`) did not do: `kind`.
    pub fn answered(self, status: u16, body: &str, kind: ErrorKind) -> Error {
        self.error(Some(status), body, kind)
    }

    /// The error, every text in it bounded, on one line, and without
    /// credentials or secrets.
    fn error(self, status: Option<u16>, body: &str, kind: ErrorKind) -> Error {
        let bounded = |message: &str| {
            let message = text::masked(&text::without_userinfo(message), self.secrets);
            text::one_line(&message, MESSAGE_CHARS)
        };
        let kind = match kind {
            ErrorKind::Network(message) => ErrorKind::Network(bounded(&message)),
            ErrorKind::Panicked(message) => ErrorKind::Panicked(bounded(&message)),
            ErrorKind::Decode(error) => ErrorKind::Decode(error.masked(self.secrets)),
            ErrorKind::Optimistic(error) => ErrorKind::Optimistic(error.masked(self.secrets)),
            ErrorKind::KeyClash { key } => ErrorKind::KeyClash {
                key: text::url(&key, URL_CHARS),
            },
            ErrorKind::ForeignNextPage { next } => ErrorKind::ForeignNextPage {
                next: text::url(&next, URL_CHARS),
            },
            ErrorKind::GraphQl(errors) => ErrorKind::GraphQl(
                errors
                    .into_iter()
                    .map(|error| super::GraphQlError {
                        message: bounded(&error.message),
                        path: error.path,
                    })
                    .collect(),
            ),
            kind => kind,
        };
        Error(Arc::new(Details {
            method: self.method,
            url: text::url(self.url, URL_CHARS),
            status,
            excerpt: excerpt(body, self.secrets),
            kind,
        }))
    }
}

/// What an [`Error`] holds, behind a pointer so that a `Result` carrying
/// one stays small, and shared so that a copy of the error (each view
/// that shows it gets one) copies nothing.
#[derive(Debug, PartialEq)]
struct Details {
    method: Method,
    url: String,
    status: Option<u16>,
    excerpt: String,
    kind: ErrorKind,
}

/// What went wrong, beside the method, URL and status.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The server answered with a status that is not a success.
    Status,
    /// No response: refused connection, DNS, TLS, a dropped connection;
    /// or, with a status, an answer whose body broke off.
    Network(String),
    /// No answer, or no whole body, within the time limit.
    Timeout(std::time::Duration),
    /// The body is longer than the client's limit (reading stopped there).
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The response body does not fit the endpoint's schema (HTML where
    /// JSON was expected, a missing field, a record without its pk).
    Decode(SchemaError),
    /// The params make no URL: no request was made.
    Url(UrlError),
    /// A mutation's optimistic value does not fit the endpoint's schema
    /// (a record without its pk): nothing was shown, and the request was
    /// not made.
    Optimistic(SchemaError),
    /// A fetch or decode function panicked (natively; in a browser a
    /// panic ends the program).
    Panicked(String),
    /// Two endpoints with different schemas name their reads with one
    /// cache key: a mistake in their declarations (give one another path
    /// or key function).
    KeyClash {
        /// The key both use.
        key: String,
    },
    /// The list names its next page on another origin than its own: not
    /// followed (the client's headers would go there).
    ForeignNextPage {
        /// Where the list says its next page is.
        next: String,
    },
    /// The list names its next page by a param value, and the endpoint
    /// has no page param: declare it with `paginated_by`.
    NoPageParam,
    /// The cached list cannot grow by pages: its schema is not a list, a
    /// `Page`, or an envelope with one nested list.
    NotPageable,
    /// A successful GraphQL answer carries `errors` (a field the server
    /// could not resolve): a hard error, its `data` left unread. An
    /// answer with a 4xx or 5xx status is [`Status`](Self::Status), its
    /// body in the excerpt.
    GraphQl(Vec<super::GraphQlError>),
    /// The cache was reset (a log-out) while the mutation waited for the
    /// network: it was not sent, so the next session sends nothing in the
    /// last one's name.
    Reset,
}

impl Error {
    /// A response with a non-success `status` and `body`.
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// let err = Error::http_status(Method::Delete, "http://h/todos/1", 409, "in use");
    /// assert_eq!(err.to_string(), "DELETE http://h/todos/1: HTTP 409: in use");
    /// ```
    pub fn http_status(method: Method, url: &str, status: u16, body: &str) -> Self {
        Attempt::new(method, url).answered(status, body, ErrorKind::Status)
    }

    /// The method.
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// assert_eq!(Error::http_status(Method::Put, "http://h/x", 500, "").method(), Method::Put);
    /// ```
    pub fn method(&self) -> Method {
        self.0.method
    }

    /// The URL asked for (the path template when params made no URL).
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// assert_eq!(Error::http_status(Method::Get, "http://h/x", 500, "").url(), "http://h/x");
    /// ```
    pub fn url(&self) -> &str {
        &self.0.url
    }

    /// The response status, if a response came.
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// assert_eq!(Error::http_status(Method::Get, "http://h/x", 404, "").status(), Some(404));
    /// ```
    pub fn status(&self) -> Option<u16> {
        self.0.status
    }

    /// The start of the response body, at most [`EXCERPT_CHARS`]
    /// characters, on one line.
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// let err = Error::http_status(Method::Get, "http://h/x", 404, "no\nsuch todo");
    /// assert_eq!(err.excerpt(), "no such todo");
    /// ```
    pub fn excerpt(&self) -> &str {
        &self.0.excerpt
    }

    /// What went wrong.
    ///
    /// ```
    /// use restcache::http::{Error, ErrorKind, Method};
    /// let err = Error::http_status(Method::Get, "http://h/x", 404, "");
    /// assert_eq!(err.kind(), &ErrorKind::Status);
    /// ```
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// A server error (5xx), no response, or no response in time: cached
    /// data stays on show, and a read may try again.
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// assert!(Error::http_status(Method::Get, "http://h/x", 502, "").is_soft());
    /// ```
    pub fn is_soft(&self) -> bool {
        matches!(self.0.kind, ErrorKind::Network(_) | ErrorKind::Timeout(_))
            || (matches!(self.0.kind, ErrorKind::Status) && self.0.status.is_some_and(|s| s >= 500))
    }

    /// Not soft: a 4xx, a body that does not decode, a bad request, a
    /// mistake in a declaration.
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// assert!(Error::http_status(Method::Get, "http://h/x", 401, "").is_hard());
    /// ```
    pub fn is_hard(&self) -> bool {
        !self.is_soft()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.0.method, self.0.url)?;
        let status = self.0.status.unwrap_or_default();
        match &self.0.kind {
            ErrorKind::Status => write!(f, "HTTP {status}")?,
            ErrorKind::Network(message) if status > 0 => {
                write!(f, "HTTP {status}: the body broke off ({message})")?;
            }
            ErrorKind::Network(message) => write!(f, "no response ({message})")?,
            ErrorKind::Timeout(limit) => {
                write!(f, "no answer within {}", crate::text::duration(*limit))?;
            }
            ErrorKind::TooLarge { limit } if status > 0 => {
                write!(f, "HTTP {status}: the body is longer than {limit} bytes")?;
            }
            ErrorKind::TooLarge { limit } => write!(f, "the body is longer than {limit} bytes")?,
            ErrorKind::Decode(error) => write!(f, "{error}")?,
            ErrorKind::Url(error) => write!(f, "{error}")?,
            ErrorKind::Optimistic(error) => {
                write!(f, "the optimistic value was not sent: {error}")?;
            }
            ErrorKind::Panicked(message) => write!(f, "the request panicked: {message}")?,
            ErrorKind::KeyClash { key } => write!(
                f,
                "two endpoints with different schemas share the cache key `{key}`"
            )?,
            ErrorKind::ForeignNextPage { next } => write!(
                f,
                "the next page `{next}` is on another origin than the list: not followed"
            )?,
            ErrorKind::NoPageParam => f.write_str(
                "the list names its next page by a param value, but the endpoint has no page \
                 param: declare it with `paginated_by`",
            )?,
            ErrorKind::NotPageable => f.write_str(
                "the cached list cannot grow by pages: its schema is not a list, a `Page`, or \
                 an envelope with one nested list",
            )?,
            ErrorKind::Reset => {
                f.write_str("not sent: the cache was reset while it waited for the network")?;
            }
            ErrorKind::GraphQl(errors) => {
                f.write_str("GraphQL: ")?;
                for (at, error) in errors.iter().enumerate() {
                    if at > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{error}")?;
                }
            }
        }
        if !self.0.excerpt.is_empty() {
            write!(f, ": {}", self.0.excerpt)?;
        }
        Ok(())
    }
}

/// Shows the fields as a plain struct would: `Error { method, url, status, .. }`.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Details {
            method,
            url,
            status,
            excerpt,
            kind,
        } = &*self.0;
        f.debug_struct("Error")
            .field("method", method)
            .field("url", url)
            .field("status", status)
            .field("excerpt", excerpt)
            .field("kind", kind)
            .finish()
    }
}

/// The typed cause beneath the error: what a response did not fit, or why
/// params made no URL.
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ErrorKind::Decode(error) | ErrorKind::Optimistic(error) => Some(error),
            ErrorKind::Url(error) => Some(error),
            _ => None,
        }
    }
}

/// The first [`EXCERPT_CHARS`] characters of `body`, on one line, marked
/// when cut, every secret masked.
fn excerpt(body: &str, secrets: &[String]) -> String {
    // Only the start of a body can show: its start on one line (a run of
    // spaces as one space), long enough for the excerpt and any secret
    // that starts inside it, masked, then cut.
    let longest = secrets.iter().map(|s| s.chars().count()).max();
    let start = text::one_line(body, EXCERPT_CHARS + longest.unwrap_or(0));
    text::one_line(&text::masked(&start, secrets), EXCERPT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_bounded_on_a_char_boundary() {
        let long = "é".repeat(1000);
        let err = Error::http_status(Method::Get, "http://h/x", 500, &long);
        assert_eq!(err.excerpt().chars().count(), EXCERPT_CHARS + 1);
        assert!(err.excerpt().ends_with('…'));
    }
}
