//! `use_next_page`: a "load more" button over a paginated list.

use serde::Serialize;
use yew::prelude::*;

use super::args::ReadArgs;
use super::hooks::{Loading, use_cache, use_loading};
use super::provider::use_controller;
use crate::cache::schema::Schema;
use crate::http::Error;
use crate::rest::{Endpoint, Paged, Readable};

/// What [`use_next_page`] hands out: the state of a "load more" button.
#[derive(Clone, Debug, PartialEq)]
pub struct NextPageLoader {
    /// Fetches the page after the ones the list holds and appends it.
    /// While one is on its way, another `load` waits for it (a double
    /// click fetches one page).
    pub load: Callback<()>,
    /// Whether the list has a page after the ones it holds (`false` while
    /// nothing is cached).
    pub more: bool,
    /// Whether a page this component's `load` asked for is on its way.
    pub loading: bool,
    /// The error of this component's latest load, once it failed; cleared
    /// when the next load starts. The list keeps the pages it holds.
    pub error: Option<Error>,
}

/// A "load more" button over a paginated list (an endpoint whose schema
/// is [`Paged`], such as [`Page`](crate::Page)): `load` fetches the next
/// page and appends it to the cached list, so every component reading the
/// list (with [`use_suspense`](super::use_suspense) and its family)
/// re-renders with the longer list, without suspending; `more` says
/// whether a page follows. The component re-renders when the list
/// changes.
///
/// The params are the list's (its first page's); `None` gives `None`.
///
/// A list that goes stale is fetched again from its first page (on the
/// next mount, focus or reconnect), and the pages loaded after it go: give
/// an infinite list an expiry (`data_expiry`) as long as a visit.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::{use_next_page, use_suspense, NextPageLoader};
/// use restcache::rest::Page;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// endpoint!(pub todo_pages {
///     path: "/todos",
///     schema: Page<Todo>,
///     params: { #[serde(rename = "_page")] page: u32, #[serde(rename = "_limit")] limit: u32 },
///     decode: Page::from_headers,
///     paginated_by: "_page",
/// });
///
/// #[component]
/// fn Todos() -> HtmlResult {
///     let first = TodoPagesParams { page: 1, limit: 20 };
///     let todos = use_suspense(&todo_pages(), first.clone());
///     let NextPageLoader { load, more, loading, error } = use_next_page(&todo_pages(), first);
///     let todos = todos?;
///     Ok(html! {
///         <>
///             <ul>{ for todos.items.iter().map(|t| html! { <li key={t.id}>{ &t.title }</li> }) }</ul>
///             if more {
///                 <button disabled={loading} onclick={move |_| load.emit(())}>{ "More" }</button>
///             }
///             if let Some(error) = error { <p>{ error.to_string() }</p> }
///         </>
///     })
/// }
/// ```
#[hook]
pub fn use_next_page<P, S, E, A>(
    endpoint: &Endpoint<P, S, E>,
    params: A,
) -> A::Output<NextPageLoader>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema + Paged,
    E: Readable,
    A: ReadArgs<P>,
{
    let ctrl = use_controller();
    let params = params.params().cloned();
    // Subscribes: the list growing, or going, re-renders the button.
    use_cache(endpoint, params.clone());
    // The list the latest load was for: another list's load (before the
    // params changed) is not this one's loading, nor its error.
    let loaded = use_mut_ref(|| None::<Option<P>>);
    let Loading {
        run: load,
        loading,
        error,
    } = use_loading({
        let (ctrl, endpoint, params) = (ctrl.clone(), endpoint.clone(), params.clone());
        move |()| {
            let (ctrl, endpoint, params) = (ctrl.clone(), endpoint.clone(), params.clone());
            async move {
                match params {
                    Some(params) => ctrl.fetch_next_page(&endpoint, &params).await.map(drop),
                    None => Ok(()),
                }
            }
        }
    });
    let load = {
        let loaded = loaded.clone();
        use_callback(params.clone(), move |(), params| {
            *loaded.borrow_mut() = Some(params.clone());
            load.emit(());
        })
    };
    let this_list = loaded.borrow().as_ref() == Some(&params);
    let loader = params.map(|params| NextPageLoader {
        load,
        more: ctrl.has_next_page(endpoint, &params),
        loading: loading && this_list,
        error: error.filter(|_| this_list),
    });
    A::output(loader)
}
