//! A failed read in a browser: the boundary catches a 404 in place of its
//! children, and its reset fetches the read again; a fallback goes when
//! the page it stood for goes; a read that fails in a fallback is shown
//! after every reset, or goes to the boundary above.

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, ErrorBoundary, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

/// The id the demo API gives the next todo it creates (it holds five).
const NEXT_ID: u64 = 6;

#[component]
fn Next() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: NEXT_ID })?;
    Ok(html! { <h1>{ &todo.title }</h1> })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <p>{"outside "}</p>
            <AsyncBoundary fallback={html! {"loading"}} error_fallback={failed()}>
                <Next />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn the_boundary_catches_a_404_and_its_reset_fetches_again() {
    reset_demo().await;
    let ctrl = controller();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("the fallback", || {
        page.text() == "outside failed: Some(404)reset"
    })
    .await;
    assert_eq!(hits("GET /todos/6").await, 1);

    // The todo comes to exist on the server (made by another client: the
    // cache does not hold it); reset fetches and shows it.
    let body =
        Body::json(&json!({"userId": 1, "title": "made later", "completed": false})).unwrap();
    let made = ctrl
        .client()
        .call(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    assert_eq!(made.id, NEXT_ID);
    page.click();
    until("the todo after reset", || {
        page.text() == "outside made later"
    })
    .await;
    assert_eq!(hits("GET /todos/6").await, 2);
}

#[derive(Properties, PartialEq)]
struct TodoProps {
    id: u64,
}

#[component]
fn TodoTitle(props: &TodoProps) -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: props.id })?;
    Ok(html! { <h1>{ &todo.title }</h1> })
}

/// A page of one todo, chosen by a link above the boundary: the boundary
/// is told the page (`reset_key`), so a 404's fallback goes with its page.
#[component]
fn Pages(props: &CtrlProps) -> Html {
    let page = use_state(|| NEXT_ID);
    let to_first = {
        let page = page.clone();
        Callback::from(move |_| page.set(1))
    };
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <button onclick={to_first}>{"to todo 1"}</button>
            <AsyncBoundary reset_key={page.to_string()} fallback={html! {"loading"}} error_fallback={failed()}>
                <TodoTitle id={*page} />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn a_fallback_goes_when_the_page_it_stood_for_goes() {
    reset_demo().await;
    let page = mount::<Pages>(CtrlProps { ctrl: controller() });
    until("the 404", || {
        page.text() == "to todo 1failed: Some(404)reset"
    })
    .await;
    page.click();
    until("the next page", || {
        page.text() == "to todo 1delectus aut autem"
    })
    .await;
    assert_eq!(
        hits("GET /todos/6").await,
        1,
        "the failed read is not read again"
    );
}

/// A fallback that reads (todo 7, which does not exist either), without
/// a boundary of its own: its failure is shown in its place.
fn reading_fallback() -> Callback<BoundaryError, Html> {
    Callback::from(|failed: BoundaryError| {
        let which = if failed.error.url().ends_with("/todos/7") {
            "seven"
        } else {
            "six"
        };
        let reset = failed.reset.clone();
        html! {
            <>
                <p>{ format!("failed {which}") }</p>
                <button onclick={move |_| reset.emit(())}>{"reset"}</button>
                <Suspense fallback={html! {"…"}}><TodoTitle id={7} /></Suspense>
            </>
        }
    })
}

#[component]
fn ReadingFallback(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <ErrorBoundary fallback={reading_fallback()}>
                <Suspense fallback={html! {"loading"}}><TodoTitle id={NEXT_ID} /></Suspense>
            </ErrorBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn a_read_that_fails_in_a_fallback_is_shown_after_every_reset() {
    reset_demo().await;
    let page = mount::<ReadingFallback>(CtrlProps { ctrl: controller() });
    until("the fallback's own failure", || {
        page.text() == "failed sevenreset…"
    })
    .await;
    for round in 2..=3 {
        page.click();
        until_hits("GET /todos/7", round).await;
        until("the fallback's failure again", || {
            page.text() == "failed sevenreset…"
        })
        .await;
    }
}

/// An inner boundary whose error fallback reads todo 7, which does not
/// exist either, inside an outer boundary.
#[component]
fn NestedFallbacks(props: &CtrlProps) -> Html {
    let outer = Callback::from(|failed: BoundaryError| {
        let which = if failed.error.url().ends_with("/todos/7") {
            "seven"
        } else {
            "six"
        };
        let reset = failed.reset.clone();
        html! {
            <>
                <p>{ format!("outer failed {which}") }</p>
                <button onclick={move |_| reset.emit(())}>{"reset"}</button>
            </>
        }
    });
    let inner = Callback::from(|_: BoundaryError| html! { <TodoTitle id={7} /> });
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <ErrorBoundary fallback={outer}>
                <AsyncBoundary fallback={html! {"loading"}} error_fallback={inner}>
                    <TodoTitle id={NEXT_ID} />
                </AsyncBoundary>
            </ErrorBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn a_read_that_fails_in_a_fallback_goes_to_the_boundary_above() {
    reset_demo().await;
    let page = mount::<NestedFallbacks>(CtrlProps { ctrl: controller() });
    until("the outer boundary's fallback", || {
        page.text() == "outer failed sevenreset"
    })
    .await;
    assert_eq!(hits("GET /todos/6").await, 1);
    // A reset above fetches both again: the inner boundary's read and its
    // fallback's.
    page.click();
    until_hits("GET /todos/7", 2).await;
    until("the outer boundary's fallback again", || {
        page.text() == "outer failed sevenreset"
    })
    .await;
    assert_eq!(hits("GET /todos/6").await, 2);
}
