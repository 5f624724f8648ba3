//! Error boundaries: Yew has none, so this is ours. A read whose request
//! failed hard (a 4xx, a body that does not decode), or failed soft with
//! no data to show, is reported to the nearest [`ErrorBoundary`], which
//! shows its fallback in place of its children until reset.

use std::cell::RefCell;
use std::rc::Rc;

use yew::platform::spawn_local;
use yew::prelude::*;
use yew::suspense::SuspensionHandle;

use super::context::{Scope, use_scope};
use super::server::{BoundaryId, ServerPass};
use crate::controller::Controller;
use crate::http::Error;

/// What an error boundary's fallback gets: the error, and a callback that
/// clears the failed reads (so they fetch again) and shows the children
/// again.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundaryError {
    /// The error of the first read that failed.
    pub error: Error,
    /// Clears the failed reads and renders the children again.
    pub reset: Callback<()>,
}

/// Props of [`ErrorBoundary`].
#[derive(Properties, PartialEq)]
pub struct ErrorBoundaryProps {
    /// What to show in place of the children once a read below failed.
    pub fallback: Callback<BoundaryError, Html>,
    /// What the boundary stands for (the page's route, say): when it
    /// changes, a fallback on show goes as a reset would take it.
    #[prop_or_default]
    pub reset_key: AttrValue,
    /// The subtree.
    #[prop_or_default]
    pub children: Html,
}

/// A failure reported to a boundary.
pub(crate) struct Report {
    /// The controller the read used.
    pub controller: Controller,
    /// The read's cache key.
    pub key: String,
    pub error: Error,
    /// What the failed component waits on: held until the boundary resets.
    pub waiting: SuspensionHandle,
}

/// What a boundary shares with the hooks below it.
#[derive(Clone)]
pub(crate) struct BoundaryContext(Rc<BoundaryShared>);

struct BoundaryShared {
    /// Where the boundary sits among the boundaries around it.
    id: BoundaryId,
    /// How many boundaries were created right below it.
    children: std::cell::Cell<u32>,
    /// The server render pass it is rendered in, if any.
    pass: Option<ServerPass>,
    /// The failures reported and not yet shown.
    reported: RefCell<Option<Failure>>,
    /// Shows the reported failures (after the render that reported them:
    /// a boundary's state is never set during a child's render).
    show: Callback<Failure>,
    /// The suspensions of the failed components.
    held: RefCell<Vec<SuspensionHandle>>,
    /// For a fallback's own reads: the boundary above the one whose
    /// fallback it is, which their failures go to, and that boundary's
    /// own (its failed reads go up with them, so that a reset above
    /// fetches them again). None: they show in that same fallback.
    above: Option<(BoundaryContext, BoundaryContext)>,
}

impl PartialEq for BoundaryContext {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The failed reads a boundary shows: the first error, and every read's
/// controller and key.
#[derive(Clone, PartialEq)]
struct Failure {
    error: Error,
    reads: Vec<(Controller, String)>,
}

impl BoundaryContext {
    fn new(
        id: BoundaryId,
        pass: Option<ServerPass>,
        show: Callback<Failure>,
        above: Option<(BoundaryContext, BoundaryContext)>,
    ) -> Self {
        BoundaryContext(Rc::new(BoundaryShared {
            id,
            children: std::cell::Cell::new(0),
            pass,
            reported: RefCell::new(None),
            show,
            held: RefCell::new(Vec::new()),
            above,
        }))
    }

    /// The identity of the next boundary right below this one.
    fn next_child(&self) -> BoundaryId {
        let place = self.0.children.get();
        self.0.children.set(place + 1);
        self.0.id.iter().copied().chain([place]).collect()
    }

    /// What a component whose read failed during a server render waits
    /// on (see [`ServerRender`](super::ServerRender)). A read of a
    /// fallback fails to the boundary above, as in the browser.
    pub fn fail_on_server(&self, error: Error, key: String) -> yew::suspense::Suspension {
        if let Some((above, _)) = &self.0.above {
            return above.fail_on_server(error, key);
        }
        match &self.0.pass {
            Some(pass) => pass.fail(&self.0.id, error, key),
            None => panic!(
                "a read failed during a server render, and Yew's server renderers cannot show \
                 an error boundary's fallback: render with restcache::yew::ServerRender (feature \
                 `ssr`), giving it the controller of the app's CacheProvider. The error: {error}"
            ),
        }
    }

