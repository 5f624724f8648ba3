//! A benchmark, not a check (it is ignored by the test run, and asserts
//! nothing): the cost of re-rendering a component whose `use_suspense`
//! reads a warm cache, against a component that holds the same `Rc` in
//! `use_state`, both showing 1,000 todos. Run it with
//!
//!     scripts/browser-tests.sh --bench
//!
//! which prints both times per render and their ratio, from one run.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};
use yew::prelude::*;

use crate::harness::*;

const TODOS: u64 = 1_000;
const RENDERS: u32 = 200;

#[derive(Properties, PartialEq)]
struct ListProps {
    tick: u32,
}

fn items(todos: &[Rc<Todo>], tick: u32) -> Html {
    html! {
        <ul data-tick={tick.to_string()}>
            { for todos.iter().map(|t| html! { <li key={t.id}>{ &t.title }</li> }) }
        </ul>
    }
}

#[component]
fn FromCache(props: &ListProps) -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(items(&todos, props.tick))
}

#[component]
fn FromState(props: &ListProps) -> Html {
    let todos = use_state(thousand);
    items(&todos, props.tick)
}

#[derive(Properties, PartialEq, Clone)]
struct AppProps {
    ctrl: Controller,
    tick: u32,
    cached: bool,
}

#[component]
fn App(props: &AppProps) -> Html {
    let list = if props.cached {
        html! { <FromCache tick={props.tick} /> }
    } else {
        html! { <FromState tick={props.tick} /> }
    };
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>{ list }</AsyncBoundary>
        </CacheProvider>
    }
}

fn thousand() -> Rc<Vec<Rc<Todo>>> {
    let todos = (1..=TODOS).map(|id| {
        Rc::new(Todo {
            id,
            title: format!("todo {id}"),
            ..Todo::default()
        })
    });
    Rc::new(todos.collect())
}

/// Milliseconds per re-render of the app with `cached` (after a warm-up).
async fn per_render(cached: bool) -> f64 {
    let ctrl = controller();
    ctrl.set_response(&TodoResource::get_list(), &(), (*thousand()).clone())
        .unwrap();
    let props = AppProps {
        ctrl,
        tick: 0,
        cached,
    };
    let mut page = mount::<App>(props.clone());
    until("the list", || page.text().contains("todo 1000")).await;
    let handle = page.handle.as_mut().unwrap();
    time_renders(handle, &props, 1..21).await;
    let total = time_renders(handle, &props, 21..21 + RENDERS).await;
    page.unmount();
    total / f64::from(RENDERS)
}

/// Milliseconds to re-render the app once per tick of `ticks`.
async fn time_renders(
    handle: &mut yew::AppHandle<App>,
    props: &AppProps,
    ticks: std::ops::Range<u32>,
) -> f64 {
    let start = now_ms();
    for tick in ticks {
        handle.update(AppProps {
            tick,
            ..props.clone()
        });
        yew::scheduler::flush().await;
    }
    now_ms() - start
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: scripts/browser-tests.sh --bench runs it"]
async fn rerender_cost_of_use_suspense_against_use_state() {
    let mut cached = Vec::new();
    let mut state = Vec::new();
    // Interleaved, so that a slower moment of the machine hits both.
    for _ in 0..3 {
        cached.push(per_render(true).await);
        state.push(per_render(false).await);
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (cached, state) = (best(&cached), best(&state));
    console_log!(
        "re-render of 1,000 todos: use_suspense {cached:.3} ms, use_state {state:.3} ms, ratio {:.3}",
        cached / state
    );
}
