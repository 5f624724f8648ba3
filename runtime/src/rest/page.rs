//! Pagination: where the next page of a list is, and the URL that asks
//! for it. A paginated endpoint names its page param; every page of one
//! list shares one cache key (the key leaves the page param out), and
//! [`Controller::fetch_next_page`](crate::Controller::fetch_next_page)
//! appends each next page to the cached list.

use std::fmt::Write as _;

use percent_encoding::{percent_decode_str, utf8_percent_encode};
use serde::de::DeserializeOwned;

use crate::cache::entity::Entity;
use crate::cache::page::{NextPage, Page};
use crate::cache::schema::from_json;
use crate::error::SchemaError;
use crate::http::Response;
use crate::rest::body_json;
use crate::rest::template::SEGMENT;

/// A list schema that knows where its next page is.
///
/// [`Page`] implements it; an envelope of one's own does in a line:
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::{NextPage, Paged};
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Post { id: u64 }
///
/// #[derive(Schema, Clone, Debug, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// struct Posts { #[schema(nested)] results: Vec<Rc<Post>>, next_cursor: Option<String> }
///
/// impl Paged for Posts {
///     fn next_page(&self) -> Option<NextPage> {
///         self.next_cursor.clone().map(NextPage::Param)
///     }
/// }
/// ```
pub trait Paged {
    /// Where the page after this one is; `None` on the last page.
    fn next_page(&self) -> Option<NextPage>;
}

impl<E> Paged for Page<E> {
    fn next_page(&self) -> Option<NextPage> {
        self.next.clone()
    }
}

impl<E: Entity + DeserializeOwned> Page<E> {
    /// Decodes a page that a server described in headers: the records are
    /// the body (a JSON array), `total` is `X-Total-Count`, `next` the
    /// `Link` header's `rel="next"`. A [`DecodeFn`](crate::rest::DecodeFn):
    /// give it to `endpoint!`'s `decode` option or
    /// [`Endpoint::with_decode`](crate::rest::Endpoint::with_decode).
    ///
    /// ```
    /// use restcache::http::{HeaderValue, Response};
    /// use restcache::prelude::*;
    /// use restcache::Page;
    /// use restcache::rest::NextPage;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut response = Response::new(200, r#"[{"id": 1}, {"id": 2}]"#);
    /// response.headers.insert("x-total-count", HeaderValue::from_static("5"));
    /// response.headers.insert("link", HeaderValue::from_static(r#"</todos?_page=2&_limit=2>; rel="next""#));
    /// let page = Page::<Todo>::from_headers(&response, &())?;
    /// assert_eq!((page.items.len(), page.total), (2, Some(5)));
    /// assert_eq!(page.next, Some(NextPage::Url("/todos?_page=2&_limit=2".into())));
    /// # Ok::<(), SchemaError>(())
    /// ```
    pub fn from_headers<P>(response: &Response, _params: &P) -> Result<Self, SchemaError> {
        Ok(Page {
            items: from_json(body_json(response))?,
            total: response.total_count(),
            next: response
                .link("next")
                .map(|link| NextPage::Url(link.to_owned())),
        })
    }
}

/// How an endpoint pages: its page param, and optionally its page-size
/// param. Neither filters a list: a created record is judged by the other
/// params only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pagination {
    /// The page param as the server names it (`_page`, `cursor`).
    pub field: &'static str,
    /// The page-size param as the server names it (`_limit`), if any.
    pub size: Option<&'static str>,
}

impl Pagination {
    /// Whether the query param `name` is one of the pagination's.
    pub fn names(&self, name: &str) -> bool {
        name == self.field || Some(name) == self.size
    }
}

/// `url` without its query params named `name` (compared decoded, so
/// `page[number]` finds `page%5Bnumber%5D`).
///
/// ```
/// use restcache::rest::without_param;
/// assert_eq!(without_param("http://h/todos?_limit=2&_page=3", "_page"), "http://h/todos?_limit=2");
/// assert_eq!(without_param("http://h/todos?_page=3", "_page"), "http://h/todos");
/// assert_eq!(without_param("http://h/a?page%5Bnumber%5D=2&q=x", "page[number]"), "http://h/a?q=x");
/// ```
pub fn without_param(url: &str, name: &str) -> String {
    let Some((base, query)) = url.split_once('?') else {
        return url.to_owned();
    };
    let named = |pair: &str| {
        let raw = pair.split('=').next().unwrap_or("");
        raw == name || percent_decode_str(raw).decode_utf8_lossy() == name
    };
    let kept: Vec<&str> = query.split('&').filter(|pair| !named(pair)).collect();
    if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    }
}

/// `url` with its query param `name` set to `value`, both
/// percent-encoded as params fill a URL, replacing any it had.
///
/// ```
/// use restcache::rest::with_param;
/// assert_eq!(with_param("http://h/todos?_limit=2&_page=1", "_page", "2"), "http://h/todos?_limit=2&_page=2");
/// assert_eq!(with_param("http://h/posts", "cursor", "a b/c"), "http://h/posts?cursor=a%20b%2Fc");
/// assert_eq!(with_param("http://h/a?page%5Bnumber%5D=1", "page[number]", "2"), "http://h/a?page%5Bnumber%5D=2");
/// ```
pub fn with_param(url: &str, name: &str, value: &str) -> String {
    let mut url = without_param(url, name);
    url.push(if url.contains('?') { '&' } else { '?' });
    let _ = write!(
        url,
        "{}={}",
        utf8_percent_encode(name, SEGMENT),
        utf8_percent_encode(value, SEGMENT)
    );
    url
}
