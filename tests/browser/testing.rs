//! `restcache::testing` in a browser test: an app mounted on a mock
//! client (no server), a click, and `settled` before each look at the
//! page; the mock's recorded requests asserted.

use restcache::http::Method;
use restcache::prelude::*;
use restcache::testing::{Fixture, MockClient, Reply, settled};
use restcache::yew::{AsyncBoundary, CacheProvider, use_controller, use_loading, use_suspense};
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::HtmlElement;
use yew::prelude::*;

use crate::harness::*;

#[component]
fn Toggle() -> HtmlResult {
    let params = TodoResourceParams { id: 1 };
    let todo = use_suspense(&TodoResource::get(), params.clone())?;
    let ctrl = use_controller();
    let toggle = use_loading(move |done: bool| {
        let (ctrl, params) = (ctrl.clone(), params.clone());
        async move {
            let body = Body::json(&json!({ "completed": done })).unwrap();
            ctrl.fetch(&TodoResource::partial_update(), &params, Some(body))
                .await?;
            Ok(())
        }
    });
    let done = !todo.completed;
    let run = toggle.run;
    Ok(html! {
        <p>
            <button onclick={move |_| run.emit(done)}>
                { format!("{}: {}", todo.title, if todo.completed { "done" } else { "open" }) }
            </button>
            { toggle.error.map(|e| format!(" error {:?}", e.status())).unwrap_or_default() }
        </p>
    })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}><Toggle /></AsyncBoundary>
        </CacheProvider>
    }
}

fn click(page: &Mounted<App>) {
    let button: HtmlElement = page
        .root
        .query_selector("button")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    button.click();
}

/// A server that holds todo 1 and echoes a PATCH over it; the second
/// PATCH fails.
fn mock() -> MockClient {
    let mock = MockClient::new();
    let mut patches = 0;
    mock.answer(Fixture::new(
        &TodoResource::get(),
        TodoResourceParams { id: 1 },
        json!({"id": 1, "title": "milk", "completed": false}),
    ))
    .intercept(move |request| {
        request.params_of(&TodoResource::partial_update())?;
        patches += 1;
        if patches > 1 {
            return Some(Reply::status(409, "changed elsewhere"));
        }
        let mut todo = json!({"id": 1, "title": "milk", "completed": false});
        todo["completed"] = request.json::<serde_json::Value>()?["completed"].clone();
        Some(Reply::json(&todo))
    });
    mock
}

#[wasm_bindgen_test]
async fn a_mounted_app_on_a_mock_client_follows_a_click_and_a_failure() {
    let mock = mock();
    let ctrl = mock.controller();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    settled(&ctrl).await;
    assert_eq!(page.text(), "milk: open");

    click(&page);
    settled(&ctrl).await;
    assert_eq!(page.text(), "milk: done");
    let patch = &mock.requests()[1];
    assert_eq!(
        (patch.method, patch.path.as_str()),
        (Method::Patch, "/todos/1")
    );
    assert_eq!(
        patch.json::<serde_json::Value>(),
        Some(json!({"completed": true}))
    );

    click(&page);
    settled(&ctrl).await;
    assert_eq!(page.text(), "milk: done error Some(409)");
    assert_eq!(mock.count(Method::Get, "/todos/1"), 1);
    assert_eq!(mock.requests().len(), 3);
}

#[wasm_bindgen_test]
async fn a_filled_controller_shows_its_fixtures_at_the_first_render() {
    let mock = mock();
    let ctrl = mock.filled_controller().unwrap();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    settled(&ctrl).await;
    assert_eq!(page.text(), "milk: open");
    assert!(mock.requests().is_empty());
}
