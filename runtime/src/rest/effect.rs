//! What an endpoint's response does to the cache, as part of the
//! endpoint's type ([`Effect`]: [`Read`], [`Mutate`], [`Create`],
//! [`Delete`]), the record a mutation changes ([`Target`]), and where a
//! created record joins the cached lists ([`JoinAt`]).
//!
//! The effect is a type, so that a hook that reads takes only endpoints
//! that read: `use_suspense(&TodoResource::create(), ..)` does not
//! compile.

use std::fmt;

use crate::pk::Pk;

/// What an endpoint's response does to the cache: [`Read`], [`Mutate`],
/// [`Create`] or [`Delete`], the third type parameter of an
/// [`Endpoint`](super::Endpoint). `resource!` and `endpoint!` pick it
/// (a `GET` reads, every other method mutates unless declared with
/// `side_effect: false`); [`Endpoint::with_effect`](super::Endpoint::with_effect)
/// changes it.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::{Create, Effect, Read};
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// fn effect<P, S, E: Effect>(_: &Endpoint<P, S, E>) -> &'static str { E::NAME }
/// assert_eq!(effect(&TodoResource::get()), "Read");
/// assert_eq!(effect(&TodoResource::create()), "Create");
/// ```
pub trait Effect: sealed::Sealed + fmt::Debug + Copy + Default + 'static {
    /// The effect's name: `"Read"`, `"Mutate"`, `"Create"` or `"Delete"`.
    const NAME: &'static str;
    /// What the controller does with a response.
    #[doc(hidden)]
    const ACTION: Action;
}

/// What the controller does with a response of an endpoint.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Read,
    Mutate,
    Create,
    Delete,
}

mod sealed {
    pub trait Sealed {}
}

/// An endpoint effect that reads: what the reading hooks and the
/// controller's reads take. Only [`Read`] is one.
///
/// ```
/// use restcache::rest::{Read, Readable};
/// fn reads<E: Readable>() {}
/// reads::<Read>();
/// ```
#[diagnostic::on_unimplemented(
    message = "a `{Self}` endpoint does not read: it cannot be read, only run",
    label = "a mutation, not a read",
    note = "run a mutation with `Controller::fetch` (or `use_loading` around it in a component)",
    note = "an endpoint whose request reads (a POST that answers data) is declared with `side_effect: false`"
)]
pub trait Readable: Effect {}

/// A read: the response is cached under the endpoint's key, and identical
/// reads share one request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Read;

/// A mutation whose response is merged into the records it holds
/// (update, partial update, RPCs): every view of them shows the change.
/// Never shared with another request.
///
/// When it changes one record at `<collection>/<pk>` and answers with it,
/// the record also moves between the cached lists of its collection as a
/// created one joins them: it leaves a filtered list it no longer
/// matches (`?userId=1` after its `userId` became 2) and joins one it now
/// matches; a list whose filters cannot be judged goes stale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mutate;

/// A create: a mutation whose new record also joins the cached lists of
/// its resource (the `GET`s of the same URL, with any query) whose
/// filters its fields match, with no request. A list whose filters cannot
/// be judged (`?q=milk`) goes stale: it stays on show and is fetched again
/// in the background. A paged list's total counts the record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Create;

/// A delete: the record is invalidated and leaves every list; a paged
/// list that held it counts one less in its total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delete;

macro_rules! effects {
    ($($ty:ident),*) => {$(
        impl sealed::Sealed for $ty {}
        impl Effect for $ty {
            const NAME: &'static str = stringify!($ty);
            const ACTION: Action = Action::$ty;
        }
    )*};
}

effects!(Read, Mutate, Create, Delete);

impl Readable for Read {}

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
///
/// ```
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let target = *TodoResource::update().target().unwrap();
/// assert_eq!(target.entity, "Todo");
/// assert_eq!((target.pk)(&TodoResourceParams { id: 4 }), Some(Pk::from(4u64)));
/// ```
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

impl<P> PartialEq for Target<P> {
    fn eq(&self, other: &Self) -> bool {
        self.entity == other.entity && std::ptr::fn_addr_eq(self.pk, other.pk)
    }
}

impl<P> fmt::Debug for Target<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Target")
            .field("entity", &self.entity)
            .finish_non_exhaustive()
    }
}
