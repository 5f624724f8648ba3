//! `use_loading` around a mutation button: disabled while the request
//! runs, the record updated in the view after it, and the error shown
//! when it fails.

use restcache::prelude::*;
use restcache::yew::{
    AsyncBoundary, CacheProvider, Loading, use_controller, use_loading, use_suspense,
};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

/// Todo 3's state on a button that toggles it.
#[component]
fn Toggle() -> HtmlResult {
    let params = TodoResourceParams { id: 3 };
    let todo = use_suspense(&TodoResource::get(), params.clone())?;
    let ctrl = use_controller();
    let Loading {
        run: toggle,
        loading,
        error,
    } = use_loading(move |done: bool| {
        let (ctrl, params) = (ctrl.clone(), params.clone());
        async move {
            let body = Body::json(&json!({ "completed": done })).unwrap();
            ctrl.fetch(&TodoResource::partial_update(), &params, Some(body))
                .await?;
            Ok(())
        }
    });
    let done = !todo.completed;
    Ok(html! {
        <p>
            <button disabled={loading} onclick={move |_| toggle.emit(done)}>
                { if todo.completed { "done" } else { "open" } }
            </button>
            { error.map(|e| format!(" error {:?}", e.status())).unwrap_or_default() }
        </p>
    })
}

/// The toggle under a provider of `props.ctrl` (`testing` mounts it on
/// a mock client).
#[component]
pub(crate) fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}><Toggle /></AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn use_loading_runs_the_mutation_and_shows_its_state() {
    reset_demo().await;
    let page = mount::<App>(CtrlProps { ctrl: controller() });
    until("the todo", || page.text() == "done").await;

    set_delay(200).await;
    page.button().click();
    until("the button disabled", || {
        page.button().has_attribute("disabled")
    })
    .await;
    until("the update", || page.text() == "open").await;
    until("the button enabled", || {
        !page.button().has_attribute("disabled")
    })
    .await;
    assert_eq!(hits("PATCH /todos/3").await, 1);
    set_delay(0).await;

    outage(true).await;
    page.button().click();
    until("the error", || page.text() == "open error Some(503)").await;
    outage(false).await;
}
