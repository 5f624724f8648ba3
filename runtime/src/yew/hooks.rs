//! The reading hooks: `use_suspense` and its family. Each takes an
//! endpoint and its params (or `Option` of them: `None` does nothing).

use std::rc::Rc;

use serde::Serialize;
use yew::prelude::*;
use yew::suspense::SuspensionResult;

use super::args::ReadArgs;
use super::boundary::{BoundaryContext, use_boundary};
use super::read::{Reader, use_reader, use_shown_empty_on_server};
use crate::cache::schema::Schema;
use crate::controller::{Observe, start_poll};
use crate::http::Error;
use crate::rest::{Endpoint, Readable};

/// What every suspending hook does: fetch and wait when there is nothing
/// to show, hand a failure to the boundary. (Its observer re-renders it
/// on a change and revalidates it when stale.)
fn suspend<P, S, E: Readable>(
    reader: &Reader<P, S>,
    boundary: &BoundaryContext,
    endpoint: &Endpoint<P, S, E>,
    params: Option<&P>,
) -> SuspensionResult<Option<S::Handle>>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
{
    if reader.ended() {
        // What is left of a stopped server render: a stand-in lets the
        // component render, so that the render ends and Yew tears it down.
        // Where a panic aborts (what the component does with an empty
        // list is its own), it sleeps instead.
        let stand_in = S::stand_in().filter(|_| cfg!(panic = "unwind"));
        return match (params, stand_in) {
            (None, _) => Ok(None),
            (Some(_), Some(stand_in)) => Ok(Some(S::into_handle(Rc::new(stand_in)))),
            (Some(_), None) => Err(super::server::asleep()),
        };
    }
    let Some(cached) = reader.read(endpoint, params) else {
        return Ok(None);
    };
    match cached.settled() {
        Some(Ok(data)) => Ok(Some(data)),
        Some(Err(error)) => Err(reader.fail(boundary, reader.key(endpoint), error)),
        None => Err(reader.wait()),
    }
}

