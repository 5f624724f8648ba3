//! `use_next_page`: a "load more" button over a paginated list.

use serde::Serialize;
use yew::prelude::*;

use super::args::ReadArgs;
use super::hooks::use_cache;
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
    /// nothing is cached, and at hydration when the server rendered this
    /// view before the list came).
    pub more: bool,
    /// Whether a page of this list that this component's `load` asked for
    /// is on its way (not one of the list its params named before).
    pub loading: bool,
    /// The error of this component's latest load of this list, once it
    /// failed; cleared when the next load starts. The list keeps the pages
    /// it holds.
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
    // Subscribes: the list growing, or going, re-renders the button. A
    // list the server rendered this view without (it came later) shows
    // no button at hydration either, as the server's page has none.
    let shown = use_cache(endpoint, params.clone()).is_some();
    let loads = use_mut_ref(Loads::<P>::default);
    let latest = use_mut_ref(|| endpoint.clone());
    *latest.borrow_mut() = endpoint.clone();
    let rerender = use_force_update();
    let load = {
        let (ctrl, loads) = (ctrl.clone(), loads.clone());
        use_callback(params.clone(), move |(), params: &Option<P>| {
            let Some(params) = params.clone() else {
                return;
            };
            let run = loads.borrow_mut().start(&params);
            rerender.force_update();
            let (ctrl, loads, rerender) = (ctrl.clone(), loads.clone(), rerender.clone());
            let endpoint = latest.borrow().clone();
            yew::platform::spawn_local(async move {
                let outcome = ctrl.fetch_next_page(&endpoint, &params).await;
                loads.borrow_mut().end(&params, run, outcome.err());
                rerender.force_update();
            });
        })
    };
    let loader = params.map(|params| {
        let (loading, error) = loads.borrow().of(&params);
        NextPageLoader {
            load,
            more: shown && ctrl.has_next_page(endpoint, &params),
            loading,
            error,
        }
    });
    A::output(loader)
}

/// The pages one `use_next_page` asked for, by list: another list's
/// (before the params changed) is not this one's loading, nor its error.
struct Loads<P> {
    lists: Vec<ListLoads<P>>,
    runs: u64,
}

impl<P> Default for Loads<P> {
    fn default() -> Self {
        Loads {
            lists: Vec::new(),
            runs: 0,
        }
    }
}

/// The loads of one list: how many are on their way, which started last,
/// and its error.
struct ListLoads<P> {
    params: P,
    running: u32,
    latest: u64,
    error: Option<Error>,
}

impl<P: PartialEq + Clone> Loads<P> {
    /// A load of the list `params` starts (its error goes); returns its
    /// number.
    fn start(&mut self, params: &P) -> u64 {
        self.runs += 1;
        let run = self.runs;
        match self.lists.iter_mut().find(|list| list.params == *params) {
            Some(list) => {
                list.running += 1;
                list.latest = run;
                list.error = None;
            }
            None => self.lists.push(ListLoads {
                params: params.clone(),
                running: 1,
                latest: run,
                error: None,
            }),
        }
        run
    }

    /// The load `run` of the list `params` ended, with `error` if it
    /// failed: the list's error, when it is its latest load.
    fn end(&mut self, params: &P, run: u64, error: Option<Error>) {
        let Some(at) = self.lists.iter().position(|list| list.params == *params) else {
            return;
        };
        let list = &mut self.lists[at];
        list.running -= 1;
        if list.latest == run {
            list.error = error;
        }
        if list.running == 0 && list.error.is_none() {
            self.lists.remove(at);
        }
    }

    /// Whether a page of the list `params` is on its way, and its error.
    fn of(&self, params: &P) -> (bool, Option<Error>) {
        self.lists
            .iter()
            .find(|list| list.params == *params)
            .map_or((false, None), |list| (list.running > 0, list.error.clone()))
    }
}
