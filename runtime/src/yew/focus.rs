//! Revalidation on focus and reconnect: when the page becomes visible
//! again (`visibilitychange` on the document) or the browser comes back
//! online (`online` on the window), every mounted read that is stale
//! refetches. One set of listeners per provider, throttled, removed when
//! the provider unmounts or its settings change.

use std::time::Duration;

use super::context::CacheContext;

/// Listens for the events the provider asked for; the returned teardown
/// removes the listeners.
#[cfg(target_arch = "wasm32")]
pub(crate) fn listen(
    context: CacheContext,
    on_focus: bool,
    on_reconnect: bool,
    throttle: Duration,
) -> impl FnOnce() {
    use std::cell::Cell;
    use std::rc::Rc;

    use gloo_events::EventListener;
    use web_time::Instant;

    let last: Rc<Cell<Option<Instant>>> = Rc::default();
    let revalidate = move || {
        let now = Instant::now();
        if last
            .get()
            .is_some_and(|at| now.duration_since(at) < throttle)
        {
            return;
        }
        last.set(Some(now));
        context.revalidate_mounted();
    };
    let mut listeners = Vec::new();
    if let Some(window) = web_sys::window() {
        if on_focus && let Some(document) = window.document() {
            let visible = revalidate.clone();
            let watched = document.clone();
            listeners.push(EventListener::new(
                &document,
                "visibilitychange",
                move |_| {
                    if watched.visibility_state() == web_sys::VisibilityState::Visible {
                        visible();
                    }
                },
            ));
        }
        if on_reconnect {
            let online = revalidate.clone();
            listeners.push(EventListener::new(&window, "online", move |_| online()));
        }
    }
    move || drop(listeners)
}

/// On a server there is no page to come back to: nothing to listen for.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn listen(
    context: CacheContext,
    on_focus: bool,
    on_reconnect: bool,
    throttle: Duration,
) -> impl FnOnce() {
    let _ = (context, on_focus, on_reconnect, throttle);
    || {}
}
