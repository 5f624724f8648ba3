//! A page of a paginated list: its records, the collection's size and
//! where the next page is, kept as one schema so that pages fetched one
//! after another join one cached list.

use std::rc::Rc;

use serde::de::{Deserialize, Deserializer};

use crate::cache::denormalize::{Denorm, Denormalizer};
use crate::cache::entity::Entity;
use crate::cache::normalize::Normalizer;
use crate::cache::schema::{Joined, Schema};
use crate::error::SchemaError;
use crate::path::Segment;

/// A page of records of `E`, with what the server says beside them: how
/// many the whole collection holds, and where the next page is. A server
/// that pages with headers (`X-Total-Count`, `Link`) is read by
/// [`Page::from_headers`](crate::rest); as JSON, a page is the array of
/// its records (no total, no next).
///
/// Pages fetched with [`Controller::fetch_next_page`](crate::Controller::fetch_next_page)
/// join the cached list in order: its `items` grow, and `total` and
/// `next` become the last page's.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::Page;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
///
/// let page: Page<Todo> = restcache::from_json(r#"[{"id": 1}, {"id": 2}]"#)?;
/// assert_eq!(page.items.len(), 2);
/// assert_eq!((page.total, page.next), (None, None));
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

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        <Vec<Rc<E>>>::entity_at(path)
    }

    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<crate::cache::partial::Presence, D::Error> {
        <Vec<Rc<E>>>::scan_presence(deserializer)
    }

    fn mark_presence(&self, presence: &crate::cache::partial::Presence) {
        self.items.mark_presence(presence);
    }

    fn may_be_partial(seen: &mut Vec<std::any::TypeId>) -> bool {
        <Vec<Rc<E>>>::may_be_partial(seen)
    }

    const LIST_OF_RECORDS: bool = true;

    fn extend_page(&self, next: &Self, keep: &[bool]) -> Option<Self> {
        let items = self.items.extend_page(&next.items, keep)?;
        Some(Page {
            items,
            total: next.total,
            next: next.next.clone(),
        })
    }
}

impl<E> Page<E> {
    /// This page with `record` added at its start or end (a created
    /// record joining the list); the total counts it. A list with pages
    /// still to load takes nothing at its end: the record comes with its
    /// page.
    pub(crate) fn with_record(&self, record: &Rc<E>, at_start: bool) -> Joined
    where
        E: 'static,
    {
        let total = self.total.map(|total| total + 1);
        if !at_start && self.next.is_some() {
            return Joined {
                list: Rc::new(Page {
                    total,
                    ..self.clone()
                }),
                holds_it: false,
            };
        }
        let mut items = Vec::with_capacity(self.items.len() + 1);
        if at_start {
            items.push(Rc::clone(record));
        }
        items.extend(self.items.iter().cloned());
        if !at_start {
            items.push(Rc::clone(record));
        }
        Joined {
            list: Rc::new(Page {
                items,
                total,
                next: self.next.clone(),
            }),
            holds_it: true,
        }
    }
}
