//! restcache's demo app: a todo app in Yew, on the demo API.
//!
//! A server renders each page (its reads fetched and awaited on the
//! server), embeds the cache the page read, and serves the browser bundle
//! of the same app, which takes that cache and hydrates the page without
//! a request. Then it is a normal app:
//!
//! - the people in a sidebar, each with a count of open todos, and the
//!   selected person's todos (`GET /todos?userId=`);
//! - toggle, add, rename and delete, shown at once (optimistic) and taken
//!   back with a notice when the server refuses (switch the demo API's
//!   outage on in the sidebar to see it);
//! - a header count of open todos that reads every todo (`GET /todos`):
//!   the same records as the list, so every change shows in both;
//! - posts five at a time with "Load more"; a profile card (string ids on
//!   the wire); a broken link whose card lands in an error boundary with
//!   a retry;
//! - views older than [`api::FRESH_FOR`] refetch when the tab comes back
//!   into view.
//!
//! The same app at `/saved` is rendered in the browser alone and keeps its
//! cache in IndexedDB: a reload shows the last data at once, and changes
//! made offline are sent, in order, once the network is back, even after
//! a reload ([`saved`]).
//!
//! Run it with `scripts/todo-app.sh` (it builds the bundle and serves the
//! page on 127.0.0.1). Natively this crate is the server
//! ([`server::router`]); built for wasm32 it is the bundle, whose start
//! function hydrates the page.

pub mod actions;
pub mod api;
pub mod app;
pub mod posts;
pub mod profile;
pub mod saved;
pub mod sidebar;
pub mod todos;
pub mod view;

#[cfg(not(target_arch = "wasm32"))]
pub mod server;

pub use app::{App, AppProps};

/// The `id` of the element the app renders into.
pub const ROOT_ID: &str = "app";

/// The bundle's start: takes the props the server rendered with (the
/// view from the address, the rest from the root element) and hydrates
/// the page (the provider takes the handed cache first); on the saved
/// page, opens the saved cache and renders the app.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(ROOT_ID))
    else {
        return;
    };
    let data = |name: &str| root.get_attribute(name).unwrap_or_default();
    let props = AppProps {
        api: data("data-api").into(),
        view: view::current(),
        outage: data("data-outage") == "true",
        saved: data("data-saved") == "true",
    };
    if !props.saved {
        yew::Renderer::<App>::with_root_and_props(root, props).hydrate();
        return;
    }
    // The saved cache is read before the first render, which shows it.
    yew::platform::spawn_local(async move {
        saved::open().await;
        yew::Renderer::<App>::with_root_and_props(root, props).render();
    });
}
