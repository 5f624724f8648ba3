//! The error hooks: what went wrong with a read, for a view that shows it
//! beside (or instead of) the data. A soft error beside data on show is
//! reported only when asked for.

use serde::Serialize;
use yew::prelude::*;

use super::args::ReadArgs;
use super::read::use_reader;
use crate::cache::schema::Schema;
use crate::controller::{Cached, Observe};
use crate::http::Error;
use crate::rest::{Endpoint, Readable};

/// The error of a read's last request, while it lasts: a hard one (a 4xx,
/// a body that does not decode; also one a poll got while data was on
/// show), or any error with no data to show. A soft error beside data on
/// show is left out: ask for it with [`use_soft_error`]. `None` when there
/// is none, or the params are `None`. Which errors are soft is the
/// endpoint's [`ErrorPolicy`](crate::rest::ErrorPolicy).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::{use_error, use_live};
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo, poll_frequency: std::time::Duration::from_secs(5) });
///
/// #[component]
/// fn Feed() -> HtmlResult {
///     let todos = use_live(&TodoResource::get_list(), ());
///     let error = use_error(&TodoResource::get_list(), ());
///     let todos = todos?;
///     Ok(html! {
///         <>
///             if let Some(error) = error { <p class="error">{ format!("Not updating: {error}") }</p> }
///             <p>{ todos.len() }</p>
///         </>
///     })
/// }
/// ```
#[hook]
pub fn use_error<P, S, E, A>(endpoint: &Endpoint<P, S, E>, params: A) -> Option<Error>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    use_read_error("use_error", endpoint, params, Cached::error)
}

/// A soft error of a read's last request (by default a 5xx, no network,
/// no answer in time) beside the data it left on show, while it lasts:
/// what a view reports when it asks, e.g. "showing older data". `None`
/// when there is none, when there is no data on show (the error is then
/// [`use_error`]'s), or when the params are `None`.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::{use_soft_error, use_suspense};
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[component]
/// fn Todos() -> HtmlResult {
///     let todos = use_suspense(&TodoResource::get_list(), ());
///     let behind = use_soft_error(&TodoResource::get_list(), ());
///     let todos = todos?;
///     Ok(html! {
///         <>
///             if let Some(error) = behind { <p class="stale">{ format!("Showing older data: {error}") }</p> }
///             <p>{ todos.len() }</p>
///         </>
///     })
/// }
/// ```
#[hook]
pub fn use_soft_error<P, S, E, A>(endpoint: &Endpoint<P, S, E>, params: A) -> Option<Error>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    use_read_error("use_soft_error", endpoint, params, Cached::soft_error)
}

/// The error `pick` finds in the read, for the hook named `hook`.
#[hook]
fn use_read_error<P, S, E, A>(
    hook: &'static str,
    endpoint: &Endpoint<P, S, E>,
    params: A,
    pick: fn(&Cached<S>) -> Option<&Error>,
) -> Option<Error>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    let reader = use_reader::<P, S>(hook, Observe::new().changes(), None);
    pick(&reader.read(endpoint, params.params())?).cloned()
}
