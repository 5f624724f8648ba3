//! A successful response: status, headers and body, with what servers say
//! in headers (pagination in `Link` and `X-Total-Count`, a created
//! record's `Location`), and what was sent for it.

use std::rc::Rc;

use reqwest::header::HeaderMap;

use super::Method;

/// A successful (2xx) response.
///
/// ```
/// use restcache::http::{HeaderValue, Response};
///
/// let mut response = Response::new(200, "[]");
/// response.headers.insert("x-total-count", HeaderValue::from_static("42"));
/// response.headers.insert("link", HeaderValue::from_static(
///     r#"</todos?_page=1>; rel="first", </todos?_page=3>; rel="next""#,
/// ));
/// assert_eq!(response.total_count(), Some(42));
/// assert_eq!(response.link("next"), Some("/todos?_page=3"));
/// assert_eq!(response.link("prev"), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// The status, 200 to 299.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body's text; empty for a 204, and for bytes.
    pub body: String,
    /// The body's bytes, when the request expected bytes
    /// ([`Request::expecting_bytes`](super::Request::expecting_bytes)):
    /// an image, a file. `None` for text.
    pub bytes: Option<Vec<u8>>,
    /// What the client sent for it (`None` for a response made by hand).
    pub(crate) sent: Option<Rc<Sent>>,
}

/// The request a response answers, as it was sent: what an error about
/// the response names, and the header values it must never show.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Sent {
    pub method: Method,
    pub url: String,
    /// The values of the headers sent beside the client's own `Accept`
    /// and `Content-Type` (the header hook's, the request's own).
    pub secrets: Vec<String>,
}

impl Response {
    /// A response with `status` and `body`, and no headers.
    ///
    /// ```
    /// use restcache::http::Response;
    /// assert_eq!(Response::new(201, "{}").status, 201);
    /// ```
    pub fn new(status: u16, body: impl Into<String>) -> Self {
        Response {
            status,
            headers: HeaderMap::new(),
            body: body.into(),
            bytes: None,
            sent: None,
        }
    }

    /// A successful response of bytes, as a request that expected bytes
    /// gets them (a test's, or a fetch function's).
    ///
    /// ```
    /// use restcache::http::Response;
    /// let response = Response::of_bytes(200, vec![0xff, 0xd8]);
    /// assert_eq!(response.bytes.as_deref(), Some(&[0xff, 0xd8][..]));
    /// assert_eq!(response.body, "");
    /// ```
    pub fn of_bytes(status: u16, bytes: impl Into<Vec<u8>>) -> Self {
        Response {
            bytes: Some(bytes.into()),
            ..Response::new(status, "")
        }
    }

    /// The value of the header `name` (any case), when it is text.
    ///
    /// ```
    /// use restcache::http::{HeaderValue, Response};
    /// let mut response = Response::new(200, "");
    /// response.headers.insert("etag", HeaderValue::from_static("\"v7\""));
    /// assert_eq!(response.header("ETag"), Some("\"v7\""));
    /// ```
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    /// The `X-Total-Count` header: how many records the whole collection
    /// holds, when the server pages it.
    pub fn total_count(&self) -> Option<u64> {
        self.header("x-total-count")?.trim().parse().ok()
    }

    /// The `Location` header: where a created record lives.
    pub fn location(&self) -> Option<&str> {
        self.header("location")
    }

    /// The target of the `Link` header's link with relation `rel`
    /// (`first`, `prev`, `next`, `last`), as RFC 8288 writes them:
    /// `<url>; rel="next", <url>; rel="last"`. Every `Link` header counts.
    pub fn link(&self, rel: &str) -> Option<&str> {
        self.headers
            .get_all("link")
            .iter()
            // UTF-8 text (a title may hold any), not only visible ASCII.
            .filter_map(|value| std::str::from_utf8(value.as_bytes()).ok())
            .flat_map(links)
            .find(|(_, rels)| {
                rels.split_ascii_whitespace()
                    .any(|r| r.eq_ignore_ascii_case(rel))
            })
            .map(|(target, _)| target)
    }
}

/// `text` up to its first `stop` outside double quotes, and the rest
/// (from that `stop`).
fn split_unquoted(text: &str, stop: char) -> (&str, &str) {
    let mut quoted = false;
    for (at, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            c if c == stop && !quoted => return text.split_at(at),
            _ => {}
        }
    }
    (text, "")
}

/// The links of one `Link` header value: each target with its `rel`
/// (space-separated relations). A target is read whole between `<` and
/// `>` (it may hold commas); its params run to the next `,` outside
/// quotes, and each to the next `;` outside quotes.
fn links(value: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = value;
    std::iter::from_fn(move || {
        loop {
            let open = rest.find('<')?;
            let close = open + rest[open..].find('>')?;
            let target = &rest[open + 1..close];
            let (params, after) = split_unquoted(&rest[close + 1..], ',');
            rest = after;
            let mut unread = params;
            let mut params = std::iter::from_fn(|| {
                let (param, after) = split_unquoted(unread.trim_start().strip_prefix(';')?, ';');
                unread = after;
                Some(param)
            });
            let rel = params.find_map(|param| {
                let (name, value) = param.split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case("rel")
                    .then(|| value.trim().trim_matches('"'))
            });
            if let Some(rel) = rel {
                return Some((target, rel));
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn with_links(values: &[&'static str]) -> Response {
        let mut response = Response::new(200, "");
        for value in values {
            response
                .headers
                .append("link", HeaderValue::from_static(value));
        }
        response
    }

    #[test]
    fn links_are_found_by_relation_across_headers_and_forms() {
        let response = with_links(&[
            r#"<https://api.example/items?page=1>; rel="first",<https://api.example/items?page=2>;rel=next"#,
            r#"<https://api.example/items?page=9>; title="end"; rel="last prev""#,
        ]);
        assert_eq!(
            response.link("first"),
            Some("https://api.example/items?page=1")
        );
        assert_eq!(
            response.link("NEXT"),
            Some("https://api.example/items?page=2")
        );
        assert_eq!(
            response.link("last"),
            Some("https://api.example/items?page=9")
        );
        assert_eq!(
            response.link("prev"),
            Some("https://api.example/items?page=9")
        );
        assert_eq!(response.link("self"), None);
    }

    #[test]
    fn a_target_may_hold_commas() {
        let response = with_links(&[
            r#"<https://api/x?sort=-created,id&page=2>; rel="next", <https://api/x?sort=-created,id&page=9>; rel="last""#,
        ]);
        assert_eq!(
            response.link("next"),
            Some("https://api/x?sort=-created,id&page=2")
        );
        assert_eq!(
            response.link("last"),
            Some("https://api/x?sort=-created,id&page=9")
        );
    }

    #[test]
    fn quoted_params_and_text_beyond_ascii_leave_the_links_readable() {
        let mut response = with_links(&[r#"<a> ; title="x; rel=next"; rel="prev""#]);
        let titled = "<b>; title=\"Página 2\"; rel=\"next\"";
        let value = HeaderValue::from_bytes(titled.as_bytes()).unwrap();
        response.headers.append("link", value);
        assert_eq!(response.link("prev"), Some("a"));
        assert_eq!(response.link("next"), Some("b"));
    }

    #[test]
    fn a_malformed_link_header_finds_nothing() {
        let response = with_links(&["https://no-brackets; rel=next", "<x>; rel"]);
        assert_eq!(response.link("next"), None);
    }
}