/// Reads `endpoint` with `params` and suspends until there is something
/// to show, following the read's expiry status:
///
/// | status | fetch | suspend |
/// |---|---|---|
/// | Invalid (nothing cached, deleted, invalidated, or stale with `invalid_if_stale`, unless it is the answer this component waited for) | yes; identical reads anywhere on the page share one request | yes |
/// | Stale | in the background, on mount and when the params change | no: the cached data shows at once |
/// | Valid | no | no |
///
/// The component re-renders when the data it read changes (a response, a
/// mutation anywhere, an optimistic update and its rollback), and only
/// then. A read that fails goes to the nearest [`ErrorBoundary`](super::ErrorBoundary),
/// unless it failed soft (a 5xx, no network) with data on show, which
/// keeps showing.
///
/// `params` are the endpoint's params, handing out the value itself (a
/// record's `Rc`, a list's `Rc<Vec<..>>`, an envelope's `Rc`), or an
/// `Option` of them, handing out an `Option` (`None` does nothing at
/// all: no fetch, no suspense).
///
/// Several reads in one component fetch together when every hook is
/// called before the first `?` (a hook after a `?` that suspends is not
/// called until the first read is there):
///
/// ```
/// # use restcache::prelude::*;
/// # use restcache::yew::use_suspense;
/// # use yew::prelude::*;
/// # #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// # struct Todo { id: u64, title: String }
/// # #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// # struct User { id: u64, name: String }
/// # resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
/// # resource!(pub UserResource { path: "/users/:id", schema: User });
/// # #[component]
/// # fn TodoAndUser() -> HtmlResult {
/// # let (id, user_id) = (1, 2);
/// let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id });
/// let user = use_suspense(&UserResource::get(), UserResourceParams { id: user_id });
/// let (todo, user) = (todo?, user?);
/// # Ok(html! { <p>{ &todo.title }{ &user.name }</p> })
/// # }
/// ```
///
/// A read may take its params from an earlier one (`UserResourceParams {
/// id: todo.user_id }` after `let todo = use_suspense(..)?`): it starts
/// once the earlier read is there. Params that may be missing are given
/// as an `Option`; here with the whole app around it, rendered on a
/// server:
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::{use_suspense, AsyncBoundary, BoundaryError, CacheProvider};
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[derive(Properties, PartialEq)]
/// struct Props { id: Option<u64> }
///
/// #[component]
/// fn TodoTitle(props: &Props) -> HtmlResult {
///     let todo = use_suspense(&TodoResource::get(), props.id.map(|id| TodoResourceParams { id }))?;
///     Ok(html! { <h1>{ todo.map(|t| t.title.clone()).unwrap_or_default() }</h1> })
/// }
///
/// # #[derive(Properties, PartialEq)]
/// # struct AppProps { url: AttrValue }
/// #[component]
/// fn App(props: &AppProps) -> Html {
///     let error_fallback = Callback::from(|e: BoundaryError| html! { <p>{ e.error.to_string() }</p> });
///     html! {
///         <CacheProvider base_url={props.url.clone()}>
///             <AsyncBoundary fallback={html! {"Loading..."}} {error_fallback}>
///                 <TodoTitle id={Some(1)} />
///             </AsyncBoundary>
///         </CacheProvider>
///     }
/// }
/// # let api = restcache_demo::DemoApi::start()?;
/// # let props = AppProps { url: api.url().to_owned().into() };
/// # let html = restcache_demo::block_on(tokio::task::LocalSet::new().run_until(
/// #     yew::LocalServerRenderer::<App>::with_props(props).hydratable(false).render()));
/// # assert_eq!(html, "<h1>delectus aut autem</h1>");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Panics
///
/// Without a [`CacheProvider`](super::CacheProvider) and an error
/// boundary above the component (an [`AsyncBoundary`](super::AsyncBoundary),
/// or an [`ErrorBoundary`](super::ErrorBoundary) around a `<Suspense>`),
/// with a message that says what to add.
#[hook]
pub fn use_suspense<P, S, E, A>(
    endpoint: &Endpoint<P, S, E>,
    params: A,
) -> SuspensionResult<A::Output<S::Handle>>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    let reader = use_reader::<P, S>("use_suspense", Observe::new().changes().revalidate(), None);
    let boundary = use_boundary("use_suspense");
    suspend(&reader, &boundary, endpoint, params.params()).map(A::output)
}

/// [`use_suspense`] that also polls the read at its endpoint's
/// `poll_frequency` while the component is mounted (see
/// [`use_poll`]). It needs what `use_suspense` needs above it: a
/// provider and an error boundary.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::use_live;
/// use std::time::Duration;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Price { id: u64, cents: u64 }
/// resource!(pub PriceResource { path: "/prices/:id", schema: Price, poll_frequency: Duration::from_secs(5) });
///
/// #[component]
/// fn Ticker() -> HtmlResult {
///     let price = use_live(&PriceResource::get(), PriceResourceParams { id: 1 })?;
///     Ok(html! { <span>{ price.cents }</span> })
/// }
/// ```
#[hook]
pub fn use_live<P, S, E, A>(
    endpoint: &Endpoint<P, S, E>,
    params: A,
) -> SuspensionResult<A::Output<S::Handle>>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    let options = Observe::new().changes().revalidate().poll();
    let reader = use_reader::<P, S>("use_live", options, Some(start_poll::<P, S>));
    let boundary = use_boundary("use_live");
    suspend(&reader, &boundary, endpoint, params.params()).map(A::output)
}

/// What the cache holds for a read, without fetching it: `None` when
/// nothing is cached (or the params are `None`). The component re-renders
/// when it changes.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::use_cache;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[component]
/// fn Count() -> Html {
///     let todos = use_cache(&TodoResource::get_list(), ());
///     html! { <span>{ todos.map_or(0, |t| t.len()) }</span> }
/// }
/// ```
#[hook]
pub fn use_cache<P, S, E, A>(endpoint: &Endpoint<P, S, E>, params: A) -> Option<S::Handle>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    let reader = use_reader::<P, S>("use_cache", Observe::new().changes(), None);
    let data = reader
        .read(endpoint, params.params())
        .and_then(|cached| cached.data);
    match use_shown_empty_on_server(&reader, data.is_some()) {
        true => None,
        false => data,
    }
}

