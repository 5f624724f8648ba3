//! The one error of a request: what was asked, what came back, and
//! whether cached data may still be shown.

use std::fmt;

use crate::error::SchemaError;
use crate::error::UrlError;
use crate::text;

/// The longest body excerpt an error keeps, in characters.
pub const EXCERPT_CHARS: usize = 256;

/// Why a request failed: its method and URL, the status and a bounded
/// excerpt of the body when a response came, and what went wrong. It never
/// holds the request's headers (auth tokens stay out of logs).
///
/// Errors are *soft* (a 5xx status, no response at all) or *hard* (a 4xx
/// status, a body that does not decode, params that make no URL): a
/// cache keeps showing data it has through a soft error and hands a hard
/// one to the nearest error boundary.
///
/// ```
/// use restcache::http::{Error, ErrorKind};
///
/// let err = Error::http_status("GET", "http://127.0.0.1:8080/todos/1", 503, "upstream down");
/// assert!(err.is_soft());
/// assert_eq!(err.status(), Some(503));
/// assert_eq!(err.to_string(), "GET http://127.0.0.1:8080/todos/1: HTTP 503: upstream down");
/// assert!(Error::http_status("GET", "http://h/x", 404, "").is_hard());
/// ```
#[derive(Clone, PartialEq, thiserror::Error)]
pub struct Error(Box<Details>);

/// The longest URL an error shows, in characters (its start and end kept).
const URL_CHARS: usize = 300;

/// The longest message (of a network failure, a bad request) an error
/// keeps, in characters.
const MESSAGE_CHARS: usize = 300;

/// The request an error is about: its method and URL, and the values (set
/// by the client's header hook) that its text must never show.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Attempt<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub secrets: &'a [String],
}

impl<'a> Attempt<'a> {
    /// An attempt at `method` `url`, with no secret to hide.
    pub fn new(method: &'a str, url: &'a str) -> Self {
        Attempt {
            method,
            url,
            secrets: &[],
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
        let kind = match kind {
            ErrorKind::Network(message) => ErrorKind::Network(text::one_line(
                &text::without_userinfo(&message),
                MESSAGE_CHARS,
            )),
            ErrorKind::Request(message) => {
                ErrorKind::Request(text::one_line(&message, MESSAGE_CHARS))
            }
            ErrorKind::Decode(error) => ErrorKind::Decode(error.masked(self.secrets)),
            kind => kind,
        };
        Error(Box::new(Details {
            method: text::one_line(self.method, 16).to_ascii_uppercase(),
            url: text::url(self.url, URL_CHARS),
            status,
            excerpt: excerpt(body, self.secrets),
            kind,
        }))
    }
}

/// What an [`Error`] holds, boxed so that a `Result` carrying one stays
/// small.
#[derive(Debug, Clone, PartialEq)]
struct Details {
    method: String,
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
    /// No response: refused connection, DNS, TLS, a dropped connection.
    Network(String),
    /// The response body does not fit the endpoint's schema (HTML where
    /// JSON was expected, a missing field, a record without its pk).
    Decode(SchemaError),
    /// The params make no URL.
    Url(UrlError),
    /// The request could not be made: an unknown method name, a body
    /// that does not serialize, a fetch function that panicked.
    Request(String),
    /// No answer, or no whole body, within the time limit.
    Timeout(std::time::Duration),
    /// The body is longer than the client's limit (reading stopped there).
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
}

impl Error {
    /// A response with a non-success `status` and `body`.
    pub fn http_status(method: &str, url: &str, status: u16, body: &str) -> Self {
        Attempt::new(method, url).answered(status, body, ErrorKind::Status)
    }

    /// The method, uppercase: `"GET"`.
    pub fn method(&self) -> &str {
        &self.0.method
    }

    /// The URL asked for (the path template when params made no URL).
    pub fn url(&self) -> &str {
        &self.0.url
    }

    /// The response status, if a response came.
    pub fn status(&self) -> Option<u16> {
        self.0.status
    }

    /// The start of the response body, at most [`EXCERPT_CHARS`] characters.
    pub fn excerpt(&self) -> &str {
        &self.0.excerpt
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// A server error (5xx), no response, or no response in time: cached
    /// data stays on show, and a read may try again.
    pub fn is_soft(&self) -> bool {
        matches!(self.0.kind, ErrorKind::Network(_) | ErrorKind::Timeout(_))
            || self.0.status.is_some_and(|s| s >= 500)
    }

    /// Not soft: a 4xx, a body that does not decode, a bad request.
    pub fn is_hard(&self) -> bool {
        !self.is_soft()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.0.method, self.0.url)?;
        match &self.0.kind {
            ErrorKind::Status => write!(f, "HTTP {}", self.0.status.unwrap_or_default())?,
            ErrorKind::Network(message) => write!(f, "no response ({message})")?,
            ErrorKind::Decode(error) => write!(f, "{error}")?,
            ErrorKind::Url(error) => write!(f, "{error}")?,
            ErrorKind::Request(message) => write!(f, "{message}")?,
            ErrorKind::Timeout(limit) => write!(f, "no answer within {limit:?}")?,
            ErrorKind::TooLarge { limit } => {
                write!(
                    f,
                    "HTTP {}: the body is longer than {limit} bytes",
                    self.0.status.unwrap_or_default()
                )?;
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

/// The first [`EXCERPT_CHARS`] characters of `body`, on one line, marked
/// when cut, every secret masked.
fn excerpt(body: &str, secrets: &[String]) -> String {
    // Only the start of a body can show: mask a slice of it, long enough
    // for the excerpt and any secret that starts inside it.
    let longest = secrets.iter().map(String::len).max().unwrap_or(0);
    let mut end = (EXCERPT_CHARS * 4 + longest).min(body.len());
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    text::one_line(&text::masked(&body[..end], secrets), EXCERPT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_bounded_on_a_char_boundary() {
        let long = "é".repeat(1000);
        let err = Error::http_status("get", "http://h/x", 500, &long);
        assert_eq!(err.excerpt().chars().count(), EXCERPT_CHARS + 1);
        assert!(err.excerpt().ends_with('…'));
        assert!(err.excerpt().ends_with('…'));
        assert_eq!(err.method(), "GET");
    }
}
