//! The page: a header with the open count, the people and profiles in a
//! sidebar, the selected person's todos, and a column with a profile card
//! and the posts. Each region that reads sits in a boundary of its own,
//! so one failed read never takes the page down. The app's tabs keep
//! their caches in step.

use restcache::tabs::TabSync;
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, use_persist, use_tab_sync};
use yew::prelude::*;

use crate::actions::{Notify, reason, undone};
use crate::api::{Post, Profile, Todo, User};
use crate::posts::Posts;
use crate::profile::ProfileCard;
use crate::sidebar::{OpenCount, OutageSwitch, Sidebar};
use crate::todos::TodoList;
use crate::view::{self, View};

/// What the page starts with; the server reads the view from the
/// address, and the browser reads the same address as it hydrates.
#[derive(Properties, PartialEq, Clone, Debug)]
pub struct AppProps {
    /// The API's base address, e.g. `http://127.0.0.1:3000`.
    pub api: AttrValue,
    /// Whose todos and which profile card show.
    pub view: View,
    /// Whether the demo API's outage switch is on.
    #[prop_or_default]
    pub outage: bool,
    /// The page keeps its cache across reloads (`/saved`).
    #[prop_or_default]
    pub saved: bool,
}

/// What the regions of the page share: where to go, and where a failed
/// write says so. Both callbacks stay the same for the page's life.
#[derive(Clone, PartialEq)]
pub struct Shell {
    pub view: View,
    pub go: Callback<View>,
    pub notify: Notify,
}

/// Keeps this tab's cache in step with the app's other tabs: a change
/// made in one shows in all, with no request.
#[component]
fn InStepWithOtherTabs() -> Html {
    use_tab_sync(
        &TabSync::new("restcache-todo-app")
            .entity::<Todo>()
            .entity::<User>()
            .entity::<Profile>()
            .entity::<Post>(),
    );
    Html::default()
}

/// Keeps the cache across reloads (see [`crate::saved`]), around what
/// reads: the saved cache is taken back before they start. A change made
/// before a reload that the server refuses once sent is taken back, and
/// the notice says so.
#[component]
fn KeptAcrossReloads(props: &KeptProps) -> Html {
    let persist = use_memo(props.notify.clone(), |notify| {
        let notify = notify.clone();
        crate::saved::persist().on_replay_failure(move |error| {
            notify.emit(undone("save a change made before the reload", error))
        })
    });
    use_persist(&persist);
    props.children.clone()
}

#[derive(Properties, PartialEq)]
struct KeptProps {
    notify: Notify,
    children: Html,
}

/// The app.
#[component]
pub fn App(props: &AppProps) -> Html {
    let view = use_state(|| props.view.clone());
    let notice = use_state(|| None::<String>);
    let go = {
        let view = view.setter();
        use_callback((), move |next: View, ()| {
            view::push(&next);
            view.set(next);
        })
    };
    let notify = {
        let notice = notice.setter();
        use_callback((), move |text: String, ()| notice.set(Some(text)))
    };
    {
        // Back and Forward show the view of the address they go to.
        let view = view.setter();
        use_effect_with((), move |()| {
            view::on_history(Callback::from(move |next| view.set(next)))
        });
    }
    // The page works as a document until the app takes it over; this
    // marks the moment it does (the stylesheet keeps the controls inert
    // until then).
    use_effect_with((), |()| mark_hydrated());
    let dismiss = {
        let notice = notice.setter();
        Callback::from(move |_| {
            notice.set(None);
            focus_heading();
        })
    };
    let shell = Shell {
        view: (*view).clone(),
        go,
        notify: notify.clone(),
    };
    let user = view.user;
    let profile = view.profile.clone();
    let tagline = match props.saved {
        true => "a restcache demo: kept in this browser, through reloads and offline",
        false => "a restcache demo: rendered on the server, live in the browser",
    };
    let page = html! {
            <ContextProvider<Shell> context={shell}>
                <header class="top">
                    <h1>{ "Todos" }</h1>
                    <p class="tagline">{ tagline }</p>
                    <AsyncBoundary fallback={html! { <p class="count">{ "…" }</p> }}
                        error_fallback={failed("the count")}>
                        <OpenCount />
                    </AsyncBoundary>
                </header>
                <div class="layout">
                    <nav class="sidebar" aria-label="People and profiles">
                        <AsyncBoundary fallback={html! { <p>{ "Loading people…" }</p> }}
                            error_fallback={failed("the people")}>
                            <Sidebar />
                        </AsyncBoundary>
                        <OutageSwitch on={props.outage} />
                    </nav>
                    <main class="todos">
                        if let Some(text) = (*notice).clone() {
                            <div class="notice" role="alert">
                                <p>{ text }</p>
                                <button type="button" class="secondary" onclick={dismiss}>{ "Dismiss" }</button>
                            </div>
                        }
                        <AsyncBoundary key={user} fallback={html! { <p class="loading">{ "Loading todos…" }</p> }}
                            error_fallback={failed("these todos")}>
                            <TodoList {user} />
                        </AsyncBoundary>
                    </main>
                    <aside class="column">
                        <AsyncBoundary key={profile.as_str()} fallback={html! { <p class="loading">{ "Loading the profile…" }</p> }}
                            error_fallback={failed("this profile")}>
                            <ProfileCard id={profile.clone()} />
                        </AsyncBoundary>
                        <AsyncBoundary fallback={html! { <p class="loading">{ "Loading posts…" }</p> }}
                            error_fallback={failed("the posts")}>
                            <Posts />
                        </AsyncBoundary>
                    </aside>
                </div>
            </ContextProvider<Shell>>
    };
    html! {
        <CacheProvider base_url={props.api.clone()}>
            <InStepWithOtherTabs />
            if props.saved {
                <KeptAcrossReloads {notify}>{ page }</KeptAcrossReloads>
            } else {
                { page }
            }
        </CacheProvider>
    }
}

/// A boundary's fallback: what failed, why, and a retry.
fn failed(what: &'static str) -> Callback<BoundaryError, Html> {
    Callback::from(move |shown: BoundaryError| {
        let retry = shown.reset.reform(|_: MouseEvent| ());
        html! {
            <div class="failed" role="alert">
                <p>{ format!("Could not load {what}: {}.", reason(&shown.error)) }</p>
                <button type="button" onclick={retry}>{ "Retry" }</button>
            </div>
        }
    })
}

/// Moves the focus to the todo list's heading (after what had it left
/// the page: a deleted todo, a dismissed notice).
pub fn focus_heading() {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let heading = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(HEADING_ID))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(heading) = heading {
            let _ = heading.focus();
        }
    }
}

/// The `id` of the todo list's heading.
pub const HEADING_ID: &str = "todos-heading";

/// Sets `data-hydrated` on the app's root element, and marks the time
/// in the page's performance timeline (`hydrated`).
fn mark_hydrated() {
    #[cfg(target_arch = "wasm32")]
    if let Some(window) = web_sys::window() {
        if let Some(performance) = window.performance() {
            let _ = performance.mark("hydrated");
        }
        if let Some(root) = window
            .document()
            .and_then(|d| d.get_element_by_id(crate::ROOT_ID))
        {
            let _ = root.set_attribute("data-hydrated", "true");
        }
    }
}
