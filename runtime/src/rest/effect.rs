//! What an endpoint's response does to the cache: its [`Kind`], the record
//! a mutation changes ([`Target`]), and where a created record joins the
//! cached lists ([`JoinAt`]).

use crate::http::Method;
use crate::pk::Pk;

/// What an endpoint's response does to the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A read: cached under its key, identical reads share one request.
    Read,
    /// A mutation whose response is merged into the entities it holds
    /// (update, partial update, RPCs). Never deduplicated.
    Mutate,
    /// A create: like [`Kind::Mutate`], and the new record joins the cached
    /// lists of its resource (the `GET`s of the same URL, with any query)
    /// whose filters its fields match; a list whose filters cannot be
    /// judged is fetched again.
    Create,
    /// A delete: the entity is invalidated and leaves every list.
    Delete,
}

impl Kind {
    /// `Read` for `GET`, `Mutate` for every other method.
    pub const fn of(method: Method) -> Kind {
        match method {
            Method::Get => Kind::Read,
            _ => Kind::Mutate,
        }
    }
}

/// Where a created record joins the cached lists of its resource.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::JoinAt;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// assert_eq!(TodoResource::create().joins_at(), JoinAt::End);
/// let newest_first = TodoResource::create().join_at(JoinAt::Start);
/// assert_eq!(newest_first.joins_at(), JoinAt::Start);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JoinAt {
    /// After the records the list holds (the default).
    #[default]
    End,
    /// Before them (a list shown newest first).
    Start,
}

/// The record a mutation changes: its entity key, and its pk from the
/// params.
pub struct Target<P> {
    /// The entity key.
    pub entity: &'static str,
    /// The record's pk, from the params.
    pub pk: fn(&P) -> Option<Pk>,
}

impl<P> Clone for Target<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Target<P> {}