/// What [`use_dle`] hands out: the data, whether it is loading, and the
/// error of its last request (a soft error beside data on show apart,
/// in `soft_error`).
#[derive(Debug, Clone, PartialEq)]
pub struct Dle<T> {
    /// The data, once there is some to show.
    pub data: Option<T>,
    /// Whether a request for it is on its way with nothing to show yet.
    pub loading: bool,
    /// The error of its last request, while it lasts: a hard one, or any
    /// with no data to show.
    pub error: Option<Error>,
    /// A soft error of its last request (a 5xx, no network, by default;
    /// see [`ErrorPolicy`](crate::rest::ErrorPolicy)) beside the data it
    /// left on show: for a view that reports it ("showing older data").
    pub soft_error: Option<Error>,
    /// Whether a request for it is on its way, data on show or not (a
    /// "refreshing" indicator).
    pub fetching: bool,
}

impl<T> Default for Dle<T> {
    fn default() -> Self {
        Dle {
            data: None,
            loading: false,
            error: None,
            soft_error: None,
            fetching: false,
        }
    }
}

/// Data, loading, error: a read that fetches as [`use_suspense`] does but
/// never suspends and never goes to a boundary; the component shows each
/// state itself. `None` params give an empty `Dle` (not loading).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::use_dle;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[component]
/// fn Todos() -> Html {
///     let todos = use_dle(&TodoResource::get_list(), ());
///     match (todos.data, todos.error) {
///         (Some(todos), _) => html! { <ul>{ for todos.iter().map(|t| html! { <li>{ &t.title }</li> }) }</ul> },
///         (None, Some(error)) => html! { <p>{ error.to_string() }</p> },
///         (None, None) => html! { <p>{ "Loading..." }</p> },
///     }
/// }
/// ```
#[hook]
pub fn use_dle<P, S, E, A>(endpoint: &Endpoint<P, S, E>, params: A) -> Dle<S::Handle>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    let reader = use_reader::<P, S>("use_dle", Observe::new().fetching().revalidate(), None);
    let cached = reader.read(endpoint, params.params());
    let shown = cached.as_ref().is_some_and(|cached| cached.data.is_some());
    let empty_on_server = use_shown_empty_on_server(&reader, shown);
    let Some(cached) = cached else {
        return Dle::default();
    };
    if empty_on_server {
        // As the server showed it: loading (the data shows next render).
        return Dle {
            loading: true,
            fetching: true,
            ..Dle::default()
        };
    }
    let loading = cached.data.is_none() && cached.error.is_none();
    if loading {
        reader.fetch();
    }
    Dle {
        error: cached.error().cloned(),
        soft_error: cached.soft_error().cloned(),
        data: cached.data,
        loading,
        fetching: cached.fetching || loading,
    }
}

/// Fetches a read when it needs it (Invalid, or Stale on mount and on a
/// change of params), without reading it: for a parent that starts the
/// requests its children will read.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::use_prefetch;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[component]
/// fn Prefetch() -> Html {
///     use_prefetch(&TodoResource::get_list(), ());
///     html! {}
/// }
/// ```
#[hook]
pub fn use_prefetch<P, S, E, A>(endpoint: &Endpoint<P, S, E>, params: A)
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    let reader = use_reader::<P, S>("use_prefetch", Observe::new().revalidate(), None);
    if let Some(cached) = reader.read(endpoint, params.params())
        && cached.data.is_none()
        && cached.error.is_none()
    {
        reader.fetch();
    }
}

