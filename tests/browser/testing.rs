//! `restcache::testing` in a browser test: the toggle app of
//! `mutations` mounted on a mock client (no server), a click, and
//! `settled` before each look at the page; the mock's recorded requests
//! asserted.

use restcache::http::Method;
use restcache::testing::{Fixture, MockClient, Reply, settled};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::harness::*;
use crate::mutations::App;

/// A server that holds todo 3 and echoes a PATCH over it; the second
/// PATCH fails.
fn mock() -> MockClient {
    let mock = MockClient::new();
    let mut patches = 0;
    mock.answer(Fixture::new(
        &TodoResource::get(),
        TodoResourceParams { id: 3 },
        json!({"id": 3, "title": "milk", "completed": false}),
    ))
    .intercept(move |request| {
        request.params_of(&TodoResource::partial_update())?;
        patches += 1;
        if patches > 1 {
            return Some(Reply::status(409, "changed elsewhere"));
        }
        let mut todo = json!({"id": 3, "title": "milk", "completed": false});
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
    assert_eq!(page.text(), "open");

    page.click();
    settled(&ctrl).await;
    assert_eq!(page.text(), "done");
    let patch = &mock.requests()[1];
    assert_eq!(
        (patch.method, patch.path.as_str()),
        (Method::Patch, "/todos/3")
    );
    assert_eq!(
        patch.json::<serde_json::Value>(),
        Some(json!({"completed": true}))
    );

    page.click();
    settled(&ctrl).await;
    assert_eq!(page.text(), "done error Some(409)");
    assert_eq!(mock.count(Method::Get, "/todos/3"), 1);
    assert_eq!(mock.requests().len(), 3);
}

#[wasm_bindgen_test]
async fn a_filled_controller_shows_its_fixtures_at_the_first_render() {
    let mock = mock();
    let ctrl = mock.filled_controller().unwrap();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    settled(&ctrl).await;
    assert_eq!(page.text(), "open");
    assert!(mock.requests().is_empty());
}
