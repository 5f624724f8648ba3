//! Pagination: a page of a list ([`Page`]) and where the next one is
//! ([`NextPage`], [`Paged`]), and the URL that asks for it. A paginated
//! endpoint names its page param; every page of one list shares one cache
//! key (the key leaves the page param out), and
//! [`Controller::fetch_next_page`](crate::Controller::fetch_next_page)
//! appends each next page to the cached list.

use std::any::{Any, TypeId};
use std::fmt::Write as _;
use std::rc::Rc;

use percent_encoding::{percent_decode_str, utf8_percent_encode};
use serde::de::{Deserialize, DeserializeOwned, Deserializer};

use crate::cache::denormalize::{Denorm, Denormalizer};
use crate::cache::entity::Entity;
use crate::cache::normalize::Normalizer;
use crate::cache::partial::Presence;
use crate::cache::schema::{Decoded, Schema, SchemaParts, from_json};
use crate::cache::store::Joined;
use crate::error::SchemaError;
use crate::http::Response;
use crate::path::Segment;
use crate::rest::body_json;
use crate::rest::template::SEGMENT;

/// A page of records of `E`, with what the server says beside them: how
/// many the whole collection holds, and where the next page is. A server
/// that pages with headers (`X-Total-Count`, `Link`) is read by
/// [`Page::from_headers`]; as JSON, a page is the array of its records (no
/// total, no next).
///
/// Pages fetched with [`Controller::fetch_next_page`](crate::Controller::fetch_next_page)
/// join the cached list in order: its `items` grow, and `total` and
/// `next` become the last page's.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::Page;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
///
/// let page = restcache::from_json::<Page<Todo>>(r#"[{"id": 1}, {"id": 2}]"#)?;
/// assert_eq!(page.items.len(), 2);
/// assert_eq!((page.total, page.next.as_ref()), (None, None));
/// # Ok::<(), SchemaError>(())
/// ```
#[derive(Debug)]
pub struct Page<E> {
    /// The records, in the server's order.
    pub items: Vec<Rc<E>>,
    /// How many records the whole collection holds, when the server says.
    pub total: Option<u64>,
    /// Where the next page is, `None` on the last page.
    pub next: Option<NextPage>,
}

/// Where the next page of a list is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextPage {
    /// Its URL: absolute, or relative to the list's (what a `Link` header
    /// gives). Only one on the list's origin is followed.
    Url(String),
    /// The value of the endpoint's page param (a page number, a cursor).
    Param(String),
}

impl<E> Clone for Page<E> {
    fn clone(&self) -> Self {
        Page {
            items: self.items.clone(),
            total: self.total,
            next: self.next.clone(),
        }
    }
}

impl<E> Default for Page<E> {
    fn default() -> Self {
        Page {
            items: Vec::new(),
            total: None,
            next: None,
        }
    }
}

/// A JSON page is the array of its records.
impl<'de, E: Deserialize<'de>> Deserialize<'de> for Page<E> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Page {
            items: Vec::deserialize(deserializer)?,
            total: None,
            next: None,
        })
    }
}

impl<E: Entity> Schema for Page<E> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }
}

impl<E: Entity> SchemaParts for Page<E> {
    const LIST_OF_RECORDS: bool = true;

    fn stand_in() -> Option<Self> {
        Some(Page {
            items: Vec::new(),
            total: None,
            next: None,
        })
    }
    const FLAT: bool = <Rc<E> as SchemaParts>::FLAT;

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        self.items.normalize(cx)
    }

    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        match self.items.denormalize(cx) {
            Denorm::Same => Denorm::Same,
            Denorm::Changed(items) => Denorm::Changed(Page {
                items,
                ..self.clone()
            }),
            Denorm::Missing => Denorm::Missing,
        }
    }

    fn same_entities(&self, other: &Self) -> bool {
        self.items.same_entities(&other.items)
    }

    fn same_value(&self, other: &Self) -> bool {
        self.items.same_value(&other.items) && self.total == other.total && self.next == other.next
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        <Vec<Rc<E>>>::entity_at(path)
    }

    /// A created record joins at the start, or at the end once no page
    /// is left to load (before that, it comes with its page); the total
    /// counts it either way.
    fn join(&self, record: &dyn Any, at_start: bool) -> Option<Joined> {
        let record = record.downcast_ref::<Rc<E>>()?;
        let total = self.total.map(|total| total.saturating_add(1));
        if !at_start && self.next.is_some() {
            return Some(Joined {
                list: Rc::new(Page {
                    total,
                    ..self.clone()
                }),
                holds_it: false,
            });
        }
        let Joined { list, holds_it } = self.items.join(record, at_start)?;
        let items = list.downcast::<Vec<Rc<E>>>().ok()?;
        Some(Joined {
            list: Rc::new(Page {
                items: Rc::unwrap_or_clone(items),
                total,
                next: self.next.clone(),
            }),
            holds_it,
        })
    }

    /// One record less on the pages left to load: the total counts it.
    fn uncount(&self) -> Option<Self> {
        self.next.as_ref()?;
        Some(Page {
            total: Some(self.total?.saturating_sub(1)),
            ..self.clone()
        })
    }

    /// A record leaves the loaded items; the total counts one less.
    fn leave(&self, index: usize) -> Option<Self> {
        Some(Page {
            items: self.items.leave(index)?,
            total: self.total.map(|total| total.saturating_sub(1)),
            next: self.next.clone(),
        })
    }

    fn extend_page(&self, next: &Self, keep: &[bool]) -> Option<Self> {
        let items = self.items.extend_page(&next.items, keep)?;
        Some(Page {
            items,
            total: next.total,
            next: next.next.clone(),
        })
    }

    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error> {
        <Vec<Rc<E>>>::scan_presence(deserializer, found)
    }

    const SCANS: bool = <Vec<Rc<E>>>::SCANS;

    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        <Vec<Rc<E>>>::may_be_partial(seen)
    }
}

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
    /// use restcache::rest::{NextPage, Page};
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
    pub fn from_headers<P>(response: &Response, _params: &P) -> Result<Decoded<Self>, SchemaError> {
        let items = from_json::<Vec<Rc<E>>>(body_json(response))?;
        Ok(items.map(|items| Page {
            items,
            total: response.total_count(),
            // Read against the page's own URL, when the client sent it.
            next: response.link("next").map(|link| {
                NextPage::Url(match &response.sent {
                    Some(sent) => crate::http::resolve_link(&sent.url, link),
                    None => link.to_owned(),
                })
            }),
        }))
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