/// Polls a read at its endpoint's `poll_frequency` while the component is
/// mounted, without reading it. When several components poll one read,
/// the shortest frequency wins; polling stops when the last one
/// unmounts. An endpoint without a `poll_frequency` is not polled.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::use_poll;
/// use std::time::Duration;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Price { id: u64, cents: u64 }
/// resource!(pub PriceResource { path: "/prices/:id", schema: Price, poll_frequency: Duration::from_secs(5) });
///
/// #[component]
/// fn KeepFresh() -> Html {
///     use_poll(&PriceResource::get(), PriceResourceParams { id: 1 });
///     html! {}
/// }
/// ```
#[hook]
pub fn use_poll<P, S, E, A>(endpoint: &Endpoint<P, S, E>, params: A)
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    E: Readable,
    A: ReadArgs<P>,
{
    let reader = use_reader::<P, S>("use_poll", Observe::new().poll(), Some(start_poll::<P, S>));
    reader.read(endpoint, params.params());
}

/// What [`use_loading`] hands out.
#[derive(Debug)]
pub struct Loading<A> {
    /// Runs the action.
    pub run: Callback<A>,
    /// Whether a run is on its way.
    pub loading: bool,
    /// The error of the latest run, once it failed; cleared when the next
    /// run starts.
    pub error: Option<Error>,
}

/// Wraps an async action (a mutation) for a button: `run` runs it,
/// `loading` is true while a run is on its way, and `error` holds the
/// error of the latest run: an earlier run that ends after a later one
/// does not overwrite the later one's error.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::{use_controller, use_loading, Loading};
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String, completed: bool }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[component]
/// fn Done(props: &TodoProps) -> Html {
///     let ctrl = use_controller();
///     let Loading { run, loading, error } = use_loading(move |id: u64| {
///         let ctrl = ctrl.clone();
///         async move {
///             let body = Body::json(&serde_json::json!({"completed": true})).unwrap();
///             ctrl.fetch(&TodoResource::partial_update(), &TodoResourceParams { id }, Some(body)).await?;
///             Ok(())
///         }
///     });
///     let id = props.id;
///     html! {
///         <button disabled={loading} onclick={move |_| run.emit(id)}>
///             { error.map_or("Done".to_owned(), |e| e.to_string()) }
///         </button>
///     }
/// }
/// # #[derive(Properties, PartialEq)]
/// # struct TodoProps { id: u64 }
/// ```
#[hook]
pub fn use_loading<A, F, Fut, T>(action: F) -> Loading<A>
where
    A: 'static,
    F: Fn(A) -> Fut + 'static,
    Fut: std::future::Future<Output = Result<T, Error>> + 'static,
{
    let latest = use_mut_ref(|| None::<Rc<F>>);
    *latest.borrow_mut() = Some(Rc::new(action));
    let running = use_state_eq(|| 0_u32);
    let error = use_state_eq(|| None::<Error>);
    let runs = use_mut_ref(Runs::default);
    let run = {
        let (latest, running, error, runs) = (
            latest.clone(),
            running.setter(),
            error.setter(),
            runs.clone(),
        );
        use_callback((), move |args: A, ()| {
            let Some(action) = latest.borrow().clone() else {
                return;
            };
            let this = runs.borrow_mut().start();
            running.set(runs.borrow().running);
            error.set(None);
            let (running, error, runs) = (running.clone(), error.clone(), runs.clone());
            yew::platform::spawn_local(async move {
                let outcome = action(args).await;
                let latest = runs.borrow_mut().end(this);
                running.set(runs.borrow().running);
                if let (Err(failed), true) = (outcome, latest) {
                    error.set(Some(failed));
                }
            });
        })
    };
    Loading {
        run,
        loading: *running > 0,
        error: (*error).clone(),
    }
}

/// The runs of one [`use_loading`]: how many are on their way, and which
/// started last.
#[derive(Default)]
struct Runs {
    running: u32,
    last: u64,
}

impl Runs {
    /// A run starts; returns its number.
    fn start(&mut self) -> u64 {
        self.running += 1;
        self.last += 1;
        self.last
    }

    /// The run `this` ends; returns whether it is the latest.
    fn end(&mut self, this: u64) -> bool {
        self.running = self.running.saturating_sub(1);
        this == self.last
    }
}
