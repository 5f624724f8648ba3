//! Timing on the page: `performance.now()`, a wait of `ms` milliseconds
//! through `setTimeout`, a wait for the next paint, and an act timed from
//! its start to the moment a `MutationObserver` sees the page show what
//! it should.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, MutationObserver, MutationObserverInit};

/// How long an act may take to show on the page before the benchmark
/// gives up on it.
const GIVE_UP_MS: i32 = 30_000;

fn window() -> web_sys::Window {
    web_sys::window().expect("the benchmark runs in a page")
}

/// The page's clock, in milliseconds.
pub fn now() -> f64 {
    window()
        .performance()
        .expect("the page has performance.now()")
        .now()
}

/// Calls `callback` once after `ms` milliseconds.
fn set_timeout(callback: &Function, ms: i32) {
    window()
        .set_timeout_with_callback_and_timeout_and_arguments_0(callback, ms)
        .expect("setTimeout takes a function");
}

/// Resolves after `ms` milliseconds. The timer starts when this is
/// called, not when it is first awaited.
pub fn delay(ms: i32) -> JsFuture {
    let promise = Promise::new(&mut |resolve, _| set_timeout(&resolve, ms));
    JsFuture::from(promise)
}

/// Resolves once the page has painted what it shows now: after two
/// animation frames (the first frame's callbacks run before its paint).
pub async fn next_paint() {
    for _ in 0..2 {
        let frame = Promise::new(&mut |resolve, _| {
            window()
                .request_animation_frame(&resolve)
                .expect("requestAnimationFrame takes a function");
        });
        JsFuture::from(frame).await.expect("a frame never fails");
    }
}

/// Runs `act` and waits until `shows` holds of the page, checked after
/// each change of the DOM under `root`. Returns the milliseconds from the
/// start of `act` to the change after which `shows` held. Panics, naming
/// `what`, when the page already shows it before `act`, or has not shown
/// it after 30 s.
pub async fn time_until(
    root: &Element,
    what: &str,
    shows: impl Fn() -> bool + 'static,
    act: impl Future<Output = ()>,
) -> f64 {
    assert!(!shows(), "the page shows {what} before the act");
    let shown_at = Rc::new(Cell::new(None::<f64>));
    let mut resolve_slot = None;
    let settled = Promise::new(&mut |resolve, _| resolve_slot = Some(resolve));
    let resolve = resolve_slot.expect("a promise runs its executor at once");
    let on_change = Closure::<dyn FnMut(JsValue, MutationObserver)>::new({
        let (shown_at, resolve) = (Rc::clone(&shown_at), resolve.clone());
        move |_, observer: MutationObserver| {
            if shown_at.get().is_none() && shows() {
                shown_at.set(Some(now()));
                observer.disconnect();
                resolve.call0(&JsValue::NULL).expect("resolve never throws");
            }
        }
    });
    let observer = MutationObserver::new(on_change.as_ref().unchecked_ref())
        .expect("a MutationObserver takes a function");
    let options = MutationObserverInit::new();
    options.set_child_list(true);
    options.set_subtree(true);
    options.set_character_data(true);
    options.set_attributes(true);
    observer
        .observe_with_options(root, &options)
        .expect("the root is an element");
    set_timeout(&resolve, GIVE_UP_MS);

    let start = now();
    act.await;
    JsFuture::from(settled)
        .await
        .expect("the promise only resolves");
    observer.disconnect();
    let shown_at = shown_at
        .get()
        .unwrap_or_else(|| panic!("the page did not show {what} within {GIVE_UP_MS} ms"));
    shown_at - start
}

/// Waits until `shows` holds of the page, checked after each change of
/// the DOM under `root` (at once when it already holds). Panics, naming
/// `what`, when it has not held after 30 s.
pub async fn until(root: &Element, what: &str, shows: impl Fn() -> bool + 'static) {
    if !shows() {
        time_until(root, what, shows, async {}).await;
    }
}
