//! The page: a header with the open count, the people and profiles in a
//! sidebar, the selected person's todos, and a column with a profile card
//! and the posts. Each region that reads sits in a boundary of its own,
//! so one failed read never takes the page down.

use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider};
use yew::prelude::*;

use crate::actions::{Notify, reason};
use crate::posts::Posts;
use crate::profile::ProfileCard;
use crate::sidebar::{OpenCount, Sidebar};
use crate::todos::TodoList;

/// What the page shows; the server reads it from the URL
/// (`?user=2&profile=1`) and the browser from the page it hydrates.
#[derive(Properties, PartialEq, Clone, Debug)]
pub struct AppProps {
    /// The API's base address, e.g. `http://127.0.0.1:3000`.
    pub api: AttrValue,
    /// The person whose todos show.
    pub user: u64,
    /// The profile card that shows.
    pub profile: AttrValue,
}

/// A place in the app: whose todos and which profile card.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub user: u64,
    pub profile: AttrValue,
}

impl View {
    /// The address of this view, a link that works without the app too.
    pub fn href(&self) -> String {
        format!("?user={}&profile={}", self.user, self.profile)
    }
}

/// What the regions of the page share: where to go, and where a failed
/// write says so.
#[derive(Clone, PartialEq)]
pub struct Shell {
    pub view: View,
    pub go: Callback<View>,
    pub notify: Notify,
}

/// The app.
#[component]
pub fn App(props: &AppProps) -> Html {
    let view = use_state(|| View {
        user: props.user,
        profile: props.profile.clone(),
    });
    let notice = use_state(|| None::<String>);
    let shell = Shell {
        view: (*view).clone(),
        go: {
            let view = view.setter();
            Callback::from(move |next: View| {
                show_in_address_bar(&next.href());
                view.set(next);
            })
        },
        notify: {
            let notice = notice.setter();
            Callback::from(move |text| notice.set(Some(text)))
        },
    };
    // The page works as a document before the app takes it over; this
    // marks the moment it does (styles and tests look for it).
    use_effect_with((), |()| mark_hydrated());
    let dismiss = {
        let notice = notice.setter();
        Callback::from(move |_| notice.set(None))
    };
    let user = view.user;
    let profile = view.profile.clone();
    html! {
        <CacheProvider base_url={props.api.clone()}>
            <ContextProvider<Shell> context={shell}>
                <header class="top">
                    <h1>{ "Todos" }</h1>
                    <p class="tagline">{ "a restcache demo: rendered on the server, live in the browser" }</p>
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
                    </nav>
                    <main class="todos">
                        if let Some(text) = (*notice).clone() {
                            <div class="notice" role="alert">
                                <p>{ text }</p>
                                <button type="button" onclick={dismiss}>{ "Dismiss" }</button>
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
        </CacheProvider>
    }
}

/// A boundary's fallback: what failed, why, and a retry.
fn failed(what: &'static str) -> Callback<BoundaryError, Html> {
    Callback::from(move |failed: BoundaryError| {
        let retry = failed.reset.reform(|_: MouseEvent| ());
        html! {
            <div class="failed" role="alert">
                <p>{ format!("Could not load {what}: {}.", reason(&failed.error)) }</p>
                <button type="button" onclick={retry}>{ "Retry" }</button>
            </div>
        }
    })
}

/// Puts `href` in the address bar, so a reload shows the same view.
fn show_in_address_bar(href: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(href));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = href;
}

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
