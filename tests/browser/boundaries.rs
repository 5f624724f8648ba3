//! A failed read in a browser: the boundary catches a 404 in place of its
//! children, and its reset fetches the read again.

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
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