    /// Tells the boundary that the read `report.key` failed. The boundary
    /// shows its fallback once the current render is over. A read of a
    /// fallback fails to the boundary above, when there is one.
    pub fn report(&self, report: Report) {
        if let Some((above, owner)) = &self.0.above {
            let owner_reads = owner.0.reported.borrow().as_ref().map(|f| f.reads.clone());
            above.report(report);
            if let Some(failure) = above.0.reported.borrow_mut().as_mut() {
                for read in owner_reads.unwrap_or_default() {
                    if !failure.reads.contains(&read) {
                        failure.reads.push(read);
                    }
                }
            }
            return;
        }
        let Report {
            controller,
            key,
            error,
            waiting,
        } = report;
        self.0.held.borrow_mut().push(waiting);
        let mut reported = self.0.reported.borrow_mut();
        let first = reported.is_none();
        let failure = reported.get_or_insert_with(|| Failure {
            error,
            reads: Vec::new(),
        });
        let read = (controller, key);
        if !failure.reads.contains(&read) {
            failure.reads.push(read);
        }
        drop(reported);
        if first {
            let context = self.clone();
            spawn_local(async move {
                let failure = context.0.reported.borrow().clone();
                if let Some(failure) = failure {
                    context.0.show.emit(failure);
                }
            });
        }
    }
}

/// Catches the failed reads of every hook below it and shows `fallback`
/// in their place: a 404 or an undecodable body, or a network or server
/// error with no data on show. The fallback gets the error and a `reset`
/// callback that clears the failed reads, so they fetch again, and shows
/// the children again.
///
/// A read that fails soft while its data is on show (by default a 5xx,
/// no network; the endpoint's [`ErrorPolicy`](crate::rest::ErrorPolicy)
/// decides) keeps showing the data; [`use_soft_error`](super::use_soft_error)
/// tells the component about it when asked.
///
/// Put a `<Suspense>` inside the boundary (or use [`AsyncBoundary`], which
/// is both): a failed component waits for the boundary to take over.
///
/// A boundary that stands for a page is told which (`reset_key`, e.g. the
/// route): when the key changes, a fallback on show goes, as a reset
/// would take it, so a 404 does not stay after the user navigates away.
/// A read in the fallback itself that fails goes to the boundary above,
/// as a failure of this whole boundary (an error in the error page); with
/// no boundary above, it shows in this fallback, and a reset clears it
/// too (it fetches again, and fails in view again).
///
/// A page a server rendered hydrates showing the fallbacks the server
/// showed, with the server's error. A boundary may sit above the
/// [`CacheProvider`](super::CacheProvider) (a page that is one boundary):
/// it takes them from the controller that imported the handoff, so
/// import it before hydrating (a provider that reads the page's handoff
/// by itself does so only once it renders, below such a boundary).
///
/// ```
/// use restcache::yew::{BoundaryError, CacheProvider, ErrorBoundary};
/// use yew::prelude::*;
///
/// #[component]
/// fn App() -> Html {
///     let fallback = Callback::from(|failed: BoundaryError| html! {
///         <p>
///             { failed.error.to_string() }
///             <button onclick={move |_| failed.reset.emit(())}>{"Try again"}</button>
///         </p>
///     });
///     html! {
///         <CacheProvider base_url="http://127.0.0.1:8080">
///             <ErrorBoundary {fallback} reset_key="/todos">
///                 <Suspense fallback={html! {"Loading..."}}>
///                     <p>{"Todos"}</p>
///                 </Suspense>
///             </ErrorBoundary>
///         </CacheProvider>
///     }
/// }
/// # let html = restcache_demo::block_on(yew::LocalServerRenderer::<App>::new().hydratable(false).render());
/// # assert_eq!(html, "<p>Todos</p>");
/// ```
#[component]
pub fn ErrorBoundary(props: &ErrorBoundaryProps) -> Html {
    use_error_boundary(&props.fallback, &props.reset_key, &props.children)
}

/// An error boundary's whole work, for the component that is one: both
/// [`ErrorBoundary`] and [`AsyncBoundary`] are this hook, so an app that
/// uses one of them carries one component's code.
#[hook]
fn use_error_boundary(
    fallback: &Callback<BoundaryError, Html>,
    reset_key: &AttrValue,
    children: &Html,
) -> Html {
    let Scope {
        cache,
        boundary: parent,
    } = use_scope();
    let shown = use_state(|| None::<Failure>);
    let pass = cache.as_ref().and_then(|cache| cache.pass().cloned());
    // Above the provider, the render's own pass, as the provider finds it.
    #[cfg(feature = "ssr")]
    let pass = pass.or_else(super::server::current_pass);
    // Above every provider in a browser: the fallbacks the page's
    // controller took from the server, as the server numbered this
    // boundary with the render's own pass (a build that cannot hydrate
    // has none, and carries no hook for them).
    #[cfg(feature = "hydration")]
    let above = use_memo((), {
        let alone = cache.is_none() && parent.is_none() && pass.is_none();
        move |()| {
            alone
                .then(super::context::Hydrating::above_providers)
                .flatten()
        }
    });
    #[cfg(not(feature = "hydration"))]
    let above = Rc::new(None::<Rc<super::context::TakenAbove>>);
    let hydrating = match (&cache, &*above) {
        (Some(cache), _) => cache.hydrating().cloned(),
        (None, Some(taken)) => Some(Rc::clone(&taken.hydrating)),
        (None, None) => None,
    };
    // The controller the server's fallbacks name reads of.
    let handed_by = match (&cache, &*above) {
        (Some(cache), _) => Some(cache.controller()),
        (None, Some(taken)) => Some(taken.controller.clone()),
        (None, None) => None,
    };
    let context = use_memo((), {
        let show = shown.setter();
        let hydrating = hydrating.clone();
        let parent = parent.clone();
        move |()| {
            let id = match (&parent, &pass, &hydrating) {
                (Some(parent), _, _) => parent.next_child(),
                (None, Some(pass), _) => pass.next_root_boundary(),
                (None, None, Some(hydrating)) => hydrating.next_root_boundary(),
                (None, None, None) => Rc::from([].as_slice()),
            };
            BoundaryContext::new(
                id,
                pass,
                Callback::from(move |failure| show.set(Some(failure))),
                None,
            )
        }
    });
    // What the fallback's own boundaries sit below: a place of its own,
    // so that they never take the places of the children's boundaries.
    // Its failed reads go to the boundary above, as a failure of this
    // boundary's whole subtree; with none above, they show here.
    let fallback_context = use_memo((), |()| {
        let id = context.0.id.iter().copied().chain([u32::MAX]).collect();
        let show = context.0.show.clone();
        let above = parent.clone().map(|above| (above, (*context).clone()));
        BoundaryContext::new(id, context.0.pass.clone(), show, above)
    });
    // A page that hydrates shows the fallbacks the server showed.
    let handed = use_state(|| hydrating.and_then(|hydrating| hydrating.take(&context.0.id)));
    // Only a build with `hydration` takes them; one without it leaves
    // the code that shows them out.
    let handed_now = match cfg!(feature = "hydration") {
        true => (*handed).clone(),
        false => None,
    };
    // What it stands for changed (the app moved to another page): a
    // fallback on show goes, as a reset takes it.
    let stands_for = use_mut_ref(|| reset_key.clone());
    let moved = *stands_for.borrow() != *reset_key;
    if moved {
        *stands_for.borrow_mut() = reset_key.clone();
        // A failure reported but not shown yet belonged to the old page.
        clear([&context, &fallback_context]);
        if shown.is_some() {
            shown.set(None);
        }
        if let Some((_, keys)) = &handed_now {
            reset_handed(handed_by.clone(), keys.clone(), &handed).emit(());
        }
    }
    let failed = match ((*shown).clone(), context.0.pass.as_ref(), handed_now) {
        _ if moved => None,
        (Some(failure), _, _) => Some((
            failure.error.clone(),
            reset([&context, &fallback_context], &shown),
        )),
        (None, Some(pass), _) => pass
            .fallback_of(&context.0.id)
            .map(|error| (error, Callback::noop())),
        (None, None, Some((error, keys))) => Some((error, reset_handed(handed_by, keys, &handed))),
        (None, None, None) => None,
    };
    // What the children (or the fallback) see: this boundary, and the
    // cache above it.
    let scope = |boundary| Scope {
        cache: cache.clone(),
        boundary: Some(boundary),
    };
    let Some((error, reset)) = failed else {
        return html! {
            <ContextProvider<Scope> context={scope((*context).clone())}>
                { children.clone() }
            </ContextProvider<Scope>>
        };
    };
    html! {
        <ContextProvider<Scope> context={scope((*fallback_context).clone())}>
            { fallback.emit(BoundaryError { error, reset }) }
        </ContextProvider<Scope>>
    }
}

/// The callback that clears a boundary's failures and shows its children
/// again: `contexts` are the boundary's (its children's failures) and its
/// fallback's (the fallback's own).
fn reset(
    contexts: [&Rc<BoundaryContext>; 2],
    shown: &UseStateHandle<Option<Failure>>,
) -> Callback<()> {
    let contexts = contexts.map(Rc::clone);
    let shown = shown.setter();
    Callback::from(move |()| {
        clear([&contexts[0], &contexts[1]]);
        shown.set(None);
    })
}

/// Forgets the failures reported to `contexts`: each failed read is
/// invalidated (on the controller it used), so that it fetches again when
/// read, and the components that wait on them are let go. A fallback's
/// own failures go too, so the next ones are shown as the first were.
fn clear(contexts: [&BoundaryContext; 2]) {
    for context in contexts {
        let reported = context.0.reported.borrow_mut().take();
        for (controller, key) in reported.map(|failure| failure.reads).unwrap_or_default() {
            controller.invalidate_all(|k| k == key);
        }
        context.0.held.borrow_mut().clear();
    }
}

/// The callback that clears the reads a server's fallback stood for (so
/// that they fetch again) and shows the children.
fn reset_handed(
    controller: Option<Controller>,
    keys: Vec<String>,
    handed: &UseStateHandle<Option<(Error, Vec<String>)>>,
) -> Callback<()> {
    let handed = handed.setter();
    Callback::from(move |()| {
        if let Some(controller) = &controller {
            controller.invalidate_all(|key| keys.iter().any(|k| k == key));
        }
        handed.set(None);
    })
}

/// Props of [`AsyncBoundary`].
#[derive(Properties, PartialEq)]
pub struct AsyncBoundaryProps {
    /// What to show while a read below is loading.
    #[prop_or_default]
    pub fallback: Html,
    /// What to show once a read below failed (see [`ErrorBoundary`]).
    pub error_fallback: Callback<BoundaryError, Html>,
    /// What the boundary stands for (see [`ErrorBoundaryProps::reset_key`]).
    #[prop_or_default]
    pub reset_key: AttrValue,
    /// The subtree.
    #[prop_or_default]
    pub children: Html,
}

/// A suspense fallback and an error boundary in one: loading shows
/// `fallback`, a failed read shows `error_fallback`.
///
/// ```
/// use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider};
/// use yew::prelude::*;
///
/// #[component]
/// fn App() -> Html {
///     let error_fallback = Callback::from(|failed: BoundaryError| html! {
///         <p>{ format!("Failed: {}", failed.error) }</p>
///     });
///     html! {
///         <CacheProvider base_url="http://127.0.0.1:8080">
///             <AsyncBoundary fallback={html! {"Loading..."}} {error_fallback}>
///                 <p>{"Ready"}</p>
///             </AsyncBoundary>
///         </CacheProvider>
///     }
/// }
/// # let html = restcache_demo::block_on(yew::LocalServerRenderer::<App>::new().hydratable(false).render());
/// # assert_eq!(html, "<p>Ready</p>");
/// ```
#[component]
pub fn AsyncBoundary(props: &AsyncBoundaryProps) -> Html {
    // The error fallback may read too: it gets a suspense of its own.
    let error_fallback = {
        let (error_fallback, loading) = (props.error_fallback.clone(), props.fallback.clone());
        Callback::from(move |failed: BoundaryError| {
            html! {
                <Suspense fallback={loading.clone()}>{ error_fallback.emit(failed) }</Suspense>
            }
        })
    };
    let children = html! {
        <Suspense fallback={props.fallback.clone()}>
            { props.children.clone() }
        </Suspense>
    };
    use_error_boundary(&error_fallback, &props.reset_key, &children)
}

/// The nearest boundary, or a panic that says what to add.
#[hook]
pub(crate) fn use_boundary(hook: &'static str) -> BoundaryContext {
    match use_scope().boundary {
        Some(boundary) => boundary,
        None => panic!(
            "{hook} needs an error boundary above it, for the reads that fail: wrap the \
             component in <AsyncBoundary fallback={{..}} error_fallback={{..}}> (or an \
             <ErrorBoundary> around a <Suspense>)"
        ),
    }
}
